package io.sm4j.it;

import io.sm4j.layout.LayoutParams;
import io.sm4j.message.Communicator;
import io.sm4j.message.Request;
import io.sm4j.message.Status;
import io.sm4j.message.TruncationException;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;

/**
 * Rank program for the message-layer tests; the first argument names the scenario. Prints
 * "rank R: SCENARIO ok" and exits 0, or prints the failure and exits 1.
 */
public final class MessageApp
{
    private final Communicator comm;
    private final int me;
    private final int n;

    private MessageApp(final Communicator comm)
    {
        this.comm = comm;
        this.me = comm.rank();
        this.n = comm.size();
    }

    public static void main(final String[] args)
    {
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            final MessageApp app = new MessageApp(comm);
            switch (args[0])
            {
                case "sizes" -> app.sizes(false);
                case "sizes-unexpected" -> app.sizes(true);
                case "overtake" -> app.overtake();
                case "barrier" -> app.barriers(Integer.parseInt(args[1]));
                case "any" -> app.anySourceAnyTag();
                case "outoforder" -> app.outOfOrder();
                case "probe" -> app.probe();
                case "leftover" -> app.leftOver();
                case "crossing" -> app.crossingLargeSends(Integer.parseInt(args[1]));
                case "truncate" -> app.truncate();
                case "zerocopy" -> app.zeroCopy();
                case "huge" -> app.huge(Integer.parseInt(args[1]));
                case "random" -> app.random(Long.parseLong(args[1]), Integer.parseInt(args[2]));
                default -> throw new IllegalArgumentException("unknown scenario " + args[0]);
            }
            comm.barrier();
            System.out.println("rank " + app.me + ": " + args[0] + " ok");
        }
        catch (final AssertionError | RuntimeException ex)
        {
            System.out.println("rank " + System.getenv("SM4J_RANK") + " FAILED: " + ex);
            ex.printStackTrace();
            System.exit(1);
        }
    }

    /**
     * Every interesting size, to and from every peer, both directions at once, checked by CRC; receives
     * posted first, or ({@code unexpected}) only after every message has arrived or announced itself.
     */
    private void sizes(final boolean unexpected)
    {
        final int eager = comm.eagerPayload();
        final int chunk = LayoutParams.DEFAULT_MAX_FRAG_SIZE - 32; // a FRAG's payload: less 8 + 24 header bytes
        final int[] sizes = { 0, 1, eager - 1, eager, eager + 1, chunk - 1, chunk, chunk + 1, 32767, 32768, 32769,
            1 << 20, 64 << 20 };
        for (final int size : sizes)
        {
            final byte[] out = pattern(me, size, size);
            final List<Request> sends = new ArrayList<>();
            final List<Request> recvs = new ArrayList<>();
            final List<byte[]> ins = new ArrayList<>();
            for (int peer = 0; peer < n; peer++)
            {
                if (peer != me)
                {
                    ins.add(new byte[size]);
                    if (!unexpected)
                    {
                        recvs.add(comm.irecv(peer, size % 1000, ins.get(ins.size() - 1), 0, size));
                    }
                    sends.add(comm.isend(peer, size % 1000, out, 0, size));
                }
            }
            if (unexpected)
            {
                for (int peer = 0; peer < n; peer++)
                {
                    if (peer != me)
                    {
                        check(comm.probe(peer, size % 1000).length() == size, "probe of " + size + " bytes from " + peer);
                    }
                }
                int k = 0;
                for (int peer = 0; peer < n; peer++)
                {
                    if (peer != me)
                    {
                        recvs.add(comm.irecv(peer, size % 1000, ins.get(k), 0, size));
                        k++;
                    }
                }
            }
            int k = 0;
            for (int peer = 0; peer < n; peer++)
            {
                if (peer != me)
                {
                    final Status status = recvs.get(k).await();
                    check(status.source() == peer && status.length() == size, "status " + status + " for size " + size);
                    check(crc(ins.get(k)) == patternCrc(peer, size, size), "CRC of " + size + " bytes from " + peer);
                    k++;
                }
            }
            sends.forEach(Request::await);
        }
    }

    /** Rank 0 receives everything with wildcards; per-source order must hold. */
    private void anySourceAnyTag()
    {
        final int perSource = 300;
        if (me != 0)
        {
            anySourceAnyTagSender(perSource);
            return;
        }
        final int[] next = new int[n];
        final byte[] in = new byte[9000];
        for (int i = 0; i < perSource * (n - 1); i++)
        {
            final Status status = comm.recv(Communicator.ANY_SOURCE, Communicator.ANY_TAG, in);
            final int seq = next[status.source()]++;
            check(status.tag() == seq % 3, "from " + status.source() + ": tag " + status.tag() + " for message " + seq);
            check(status.length() == (seq % 7 == 0 ? 9000 : 16), "length " + status.length());
            check(crc(in, status.length()) == patternCrc(status.source(), seq, status.length()), "content of " + seq);
        }
        // specific source, any tag: posted before the message exists, matched after the barrier
        if (n > 2)
        {
            final Request fromTwo = comm.irecv(2, Communicator.ANY_TAG, new byte[4], 0, 4);
            comm.barrier();
            final Status status = fromTwo.await();
            check(status.source() == 2 && status.tag() == 99 && status.length() == 4, "specific source " + status);
        }
    }

    private void anySourceAnyTagSender(final int perSource)
    {
        for (int i = 0; i < perSource; i++)
        {
            final int size = i % 7 == 0 ? 9000 : 16;
            comm.send(0, i % 3, pattern(me, i, size));
        }
        if (n > 2)
        {
            comm.barrier();
            if (me == 2)
            {
                comm.send(0, 99, new byte[4]);
            }
        }
    }

    /**
     * Non-overtaking across protocols: rank 0 starts a large send, then small ones with the same and other
     * tags, without waiting; rank 1 takes them with wildcards, first from receives posted in advance
     * (matched in post order), then from the unexpected queue. The large one must come first each time.
     */
    private void overtake()
    {
        final int large = 300_000;
        if (me == 0)
        {
            comm.barrier();
            final List<Request> sends = new ArrayList<>();
            for (int round = 0; round < 2; round++)
            {
                sends.add(comm.isend(1, 5, pattern(0, round, large), 0, large));
                sends.add(comm.isend(1, 5, pattern(0, round + 10, 16), 0, 16));
                sends.add(comm.isend(1, 6, pattern(0, round + 20, 16), 0, 16));
                if (round == 0)
                {
                    sends.forEach(Request::await);
                    comm.barrier();
                }
            }
            sends.forEach(Request::await);
        }
        else if (me == 1)
        {
            final byte[][] ins = { new byte[large], new byte[large], new byte[large] };
            final List<Request> posted = new ArrayList<>();
            for (final byte[] in : ins)
            {
                posted.add(comm.irecv(Communicator.ANY_SOURCE, Communicator.ANY_TAG, in, 0, in.length));
            }
            comm.barrier();
            checkOvertake(posted.get(0).await(), posted.get(1).await(), posted.get(2).await(), ins, 0, large);
            comm.barrier();
            comm.probe(0, 6);
            final Status first = comm.recv(Communicator.ANY_SOURCE, Communicator.ANY_TAG, ins[0]);
            final Status second = comm.recv(0, Communicator.ANY_TAG, ins[1]);
            final Status third = comm.recv(Communicator.ANY_SOURCE, 6, ins[2]);
            checkOvertake(first, second, third, ins, 1, large);
        }
        else
        {
            comm.barrier();
            comm.barrier();
        }
    }

    private static void checkOvertake(
        final Status first, final Status second, final Status third, final byte[][] ins, final int round, final int large)
    {
        check(first.tag() == 5 && first.length() == large, "round " + round + ": first " + first);
        check(crc(ins[0], large) == patternCrc(0, round, large), "round " + round + ": large content");
        check(second.tag() == 5 && second.length() == 16 && crc(ins[1], 16) == patternCrc(0, round + 10, 16),
            "round " + round + ": second " + second);
        check(third.tag() == 6 && third.length() == 16 && crc(ins[2], 16) == patternCrc(0, round + 20, 16),
            "round " + round + ": third " + third);
    }

    /**
     * Barriers really wait: each rank sleeps a random time before each barrier and notes when it entered and
     * left (System.nanoTime is one clock for all processes on Linux); rank 0 checks that no rank left
     * before the last one entered.
     */
    private void barriers(final int rounds)
    {
        final Random random = new Random(me);
        for (int round = 0; round < rounds; round++)
        {
            sleep(random.nextInt(20));
            final long entered = System.nanoTime();
            comm.barrier();
            final long left = System.nanoTime();
            final UnsafeBuffer times = new UnsafeBuffer(new byte[16]);
            times.putLong(0, entered);
            times.putLong(8, left);
            comm.send(0, 100 + round, times, 0, 16);
            if (me == 0)
            {
                long lastEntered = Long.MIN_VALUE;
                long firstLeft = Long.MAX_VALUE;
                for (int r = 0; r < n; r++)
                {
                    comm.recv(r, 100 + round, times, 0, 16);
                    lastEntered = Math.max(lastEntered, times.getLong(0));
                    firstLeft = Math.min(firstLeft, times.getLong(8));
                }
                check(firstLeft >= lastEntered, "round " + round + ": a rank left the barrier " +
                    (lastEntered - firstLeft) + " ns before the last one entered");
            }
        }
    }

    private static void sleep(final int millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** Many receives posted first, matched and completed in reverse order. */
    private void outOfOrder()
    {
        final int count = 60;
        if (me == 1)
        {
            final List<Request> requests = new ArrayList<>();
            final List<byte[]> buffers = new ArrayList<>();
            for (int tag = 0; tag < count; tag++)
            {
                final byte[] in = new byte[20000];
                buffers.add(in);
                requests.add(comm.irecv(0, tag, in, 0, in.length));
            }
            comm.barrier();
            for (int tag = count - 1; tag >= 0; tag--)
            {
                final Status status = requests.get(tag).await();
                final int size = tag % 2 == 0 ? 100 : 20000;
                check(status.tag() == tag && status.length() == size, "status " + status);
                check(crc(buffers.get(tag), size) == patternCrc(0, tag, size), "content of tag " + tag);
            }
        }
        else if (me == 0)
        {
            comm.barrier();
            final List<Request> sends = new ArrayList<>();
            for (int tag = count - 1; tag >= 0; tag--)
            {
                sends.add(comm.isend(1, tag, pattern(0, tag, tag % 2 == 0 ? 100 : 20000), 0, tag % 2 == 0 ? 100 : 20000));
            }
            sends.forEach(Request::await);
        }
        else
        {
            comm.barrier();
        }
    }

    /** iprobe sees a queued message's envelope before it is received; probe waits for one. */
    private void probe()
    {
        if (me == 0)
        {
            comm.send(1, 7, pattern(0, 7, 100));
            comm.send(1, 8, pattern(0, 8, 100_000));
        }
        else if (me == 1)
        {
            Status status;
            while ((status = comm.iprobe(0, 7)) == null)
            {
                Thread.onSpinWait();
            }
            check(status.length() == 100 && status.tag() == 7, "iprobe " + status);
            final Status large = comm.probe(Communicator.ANY_SOURCE, 8);
            check(large.length() == 100_000 && large.source() == 0, "probe " + large);
            check(comm.iprobe(0, 9) == null, "iprobe of a message never sent");
            final byte[] in = new byte[100_000];
            check(comm.recv(0, 8, in).length() == 100_000 && crc(in) == patternCrc(0, 8, 100_000), "large after probe");
            check(comm.recv(0, 7, in).length() == 100, "small after probe");
        }
    }

    /**
     * Rank 0 sends rank 1 a 1 MiB and a 100-byte message; rank 1 probes until both have arrived and closes
     * without receiving them: its close names them on stderr, and rank 0's close, whose large send fails when
     * rank 1 has left, names that send.
     */
    private void leftOver()
    {
        try (Communicator dup = comm.dup())
        {
            if (me == 0)
            {
                comm.isend(1, 5, pattern(0, 5, 1 << 20), 0, 1 << 20);
                comm.send(1, 6, pattern(0, 6, 100));
                dup.send(1, 7, pattern(0, 7, 10));
            }
            else if (me == 1)
            {
                check(comm.probe(0, 6).length() == 100, "probe");
                check(dup.probe(0, 7).length() == 10, "probe of the dup");
            }
        }
    }

    /** Both ranks start large sends to each other before either posts a receive. */
    private void crossingLargeSends(final int size)
    {
        final int peer = me ^ 1;
        if (peer >= n)
        {
            return;
        }
        final Request send = comm.isend(peer, 1, pattern(me, 1, size), 0, size);
        final Request second = comm.isend(peer, 2, pattern(me, 2, size / 3), 0, size / 3);
        final byte[] in = new byte[size];
        check(comm.recv(peer, 1, in).length() == size && crc(in) == patternCrc(peer, 1, size), "first crossing message");
        check(comm.recv(peer, 2, in).length() == size / 3 && crc(in, size / 3) == patternCrc(peer, 2, size / 3),
            "second crossing message");
        send.await();
        second.await();
    }

    /**
     * One message of {@code size} bytes from rank 0 to rank 1, which lets it wait unexpected first: the
     * receiver's heap must not grow by the payload before the receive is posted.
     */
    private void huge(final int size)
    {
        if (me == 0)
        {
            comm.send(1, 1, pattern(0, 1, size));
        }
        else if (me == 1)
        {
            final Status announced = comm.probe(0, 1);
            check(announced.length() == size, "probe " + announced);
            final long heldBeforePosting = usedHeap();
            check(heldBeforePosting < size / 8, "heap in use with the message unexpected: " + heldBeforePosting);
            final byte[] in = new byte[size];
            check(comm.recv(0, 1, in).length() == size, "length");
            check(crc(in) == patternCrc(0, 1, size), "CRC of " + size + " bytes");
            System.out.println("rank 1: heap in use while the message was unexpected: " + heldBeforePosting + " bytes");
        }
    }

    private static long usedHeap()
    {
        System.gc();
        return Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
    }

    /** A receive buffer that is too small fails with both sizes, eager and large, and the job goes on. */
    private void truncate()
    {
        if (me == 0)
        {
            comm.send(1, 1, new byte[100]);
            final Request large = comm.isend(1, 2, new byte[50_000], 0, 50_000);
            large.await();
            comm.send(1, 3, new byte[10]);
        }
        else if (me == 1)
        {
            expectTruncation(() -> comm.recv(0, 1, new byte[99]), "message of 100 bytes from rank 0 (tag 1) truncated: the receive buffer holds 99 bytes");
            expectTruncation(() -> comm.recv(0, 2, new byte[1000]), "message of 50000 bytes from rank 0 (tag 2) truncated: the receive buffer holds 1000 bytes");
            check(comm.recv(0, 3, new byte[10]).length() == 10, "message after truncations");
        }
    }

    /**
     * Handler receive: an eager message that arrives after the receive is posted is seen in place, in shared
     * (off-heap) memory; a large one from a heap copy. Rank 1 posts before rank 0 sends: it sends "go" and
     * then posts, and it does not poll in between, so the data cannot arrive unexpected.
     */
    private void zeroCopy()
    {
        if (me == 0)
        {
            comm.recv(1, 4, new byte[0]);
            comm.send(1, 5, pattern(0, 5, 1000));
            comm.send(1, 6, pattern(0, 6, 200_000));
        }
        else if (me == 1)
        {
            final long[] crcs = new long[2];
            final boolean[] inSharedMemory = new boolean[2];
            comm.send(0, 4, new byte[0]);
            final Status eager = comm.recv(0, 5, (status, buffer, offset) ->
            {
                inSharedMemory[0] = buffer.byteArray() == null;
                final byte[] copy = new byte[status.length()];
                buffer.getBytes(offset, copy);
                crcs[0] = crc(copy);
            });
            final Status large = comm.recv(0, 6, (status, buffer, offset) ->
            {
                inSharedMemory[1] = buffer.byteArray() == null;
                final byte[] copy = new byte[status.length()];
                buffer.getBytes(offset, copy);
                crcs[1] = crc(copy);
            });
            check(eager.length() == 1000 && crcs[0] == patternCrc(0, 5, 1000), "zero-copy eager");
            check(inSharedMemory[0], "the eager message was not seen in shared memory");
            check(large.length() == 200_000 && crcs[1] == patternCrc(0, 6, 200_000), "handler large");
            check(!inSharedMemory[1], "a large message is assembled on the heap");
        }
    }

    /**
     * Seeded random traffic: every rank derives every pair's plan (tags, sizes) from the seed; sends are
     * nonblocking (blocking for small ones), receives mixed, posted in plan order with specific tags.
     */
    private void random(final long seed, final int messagesPerPair)
    {
        final List<Request> sends = new ArrayList<>();
        for (int dest = 0; dest < n; dest++)
        {
            final int[][] plan = plan(seed, me, dest, messagesPerPair);
            for (int k = 0; k < plan.length; k++)
            {
                final byte[] out = pattern(me * 1000 + k, plan[k][0], plan[k][1]);
                if (plan[k][1] <= comm.eagerPayload() && k % 2 == 0)
                {
                    comm.send(dest, plan[k][0], out);
                }
                else
                {
                    sends.add(comm.isend(dest, plan[k][0], out, 0, out.length));
                }
            }
        }
        final Random order = new Random(seed + me);
        for (int source = 0; source < n; source++)
        {
            final int[][] plan = plan(seed, source, me, messagesPerPair);
            final List<Request> pending = new ArrayList<>();
            final List<byte[]> buffers = new ArrayList<>();
            for (int k = 0; k < plan.length; k++)
            {
                final byte[] in = new byte[plan[k][1] + order.nextInt(3)];
                buffers.add(in);
                if (order.nextBoolean())
                {
                    pending.add(comm.irecv(source, plan[k][0], in, 0, in.length));
                }
                else
                {
                    pending.add(null);
                    final Status status = comm.recv(source, plan[k][0], in);
                    checkPlanned(status, source, k, plan[k], in);
                }
            }
            for (int k = 0; k < plan.length; k++)
            {
                if (pending.get(k) != null)
                {
                    checkPlanned(pending.get(k).await(), source, k, plan[k], buffers.get(k));
                }
            }
        }
        sends.forEach(Request::await);
    }

    private static int[][] plan(final long seed, final int source, final int dest, final int count)
    {
        final Random random = new Random(seed * 7919 + source * 131 + dest);
        final int[][] plan = new int[count][];
        for (int k = 0; k < count; k++)
        {
            final int kind = random.nextInt(10);
            final int size = kind < 6 ? random.nextInt(4100) : kind < 9 ? random.nextInt(200_000) : random.nextInt(3 << 20);
            plan[k] = new int[]{ random.nextInt(4), size };
        }
        return plan;
    }

    private static void checkPlanned(final Status status, final int source, final int k, final int[] planned, final byte[] in)
    {
        check(status.source() == source && status.tag() == planned[0] && status.length() == planned[1],
            "message " + k + " from " + source + ": " + status + ", planned tag " + planned[0] + " size " + planned[1]);
        check(crc(in, planned[1]) == patternCrc(source * 1000 + k, planned[0], planned[1]),
            "content of message " + k + " from " + source + " (overtaken?)");
    }

    private static void expectTruncation(final Runnable receive, final String message)
    {
        try
        {
            receive.run();
        }
        catch (final TruncationException ex)
        {
            check(ex.getMessage().equals(message), "truncation message: " + ex.getMessage());
            return;
        }
        throw new AssertionError("no truncation: " + message);
    }

    static byte[] pattern(final int who, final int what, final int size)
    {
        final byte[] bytes = new byte[size];
        fill(bytes, size, seed(who, what, size));
        return bytes;
    }

    /** CRC of {@link #pattern} computed in 64 KiB pieces, without the whole array. */
    private static long patternCrc(final int who, final int what, final int size)
    {
        final CRC32 crc = new CRC32();
        final byte[] piece = new byte[1 << 16];
        int x = seed(who, what, size);
        for (int done = 0; done < size; done += piece.length)
        {
            final int length = Math.min(piece.length, size - done);
            x = fill(piece, length, x);
            crc.update(piece, 0, length);
        }
        return crc.getValue();
    }

    private static int seed(final int who, final int what, final int size)
    {
        return who * 0x9E3779B1 ^ what * 0x85EBCA6B ^ size;
    }

    /** Fills bytes[0..length) from the generator state {@code x}; returns the next state. */
    private static int fill(final byte[] bytes, final int length, final int state)
    {
        int x = state;
        for (int j = 0; j < length; j++)
        {
            x = x * 1664525 + 1013904223;
            bytes[j] = (byte)(x >>> 24);
        }
        return x;
    }

    private static long crc(final byte[] bytes)
    {
        return crc(bytes, bytes.length);
    }

    private static long crc(final byte[] bytes, final int length)
    {
        final CRC32 crc = new CRC32();
        crc.update(bytes, 0, length);
        return crc.getValue();
    }

    private static void check(final boolean ok, final String what)
    {
        if (!ok)
        {
            throw new AssertionError(what);
        }
    }
}
