package io.sm4j.job;

import io.sm4j.segment.WatchedProcess;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Where a rank started by {@code sm4j run} speaks once its launcher is gone. The rank's stdout and stderr
 * are pipes to the launcher, which prefixes and forwards them; a launcher killed with SIGKILL leaves them
 * without a reader, and whatever the rank prints there is lost. So the rank opens the launcher's own stderr
 * ({@code /proc/PID/fd/2}: the terminal, file or pipe the user reads) while the launcher is alive, and
 * writes its one-line cause there if the launcher has died. One per JVM (every rank of it has the same
 * launcher); if the file cannot be opened (no /proc, a socket), the rank stays silent as before.
 */
final class LauncherConsole
{
    private static LauncherConsole instance;

    private final long launcherPid;
    private final PrintStream out;
    /** The ranks of this JVM that have spoken: one line each. */
    private final java.util.Set<Integer> told = new java.util.HashSet<>();

    private LauncherConsole(final long launcherPid, final PrintStream out)
    {
        this.launcherPid = launcherPid;
        this.out = out;
    }

    /**
     * @return the console of this JVM's launcher, opened on first use.
     */
    static synchronized LauncherConsole of(final long launcherPid)
    {
        if (instance == null || instance.launcherPid != launcherPid)
        {
            PrintStream out = null;
            try
            {
                out = new PrintStream(new FileOutputStream("/proc/" + launcherPid + "/fd/2", true), true, StandardCharsets.UTF_8);
            }
            catch (final IOException | SecurityException ignore)
            {
                // no way to reach the user once the launcher is gone: the launcher's pipes are all there is
            }
            instance = new LauncherConsole(launcherPid, out);
        }
        return instance;
    }

    /**
     * @return true if the launcher has died (a zombie counts as dead).
     */
    boolean launcherGone()
    {
        return ProcessHandle.of(launcherPid).map(handle ->
        {
            try (WatchedProcess watched = WatchedProcess.of(handle))
            {
                return !watched.isRunning();
            }
        }).orElse(true);
    }

    /**
     * Writes {@code line} to the launcher's stderr, prefixed by the rank as the launcher prefixes its ranks'
     * output, once per rank: for a rank that has found the launcher dead.
     */
    synchronized void sayOnce(final int rank, final String line)
    {
        if (out != null && told.add(rank))
        {
            out.println("[" + rank + "] sm4j: " + line + " (the launcher, pid " + launcherPid + ", is gone: rank " +
                rank + ", pid " + ProcessHandle.current().pid() + ", says so itself)");
        }
    }
}
