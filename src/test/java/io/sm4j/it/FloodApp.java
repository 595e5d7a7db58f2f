package io.sm4j.it;

import io.sm4j.message.Communicator;
import io.sm4j.message.Request;
import io.sm4j.transport.TransportOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Ranks 1..n-1 flood rank 0 with {@code args[0]} isends each of {@code args[1]} bytes; rank 0 keeps
 * progressing without receiving them until its unexpected-message budget ({@code SM4J_UNEXPECTED_BYTES})
 * is full, checks that its heap holds no more than the budget, and tells the senders, who check that some
 * of their sends are still pending (back-pressure reached them). Then rank 0 receives every message, sender
 * by sender in round-robin, and checks each byte. Prints "flood ok" lines with the figures, or exits 1.
 */
public final class FloodApp
{
    private static final int FLOOD = 1;
    private static final int HELD = 2;

    private FloodApp()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        final int messages = Integer.parseInt(args[0]);
        final int size = Integer.parseInt(args[1]);
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            if (comm.rank() == 0)
            {
                receiver(comm, messages, size);
            }
            else
            {
                sender(comm, messages, size);
            }
        }
    }

    private static void sender(final Communicator comm, final int messages, final int size)
    {
        final Request[] sends = new Request[messages];
        for (int i = 0; i < messages; i++)
        {
            final byte[] payload = new byte[size];
            fill(payload, comm.rank(), i);
            sends[i] = comm.isend(0, FLOOD, payload, 0, size);
        }
        comm.recv(0, HELD, new byte[0]);
        int pending = 0;
        for (final Request send : sends)
        {
            pending += send.status() == null ? 1 : 0;
        }
        System.out.println("rank " + comm.rank() + " pending " + pending + " of " + messages + " while rank 0 held");
        check(pending > 0, "no send was held back");
        for (final Request send : sends)
        {
            send.await();
        }
        System.out.println("rank " + comm.rank() + ": flood ok");
    }

    private static void receiver(final Communicator comm, final int messages, final int size) throws IOException
    {
        final long budget = TransportOptions.fromEnvironment(System.getenv()).unexpectedBytes();
        final long anonBefore = anonymousRss();
        // progress without receiving until the budget is full and arrivals stop (the rest waits upstream)
        long previous = -1;
        int stillFor = 0;
        while (stillFor < 100_000)
        {
            comm.iprobe(Communicator.ANY_SOURCE, HELD);
            final long held = comm.unexpectedBytes();
            stillFor = held == previous && held + size > budget ? stillFor + 1 : 0;
            previous = held;
        }
        check(previous <= budget + comm.eagerPayload(), "holds " + previous + " bytes, budget " + budget);
        final long anonHeld = anonymousRss();
        System.out.println("rank 0 holds " + previous + " unexpected bytes (budget " + budget + "), anonymous RSS " +
            (anonHeld - anonBefore) / 1024 + " KiB above the start, while " + (long)(comm.size() - 1) * messages * size +
            " bytes were sent to it");
        for (int peer = 1; peer < comm.size(); peer++)
        {
            comm.send(peer, HELD, new byte[0]);
        }
        final byte[] buffer = new byte[size];
        final byte[] expected = new byte[size];
        final long start = System.nanoTime();
        for (int i = 0; i < messages; i++)
        {
            for (int peer = 1; peer < comm.size(); peer++)
            {
                check(comm.recv(peer, FLOOD, buffer).length() == size, "message " + i + " from rank " + peer + " has a wrong length");
                fill(expected, peer, i);
                check(java.util.Arrays.equals(buffer, expected), "message " + i + " from rank " + peer + " is corrupt");
            }
        }
        final long total = (long)(comm.size() - 1) * messages;
        System.out.printf("rank 0 received %d messages in order, %.0f ns each%n", total, (System.nanoTime() - start) / (double)total);
        System.out.println("rank 0: flood ok");
    }

    private static void fill(final byte[] payload, final int sender, final int index)
    {
        for (int b = 0; b < payload.length; b++)
        {
            payload[b] = (byte)(sender * 31 + index * 7 + b);
        }
    }

    /**
     * @return this process's resident anonymous memory (heap and native, not the mapped segment), bytes.
     */
    private static long anonymousRss() throws IOException
    {
        for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
        {
            if (line.startsWith("RssAnon:"))
            {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IllegalStateException("no RssAnon in /proc/self/status");
    }

    private static void check(final boolean ok, final String what)
    {
        if (!ok)
        {
            System.out.println("rank failed: " + what);
            System.exit(1);
        }
    }
}
