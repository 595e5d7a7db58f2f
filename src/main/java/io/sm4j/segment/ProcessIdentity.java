package io.sm4j.segment;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.util.Optional;

/**
 * A process as the segment records it: pid and start time. A pid alone is not an identity: Linux reuses
 * pids, so a rank that died and whose pid now belongs to another process would read as alive. The start
 * time tells them apart: field 22 of /proc/PID/stat, in clock ticks after the machine booted. Not
 * {@link ProcessHandle.Info#startInstant}: the JDK adds those ticks to a boot time each JVM derives from the
 * wall clock when it first asks, so after the clock was stepped (NTP after a VM's pause, {@code date -s}) two JVMs
 * disagree on a live process's start, and one of them read it as dead (and removed its job's files).
 * <p>
 * Nor is a pid that exists alive: a process that died and that no parent has reaped (a container whose
 * PID 1 is not an init, a process manager that forgets {@code waitpid}) is a zombie, and
 * {@link ProcessHandle#isAlive()} is true for it. {@link #isRunning} reads the state in /proc/PID/stat:
 * Z (zombie) and X (dead) are dead.
 *
 * @param pid        process id, 0 for none.
 * @param startTicks start time in clock ticks after boot, 0 if unknown (then the pid alone decides).
 */
public record ProcessIdentity(long pid, long startTicks)
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
        return new ProcessIdentity(process.pid(), startTicks(process.pid()));
    }

    /**
     * @return true if a process with this pid runs and, where both are known, started when this one did; a
     *         zombie is dead ({@link WatchedProcess}); and true while this JVM has no file descriptor left to look
     *         with, if /proc lists the pid ({@link #listedButUnreadable}).
     */
    public boolean isAlive()
    {
        final Optional<ProcessHandle> handle = handle();
        return handle.isPresent() ? isRunning(handle.get()) : listedButUnreadable(pid);
    }

    /**
     * @return true if /proc lists {@code pid} but this JVM cannot read a stat file now, its own included: it has no
     *         file descriptor left, and the JDK's lookup ({@link ProcessHandle#of}), which reads that file, then
     *         finds no process. Such a process may be alive, and is never read as dead for that (a health check
     *         would abort a sound job, a clean remove a live job's files); the price is that a zombie, or a pid
     *         reused since, reads alive until descriptors are free again. Whether /proc lists it is a stat(2),
     *         which takes no descriptor. A stat file this JVM cannot read while it reads its own (another user's
     *         process under {@code hidepid=1}) says nothing of the kind: a pid reused by another user.
     */
    static boolean listedButUnreadable(final long pid)
    {
        return pid > 0 && new File("/proc/" + pid).exists() && startTicks(pid) == 0 &&
            startTicks(CURRENT.pid) == 0;
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
            final long start = startTicks(process.pid());
            return startTicks == 0 || start == 0 || start == startTicks;
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

    /**
     * @return field 22 of {@code /proc/PID/stat} (starttime, clock ticks after boot), or 0 if it cannot be read (no
     *         such process, or no /proc).
     */
    static long startTicks(final long pid)
    {
        // a RandomAccessFile, not Files.readString: that reads through an interruptible channel, which an interrupted
        // thread's read closes (the identity would then be 0, unknown)
        try (RandomAccessFile file = new RandomAccessFile("/proc/" + pid + "/stat", "r"))
        {
            final byte[] text = new byte[4096]; // procfs gives the whole line in one read
            final int read = file.read(text);
            final String stat = new String(text, 0, Math.max(read, 0), java.nio.charset.StandardCharsets.US_ASCII);
            // the command name in parentheses may hold spaces and parentheses: the fields after it start at the state
            final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[19]); // field 22, counted from the state (field 3)
        }
        catch (final IOException | RuntimeException ex)
        {
            return 0;
        }
    }

    @Override
    public String toString()
    {
        return "pid " + pid;
    }
}
