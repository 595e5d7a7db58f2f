package io.sm4j.segment;

import io.sm4j.layout.CountersDescriptor;
import io.sm4j.layout.DoorbellDescriptor;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A live (or dead) job as {@code sm4j stat} shows it, read from its segment file from outside, read-only and
 * never mapped ({@link SegmentCopy}), as AeronStat reads a media driver: the job's state, and per rank its
 * process, whether it is alive, what it is doing, and its counters ({@link CountersDescriptor}).
 */
public final class JobStats
{
    /**
     * One rank.
     *
     * @param rank        its number.
     * @param pid         its process, 0 if it never registered.
     * @param state       absent, attached or detached.
     * @param alive       its process is alive (pid and start time; a zombie is dead).
     * @param activity    running (in its own code), spinning or yielding (waiting in sm4j), sleeping (on its
     *                    doorbell), or - if not attached.
     * @param heartbeatMs milliseconds since it last checked the job's health in sm4j, -1 if never.
     * @param counters    its counters, by {@link CountersDescriptor} index.
     */
    public record Rank(int rank, long pid, String state, boolean alive, String activity, long heartbeatMs, long[] counters)
    {
    }

    /**
     * One job.
     *
     * @param path  its segment file.
     * @param state READY, ABORTED or CREATING.
     * @param abort the abort line if ABORTED, else null.
     * @param ranks its ranks.
     */
    public record Job(Path path, String state, String abort, List<Rank> ranks)
    {
    }

    private JobStats()
    {
    }

    /**
     * @throws Sm4jException (one line) if {@code path} is missing or not a segment this version can read.
     */
    public static Job read(final Path path)
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
             SegmentCopy copy = SegmentCopy.read(channel, path))
        {
            final List<Rank> ranks = new ArrayList<>();
            final long now = System.nanoTime();
            for (int r = 0; r < copy.layout.params().peers(); r++)
            {
                ranks.add(rank(copy, r, now));
            }
            return new Job(path, copy.state(), copy.aborted == null ? null : copy.aborted.getMessage(), ranks);
        }
        catch (final NoSuchFileException ex)
        {
            throw new Sm4jException(path + ": no such file (the job has ended, or the name is wrong)");
        }
        catch (final SegmentCopy.Unreadable ex)
        {
            throw new Sm4jException(path + ": " + (ex.sm4j ? "" : "not an sm4j segment: ") + ex.getMessage());
        }
        catch (final IOException ex)
        {
            throw new Sm4jException(path + ": cannot read it: " + ex.getMessage(), ex);
        }
    }

    /**
     * @return the segment files of {@code dir} (complete ones, by name).
     */
    public static List<Path> segments(final Path dir) throws IOException
    {
        final List<Path> paths = new ArrayList<>();
        // regular files only: opening a FIFO named like a segment (anyone may make one in /dev/shm) would block for good
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, file ->
            file.getFileName().toString().startsWith(SegmentFiles.PREFIX) && file.getFileName().toString().endsWith(SegmentFiles.SUFFIX) &&
                Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)))
        {
            files.forEach(paths::add);
        }
        paths.sort(null);
        return paths;
    }

    private static Rank rank(final SegmentCopy copy, final int r, final long now) throws IOException
    {
        final RankRegistry registry = copy.ranks;
        final long pid = registry.pidOf(r);
        final String state = registry.stateOf(r);
        final long beat = registry.lastHeartbeat(r);
        final UnsafeBuffer bell = SegmentCopy.read(copy.channel, copy.layout.bellOffset(r), DoorbellDescriptor.LENGTH);
        final UnsafeBuffer counterBytes = SegmentCopy.read(copy.channel, copy.layout.countersOffset(r), CountersDescriptor.LENGTH);
        final long[] counters = new long[CountersDescriptor.COUNT];
        for (int c = 0; counterBytes != null && c < counters.length; c++)
        {
            counters[c] = counterBytes.getLong(CountersDescriptor.offset(c));
        }
        final long waiting = counters[CountersDescriptor.WAITING];
        final String activity = !state.equals("attached") ? "-" : waiting == 0 ? "running" :
            bell != null && bell.getLong(DoorbellDescriptor.STATE_OFFSET) != DoorbellDescriptor.AWAKE ? "sleeping" :
            waiting == CountersDescriptor.YIELDING ? "yielding" : "spinning";
        return new Rank(r, pid, state, registry.isProcessAlive(r), activity, beat == 0 ? -1 : Math.max(0, now - beat) / 1_000_000,
            counters);
    }
}
