package io.sm4j.segment;

import org.agrona.CloseHelper;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process whose liveness is checked again and again (a watched neighbour rank, the launcher): its
 * {@code /proc/PID/stat}, kept open so that its state can be read without allocating (procfs regenerates the
 * file on every read from offset 0). A process that died and that no parent has reaped is a zombie (state Z,
 * or X while it is being reaped), and {@link ProcessHandle#isAlive()} is true for it; this says it is dead.
 * Once the process is reaped the read fails, which also says dead. Where the file cannot be opened, its
 * {@link ProcessHandle} answers (it remembers the start time, so a reused pid reads dead), but a process this JVM
 * cannot look up for want of file descriptors reads alive ({@link ProcessIdentity#listedButUnreadable}).
 * <p>
 * A {@link RandomAccessFile}, not a {@code FileChannel}: an interrupt of the reading thread (a rank's own
 * application thread runs the health check) closes a channel, and a closed channel would read as a dead
 * process. Thread-safe: the health check of a MULTIPLE-mode rank may run on two threads at once.
 */
public final class WatchedProcess implements AutoCloseable
{
    private static final boolean NO_PROC = !Files.isDirectory(Path.of("/proc/self"));

    /** The fields up to the state: pid, the command name in parentheses (at most 16 bytes + 2), the state. */
    private static final int HEAD_LENGTH = 64;

    private final ProcessHandle process;
    /** Null if it could not be opened: see {@link #gone}. */
    private final RandomAccessFile stat;
    /** The stat file did not exist when it was opened (the process was reaped); else it could not be opened
     *  for another reason (no /proc, no file descriptor left), and ProcessHandle's answer stands. */
    private final boolean gone;
    private final byte[] head = new byte[HEAD_LENGTH];

    private WatchedProcess(final ProcessHandle process, final RandomAccessFile stat, final boolean gone)
    {
        this.process = process;
        this.stat = stat;
        this.gone = gone;
    }

    /**
     * @return {@code process}, watched: its stat file opened now.
     */
    public static WatchedProcess of(final ProcessHandle process)
    {
        final Path path = Path.of("/proc", Long.toString(process.pid()), "stat");
        try
        {
            return new WatchedProcess(process, new RandomAccessFile(path.toFile(), "r"), false);
        }
        catch (final FileNotFoundException ex)
        {
            // reaped already, unless there is no /proc at all; unreadable for another reason: not dead, a live rank
            // is never aborted for it
            return new WatchedProcess(process, null, !NO_PROC && !Files.exists(path));
        }
        catch (final RuntimeException ex)
        {
            return new WatchedProcess(process, null, false);
        }
    }

    public long pid()
    {
        return process.pid();
    }

    /**
     * @return true if the process is alive and not a zombie; where its stat file cannot be read (not Linux,
     *         no file descriptor left), as {@link ProcessHandle#isAlive()} says, and alive while /proc lists it
     *         ({@link ProcessIdentity#listedButUnreadable}).
     */
    public boolean isRunning()
    {
        // an open stat file answers alone: once the process is reaped its reads fail, whoever reuses the pid
        if (stat != null)
        {
            final char state = state();
            return state != 'Z' && state != 'X';
        }
        return !gone && (process.isAlive() || ProcessIdentity.listedButUnreadable(process.pid()));
    }

    /**
     * @return true if the process is stopped: by a signal (SIGSTOP, SIGTSTP: state T) or a ptrace debugger (t).
     */
    public boolean isStopped()
    {
        final char state = stat != null ? state() : '?';
        return state == 'T' || state == 't';
    }

    /**
     * @return the state letter of the stat file ('X' if the process is gone, '?' if it cannot be found).
     */
    private synchronized char state()
    {
        int length = 0;
        try
        {
            stat.seek(0);
            for (int read = 0; read >= 0 && length < head.length; read = stat.read(head, length, head.length - length))
            {
                length += read; // a few dozen bytes: one read in practice
            }
        }
        catch (final IOException ex)
        {
            return 'X'; // ESRCH: the process is gone
        }
        return state(head, length);
    }

    /**
     * @param stat   the start of a /proc/PID/stat text.
     * @param length its bytes.
     * @return the state: the field after the command, which is in parentheses and may itself hold ')' and
     *         spaces; '?' if it cannot be found.
     */
    static char state(final byte[] stat, final int length)
    {
        int end = length - 1;
        while (end >= 0 && stat[end] != ')')
        {
            end--;
        }
        return end >= 0 && end + 2 < length ? (char)stat[end + 2] : '?';
    }

    @Override
    public void close()
    {
        CloseHelper.quietClose(stat); // read-only: nothing lost
    }
}
