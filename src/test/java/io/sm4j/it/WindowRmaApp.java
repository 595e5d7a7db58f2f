package io.sm4j.it;

import io.sm4j.collective.Op;
import io.sm4j.message.Communicator;
import io.sm4j.window.SharedBuffer;
import io.sm4j.window.SplitCopy;
import io.sm4j.window.Window;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Random;

/**
 * Windows across real JVMs. {@code locks N SEED}: every rank makes N random passive-target operations on
 * random targets (an exclusive read-modify-write of a counter pair through get and put, a shared read that
 * checks the pair is whole, an accumulate), then every rank checks, after a fence, that the counters and
 * sums are exactly what all ranks did: "rank R: locks ok". {@code dead-holder}: rank 1 dies holding an
 * exclusive lock of rank 0's part; rank 2, waiting for that lock, prints how its wait ended. {@code split N}
 * (2 ranks): N rounds in which rank 0 puts a round's pattern of {@code SplitCopy.MIN} bytes and more from a
 * shared buffer into rank 1's part, and gets rank 1's pattern back, while rank 1 waits in a receive (where it
 * helps copy); rank 1 checks every byte it was put: "rank R: split ok, WindowStats[...]".
 */
public final class WindowRmaApp
{
    private WindowRmaApp()
    {
    }

    public static void main(final String[] args)
    {
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            if (args[0].equals("locks"))
            {
                locks(comm, Integer.parseInt(args[1]), Long.parseLong(args[2]));
            }
            else if (args[0].equals("split"))
            {
                split(comm, Integer.parseInt(args[1]));
            }
            else
            {
                deadHolder(comm);
            }
        }
    }

    private static void locks(final Communicator comm, final int operations, final long seed)
    {
        final int size = comm.size();
        final long[] increments = new long[size];
        final long[] added = new long[size];
        try (Window window = comm.allocateWindow(3 * Long.BYTES))
        {
            final Random random = new Random(seed + comm.rank());
            final UnsafeBuffer pair = new UnsafeBuffer(new byte[2 * Long.BYTES]);
            for (int i = 0; i < operations; i++)
            {
                final int target = random.nextInt(size);
                switch (random.nextInt(3))
                {
                    case 0 ->
                    {
                        window.lock(target, true);
                        window.get(target, 0, pair, 0, 2 * Long.BYTES);
                        pair.putLong(0, pair.getLong(0) + 1);
                        pair.putLong(8, pair.getLong(8) + 1);
                        window.put(target, 0, pair, 0, 2 * Long.BYTES);
                        window.unlock(target);
                        increments[target]++;
                    }
                    case 1 ->
                    {
                        window.lock(target, false);
                        window.get(target, 0, pair, 0, 2 * Long.BYTES);
                        window.unlock(target);
                        if (pair.getLong(0) != pair.getLong(8))
                        {
                            throw new IllegalStateException("rank " + comm.rank() + " read a torn pair of rank " + target);
                        }
                    }
                    default ->
                    {
                        final long value = 1 + random.nextInt(1000);
                        window.accumulate(target, 16, new long[]{ value }, 0, 1, Op.SUM);
                        added[target] += value;
                    }
                }
            }
            final long[] allIncrements = new long[size];
            final long[] allAdded = new long[size];
            comm.allReduce(increments, allIncrements, Op.SUM);
            comm.allReduce(added, allAdded, Op.SUM);
            window.fence();
            final int me = comm.rank();
            if (window.local().getLong(0) != allIncrements[me] || window.local().getLong(8) != allIncrements[me] ||
                window.local().getLong(16) != allAdded[me])
            {
                throw new IllegalStateException("rank " + me + ": counters " + window.local().getLong(0) + "/" +
                    window.local().getLong(8) + " for " + allIncrements[me] + " increments, sum " + window.local().getLong(16) +
                    " for " + allAdded[me]);
            }
            window.fence();
        }
        System.out.println("rank " + comm.rank() + ": locks ok");
    }

    private static void deadHolder(final Communicator comm)
    {
        final Window window = comm.allocateWindow(64);
        if (comm.rank() == 1)
        {
            window.lock(0, true);
            comm.barrier();
            Runtime.getRuntime().halt(9); // dies holding the lock, as kill -9 would
        }
        comm.barrier();
        if (comm.rank() == 2)
        {
            final long start = System.nanoTime();
            try
            {
                window.lock(0, true);
                System.out.println("rank 2: granted a lock its holder never released");
            }
            catch (final RuntimeException ex)
            {
                System.out.println("rank 2: the lock wait failed after " + (System.nanoTime() - start) / 1_000_000 +
                    " ms: " + ex.getMessage());
            }
            return;
        }
        comm.recv(1, 0, new byte[1]); // rank 0 waits for the dead rank too
    }

    private static void split(final Communicator comm, final int rounds)
    {
        final int length = SplitCopy.MIN + 4099;
        final SharedBuffer mine = comm.allocate(length + 5);
        try (Window window = comm.allocateWindow(length + 11))
        {
            for (int round = 0; round < rounds; round++)
            {
                if (comm.rank() == 0)
                {
                    fill(mine, 5, length, round);
                    window.put(1, 11, mine, 5, length);
                    comm.send(1, round, new byte[1]); // the put is complete when it returns
                    comm.recv(1, round, new byte[1]); // rank 1 has checked it and written its own pattern
                    window.get(1, 11, mine, 5, length);
                    check(mine, 5, length, -round - 1, "rank 0's get");
                    comm.send(1, round, new byte[1]);
                }
                else
                {
                    comm.recv(0, round, new byte[1]);
                    check(window.local(), 11, length, round, "rank 1's part");
                    fill(window.local(), 11, length, -round - 1);
                    comm.send(0, round, new byte[1]);
                    comm.recv(0, round, new byte[1]); // helps with rank 0's get meanwhile
                }
            }
            window.fence();
        }
        System.out.println("rank " + comm.rank() + ": split ok, " + comm.windowStats());
        mine.free();
    }

    private static void fill(final MutableDirectBuffer buffer, final int at, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            buffer.putByte(at + i, (byte)(i * 7 + (i >>> 13) + seed * 31));
        }
    }

    private static void check(final DirectBuffer buffer, final int at, final int length, final int seed, final String what)
    {
        for (int i = 0; i < length; i++)
        {
            if (buffer.getByte(at + i) != (byte)(i * 7 + (i >>> 13) + seed * 31))
            {
                throw new IllegalStateException(what + ": byte " + i + " is not round " + seed + "'s");
            }
        }
    }
}
