package io.sm4j.it;

import io.sm4j.cli.Sm4jCli;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentLayout;
import io.sm4j.collective.ByteOperator;
import io.sm4j.collective.Op;
import io.sm4j.message.Communicator;
import io.sm4j.message.Request;
import io.sm4j.message.ThreadJob;
import io.sm4j.segment.JobStats;
import io.sm4j.segment.Sm4jException;
import io.sm4j.transport.TransportOptions;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Collections;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The public way in without {@code sm4j run}: a segment made by {@code Communicator.createSegment} or
 * {@code sm4j create}, joined by N ranks running as threads of this JVM, each with its own Communicator
 * over its own mapping of the real file.
 */
@Timeout(120)
class ThreadRanksTest
{
    /** Where the array forms with offsets write their results ({@code arrayFormsWithOffsets...}). */
    private static final int RESULT_OFFSET = 7;

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = { 1, 2, 4 })
    void ranksAsThreadsShouldExchangeOverACreatedSegmentAndRemoveItWhenTheLastCloses(final int size) throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-api-"))
        {
            final Path segment = Communicator.createSegment(dir.path, size);
            assertEquals(SegmentLayout.compute(LayoutParams.defaults(size)).totalBytes(), Files.size(segment));
            assertEquals(expectedLines(size), runRing(segment, size));
            assertTrue(dir.isEmpty(), "the last rank to close removes the file");
        }
    }

    /**
     * One call runs the job: every rank's allReduce sees every rank, and the files are gone afterwards.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = { 1, 3 })
    void threadJobShouldRunEveryRankAndLeaveNoFile(final int size) throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            final long[] sums = new long[size];
            ThreadJob.run(dir.path, size, comm ->
            {
                final long[] sum = new long[1];
                comm.allReduce(new long[]{ comm.rank() + 1 }, sum, Op.SUM);
                sums[comm.rank()] = sum[0];
            });
            for (final long sum : sums)
            {
                assertEquals((long)size * (size + 1) / 2, sum);
            }
            assertTrue(dir.isEmpty(), "files left behind");
        }
    }

    /**
     * scan and exScan through the collective region (the world's) give the same bits as point to point (a
     * second dup, which has no region with the default two contexts), floats of mixed magnitudes, so that
     * the order of combination shows in the result.
     */
    @ParameterizedTest
    @ValueSource(ints = {3, 5, 8})
    @Timeout(60)
    void scansThroughTheRegionShouldGiveThePointToPointBits(final int size) throws Exception
    {
        // the world (context 0) has a region, the second dup (context 2) none: the comparison is region against
        // point to point only while the default layout has regions for two contexts
        assertEquals(2, LayoutParams.defaults(size).collectiveContexts(), "contexts with a collective region");
        try (ScratchDir dir = ScratchDir.create("sm4j-scan-bits-"))
        {
            final String[] mismatch = new String[size];
            ThreadJob.run(dir.path, size, comm ->
            {
                final float[] mine = new float[37];
                final java.util.Random random = new java.util.Random(11L * comm.rank() + size);
                for (int i = 0; i < mine.length; i++)
                {
                    mine[i] = (float)((random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(12) - 6));
                }
                try (Communicator first = comm.dup(); Communicator second = first.dup())
                {
                    for (final boolean exclusive : new boolean[]{false, true})
                    {
                        final float[] region = new float[mine.length];
                        final float[] p2p = new float[mine.length];
                        if (exclusive)
                        {
                            comm.exScan(mine, region, Op.SUM);
                            second.exScan(mine, p2p, Op.SUM);
                        }
                        else
                        {
                            comm.scan(mine, region, Op.SUM);
                            second.scan(mine, p2p, Op.SUM);
                        }
                        for (int i = 0; i < mine.length; i++)
                        {
                            if (Float.floatToRawIntBits(region[i]) != Float.floatToRawIntBits(p2p[i]))
                            {
                                mismatch[comm.rank()] = (exclusive ? "exScan" : "scan") + " element " + i + ": " +
                                    region[i] + " through the region, " + p2p[i] + " point to point";
                            }
                        }
                    }
                }
            });
            for (int r = 0; r < size; r++)
            {
                assertEquals(null, mismatch[r], "rank " + r);
            }
            assertTrue(dir.isEmpty(), "files left behind");
        }
    }

    /**
     * A communicator made by split names its own ranks and the user's tags in errors, and a receive for any
     * source in it fails once every other rank of it has left, while a rank outside it is still attached.
     * The split reverses the order (key -rank), so local and world ranks differ.
     */
    @Test
    @Timeout(60)
    void aSplitCommunicatorShouldNameItsOwnRanksAndFailAnAnySourceReceiveWhenItsOthersLeave() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-split-gaps-"))
        {
            final String[] seen = new String[3];
            ThreadJob.run(dir.path, 3, comm ->
            {
                final Communicator pair = comm.split(comm.rank() < 2 ? 0 : Communicator.UNDEFINED, -comm.rank());
                if (comm.rank() == 1) // the pair's rank 0
                {
                    pair.send(1, 5, new byte[16]);
                    pair.close();
                    return; // leaves the job: the pair's rank 1 is alone in it, while world rank 2 is still here
                }
                if (comm.rank() == 0) // the pair's rank 1
                {
                    seen[0] = assertThrows(Sm4jException.class, () -> pair.recv(0, 5, new byte[8])).getMessage();
                    seen[1] = assertThrows(Sm4jException.class,
                        () -> pair.recv(Communicator.ANY_SOURCE, Communicator.ANY_TAG, new byte[8])).getMessage();
                    seen[2] = assertThrows(Sm4jException.class,
                        () -> pair.probe(Communicator.ANY_SOURCE, Communicator.ANY_TAG)).getMessage();
                    pair.close();
                    comm.send(2, 9, new byte[1]); // rank 2 may leave now
                    return;
                }
                comm.recv(0, 9, new byte[1]); // stays attached until rank 0 is done
            });
            assertEquals("message of 16 bytes from rank 0 (tag 5) truncated: the receive buffer holds 8 bytes", seen[0]);
            assertEquals("the receive from any rank cannot complete: the peer has detached", seen[1]);
            assertEquals("the probe for a message from any rank cannot complete: the peer has detached", seen[2]);
            assertTrue(dir.isEmpty(), "files left behind");
        }
    }

    /**
     * A rank that throws is the cause the call rethrows, and the others, blocked waiting for it, end with the
     * job's abort naming that failure, not with "the peer has detached"; no file is left.
     */
    @Test
    void aRankThatThrowsShouldBeTheCauseAndEndTheOthersWaits() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            final Sm4jException thrown = assertThrows(Sm4jException.class, () -> ThreadJob.run(dir.path, 3, comm ->
            {
                if (comm.rank() == 2)
                {
                    throw new IllegalStateException("boom");
                }
                comm.recv(2, 0, new byte[1]); // never sent: only the abort ends this wait
            }));
            assertEquals("rank 2 of 3 failed: java.lang.IllegalStateException: boom", thrown.getMessage());
            assertEquals("boom", thrown.getCause().getMessage());
            assertEquals(2, thrown.getSuppressed().length);
            for (final Throwable other : thrown.getSuppressed())
            {
                assertTrue(other.getMessage().contains("rank 2 threw java.lang.IllegalStateException: boom"), other.getMessage());
            }
            assertTrue(dir.isEmpty(), "files left behind");
        }
    }

    /**
     * Through the region, a rank that reads nothing in a step (a bcast's root) still finds that the others
     * named another root, at its next step; and a rank whose collective failed midway (its steps no longer
     * line up) refuses every later one instead of reading another call's data.
     */
    @Test
    void ranksThatDisagreeOnARootShouldFailAndAFailedCollectiveShouldLeaveTheNextRefused() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            ThreadJob.run(dir.path, 3, comm ->
            {
                final int root = comm.rank() == 0 ? 0 : 1;
                final byte[] data = new byte[8];
                final Sm4jException roots = assertThrows(Sm4jException.class, () ->
                {
                    comm.bcast(data, 0, 8, root);
                    comm.barrier();
                });
                assertTrue(roots.getMessage().matches("rank [0-2] called this bcast with root [01], this rank with root [01]: " +
                    "the ranks called it with different counts or roots"), roots.getMessage());
                final Sm4jException refused = assertThrows(Sm4jException.class, comm::barrier);
                assertEquals("this communicator's collectives cannot be used: an earlier collective failed midway, " +
                    "and this rank's steps no longer line up with the other ranks'", refused.getMessage());
            });
        }
    }

    /**
     * allGatherv through the region: ranks that pass different counts (here only rank 2's own entry differs,
     * so the steps and the largest block still agree) fail with a line saying so instead of reading a block
     * short.
     */
    @Test
    @Timeout(60)
    void ranksThatPassDifferentCountsToAllGathervShouldFail() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            ThreadJob.run(dir.path, 3, comm ->
            {
                final int[] counts = {16, comm.rank() == 2 ? 8 : 12, 16};
                final int[] displacements = {0, 16, 32};
                final byte[] mine = new byte[counts[comm.rank()]];
                final Sm4jException differ = assertThrows(Sm4jException.class, () ->
                {
                    comm.allGatherv(mine, 0, mine.length, new byte[48], counts, displacements);
                    comm.barrier();
                });
                assertTrue(differ.getMessage().matches("rank [0-2] called this allGatherv with other counts than this " +
                    "rank: every rank must pass the same counts"), differ.getMessage());
            });
        }
    }

    /**
     * The data movers over typed arrays, every type, at lengths through the region and point to point (5 and
     * 20,000 elements per block), against what each rank knows the others hold; arrays of the wrong length or
     * type are refused with a line naming them.
     */
    @Test
    void theDataMoversShouldTakeTypedArrays() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            ThreadJob.run(dir.path, 3, comm ->
            {
                final int rank = comm.rank();
                final int size = comm.size();
                for (final int block : new int[]{ 5, 20_000 })
                {
                    final int[] ints = new int[block];
                    if (rank == 2)
                    {
                        java.util.Arrays.setAll(ints, i -> i * 7 - 3);
                    }
                    comm.bcast(ints, 2);
                    for (int i = 0; i < block; i++)
                    {
                        assertEquals(i * 7 - 3, ints[i]);
                    }

                    final long[] mine = new long[block];
                    java.util.Arrays.setAll(mine, i -> rank * 1_000_000L + i);
                    final long[] gathered = rank == 1 ? new long[block * size] : null;
                    comm.gather(mine, gathered, 1);
                    final double[] all = new double[block * size];
                    comm.allGather(java.util.Arrays.stream(mine).asDoubleStream().toArray(), all);
                    for (int r = 0; r < size; r++)
                    {
                        for (int i = 0; i < block; i += 97)
                        {
                            if (rank == 1)
                            {
                                assertEquals(r * 1_000_000L + i, gathered[r * block + i]);
                            }
                            assertEquals(r * 1_000_000.0 + i, all[r * block + i]);
                        }
                    }

                    final float[] part = new float[block];
                    float[] parts = null;
                    if (rank == 0)
                    {
                        parts = new float[block * size];
                        for (int i = 0; i < parts.length; i++)
                        {
                            parts[i] = i / (float)block + 0.5f;
                        }
                    }
                    comm.scatter(parts, part, 0);
                    assertEquals(rank + 0.5f, part[0]);
                    assertEquals(rank + 0.5f, part[block - 1], 1.0f);

                    final int[] out = new int[block * size];
                    for (int d = 0; d < size; d++)
                    {
                        java.util.Arrays.fill(out, d * block, (d + 1) * block, rank * 10 + d);
                    }
                    final int[] in = new int[block * size];
                    comm.allToAll(out, in);
                    for (int s = 0; s < size; s++)
                    {
                        assertEquals(s * 10 + rank, in[s * block]);
                        assertEquals(s * 10 + rank, in[(s + 1) * block - 1]);
                    }
                }
                final IllegalArgumentException shortArray =
                    assertThrows(IllegalArgumentException.class, () -> comm.allGather(new int[4], new int[11]));
                assertEquals("the n-block array has 11 elements (expected: 3 x 4 = 12)", shortArray.getMessage());
                assertThrows(NullPointerException.class, () -> comm.bcast((long[])null, 0));
            });
        }
    }

    /**
     * The data movers over ByteBuffers (heap and direct, at a position): the bytes between position and limit,
     * neither moved; a read-only receiving buffer is refused before anything is sent.
     */
    @Test
    void collectivesShouldTakeByteBuffersBetweenPositionAndLimit() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            ThreadJob.run(dir.path, 3, comm ->
            {
                final int rank = comm.rank();
                final ByteBuffer data = ByteBuffer.allocateDirect(10).position(2);
                if (rank == 1)
                {
                    data.put(2, (byte)7).put(9, (byte)8);
                }
                comm.bcast(data, 1);
                assertEquals(2, data.position());
                assertEquals(7, data.get(2));
                assertEquals(8, data.get(9));

                final ByteBuffer mine = ByteBuffer.allocate(5).position(1);
                mine.put(1, (byte)(10 + rank)).put(4, (byte)(20 + rank));
                final ByteBuffer all = ByteBuffer.allocateDirect(1 + 12).position(1);
                comm.allGather(mine, all);
                for (int r = 0; r < 3; r++)
                {
                    assertEquals(10 + r, all.get(1 + 4 * r));
                    assertEquals(20 + r, all.get(1 + 4 * r + 3));
                }
                final ByteBuffer gathered = rank == 2 ? ByteBuffer.allocate(12) : null;
                comm.gather(mine, gathered, 2);
                if (rank == 2)
                {
                    assertEquals(11, gathered.get(4));
                }
                final ByteBuffer part = ByteBuffer.allocate(4);
                comm.scatter(rank == 0 ? all : null, part, 0);
                assertEquals(10 + rank, part.get(0));

                final ByteBuffer out = ByteBuffer.allocate(3);
                final ByteBuffer in = ByteBuffer.allocate(3);
                for (int d = 0; d < 3; d++)
                {
                    out.put(d, (byte)(rank * 10 + d));
                }
                comm.allToAll(out, in);
                for (int s = 0; s < 3; s++)
                {
                    assertEquals(s * 10 + rank, in.get(s));
                }
                assertEquals("recv is read-only: a receive writes into it", assertThrows(IllegalArgumentException.class,
                    () -> comm.allGather(mine, ByteBuffer.allocate(12).asReadOnlyBuffer())).getMessage());
                // the n-block side ends at its limit too: 3 x 4 bytes do not fit between 1 and a limit of 12, whatever
                // the capacity beyond it (before, they were written past the limit)
                final ByteBuffer short12 = ByteBuffer.allocateDirect(64).position(1).limit(12);
                assertEquals("recv: offset=1 length=12 capacity=12", assertThrows(IndexOutOfBoundsException.class,
                    () -> comm.allGather(mine, short12)).getMessage());
                assertEquals(0, short12.duplicate().clear().get(12), "written past the limit");
            });
            assertTrue(dir.isEmpty(), "files left behind");
        }
    }

    /**
     * Ranks that wait for each other for good (the application's own deadlock): interrupting the thread in
     * {@code ThreadJob.run} aborts the job, so every rank's wait ends (sm4j's waits are not ended by an interrupt,
     * and before the abort an interrupted wait span at 100 % of a core), and the call throws InterruptedException.
     */
    @Test
    void interruptingTheCallShouldAbortTheJobAndLeaveNoFile() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            final CountDownLatch waiting = new CountDownLatch(2);
            final List<String> ended = Collections.synchronizedList(new ArrayList<>());
            final AtomicReference<Throwable> outcome = new AtomicReference<>();
            final Thread caller = new Thread(() ->
            {
                try
                {
                    ThreadJob.run(dir.path, 2, comm ->
                    {
                        waiting.countDown();
                        try
                        {
                            comm.recv(1 - comm.rank(), 0, new byte[1]); // never sent
                        }
                        catch (final RuntimeException ex)
                        {
                            ended.add(ex.getMessage());
                            throw ex;
                        }
                    });
                    outcome.set(new AssertionError("ThreadJob.run returned"));
                }
                catch (final Throwable thrown)
                {
                    outcome.set(thrown);
                }
            });
            caller.start();
            waiting.await();
            caller.interrupt();
            caller.join();
            assertTrue(outcome.get() instanceof InterruptedException, String.valueOf(outcome.get()));
            assertEquals(2, ended.size(), ended.toString());
            for (final String message : ended)
            {
                assertTrue(message.endsWith("ThreadJob.run was interrupted"), message);
            }
            assertTrue(dir.isEmpty(), "files left behind");
        }
    }

    /**
     * A thread whose interrupt status is set waits as any other: it sleeps instead of spinning, and a peer that
     * sends to it rings it (before, its socket's accept and read closed the doorbell, and every select returned
     * at once); the status is still set afterwards.
     */
    @Test
    void aRankWhoseInterruptStatusIsSetShouldSleepAndBeWoken() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            final long[] cpuAndWall = new long[2];
            final boolean[] stillInterrupted = new boolean[1];
            ThreadJob.run(dir.path, 2, TransportOptions.defaults().withIdle(TransportOptions.Idle.BLOCK), comm ->
            {
                final byte[] message = new byte[1];
                if (comm.rank() == 0)
                {
                    Thread.currentThread().interrupt();
                    final long cpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                    final long start = System.nanoTime();
                    for (int round = 0; round < 5; round++)
                    {
                        comm.recv(1, 0, message); // rank 1 waits 200 ms before each send: this rank sleeps
                        comm.send(1, 0, message);
                    }
                    cpuAndWall[0] = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu;
                    cpuAndWall[1] = System.nanoTime() - start;
                    stillInterrupted[0] = Thread.interrupted();
                }
                else
                {
                    for (int round = 0; round < 5; round++)
                    {
                        TimeUnit.MILLISECONDS.sleep(200); // the pause under test, not a synchronisation
                        comm.send(0, 0, message);
                        comm.recv(0, 0, message);
                    }
                }
            });
            assertTrue(stillInterrupted[0], "the interrupt status was lost");
            assertTrue(cpuAndWall[0] < cpuAndWall[1] / 4, "rank 0 used " + cpuAndWall[0] / 1_000_000 + " ms of CPU in "
                + cpuAndWall[1] / 1_000_000 + " ms of waiting: it span instead of sleeping");
            assertTrue(dir.isEmpty(), "files left behind");
        }
    }

    /**
     * A persistent send whose start fails (its peer has left) did not start: it is not left active with nothing to
     * complete it (before, its await spun for ever and the next start said "still active").
     */
    @Test
    void aPersistentRequestWhoseStartFailsShouldStayStartable() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            final String[] failures = new String[3];
            ThreadJob.run(dir.path, 2, comm ->
            {
                if (comm.rank() == 1)
                {
                    comm.recv(0, 0, new byte[1]);
                    return; // and close: rank 0's next sends have nobody to go to
                }
                final Request send = comm.sendInit(1, 1, new byte[1]);
                comm.send(1, 0, new byte[1]);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (failures[0] == null && System.nanoTime() < deadline)
                {
                    try
                    {
                        send.start().await(); // a poll until rank 1 has left
                    }
                    catch (final Sm4jException gone)
                    {
                        failures[0] = gone.getMessage();
                    }
                }
                failures[1] = assertThrows(Sm4jException.class, send::start).getMessage();
                failures[2] = assertThrows(Sm4jException.class, send::start).getMessage(); // not "still active"
            });
            assertTrue(failures[0] != null && failures[0].contains("detached"), failures[0]);
            assertTrue(failures[1].contains("rank 1 has detached"), "a start after: " + failures[1]);
            assertTrue(failures[2].contains("rank 1 has detached"), "the start after a failed start: " + failures[2]);
        }
    }

    /**
     * A large isend to this rank itself, taken by a receive whose handler throws: the receive fails with the handler's
     * exception and the send completes (before, it was left incomplete for good).
     */
    @Test
    void aSendToItselfTakenByAFailingHandlerShouldComplete() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            final Object[] outcome = new Object[2];
            ThreadJob.run(dir.path, 1, comm ->
            {
                final Request send = comm.isend(0, 7, new byte[1 << 20]); // above the eager limit: queued by reference
                outcome[0] = assertThrows(IllegalStateException.class,
                    () -> comm.recv(0, 7, (status, buffer, offset) -> { throw new IllegalStateException("handler failed"); }))
                    .getMessage();
                outcome[1] = send.await(Duration.ofSeconds(30)); // a watchdog: null if it never completes
            });
            assertEquals("handler failed", outcome[0]);
            assertTrue(outcome[1] != null, "the send never completed");
        }
    }

    /**
     * A send from a shared buffer that waits for room (behind sends the receiver has not taken) when its buffer is
     * freed: it fails with one line and leaves the queue, and later sends to that rank go (before, its start threw
     * at every progress pass, and every later call of the rank threw with it).
     */
    @Test
    void aQueuedSendWhoseSharedBufferIsFreedShouldFailAloneAndLetLaterSendsGo() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            final String[] failure = new String[1];
            final int[] received = new int[1]; // by rank 1
            final int[] sent = new int[1]; // by rank 0
            final CountDownLatch freed = new CountDownLatch(1); // rank 1 takes nothing before: rank 0's sends queue
            ThreadJob.run(dir.path, 2, comm ->
            {
                if (comm.rank() == 1)
                {
                    freed.await();
                    final byte[] any = new byte[1 << 20];
                    while (comm.recv(0, Communicator.ANY_TAG, any).tag() != 0) // every small send, then "go"
                    {
                        received[0]++;
                    }
                    return;
                }
                final List<Request> small = new ArrayList<>();
                Request last;
                do
                {
                    small.add(last = comm.isend(1, 1, new byte[1])); // until one waits for room: rank 1 takes nothing yet (freed)
                }
                while (last.isDone());
                final io.sm4j.window.SharedBuffer shared = comm.allocate(1 << 20);
                final Request fromShared = comm.isend(1, 2, shared, 0, 1 << 20);
                shared.free();
                freed.countDown();
                comm.send(1, 0, new byte[1]); // "go": behind the others, so their queue must move
                failure[0] = assertThrows(Sm4jException.class, fromShared::await).getMessage();
                Request.waitAll(small.toArray(new Request[0]));
                sent[0] = small.size();
            });
            assertTrue(failure[0].contains("cannot start: its shared buffer") && failure[0].endsWith("was freed while the send waited"),
                failure[0]);
            assertEquals(sent[0], received[0], "rank 1 received other than every small send (the freed one must not arrive)");
        }
    }

    /**
     * A rank that sent its last messages and left, while the receiver's budget holds some of them back in shared
     * memory: a receive posted for one behind them is not failed as "the peer has detached" (its message is there,
     * and comes once the receiver takes the others) for the starvation check's second; after it, such a wait fails
     * as before (it could wait for good).
     */
    @Test
    void aReceiveForAMessageHeldBackFromARankThatLeftShouldNotFail() throws Exception
    {
        final TransportOptions smallBudget = withBudget(4096);
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            final byte[] last = new byte[1];
            final Object[] early = new Object[1];
            ThreadJob.run(dir.path, 2, smallBudget, comm ->
            {
                final byte[] data = new byte[1000];
                if (comm.rank() == 0)
                {
                    for (int i = 0; i < 10; i++)
                    {
                        comm.send(1, 1, data); // 10,000 B: more than the receiver's 4 KiB budget keeps
                    }
                    comm.send(1, 3, new byte[]{ 42 });
                    return; // and close: rank 0 has left
                }
                final Request behind = comm.irecv(0, 3, last);
                final Path segment = JobStats.segments(dir.path).get(0);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!JobStats.read(segment).ranks().get(0).state().equals("detached") && System.nanoTime() < deadline)
                {
                    comm.iprobe(0, 99); // progress while rank 0 finishes
                }
                assertEquals("detached", JobStats.read(segment).ranks().get(0).state(), "the scenario: rank 0 has left");
                early[0] = behind.await(Duration.ofMillis(300)); // three health ticks with rank 0 gone: must not fail it
                for (int i = 0; i < 10; i++)
                {
                    comm.recv(0, 1, data);
                }
                behind.await();
            });
            assertEquals(null, early[0], "completed before the messages ahead of it were received");
            assertEquals(42, last[0]);
        }
    }

    /**
     * A closed dup refuses its progress and its persistent requests' starts, as every other call (before: both ran
     * in the world's engine, which is open still, and the start posted a receive in the closed context).
     */
    @Test
    void aClosedDupShouldRefuseProgressAndItsPersistentRequests() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            final String[] refusals = new String[2];
            ThreadJob.run(dir.path, 1, comm ->
            {
                final Communicator copy = comm.dup();
                final Request receive = copy.recvInit(0, 1, new byte[1]);
                copy.close();
                refusals[0] = assertThrows(IllegalStateException.class, copy::progress).getMessage();
                refusals[1] = assertThrows(IllegalStateException.class, receive::start).getMessage();
                comm.progress(); // the world's communicator goes on
            });
            assertEquals("this communicator (made by split or dup) is closed", refusals[0]);
            assertEquals("this communicator (made by split or dup) is closed", refusals[1]);
        }
    }

    /**
     * A receive into a handler that fails (here: the budget holds its message back for good) is withdrawn: its
     * handler does not run later, inside another call, on the message a later receive waits for.
     */
    @Test
    void aFailedReceiveIntoAHandlerShouldBeWithdrawn() throws Exception
    {
        final TransportOptions smallBudget = withBudget(65_536);
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            final int count = 200;
            final boolean[] handled = new boolean[1];
            final byte[] last = new byte[1];
            final String[] failure = new String[1];
            ThreadJob.run(dir.path, 2, smallBudget, comm ->
            {
                final byte[] data = new byte[1000];
                if (comm.rank() == 1)
                {
                    final Request[] sends = new Request[count];
                    for (int i = 0; i < count; i++)
                    {
                        sends[i] = comm.isend(0, 1, data);
                    }
                    comm.send(0, 2, new byte[]{ 42 }); // behind 200,000 B that the 64 KiB budget holds back
                    Request.waitAll(sends);
                    return;
                }
                final Sm4jException starved = assertThrows(Sm4jException.class,
                    () -> comm.recv(1, 2, (status, buffer, offset) -> handled[0] = true));
                failure[0] = starved.getMessage();
                for (int i = 0; i < count; i++)
                {
                    comm.recv(1, 1, data);
                }
                comm.recv(1, 2, last);
            });
            assertTrue(failure[0].contains("cannot arrive"), failure[0]);
            assertFalse(handled[0], "the failed receive's handler took the message");
            assertEquals(42, last[0]);
            assertTrue(dir.isEmpty(), "files left behind");
        }
    }

    @Test
    void abortShouldEndEveryRanksWaitWithItsReason() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-thread-job-"))
        {
            final Sm4jException thrown = assertThrows(Sm4jException.class, () -> ThreadJob.run(dir.path, 2, comm ->
            {
                if (comm.rank() == 1)
                {
                    comm.abort(3, "the input file is empty");
                }
                comm.recv(1, 0, new byte[1]);
            }));
            assertTrue(thrown.getCause().getMessage().endsWith("rank 1 called abort(3): the input file is empty"),
                thrown.getCause().getMessage());
            assertEquals(1, thrown.getSuppressed().length);
            assertTrue(thrown.getSuppressed()[0].getMessage().endsWith("rank 1 called abort(3): the input file is empty"),
                thrown.getSuppressed()[0].getMessage());
            assertTrue(dir.isEmpty(), "files left behind");
        }
    }

    @Test
    void sm4jCreateShouldPrintThePathOfASegmentThatRanksCanJoin() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-create-"))
        {
            final StringWriter out = new StringWriter();
            final StringWriter err = new StringWriter();
            final int code = Sm4jCli.execute(new String[]{ "create", "-n", "3", "--dir", dir.path.toString(), "--queue-entries", "16" },
                new PrintWriter(out, true), new PrintWriter(err, true));
            assertEquals(0, code, err.toString());
            final Path segment = Path.of(out.toString().strip());
            assertEquals(dir.path, segment.getParent());
            assertEquals(SegmentLayout.compute(LayoutParams.builder(3).queueEntries(16).build()).totalBytes(), Files.size(segment));
            assertEquals(expectedLines(3), runRing(segment, 3));
            assertTrue(dir.isEmpty());
        }
    }

    @Test
    void attachShouldNameWhatDisagreesWithTheSegment() throws IOException
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-api-"))
        {
            final Path segment = Communicator.createSegment(dir.path, 2);
            final TransportOptions quick = new TransportOptions(Duration.ofMillis(200), 0, TransportOptions.Idle.AUTO, 0,
                TransportOptions.DEFAULT_UNEXPECTED_BYTES, TransportOptions.Bell.AUTO, TransportOptions.PeerReads.AUTO);
            assertEquals("size=3 but the segment " + segment + " was created for 2 ranks",
                assertThrows(IllegalArgumentException.class, () -> Communicator.attach(segment, 0, 3, quick)).getMessage());
            assertEquals("rank=2, size=2 (expected: 0 <= rank < size)",
                assertThrows(IllegalArgumentException.class, () -> Communicator.attach(segment, 2, 2, quick)).getMessage());
            final Path missing = dir.path.resolve("missing.seg");
            assertTrue(assertThrows(Sm4jException.class, () -> Communicator.attach(missing, 0, 2, quick)).getMessage()
                .startsWith("segment " + missing + " not ready after 200 ms (waiting for the file to exist)"));
            assertFalse(dir.isEmpty(), "rejected attaches leave the file to the job");
        }
    }

    private static List<String> expectedLines(final int size)
    {
        final List<String> lines = new ArrayList<>();
        for (int rank = 0; rank < size; rank++)
        {
            lines.add("rank " + rank + " received 1048576 bytes from rank " + ((rank - 1 + size) % size) + ", all correct");
        }
        return lines;
    }

    private static List<String> runRing(final Path segment, final int size) throws Exception
    {
        final ExecutorService threads = Executors.newFixedThreadPool(size);
        try
        {
            final List<Future<String>> ranks = new ArrayList<>();
            for (int rank = 0; rank < size; rank++)
            {
                final int r = rank;
                ranks.add(threads.submit(() ->
                {
                    try (Communicator comm = Communicator.attach(segment, r, size))
                    {
                        return RingApp.ring(comm, 1 << 20);
                    }
                }));
            }
            final List<String> lines = new ArrayList<>();
            for (final Future<String> rank : ranks)
            {
                lines.add(rank.get());
            }
            return lines;
        }
        finally
        {
            threads.shutdownNow();
        }
    }
    /**
     * The byte[] and ByteBuffer forms of the reductions with a user's operator and of the v collectives: a
     * non-commutative operator (the first non-zero byte in rank order), buffers at positions other than 0.
     */
    @Test
    @Timeout(60)
    void byteArrayAndByteBufferFormsShouldReduceInRankOrderAndPlaceEveryBlock() throws Exception
    {
        final ByteOperator firstNonZero = (left, leftOffset, right, rightOffset, length) ->
        {
            for (int i = 0; i < length; i++)
            {
                if (left.getByte(leftOffset + i) == 0)
                {
                    left.putByte(leftOffset + i, right.getByte(rightOffset + i));
                }
            }
        };
        try (ScratchDir dir = ScratchDir.create("sm4j-forms-"))
        {
            ThreadJob.run(dir.path, 3, comm ->
            {
                final int rank = comm.rank();
                final byte[] send = new byte[6];
                for (int i = 0; i < 6; i++)
                {
                    send[i] = (byte)(i % 3 == rank ? rank + 1 : 0); // byte i's first non-zero is rank i % 3's
                }
                final ByteBuffer sendBuffer = ByteBuffer.allocateDirect(7).position(1);
                sendBuffer.put(send).position(1);

                final byte[] reduced = new byte[6];
                comm.reduce(send, rank == 1 ? reduced : null, firstNonZero, 1);
                final ByteBuffer reducedBuffer = ByteBuffer.allocate(8).position(2);
                comm.allReduce(sendBuffer, reducedBuffer, firstNonZero);
                final byte[] scanned = new byte[6];
                comm.scan(send, scanned, firstNonZero);
                final ByteBuffer exScanned = ByteBuffer.allocate(6);
                comm.exScan(sendBuffer, exScanned, firstNonZero);
                for (int i = 0; i < 6; i++)
                {
                    if (rank == 1)
                    {
                        assertEquals(i % 3 + 1, reduced[i], "reduce, byte " + i);
                    }
                    assertEquals(i % 3 + 1, reducedBuffer.get(2 + i), "allReduce, byte " + i);
                    assertEquals(i % 3 <= rank ? i % 3 + 1 : 0, scanned[i], "scan, byte " + i);
                    if (rank > 0)
                    {
                        assertEquals(i % 3 < rank ? i % 3 + 1 : 0, exScanned.get(i), "exScan, byte " + i);
                    }
                }
                assertEquals(1, sendBuffer.position(), "no position moves");
                final byte[] block = new byte[2];
                comm.reduceScatter(send, block, firstNonZero);
                final ByteBuffer blockBuffer = ByteBuffer.allocate(3).position(1);
                comm.reduceScatter(sendBuffer, blockBuffer, firstNonZero);
                for (int j = 0; j < 2; j++)
                {
                    assertEquals((2 * rank + j) % 3 + 1, block[j], "reduceScatter of arrays, byte " + j);
                    assertEquals((2 * rank + j) % 3 + 1, blockBuffer.get(1 + j), "reduceScatter of buffers, byte " + j);
                }

                // v forms: rank r has r + 1 bytes of value 10 + r, placed at displacements 0, 1, 3 after position 1
                final int[] counts = { 1, 2, 3 };
                final int[] displacements = { 0, 1, 3 };
                final ByteBuffer mine = ByteBuffer.allocate(rank + 2).position(1);
                for (int j = 0; j < rank + 1; j++)
                {
                    mine.put(1 + j, (byte)(10 + rank));
                }
                final ByteBuffer gathered = rank == 0 ? ByteBuffer.allocate(7).position(1) : null;
                comm.gatherv(mine, gathered, counts, displacements, 0);
                final ByteBuffer everyones = ByteBuffer.allocateDirect(7).position(1);
                comm.allGatherv(mine, everyones, counts, displacements);
                final ByteBuffer scattered = ByteBuffer.allocate(rank + 1);
                comm.scatterv(rank == 0 ? everyones : null, counts, displacements, scattered, 0);
                final ByteBuffer exchanged = ByteBuffer.allocate(6);
                final int[] sendCounts = new int[3];
                final int[] sendDisplacements = new int[3];
                final int[] recvCounts = new int[3];
                final int[] recvDisplacements = new int[3];
                for (int r = 0; r < 3; r++)
                {
                    sendCounts[r] = rank + 1; // every rank gets this rank's bytes, and sends the same ones to all
                    sendDisplacements[r] = 0;
                    recvCounts[r] = r + 1;
                    recvDisplacements[r] = displacements[r];
                }
                comm.allToAllv(mine, sendCounts, sendDisplacements, exchanged, recvCounts, recvDisplacements);
                for (int r = 0; r < 3; r++)
                {
                    for (int j = 0; j < r + 1; j++)
                    {
                        if (rank == 0)
                        {
                            assertEquals(10 + r, gathered.get(1 + displacements[r] + j), "gatherv");
                        }
                        assertEquals(10 + r, everyones.get(1 + displacements[r] + j), "allGatherv");
                        assertEquals(10 + r, exchanged.get(displacements[r] + j), "allToAllv");
                    }
                }
                for (int j = 0; j < rank + 1; j++)
                {
                    assertEquals(10 + rank, scattered.get(j), "scatterv");
                }
            });
            assertTrue(dir.isEmpty(), "files left behind");
        }
    }

    /**
     * The array forms with offsets (reduce, allReduce, scan, exScan, reduceScatter, allToAll, sendRecv) write
     * what the buffer forms write at the same offsets, and nothing outside the range.
     */
    @Test
    void arrayFormsWithOffsetsShouldWriteWhatTheBufferFormsWriteAndNothingElse() throws Exception
    {
        final int size = 3;
        final int in = 5;
        final int out = RESULT_OFFSET;
        final ByteOperator sum = (left, leftOffset, right, rightOffset, length) ->
        {
            for (int i = 0; i < length; i += Long.BYTES)
            {
                left.putLong(leftOffset + i, left.getLong(leftOffset + i) + right.getLong(rightOffset + i));
            }
        };
        try (ScratchDir dir = ScratchDir.create("sm4j-offsets-"))
        {
            ThreadJob.run(dir.path, size, comm ->
            {
                final int rank = comm.rank();
                final byte[] send = new byte[in + size * Long.BYTES + 3];
                Arrays.fill(send, (byte)0x55);
                for (int d = 0; d < size; d++)
                {
                    new UnsafeBuffer(send).putLong(in + d * Long.BYTES, 100L * (rank + 1) + d);
                }
                final int right = (rank + 1) % size;
                final int left = (rank + size - 1) % size;
                final int two = 2 * Long.BYTES;
                same(rank, "reduce", recv -> comm.reduce(send, in, recv, out, two, sum, 1),
                    recv -> comm.reduce(wrap(send), in, wrap(recv), out, two, sum, 1));
                same(rank, "allReduce", recv -> comm.allReduce(send, in, recv, out, two, sum),
                    recv -> comm.allReduce(wrap(send), in, wrap(recv), out, two, sum));
                final byte[] sums = guarded(out + two);
                comm.allReduce(send, in, sums, out, two, sum);
                assertEquals(600, new UnsafeBuffer(sums).getLong(out), "the sum");
                same(rank, "scan", recv -> comm.scan(send, in, recv, out, Long.BYTES, sum),
                    recv -> comm.scan(wrap(send), in, wrap(recv), out, Long.BYTES, sum));
                same(rank, "exScan", recv -> comm.exScan(send, in, recv, out, Long.BYTES, sum),
                    recv -> comm.exScan(wrap(send), in, wrap(recv), out, Long.BYTES, sum));
                same(rank, "reduceScatter", recv -> comm.reduceScatter(send, in, recv, out, Long.BYTES, sum),
                    recv -> comm.reduceScatter(wrap(send), in, wrap(recv), out, Long.BYTES, sum));
                same(rank, "allToAll", recv -> comm.allToAll(send, in, recv, out, Long.BYTES),
                    recv -> comm.allToAll(wrap(send), in, wrap(recv), out, Long.BYTES));
                same(rank, "sendRecv", recv -> comm.sendRecv(right, 3, send, in, Long.BYTES, left, 3, recv, out, Long.BYTES),
                    recv -> comm.sendRecv(right, 3, wrap(send), in, Long.BYTES, left, 3, wrap(recv), out, Long.BYTES));
            });
            assertTrue(dir.isEmpty(), "files left behind");
        }
    }

    /**
     * @return the default settings with an unexpected-message budget of {@code bytes}.
     */
    private static TransportOptions withBudget(final long bytes)
    {
        return TransportOptions.fromEnvironment(Map.of(TransportOptions.UNEXPECTED_BYTES_ENV, Long.toString(bytes)));
    }

    /**
     * Runs a call's array form and its buffer form into guarded arrays, results at {@link #RESULT_OFFSET}: the
     * same bytes, and none written outside (up to 3 longs).
     */
    private static void same(final int rank, final String name, final Consumer<byte[]> arrays, final Consumer<byte[]> buffers)
    {
        final byte[] byArrays = guarded(RESULT_OFFSET + 3 * Long.BYTES + 2);
        final byte[] byBuffers = guarded(byArrays.length);
        arrays.accept(byArrays);
        buffers.accept(byBuffers);
        assertTrue(Arrays.equals(byArrays, byBuffers), name + " on rank " + rank);
        assertEquals(0x66, byArrays[RESULT_OFFSET - 1] & 0xff, name + " wrote before its offset");
        assertEquals(0x66, byArrays[byArrays.length - 1] & 0xff, name + " wrote past its range");
    }

    private static byte[] guarded(final int length)
    {
        final byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte)0x66);
        return bytes;
    }

    private static UnsafeBuffer wrap(final byte[] bytes)
    {
        return new UnsafeBuffer(bytes);
    }
}
