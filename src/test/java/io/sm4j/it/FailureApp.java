package io.sm4j.it;

import io.sm4j.window.LocalWindows;
import io.sm4j.segment.JobAbortedException;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.Endpoints;

/**
 * A job where the last rank fails right after attaching, either by exiting with code 3 ({@code exit}) or by
 * vanishing without detaching ({@code halt}, as a crash or kill -9 would), or where no rank fails
 * ({@code wait}: every rank allocates a shared buffer, prints its pid and waits for a message that never comes, until the launcher's
 * time limit or the launcher's death aborts the job; {@code wait stuck-hook}: rank 2's shutdown hook never
 * ends, so only SIGKILL stops it). Every other rank polls until it is told the job was
 * aborted (possibly while still waiting for all ranks to attach), prints the reason, detaches and exits
 * with code 4. With {@code throw}, the last rank throws out of main and the others let the abort escape
 * their main as well.
 */
public final class FailureApp
{
    /** Makes the failure's message longer than the 136 bytes an abort reason once kept: it must reach the launcher whole. */
    static final String LONG_TAIL = ", with a message as long as a real one: " + "the receive buffer holds 1000 bytes; ".repeat(8) + "end";

    private FailureApp()
    {
    }

    public static void main(final String[] args)
    {
        final String rank = System.getenv(Endpoints.RANK_ENV);
        final Endpoint endpoint;
        try
        {
            endpoint = Endpoints.attachFromEnvironment();
        }
        catch (final JobAbortedException ex)
        {
            System.out.println("rank " + rank + " saw: " + ex.getMessage());
            System.exit(4);
            return;
        }
        if (args[0].equals("throw"))
        {
            throwOrPoll(endpoint);
            return;
        }
        if (args[0].equals("wait"))
        {
            // a launcher that is interrupted forwards the signal: this hook runs
            final boolean stuck = args.length > 1 && args[1].equals("stuck-hook") && endpoint.rank() == 2;
            Runtime.getRuntime().addShutdownHook(new Thread(() ->
            {
                System.out.println("rank " + rank + (stuck ? ": shutdown hook stuck" : ": shutdown hook ran"));
                while (stuck)
                {
                    java.util.concurrent.locks.LockSupport.park(); // a hook that never ends: the JVM never exits by itself
                }
            }));
            // a shared buffer's file too: whatever kills the job, it must not outlive it
            new LocalWindows(endpoint.segmentPath(), endpoint.rank()).allocate(1 << 16).putLong(0, 1);
            System.out.println("rank " + rank + " pid " + ProcessHandle.current().pid() + " waiting");
        }
        else if (endpoint.rank() == endpoint.size() - 1)
        {
            if (args[0].equals("halt"))
            {
                Runtime.getRuntime().halt(0);
            }
            System.exit(3);
        }
        try
        {
            pollForever(endpoint);
        }
        catch (final JobAbortedException ex)
        {
            System.out.println("rank " + endpoint.rank() + " saw: " + ex.getMessage());
            endpoint.close();
            System.exit(4);
        }
    }

    /** The last rank throws out of main; the others poll until the abort escapes their main too. */
    private static void throwOrPoll(final Endpoint endpoint)
    {
        if (endpoint.rank() == endpoint.size() - 1)
        {
            throw new IllegalStateException("rank " + endpoint.rank() + " failed on purpose" + LONG_TAIL);
        }
        pollForever(endpoint);
    }

    private static void pollForever(final Endpoint endpoint)
    {
        while (true)
        {
            if (endpoint.poll(f -> { }, 16) == 0)
            {
                endpoint.idle();
            }
        }
    }
}
