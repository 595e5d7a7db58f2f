package io.sm4j.it;

import io.sm4j.message.Communicator;
import io.sm4j.message.Request;
import io.sm4j.transport.TransportOptions;

import java.util.concurrent.TimeUnit;

/**
 * The flood of issue 20, to time by hand (docs/benchmarks.md): ranks 1..n-1 isend {@code args[0]} messages
 * of {@code args[1]} bytes each to rank 0, which does not call sm4j for {@code args[2]} ms, then receives
 * them all. Rank 0 prints how long the whole flood took from the first barrier, how long the drain took
 * after its pause, and the most unexpected bytes it held; the senders' waits for room are what the wait
 * policy decides.
 */
public final class FloodDrainApp
{
    private static final int TAG = 9;

    private FloodDrainApp()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final int messages = Integer.parseInt(args[0]);
        final int size = Integer.parseInt(args[1]);
        final long pauseMillis = Long.parseLong(args[2]);
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            final byte[] payload = new byte[size];
            comm.barrier();
            final long start = System.nanoTime();
            if (comm.rank() == 0)
            {
                Thread.sleep(pauseMillis); // the scenario: this rank stops receiving
                final long drainStart = System.nanoTime();
                final int total = messages * (comm.size() - 1);
                long held = 0;
                for (int i = 0; i < total; i++)
                {
                    comm.recv(Communicator.ANY_SOURCE, TAG, payload);
                    held = Math.max(held, comm.unexpectedBytes());
                }
                final long end = System.nanoTime();
                System.out.printf(java.util.Locale.ROOT, "rank 0 received %d messages of %d B from %d ranks: %d ms in all, " +
                    "%d ms to drain after a %d ms pause; at most %d unexpected bytes held (budget %d)%n", total, size,
                    comm.size() - 1, TimeUnit.NANOSECONDS.toMillis(end - start), TimeUnit.NANOSECONDS.toMillis(end - drainStart),
                    pauseMillis, held, TransportOptions.fromEnvironment(System.getenv()).unexpectedBytes());
            }
            else
            {
                final Request[] sends = new Request[messages];
                for (int i = 0; i < messages; i++)
                {
                    sends[i] = comm.isend(0, TAG, payload, 0, size);
                }
                for (final Request send : sends)
                {
                    send.await();
                }
            }
            comm.barrier();
        }
    }
}
