package io.sm4j.transport;

import io.sm4j.segment.JobAbortedException;

import java.io.PrintStream;

/**
 * Uncaught-exception handler of a rank started by {@code sm4j run}: when the job was aborted (a rank failed
 * or died), this rank says so in one line ({@code aborted: rank 1 (pid 42) died}) instead of a stack trace,
 * so the full trace appears once, in the output of the rank whose own failure caused the abort (that one
 * throws its own exception, not a {@link JobAbortedException}). Anything else is printed as the JVM would.
 */
final class AbortReporter implements Thread.UncaughtExceptionHandler
{
    private final PrintStream err;

    AbortReporter(final PrintStream err)
    {
        this.err = err;
    }

    /**
     * Installs the reporter unless the application has its own default handler.
     */
    static void install()
    {
        if (Thread.getDefaultUncaughtExceptionHandler() == null)
        {
            Thread.setDefaultUncaughtExceptionHandler(new AbortReporter(System.err));
        }
    }

    @Override
    public void uncaughtException(final Thread thread, final Throwable ex)
    {
        for (Throwable cause = ex; cause != null; cause = cause.getCause())
        {
            if (cause instanceof JobAbortedException aborted)
            {
                err.println("aborted: " + aborted.reason());
                return;
            }
        }
        err.print("Exception in thread \"" + thread.getName() + "\" ");
        ex.printStackTrace(err);
    }
}
