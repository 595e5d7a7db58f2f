package io.sm4j.job;

import io.sm4j.segment.JobAbortedException;
import io.sm4j.segment.Segment;

import java.io.PrintStream;
import java.nio.file.Path;

/**
 * Uncaught-exception handler of a rank started by {@code sm4j run}: when the job was aborted (a rank failed
 * or died), this rank says so in one line ({@code aborted: rank 1 (pid 42) died}) instead of a stack trace,
 * so the full trace appears once, in the output of the rank whose own failure caused the abort. That rank
 * (any other exception) first records its failure as the job's abort ({@code rank 2 threw
 * java.lang.OutOfMemoryError: Java heap space}), so that the other ranks and the launcher name it as the
 * cause, not whichever rank happens to exit first.
 */
public final class AbortReporter implements Thread.UncaughtExceptionHandler
{
    private final PrintStream err;
    private final Path segment;
    private final int rank;
    private final LauncherConsole console;

    AbortReporter(final PrintStream err, final Path segment, final int rank, final LauncherConsole console)
    {
        this.err = err;
        this.segment = segment;
        this.rank = rank;
        this.console = console;
    }

    /**
     * Installs the reporter unless the application has its own default handler; opens the launcher's
     * console while the launcher is alive.
     */
    public static void install(final Path segment, final int rank, final long launcherPid)
    {
        if (Thread.getDefaultUncaughtExceptionHandler() == null)
        {
            Thread.setDefaultUncaughtExceptionHandler(new AbortReporter(System.err, segment, rank,
                LauncherConsole.of(launcherPid)));
        }
    }

    @Override
    public void uncaughtException(final Thread thread, final Throwable ex)
    {
        if (console.launcherGone())
        {
            console.sayOnce(rank, "stops: " + ex); // its stderr is a pipe nobody reads any more
        }
        for (Throwable cause = ex; cause != null; cause = cause.getCause())
        {
            if (cause instanceof JobAbortedException aborted)
            {
                err.println("aborted: " + aborted.reason());
                return;
            }
        }
        try
        {
            Segment.recordFailure(segment, rank, JobAbortedException.ownFailure(rank, ex));
        }
        finally
        {
            err.print("Exception in thread \"" + thread.getName() + "\" ");
            ex.printStackTrace(err);
        }
    }
}
