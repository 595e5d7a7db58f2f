package io.sm4j.segment;

import org.agrona.CloseHelper;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A process whose liveness is checked again and again (a watched neighbour rank, the launcher): its
 * {@link ProcessHandle} (which remembers the start time, so a reused pid reads dead) and its
 * {@code /proc/PID/stat}, kept open so that its state can be read without allocating (procfs regenerates the
 * file on every read from offset 0). A process that died and that no parent has reaped is a zombie (state Z,
 * or X while it is being reaped), and {@link ProcessHandle#isAlive()} is true for it; this says it is dead.
 * Once the process is reaped the read fails, which also says dead. Thread-safe: the health check of a
 * MULTIPLE-mode rank may run on two threads at once.
 */
public final class WatchedProcess implements AutoCloseable
{
    private static final boolean NO_PROC = !java.nio.file.Files.isDirectory(Path.of("/proc/self"));

    /** The fields up to the state: pid, the command name in parentheses (at most 16 bytes + 2), the state. */
    private static final int HEAD_LENGTH = 64;

    private final ProcessHandle process;
    /** Null if it could not be opened: see {@link #gone}. */
    private final FileChannel channel;
    /** The stat file did not exist when it was opened (the process was reaped); else it could not be opened
     *  for another reason (no /proc, no file descriptor left), and ProcessHandle's answer stands. */
    private final boolean gone;
    private final ByteBuffer head = ByteBuffer.allocateDirect(HEAD_LENGTH);

    private WatchedProcess(final ProcessHandle process, final FileChannel channel, final boolean gone)
    {
        this.process = process;
        this.channel = channel;
        this.gone = gone;
    }

    /**
     * @return {@code process}, watched: its stat file opened now.
     */
    public static WatchedProcess of(final ProcessHandle process)
    {
        try
        {
            return new WatchedProcess(process,
                FileChannel.open(Path.of("/proc", Long.toString(process.pid()), "stat"), StandardOpenOption.READ), false);
        }
        catch (final java.nio.file.NoSuchFileException ex)
        {
            return new WatchedProcess(process, null, !NO_PROC); // reaped already, unless there is no /proc at all
        }
        catch (final IOException | RuntimeException ex)
        {
            return new WatchedProcess(process, null, false); // unreadable, not dead: a live rank is never aborted for it
        }
    }

    public long pid()
    {
        return process.pid();
    }

    /**
     * @return true if the process is alive and not a zombie; where its stat file cannot be read (not Linux,
     *         no file descriptor left), as {@link ProcessHandle#isAlive()} says.
     */
    public boolean isRunning()
    {
        if (!process.isAlive())
        {
            return false;
        }
        return channel == null ? !gone : readRunning();
    }

    private synchronized boolean readRunning()
    {
        head.clear();
        try
        {
            while (head.hasRemaining() && channel.read(head, head.position()) > 0)
            {
                // a few dozen bytes: one read in practice
            }
        }
        catch (final IOException ex)
        {
            return false; // ESRCH: the process is gone
        }
        return isRunning(head, head.position());
    }

    /**
     * @param stat   the start of a /proc/PID/stat text.
     * @param length its bytes.
     * @return false if the state (the field after the command, which is in parentheses and may itself hold
     *         ')' and spaces) is Z or X; true if it is another state or cannot be found.
     */
    static boolean isRunning(final ByteBuffer stat, final int length)
    {
        int end = length - 1;
        while (end >= 0 && stat.get(end) != ')')
        {
            end--;
        }
        final int state = end >= 0 && end + 2 < length ? stat.get(end + 2) : '?';
        return state != 'Z' && state != 'X';
    }

    @Override
    public void close()
    {
        CloseHelper.quietClose(channel); // read-only: nothing lost
    }
}
