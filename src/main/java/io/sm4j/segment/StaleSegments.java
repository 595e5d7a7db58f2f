package io.sm4j.segment;

import io.sm4j.layout.SegmentHeaderDescriptor;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Finds the segment files of a directory and tells live jobs from dead ones, reading each file (never
 * mapping it: a file truncated under us must not fault). A segment is stale when no process it records is
 * alive, by pid and start time ({@link ProcessIdentity}):
 * <ul>
 *   <li>a file still under its temporary name ({@link SegmentFiles#creatingName}): its creator is dead;</li>
 *   <li>a segment a launcher created ({@link SegmentHeaderDescriptor#OWNER_CREATOR}): the launcher and every
 *       registered rank are dead;</li>
 *   <li>a segment handed to ranks ({@code sm4j create}): every registered rank is dead, and at least one had
 *       registered or the job was aborted. One that no rank has joined yet is waiting for its ranks and
 *       stays.</li>
 * </ul>
 * A file that is not a readable segment of this format version is listed and left alone.
 */
public final class StaleSegments
{
    /**
     * One segment file as found.
     *
     * @param path       the file.
     * @param jobId      job id (hex), from the name.
     * @param owner      the file's owner (user).
     * @param state      CREATING, READY, ABORTED, or why the file could not be read.
     * @param ranks      ranks the segment is for (0 if unknown).
     * @param ranksAlive registered ranks with a live process that have not detached.
     * @param size       bytes.
     * @param age        since the file was last modified.
     * @param stale      true if no process of the job is alive: safe to remove.
     * @param verdict    why it is stale or kept.
     */
    public record Entry(
        Path path, String jobId, String owner, String state, int ranks, int ranksAlive, long size, Duration age,
        boolean stale, String verdict)
    {
    }

    private StaleSegments()
    {
    }

    /**
     * @return every sm4j segment file in {@code dir}, by name.
     */
    public static List<Entry> scan(final Path dir) throws IOException
    {
        return scan(dir, SegmentFiles.PREFIX, false);
    }

    /**
     * @param prefix  how the names of the files to look at begin.
     * @param fromJob judged for a rank leaving its own job: see {@link #reclaimJob}.
     */
    private static List<Entry> scan(final Path dir, final String prefix, final boolean fromJob) throws IOException
    {
        final List<Entry> entries = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, file -> file.getFileName().toString().startsWith(prefix)))
        {
            for (final Path path : files)
            {
                final String name = path.getFileName().toString();
                try
                {
                    if (name.contains(SegmentFiles.BELL) || name.contains(SegmentFiles.WINDOW))
                    {
                        final Entry companion = orphanedCompanion(path, name);
                        if (companion != null)
                        {
                            entries.add(companion);
                        }
                    }
                    else if (!Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS))
                    {
                        continue;
                    }
                    else if (name.contains(SegmentFiles.CREATING))
                    {
                        entries.add(creating(path, name));
                    }
                    else if (name.endsWith(SegmentFiles.SUFFIX))
                    {
                        entries.add(complete(path, name, fromJob));
                    }
                }
                catch (final NoSuchFileException ex)
                {
                    // removed while we looked: its job ended
                }
                catch (final AccessDeniedException ex)
                {
                    // another user's job in a shared directory (/dev/shm): a segment is its owner's alone (0600)
                    try
                    {
                        entries.add(entry(path, name, "unreadable", 0, 0, false, "not readable by this user; left alone"));
                    }
                    catch (final NoSuchFileException gone)
                    {
                        // removed while we looked: its job ended
                    }
                }
            }
        }
        entries.sort(Comparator.comparing(Entry::path));
        return entries;
    }

    /**
     * Removes the stale segments of {@code dir}.
     *
     * @return the entries removed (or, with {@code dryRun}, that would be).
     * @throws IOException if the directory cannot be read.
     */
    public static List<Entry> reclaim(final Path dir, final boolean dryRun) throws IOException
    {
        return reclaim(dir, SegmentFiles.PREFIX, dryRun, false);
    }

    /**
     * Removes the files of one job, the segment at {@code segment} and its temporary and doorbell files, if
     * they are stale: for a rank that leaves a job that failed, so that no file outlives a job whose launcher
     * died before the ranks could finish (the last-one-out rule counts only ranks that registered). A
     * segment handed to its ranks ({@code sm4j create}) stays until every rank has registered: ranks may
     * still be on their way and must read the abort, not a missing file. Quiet: a file that cannot be read
     * or removed is left to {@code sm4j clean}.
     */
    public static void reclaimJob(final Path segment)
    {
        try
        {
            final Path dir = segment.toAbsolutePath().getParent();
            reclaim(dir, segment.getFileName().toString(), false, true);
        }
        catch (final IOException | RuntimeException ignore)
        {
            // nothing removed: sm4j clean or the next sm4j run will
        }
    }

    /**
     * @return true if a live process is allocating the segment {@code segment} under its temporary name.
     */
    static boolean beingCreated(final Path segment)
    {
        try
        {
            return scan(segment.toAbsolutePath().getParent(), segment.getFileName() + SegmentFiles.CREATING, false).stream()
                .anyMatch(entry -> !entry.stale());
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    /**
     * @return true if this removed {@code path}; false if it was gone, or may not be removed here (another user's
     *         file in a sticky directory such as /dev/shm): the rest of the directory is still reclaimed.
     */
    private static boolean deleted(final Path path)
    {
        try
        {
            return Files.deleteIfExists(path);
        }
        catch (final IOException refused)
        {
            return false;
        }
    }

    private static List<Entry> reclaim(final Path dir, final String prefix, final boolean dryRun, final boolean fromJob)
        throws IOException
    {
        final List<Entry> removed = new ArrayList<>();
        for (final Entry entry : scan(dir, prefix, fromJob))
        {
            if (entry.stale() && (dryRun || deleted(entry.path())))
            {
                removed.add(entry);
                if (!dryRun && entry.path().getFileName().toString().endsWith(SegmentFiles.SUFFIX))
                {
                    SegmentFiles.deleteCompanions(entry.path()); // a segment's ranks' doorbells and shared buffers go with it
                }
            }
        }
        return removed;
    }

    /**
     * @return a doorbell socket or shared buffer file whose segment is gone (a rank died after its job's
     *         segment was removed), or null if the segment is there: it goes with its segment.
     */
    private static Entry orphanedCompanion(final Path path, final String name) throws IOException
    {
        final boolean bell = name.contains(SegmentFiles.BELL);
        final String segment = name.substring(0, name.indexOf(bell ? SegmentFiles.BELL : SegmentFiles.WINDOW));
        if (Files.exists(path.resolveSibling(segment), LinkOption.NOFOLLOW_LINKS))
        {
            return null;
        }
        return bell ? entry(path, segment, "DOORBELL", 0, 0, true, "a rank's doorbell socket; its segment is gone") :
            entry(path, segment, "WINDOW", 0, 0, true, "a rank's shared buffer; its segment is gone");
    }

    private static Entry creating(final Path path, final String name) throws IOException
    {
        final String finalName = name.substring(0, name.indexOf(SegmentFiles.CREATING));
        final String[] creator = name.substring(finalName.length() + SegmentFiles.CREATING.length()).split("-");
        final ProcessIdentity identity;
        try
        {
            identity = new ProcessIdentity(Long.parseLong(creator[0]), creator.length > 1 ? Long.parseLong(creator[1]) : 0);
        }
        catch (final NumberFormatException ex)
        {
            return entry(path, finalName, "unreadable name", 0, 0, false, "not named by sm4j; left alone");
        }
        final boolean alive = identity.isAlive();
        return entry(path, finalName, "CREATING", 0, 0, !alive,
            alive ? "being created by " + identity : "its creator (" + identity + ") died while allocating it");
    }

    private static Entry complete(final Path path, final String name, final boolean fromJob) throws IOException
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))
        {
            final SegmentCopy copy;
            try
            {
                copy = SegmentCopy.read(channel, path);
            }
            catch (final SegmentCopy.Unreadable ex)
            {
                return entry(path, name, "unreadable: " + ex.getMessage(), 0, 0, false,
                    ex.sm4j ? "another sm4j version or a damaged file; left alone" : "not an sm4j segment; left alone");
            }
            final String state = copy.state();
            final SegmentHeader header = copy.header;
            final int n = copy.layout.params().peers();
            final int registered;
            final int alive;
            try (copy)
            {
                registered = copy.ranks.registeredCount();
                alive = copy.ranks.liveCount();
            }
            final ProcessIdentity creator = header.creator();
            final boolean launcherOwned = header.owner() == SegmentHeaderDescriptor.OWNER_CREATOR;
            if (alive > 0)
            {
                return entry(path, name, state, n, alive, false, alive + " of " + n + " ranks alive");
            }
            if (launcherOwned && creator.isAlive())
            {
                return entry(path, name, state, n, 0, false, "its launcher (" + creator + ") is alive");
            }
            if (!launcherOwned && fromJob && registered < n)
            {
                // no launcher knows when its ranks have all come: a rank leaving an aborted job does not take the
                // file from ranks still on their way (they read the abort); the last one out, or sm4j clean, does
                return entry(path, name, state, n, 0, false, "ranks of an sm4j create job may still come");
            }
            if (!launcherOwned && registered == 0 && !state.equals("ABORTED"))
            {
                return entry(path, name, state, n, 0, false, "waiting for its ranks (sm4j create); remove it by hand if " +
                    "they will not come");
            }
            return entry(path, name, state, n, 0, true, launcherOwned ? "its launcher (" + creator + ") and every rank are dead" :
                "every rank that joined is dead");
        }
    }

    private static Entry entry(
        final Path path, final String name, final String state, final int ranks, final int alive, final boolean stale,
        final String verdict) throws IOException
    {
        final String body = name.substring(SegmentFiles.PREFIX.length(), name.endsWith(SegmentFiles.SUFFIX) ?
            name.length() - SegmentFiles.SUFFIX.length() : name.length());
        final String jobId = body.substring(body.lastIndexOf('-') + 1);
        final Duration age = Duration.between(Files.getLastModifiedTime(path, LinkOption.NOFOLLOW_LINKS).toInstant(), Instant.now());
        return new Entry(path, jobId, Files.getOwner(path, LinkOption.NOFOLLOW_LINKS).getName(), state, ranks, alive,
            Files.size(path), age.isNegative() ? Duration.ZERO : age, stale, verdict);
    }
}
