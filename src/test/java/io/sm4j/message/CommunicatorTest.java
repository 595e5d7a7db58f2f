package io.sm4j.message;


import io.sm4j.collective.Op;
import io.sm4j.layout.LayoutParams;
import io.sm4j.transport.TransportOptions;
import io.sm4j.transport.TwoRanks;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static io.sm4j.message.Communicator.ANY_SOURCE;
import static io.sm4j.message.Communicator.ANY_TAG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The communicator's contract in one JVM over a real two-rank segment: argument errors, self messages,
 * timeouts, and a large message between two threads (the multi-JVM behaviour is in io.sm4j.it.MessageTest).
 */
@Timeout(60)
class CommunicatorTest extends TwoCommunicators
{
    @Test
    void aSecondCommunicatorOverOneEndpointShouldBeRefused()
    {
        assertEquals("rank 0's endpoint already has its Communicator: a second Communicator over it would take the first " +
            "one's messages (dup() or split() give separate matching contexts)",
            assertThrows(IllegalStateException.class, () -> new Communicator(ranks.rank0)).getMessage());
        rank0.send(1, 5, new byte[]{ 6 });
        final byte[] in = new byte[1];
        assertEquals(new Status(0, 5, 1), rank1.recv(0, 5, in));
        assertEquals(6, in[0], "the first communicator works on");
    }

    @Test
    void shouldRejectBadArgumentsBeforeAnythingIsSent()
    {
        final byte[] four = new byte[4];
        assertEquals("tag=-2 (expected: >= 0)",
            assertThrows(IllegalArgumentException.class, () -> rank0.send(1, -2, four)).getMessage());
        assertEquals("tag=-1 (expected: >= 0)",
            assertThrows(IllegalArgumentException.class, () -> rank0.send(1, ANY_TAG, four)).getMessage());
        assertEquals("tag=-7 (expected: >= 0 or ANY_TAG)",
            assertThrows(IllegalArgumentException.class, () -> rank1.irecv(0, -7, four, 0, 4)).getMessage());
        assertEquals("dest=2 (expected: 0..1)",
            assertThrows(IllegalArgumentException.class, () -> rank0.isend(2, 0, four, 0, 4)).getMessage());
        assertEquals("dest=-1 (expected: 0..1)",
            assertThrows(IllegalArgumentException.class, () -> rank0.send(ANY_SOURCE, 0, four)).getMessage());
        assertEquals("source=5 (expected: 0..1 or ANY_SOURCE)",
            assertThrows(IllegalArgumentException.class, () -> rank1.recv(5, 0, four)).getMessage());
        assertEquals("source=-3 (expected: 0..1 or ANY_SOURCE)",
            assertThrows(IllegalArgumentException.class, () -> rank1.iprobe(-3, 0)).getMessage());
        assertEquals("buffer is null", assertThrows(NullPointerException.class, () -> rank0.send(1, 0, (byte[])null)).getMessage());
        assertEquals("buffer is null", assertThrows(NullPointerException.class, () -> rank1.irecv(0, 0, (ByteBuffer)null)).getMessage());
        assertEquals("handler is null", assertThrows(NullPointerException.class, () -> rank1.recv(0, 0, (MessageHandler)null)).getMessage());
        assertEquals("offset=2 length=3 capacity=4",
            assertThrows(IndexOutOfBoundsException.class, () -> rank0.isend(1, 0, four, 2, 3)).getMessage());
        assertEquals("offset=-1 length=1 capacity=4",
            assertThrows(IndexOutOfBoundsException.class, () -> rank1.irecv(0, 0, four, -1, 1)).getMessage());
        assertEquals("offset=0 length=-1 capacity=4",
            assertThrows(IndexOutOfBoundsException.class, () -> rank1.irecv(0, 0, new UnsafeBuffer(four), 0, -1)).getMessage());

        assertNull(rank1.iprobe(ANY_SOURCE, ANY_TAG), "a rejected call sent something");
        rank0.send(1, 3, new byte[]{ 9 });
        final byte[] in = new byte[1];
        assertEquals(new Status(0, 3, 1), rank1.recv(0, ANY_TAG, in));
        assertEquals(9, in[0]);
    }

    /**
     * By default a 4 KiB message goes eager (the eager limit counts its 16 bytes of headers on top): its isend
     * completes with no receive posted, the bytes kept in shared memory; a byte more goes by rendezvous, whose
     * isend waits for its receive.
     */
    @Test
    void aFourKibMessageShouldGoEagerByDefault()
    {
        assertEquals(4096, rank0.eagerPayload());
        final byte[] page = new byte[4096];
        final byte[] larger = new byte[4097];
        for (int i = 0; i < larger.length; i++)
        {
            larger[i] = (byte)(i * 31 + 7);
        }
        System.arraycopy(larger, 1, page, 0, page.length);
        final Request eager = rank0.isend(1, 5, page, 0, page.length);
        assertTrue(eager.test(), "a 4 KiB isend waited for its receive");
        final Request rendezvous = rank0.isend(1, 6, larger, 0, larger.length);
        assertFalse(rendezvous.test(), "a 4097-byte isend completed with no receive posted");
        final byte[] pageIn = new byte[page.length];
        assertEquals(new Status(0, 5, page.length), rank1.recv(0, 5, pageIn));
        assertArrayEquals(page, pageIn);
        final byte[] largerIn = new byte[larger.length];
        final Request receive = rank1.irecv(0, 6, largerIn, 0, largerIn.length);
        while (!(rendezvous.test() & receive.test()))
        {
            Thread.onSpinWait(); // one thread makes both ranks' progress: each test is a pass of its rank
        }
        assertArrayEquals(larger, largerIn);
    }

    /**
     * A large message from off-heap memory is read by its receiver straight out of the sender's process (here
     * this JVM's own /proc/PID/mem, or process_vm_readv on JDK 22+): its receive completes in the one pass that
     * finds the RGET (or the irecv that finds it unexpected, after a probe), into an array, a direct ByteBuffer or
     * memory at an address, at offsets of the buffer and of its wrapping; its send in the sender's next pass, on
     * the COPIED ACK. Through the pipeline the receive would wait for the sender's fragments.
     */
    @Test
    void aLargeOffHeapMessageShouldBeReadByItsReceiverInOnePass() throws IOException
    {
        // every message read (SM4J_PEER_READS=on): by default some would be streamed, by what the receiver measured
        try (TwoRanks reading = new TwoRanks(LayoutParams.defaults(2), TransportOptions.defaults().withPeerReads(TransportOptions.PeerReads.ON)))
        {
            final Communicator sender = new Communicator(reading.rank0);
            final Communicator receiver = new Communicator(reading.rank1);
            final int length = (1 << 20) + 3;
            final UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(length + 5));
            for (int i = 0; i < out.capacity(); i++)
            {
                out.putByte(i, (byte)(i * 13 + 1));
            }
            final ByteBuffer memory = ByteBuffer.allocateDirect(length + 7);
            final UnsafeBuffer[] receiveBuffers = {
                new UnsafeBuffer(new byte[length + 7]),
                new UnsafeBuffer(ByteBuffer.allocateDirect(length + 7)),
                new UnsafeBuffer(new UnsafeBuffer(memory).addressOffset(), length + 7),
                new UnsafeBuffer(ByteBuffer.allocateDirect(length + 20), 13, length + 7),
                new UnsafeBuffer(new byte[length + 20], 13, length + 7) };
            for (int kind = 0; kind < receiveBuffers.length; kind++)
            {
                final Request send = sender.isend(1, kind, out, 5, length);
                assertFalse(send.test(), "a large send completed with no receive posted");
                if (kind % 2 == 1)
                {
                    assertEquals(new Status(0, kind, length), receiver.probe(0, kind), "kept as unexpected, then matched");
                }
                final Request receive = receiver.irecv(0, kind, receiveBuffers[kind], 7, length);
                assertTrue(receive.test(), "receive buffer " + kind + ": not read in the pass that matched the message");
                assertTrue(send.test(), "receive buffer " + kind + ": the send did not complete on the COPIED ACK");
                for (int i = 0; i < length; i++)
                {
                    assertEquals(out.getByte(5 + i), receiveBuffers[kind].getByte(7 + i), "receive buffer " + kind + ", byte " + i);
                }
            }
            Reference.reachabilityFence(memory); // the third buffer holds only its address
        }
    }

    /**
     * By default a receiver chooses between reading a large off-heap message and having it streamed
     * ({@link FasterOfTwo}): the first of a size class is read in the pass that matches it, the second streamed
     * over several passes (and timed), and its sender goes on offering reads (the ACK says the stream was a
     * choice): a later message of the class is read again, at the latest when the read is tried again.
     */
    @Test
    void aReceiverShouldReadOrHaveStreamedByChoiceAndBeOfferedReadsAgain() throws ReflectiveOperationException
    {
        final int length = 1 << 16;
        final UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(length));
        final UnsafeBuffer in = new UnsafeBuffer(ByteBuffer.allocateDirect(length));
        final boolean[] readInOnePass = new boolean[FasterOfTwo.RETRY + 2];
        for (int m = 0; m < readInOnePass.length; m++)
        {
            for (int i = 0; i < length; i++)
            {
                out.putByte(i, (byte)(i * 7 + m));
            }
            final Request send = rank0.isend(1, 3, out, 0, length);
            final Request receive = rank1.irecv(0, 3, in, 0, length);
            readInOnePass[m] = receive.test();
            while (!(send.test() & receive.test()))
            {
                // streamed: one thread makes both ranks' progress
            }
            for (int i = 0; i < length; i++)
            {
                assertEquals((byte)(i * 7 + m), in.getByte(i), "message " + m + ", byte " + i);
            }
            if (m == 1)
            {
                assertTrue(streamCost(rank1) > 0, "the stream it chose was not timed");
            }
        }
        assertTrue(readInOnePass[0], "a size class's first message is read");
        assertFalse(readInOnePass[1], "its second is streamed");
        boolean readAgain = false;
        for (int m = 2; m < readInOnePass.length; m++)
        {
            readAgain |= readInOnePass[m];
        }
        assertTrue(readAgain, "no message was read after the stream by choice: its sender stopped offering reads");
    }

    /**
     * @return the cost per byte of a stream of 64 KiB as {@code receiver}'s matcher has measured it.
     */
    private static double streamCost(final Communicator receiver) throws ReflectiveOperationException
    {
        // the fields themselves: no accessor only a test would call
        final java.lang.reflect.Field matcher = Communicator.class.getDeclaredField("matcher");
        matcher.setAccessible(true);
        final java.lang.reflect.Field choice = Matcher.class.getDeclaredField("readOrStream");
        choice.setAccessible(true);
        final java.lang.reflect.Field cost = FasterOfTwo.class.getDeclaredField("cost");
        cost.setAccessible(true);
        return ((double[][])cost.get(choice.get(matcher.get(receiver))))[1][16 - 14];
    }

    /**
     * A receive too short for a message in the sender's process fails with the truncation, reading nothing, and
     * the send completes (DISCARD), as for any large message.
     */
    @Test
    void aReceiveTooShortForAMessageInTheSendersProcessShouldFailAndReleaseTheSend()
    {
        final int length = 1 << 16;
        final Request send = rank0.isend(1, 8, new UnsafeBuffer(ByteBuffer.allocateDirect(length)), 0, length);
        final byte[] small = new byte[100];
        final Request receive = rank1.irecv(0, 8, small, 0, small.length);
        assertEquals("message of " + length + " bytes from rank 0 (tag 8) truncated: the receive buffer holds 100 bytes",
            assertThrows(TruncationException.class, receive::test).getMessage());
        assertTrue(send.test(), "the send did not complete on the DISCARD ACK");
    }

    /**
     * A wait over several requests that throws one's error releases that one only: the others that completed stay
     * active and the next call returns them (before, they were released with the throw, their statuses lost).
     */
    @Test
    void aWaitOverSeveralRequestsThatThrowsShouldKeepTheOthersThatCompleted()
    {
        final byte[] fits = new byte[8];
        final Request good = rank1.irecv(0, 1, fits, 0, 8);
        final Request truncated = rank1.irecv(0, 2, new byte[1], 0, 1);
        rank0.send(1, 1, new byte[]{ 5 });
        rank0.send(1, 2, new byte[4]);
        final Request[] both = { good, truncated };
        assertThrows(TruncationException.class, () -> Request.waitAll(both));
        assertNull(both[1], "the failed one is released");
        assertEquals(good, both[0], "the one that completed is kept");
        final Status[] statuses = Request.waitAll(both);
        assertEquals(new Status(0, 1, 1), statuses[0]);
        assertNull(both[0], "released once reported");
        assertEquals(5, fits[0]);

        final Request other = rank1.irecv(0, 3, fits, 0, 8);
        final Request short2 = rank1.irecv(0, 4, new byte[1], 0, 1);
        rank0.send(1, 3, new byte[]{ 6 });
        rank0.send(1, 4, new byte[4]);
        final Request[] some = { other, short2 };
        while (!other.isDone() || !short2.isDone())
        {
            rank1.progress(); // both complete before the waitSome below takes them
        }
        assertThrows(TruncationException.class, () -> Request.waitSome(some));
        assertEquals(1, Request.waitSome(some).length, "the one that completed, on the next call");
    }

    /**
     * A receiver that does not read peers' processes ({@link TransportOptions.PeerReads#OFF}) has a RGET of off-heap
     * memory streamed through the pipeline instead: every byte arrives, over several passes.
     */
    @Test
    void aReceiverThatDoesNotReadPeersShouldHaveTheMessageStreamed() throws IOException
    {
        try (TwoRanks refusing = new TwoRanks(LayoutParams.defaults(2), TransportOptions.defaults().withPeerReads(TransportOptions.PeerReads.OFF)))
        {
            final Communicator sender = new Communicator(refusing.rank0);
            final Communicator receiver = new Communicator(refusing.rank1);
            final int length = 1 << 20;
            final UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(length));
            for (int i = 0; i < length; i++)
            {
                out.putByte(i, (byte)(i * 7 + 3));
            }
            final byte[] in = new byte[length];
            final Request send = sender.isend(1, 4, out, 0, length);
            final Request receive = receiver.irecv(0, 4, in, 0, length);
            assertFalse(receive.test(), "the receive completed before any fragment was streamed");
            int passes = 0;
            while (!(send.test() & receive.test()))
            {
                passes++; // one thread makes both ranks' progress: each test is a pass of its rank
            }
            assertTrue(passes > 1, "streamed in " + passes + " passes");
            for (int i = 0; i < length; i++)
            {
                assertEquals(out.getByte(i), in[i], "byte " + i);
            }
        }
    }

    /**
     * The collectives and the multi-request calls refuse bad input with a line naming it, before anything is
     * sent: the peer, which calls nothing, would otherwise wait.
     */
    @Test
    void collectivesAndMultiRequestCallsShouldRejectBadArgumentsBeforeAnythingIsSent()
    {
        assertEquals("root=2 (expected: 0..1)",
            assertThrows(IllegalArgumentException.class, () -> rank0.bcast(new byte[4], 0, 4, 2)).getMessage());
        assertEquals("BAND applies to integers only, not to double[]",
            assertThrows(IllegalArgumentException.class, () -> rank0.allReduce(new double[1], new double[1], Op.BAND)).getMessage());
        assertEquals("recv has 2 elements, send 1: they must match",
            assertThrows(IllegalArgumentException.class, () -> rank0.allReduce(new long[1], new long[2], Op.SUM)).getMessage());
        assertEquals("recv is null",
            assertThrows(NullPointerException.class, () -> rank0.gather(new byte[4], 0, 4, null, 0)).getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> rank0.allToAll(new byte[4], new byte[8], 4));
        assertEquals("buffer is read-only: a receive writes into it", assertThrows(IllegalArgumentException.class,
            () -> rank0.recvInit(1, 0, ByteBuffer.allocate(4).asReadOnlyBuffer())).getMessage());
        final Request mine = rank0.irecv(1, 3, new byte[1]);
        final Request theirs = rank1.irecv(0, 3, new byte[1]);
        assertEquals("the requests belong to more than one communicator: wait for each one's apart",
            assertThrows(IllegalArgumentException.class, () -> Request.waitAll(mine, theirs)).getMessage());
        assertEquals(-1, Request.testAny(mine, null), "nothing arrived");
        assertEquals(-1, Request.waitAny(null, null), "only null requests: MPI_UNDEFINED");
        rank1.send(0, 3, ByteBuffer.wrap(new byte[]{ 7 }));
        final Request init = rank0.sendInit(1, 3, ByteBuffer.wrap(new byte[]{ 8 }));
        init.start();
        assertEquals(1, Request.waitAll(mine, init, null)[0].length());
        theirs.await();
        final Request[] three = { rank0.irecv(1, 8, new byte[1]), rank0.irecv(1, 8, new byte[1]), rank0.recvInit(1, 8, new byte[1]) };
        rank1.send(0, 8, new byte[1]);
        rank1.send(0, 8, new byte[1]);
        assertEquals(0, Request.waitAny(three));
        assertNull(three[0], "a request waitAny returned is MPI_REQUEST_NULL");
        assertEquals(1, Request.waitAny(three));
        assertEquals(-1, Request.waitAny(three), "a persistent request never started is inactive: skipped");
    }

    /**
     * MPI_Cancel: a posted receive that no message has matched is withdrawn (the next message goes to the
     * receive posted after it); a completed one, and a send, are not cancelled; a cancelled persistent
     * receive can be started again.
     */
    @Test
    void aPostedReceiveShouldBeCancellableUntilAMessageMatchesIt()
    {
        final byte[] in = new byte[4];
        final Request first = rank0.irecv(1, 9, in);
        assertTrue(first.cancel());
        assertTrue(first.isCancelled() && first.isDone());
        assertEquals(0, first.await().length());
        final Request second = rank0.irecv(1, 9, in);
        rank1.send(0, 9, new byte[]{ 5 });
        assertEquals(1, second.await().length(), "the message went to the receive posted after the cancelled one");
        assertFalse(second.cancel(), "already complete");
        assertFalse(second.isCancelled());
        final Request send = rank0.isend(1, 9, new byte[1]);
        assertFalse(send.cancel(), "sends complete on their own");
        rank1.recv(0, 9, new byte[1]);
        send.await();
        final Request persistent = rank0.recvInit(1, 10, in);
        persistent.start();
        assertTrue(persistent.cancel());
        persistent.start();
        rank1.send(0, 10, new byte[2]);
        assertEquals(2, persistent.await().length());
        assertFalse(persistent.isCancelled());
    }

    @Test
    void shouldDeliverMessagesToSelfInOrderAndTruncateWithBothSizes()
    {
        final Request first = rank0.isend(0, 1, new byte[]{ 1, 2 }, 0, 2);
        rank0.send(0, 1, ByteBuffer.wrap(new byte[]{ 3, 4, 5 }));
        assertEquals(new Status(0, 1, 2), first.await());
        final byte[] in = new byte[3];
        assertEquals(new Status(0, 1, 2), rank0.recv(ANY_SOURCE, 1, in));
        assertArrayEquals(new byte[]{ 1, 2, 0 }, in);
        assertEquals("message of 3 bytes from rank 0 (tag 1) truncated: the receive buffer holds 2 bytes",
            assertThrows(TruncationException.class, () -> rank0.recv(0, 1, new byte[2])).getMessage());
        assertNull(rank0.iprobe(0, 1), "the truncated message was not consumed");
    }

    @Test
    void awaitWithATimeoutShouldReturnNullWhenNothingArrivesAndLeaveTheReceivePosted()
    {
        final byte[] in = new byte[8];
        final Request pending = rank1.irecv(0, 4, in, 0, 8);
        assertNull(pending.await(Duration.ofMillis(50)));
        assertNull(pending.status());
        assertNull(pending.await(Duration.ofMillis(-5)), "a negative timeout has passed");
        rank0.send(1, 4, new byte[]{ 7 });
        // a timeout past a long of nanoseconds waits for the message (the sum wrapped round to the past: no wait)
        assertEquals(new Status(0, 4, 1), pending.await(Duration.ofNanos(Long.MAX_VALUE)));
        assertEquals(7, in[0]);
        final Request next = rank1.irecv(0, 5, in, 0, 8);
        rank0.send(1, 5, new byte[]{ 8 });
        assertEquals(new Status(0, 5, 1), next.await(Duration.ofMillis(Long.MAX_VALUE)), "more than toNanos holds");
    }

    @Test
    void aLargeMessageShouldArriveWhole() throws Exception
    {
        final byte[] out = new byte[1_000_003];
        for (int i = 0; i < out.length; i++)
        {
            out[i] = (byte)(i * 31 + (i >>> 11));
        }
        final CompletableFuture<Status> sender = CompletableFuture.supplyAsync(() -> rank0.isend(1, 2, out, 0, out.length).await());
        final ByteBuffer in = ByteBuffer.allocateDirect(out.length + 10);
        in.position(5);
        assertEquals(new Status(0, 2, out.length), rank1.recv(0, 2, in));
        assertEquals(new Status(1, 2, out.length), sender.get());
        final byte[] received = new byte[out.length];
        in.get(received);
        assertArrayEquals(out, received);
    }

    @Test
    void aLargeMessageToSelfShouldBeHeldByReferenceAndCompleteWhenReceived()
    {
        final byte[] out = new byte[100_000];
        out[99_999] = 5;
        assertEquals("a blocking send of 100000 bytes to this rank itself (tag 3) would never complete: post the " +
            "receive first, or use isend", assertThrows(IllegalArgumentException.class, () -> rank0.send(0, 3, out)).getMessage());
        final Request send = rank0.isend(0, 3, out, 0, out.length);
        assertNull(send.status(), "completes only when received");
        assertEquals(new Status(0, 3, 100_000), rank0.iprobe(0, 3));
        final byte[] in = new byte[100_000];
        assertEquals(new Status(0, 3, 100_000), rank0.recv(0, 3, in));
        assertEquals(new Status(0, 3, 100_000), send.status());
        assertArrayEquals(out, in);
    }

    @Test
    void misuseShouldFailClearly()
    {
        assertEquals("buffer is read-only: a receive writes into it", assertThrows(IllegalArgumentException.class,
            () -> rank1.irecv(0, 1, ByteBuffer.allocate(4).asReadOnlyBuffer())).getMessage());
        assertEquals("recvBuffer is read-only: a receive writes into it", assertThrows(IllegalArgumentException.class,
            () -> rank1.sendRecv(0, 1, ByteBuffer.allocate(4), 0, 1, ByteBuffer.allocate(4).asReadOnlyBuffer())).getMessage());
        assertEquals("recv is read-only: a receive writes into it", assertThrows(IllegalArgumentException.class,
            () -> rank1.gather(ByteBuffer.allocate(4), ByteBuffer.allocate(8).asReadOnlyBuffer(), 1)).getMessage());
        rank0.send(1, 1, new byte[]{ 1 });
        assertEquals("a MessageHandler must not call the communicator", assertThrows(IllegalStateException.class,
            () -> rank1.recv(0, 1, (status, buffer, offset) -> rank1.iprobe(0, 2))).getMessage());
        rank0.send(1, 2, new byte[]{ 2 });
        final RuntimeException boom = new IllegalStateException("boom");
        assertEquals(boom, assertThrows(IllegalStateException.class, () -> rank1.recv(0, 2, (status, buffer, offset) ->
        {
            throw boom;
        })));
        rank0.close();
        assertEquals("communicator of rank 0 is closed",
            assertThrows(IllegalStateException.class, () -> rank0.send(1, 0, new byte[1])).getMessage());
        assertEquals("communicator of rank 0 is closed",
            assertThrows(IllegalStateException.class, () -> rank0.irecv(1, 0, new byte[1], 0, 1)).getMessage());
    }

    @Test
    void requestsWaitingForARankThatDetachedShouldFailInsteadOfHanging()
    {
        final Request large = rank0.isend(1, 1, new byte[50_000], 0, 50_000);
        final Request receive = rank0.irecv(1, 2, new byte[4], 0, 4);
        final Request anyone = rank0.irecv(ANY_SOURCE, 2, new byte[4], 0, 4);
        rank1.close();
        assertEquals("the send of 50000 bytes to rank 1 cannot complete: the peer has detached",
            assertThrows(io.sm4j.segment.Sm4jException.class, large::await).getMessage());
        assertEquals("the receive from rank 1 cannot complete: the peer has detached",
            assertThrows(io.sm4j.segment.Sm4jException.class, receive::await).getMessage());
        assertEquals("the receive from any rank cannot complete: the peer has detached",
            assertThrows(io.sm4j.segment.Sm4jException.class, anyone::await).getMessage());
        assertEquals("the probe for a message from rank 1 cannot complete: the peer has detached",
            assertThrows(io.sm4j.segment.Sm4jException.class, () -> rank0.probe(1, ANY_TAG)).getMessage());
        assertEquals("rank 1 has detached: rank 0 cannot send to it",
            assertThrows(io.sm4j.segment.Sm4jException.class, () -> rank0.send(1, 0, new byte[1])).getMessage());
    }

    @Test
    void persistentRequestsShouldRunAgainAndAgainWithTheSameStatus()
    {
        final byte[] out = new byte[4];
        final byte[] in = new byte[4];
        final Request send = rank0.sendInit(1, 7, out, 0, 4);
        final Request recv = rank1.recvInit(0, 7, in, 0, 4);
        assertTrue(recv.test(), "inactive until started");
        assertEquals(new Status(), recv.status());
        final Status status = recv.status();
        for (byte round = 1; round <= 40; round++) // past the fast box threshold
        {
            out[0] = round;
            assertSame(recv, recv.start());
            assertEquals("the request is still active: await or test it to completion first",
                assertThrows(IllegalStateException.class, recv::start).getMessage());
            send.start().await();
            assertSame(status, recv.await());
            assertEquals(new Status(0, 7, 4), status);
            assertEquals(round, in[0]);
        }
        assertEquals("only a persistent request (sendInit, recvInit) can be started",
            assertThrows(IllegalStateException.class, () -> rank0.isend(1, 7, out, 0, 4).start()).getMessage());
        rank1.recv(0, 7, in);
    }

    @Test
    void aMessageShouldTakeTheEarliestPostedReceiveWhetherItNamesItsSourceAndTagOrNot()
    {
        final byte[] a = new byte[1];
        final byte[] b = new byte[1];
        final Request wildcardFirst = rank1.irecv(ANY_SOURCE, 5, a, 0, 1);
        final Request namedSecond = rank1.irecv(0, 5, b, 0, 1);
        rank0.send(1, 5, new byte[]{ 1 });
        rank0.send(1, 5, new byte[]{ 2 });
        wildcardFirst.await();
        namedSecond.await();
        assertEquals(1, a[0]);
        assertEquals(2, b[0]);

        final Request namedFirst = rank1.irecv(0, 6, a, 0, 1);
        final Request wildcardSecond = rank1.irecv(ANY_SOURCE, ANY_TAG, b, 0, 1);
        rank0.send(1, 6, new byte[]{ 3 });
        rank0.send(1, 6, new byte[]{ 4 });
        assertEquals(new Status(0, 6, 1), namedFirst.await());
        assertEquals(new Status(0, 6, 1), wildcardSecond.await());
        assertEquals(3, a[0]);
        assertEquals(4, b[0]);
    }

    @Test
    void aBlockingReceiveShouldFillTheCallersStatus()
    {
        final Status status = new Status();
        rank0.send(1, 9, new byte[]{ 1, 2, 3 });
        assertSame(status, rank1.recv(ANY_SOURCE, ANY_TAG, new byte[8], 0, 8, status));
        assertEquals(new Status(0, 9, 3), status);
        rank0.send(1, 9, new byte[]{ 1 });
        assertNull(rank1.recv(0, 9, new UnsafeBuffer(new byte[8]), 0, 8, null), "null: the status is not wanted");
    }

    @Test
    void aProbeShouldSeeAMessageLeftInSharedMemoryByAFullBudget() throws IOException
    {
        final TransportOptions defaults = TransportOptions.defaults();
        try (TwoRanks noBudget = new TwoRanks(LayoutParams.defaults(2), new TransportOptions(defaults.attachTimeout(),
            defaults.lazyFreeBatch(), defaults.idle(), 0, 0, defaults.bell(), defaults.peerReads())))
        {
            final Communicator sender = new Communicator(noBudget.rank0);
            final Communicator receiver = new Communicator(noBudget.rank1);
            sender.send(1, 5, new byte[]{ 1, 2, 3 });
            assertEquals(new Status(0, 5, 3), receiver.probe(0, 5));
            assertEquals(0, receiver.unexpectedBytes(), "declined, not copied");
            assertNull(receiver.iprobe(0, 6));
            assertEquals(new Status(0, 5, 3), receiver.iprobe(ANY_SOURCE, ANY_TAG));
            final byte[] in = new byte[3];
            assertEquals(new Status(0, 5, 3), receiver.recv(0, 5, in));
            assertArrayEquals(new byte[]{ 1, 2, 3 }, in);
        }
    }
}
