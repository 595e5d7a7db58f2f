package io.sm4j.it;

import io.sm4j.message.Communicator;
import io.sm4j.window.SharedBuffer;
import io.sm4j.window.WindowStats;

/**
 * Rank 0 sends {@code args[0]} messages of {@code args[1]} bytes to every other rank from one shared buffer,
 * changing its bytes between messages; each receiver checks every message and prints
 * "rank R: N messages ok, WindowStats[...]" (how often it mapped the buffer), or exits with the first wrong byte.
 */
public final class WindowApp
{
    private static final int TAG = 9;

    private WindowApp()
    {
    }

    public static void main(final String[] args)
    {
        final int messages = Integer.parseInt(args[0]);
        final int bytes = Integer.parseInt(args[1]);
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            if (comm.rank() == 0)
            {
                final SharedBuffer buffer = comm.allocate(bytes);
                for (int i = 0; i < messages; i++)
                {
                    buffer.putInt(0, i);
                    buffer.putInt(bytes - Integer.BYTES, ~i);
                    for (int peer = 1; peer < comm.size(); peer++)
                    {
                        comm.send(peer, TAG, buffer, 0, bytes);
                    }
                }
                buffer.free();
                System.out.println("rank 0: sent " + messages + " messages");
                return;
            }
            final byte[] into = new byte[bytes];
            final org.agrona.concurrent.UnsafeBuffer view = new org.agrona.concurrent.UnsafeBuffer(into);
            for (int i = 0; i < messages; i++)
            {
                comm.recv(0, TAG, into);
                if (view.getInt(0) != i || view.getInt(bytes - Integer.BYTES) != ~i)
                {
                    throw new IllegalStateException("rank " + comm.rank() + ": message " + i + " carried " + view.getInt(0));
                }
            }
            final WindowStats stats = comm.windowStats();
            System.out.println("rank " + comm.rank() + ": " + messages + " messages ok, " + stats);
        }
    }
}
