package io.sm4j.it;

import io.sm4j.message.Communicator;
import io.sm4j.segment.NativeCopy;

import java.nio.ByteBuffer;

/**
 * Two ranks move direct buffers, then heap buffers, through the segment, every byte checked: point-to-point
 * messages of 4 KiB to 1 MiB (eager, then the rendezvous's fragments), and bcast, allGather and allToAll of
 * 8 KiB to 256 KiB per rank, at an odd offset. Each rank prints how it copies into the segment ({@link NativeCopy#describe()}).
 */
public final class NativeCopyApp
{
    private NativeCopyApp()
    {
    }

    public static void main(final String[] args)
    {
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            exchange(comm, true);
            exchange(comm, false);
            System.out.println("rank " + comm.rank() + " copies " + NativeCopy.describe() + ", every byte checked");
        }
    }

    private static void exchange(final Communicator comm, final boolean direct)
    {
        final int rank = comm.rank();
        final int peer = 1 - rank;
        for (int size = 4096; size <= 1 << 20; size <<= 1)
        {
            final ByteBuffer message = slice(size, direct);
            if (rank == 0)
            {
                fill(message, size);
                comm.send(peer, 1, message);
            }
            else
            {
                comm.recv(peer, 1, message);
                check(message, size, "message of " + size + " bytes");
            }
        }
        for (int block = 8192; block <= 256 << 10; block <<= 1)
        {
            final ByteBuffer bcast = slice(block, direct);
            if (rank == 0)
            {
                fill(bcast, block);
            }
            comm.bcast(bcast, 0);
            check(bcast, block, "bcast of " + block + " bytes");

            final ByteBuffer mine = slice(block, direct);
            fill(mine, block + rank);
            final ByteBuffer all = slice(2 * block, direct);
            comm.allGather(mine, all);
            for (int r = 0; r < 2; r++)
            {
                check(all.duplicate().position(all.position() + r * block).limit(all.position() + (r + 1) * block).slice(),
                    block + r, "allGather block " + r + " of " + block + " bytes");
            }

            final ByteBuffer out = slice(2 * block, direct);
            for (int r = 0; r < 2; r++)
            {
                fill(out.duplicate().position(out.position() + r * block).slice(), 10 * rank + r + block);
            }
            final ByteBuffer in = slice(2 * block, direct);
            comm.allToAll(out, in);
            for (int r = 0; r < 2; r++)
            {
                check(in.duplicate().position(in.position() + r * block).limit(in.position() + (r + 1) * block).slice(),
                    10 * r + rank + block, "allToAll block from " + r + " of " + block + " bytes");
            }
        }
    }

    /**
     * @return {@code length} bytes of a buffer, starting 3 bytes in (no alignment to lean on).
     */
    private static ByteBuffer slice(final int length, final boolean direct)
    {
        return (direct ? ByteBuffer.allocateDirect(length + 3) : ByteBuffer.allocate(length + 3)).position(3).limit(3 + length).slice();
    }

    private static void fill(final ByteBuffer buffer, final int seed)
    {
        for (int i = 0; i < buffer.remaining(); i++)
        {
            buffer.put(buffer.position() + i, value(seed, i));
        }
    }

    private static void check(final ByteBuffer buffer, final int seed, final String what)
    {
        for (int i = 0; i < buffer.remaining(); i++)
        {
            if (buffer.get(buffer.position() + i) != value(seed, i))
            {
                throw new IllegalStateException(what + ": byte " + i + " differs");
            }
        }
    }

    private static byte value(final int seed, final int i)
    {
        return (byte)(seed * 31 + i * 7 + (i >>> 11));
    }
}
