package io.sm4j.segment;

import java.util.Optional;

/**
 * A process as the segment records it: pid and start time. A pid alone is not an identity: Linux reuses
 * pids, so a rank that died and whose pid now belongs to another process would read as alive. The start
 * time (milliseconds since the epoch, as {@link ProcessHandle.Info#startInstant} reports it from
 * /proc/PID/stat) tells them apart.
 * <p>
 * Nor is a pid that exists alive: a process that died and that no parent has reaped (a container whose
 * PID 1 is not an init, a process manager that forgets {@code waitpid}) is a zombie, and
 * {@link ProcessHandle#isAlive()} is true for it. {@link #isRunning} reads the state in /proc/PID/stat:
 * Z (zombie) and X (dead) are dead.
 *
 * @param pid         process id, 0 for none.
 * @param startMillis start time, 0 if unknown (then the pid alone decides).
 */
public record ProcessIdentity(long pid, long startMillis)
{
    private static final ProcessIdentity CURRENT = of(ProcessHandle.current());

    /**
     * @return this JVM's identity.
     */
    public static ProcessIdentity current()
    {
        return CURRENT;
    }

    /**
     * @return the identity of a live process.
     */
    public static ProcessIdentity of(final ProcessHandle process)
    {
        return new ProcessIdentity(process.pid(), startMillis(process));
    }

    /**
     * @return true if a process with this pid runs and, where both are known, started when this one did; a
     *         zombie is dead ({@link WatchedProcess}).
     */
    public boolean isAlive()
    {
        return handle().map(ProcessIdentity::isRunning).orElse(false);
    }

    /**
     * @return the process with this pid if there is one and, where both are known, it started when this one
     *         did (it may be a zombie).
     */
    public Optional<ProcessHandle> handle()
    {
        if (pid <= 0)
        {
            return Optional.empty();
        }
        return ProcessHandle.of(pid).filter(process ->
        {
            final long start = startMillis(process);
            return startMillis == 0 || start == 0 || start == startMillis;
        });
    }

    /**
     * @return true if {@code process} is alive and not a zombie. Opens /proc per call: for cold paths.
     */
    private static boolean isRunning(final ProcessHandle process)
    {
        try (WatchedProcess watched = WatchedProcess.of(process))
        {
            return watched.isRunning();
        }
    }

    private static long startMillis(final ProcessHandle process)
    {
        return process.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);
    }

    @Override
    public String toString()
    {
        return "pid " + pid;
    }
}
