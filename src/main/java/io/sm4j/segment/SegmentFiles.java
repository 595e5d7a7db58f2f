package io.sm4j.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Set;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Where segment files live and how they come into existence: a fresh, unguessable name, exclusive
 * creation with mode 0600 that never follows a link, a space check, and every page allocated by
 * {@code write} so that a full tmpfs fails here with ENOSPC instead of as SIGBUS later.
 */
public final class SegmentFiles
{
    public static final Path DEFAULT_DIR = Path.of("/dev/shm");
    /** Overrides the directory where no option names one. */
    public static final String DIR_ENV = "SM4J_DIR";
    private static final int ZERO_CHUNK = 1 << 20;
    private static final String SPACE_HINT = "Use another directory (--dir DIR of sm4j run, create and bench, or SM4J_DIR), fewer ranks, " +
        "or a larger /dev/shm (Docker: --shm-size)";
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Separates a segment's final name from the creator's pid and start time in its temporary name. */
    static final String CREATING = ".creating-";
    /** Every segment file name starts with this. */
    static final String PREFIX = "sm4j-";
    /** A complete segment's file name ends with this. */
    static final String SUFFIX = ".seg";
    /** Between a segment's name and a rank in the name of that rank's doorbell socket. */
    static final String BELL = ".bell-";
    /** Between a segment's name and a rank in the names of that rank's shared buffer files. */
    static final String WINDOW = ".win-";

    private SegmentFiles()
    {
    }

    /**
     * @param requested a directory named by option, or null.
     * @param warnings  told when falling back from /dev/shm.
     * @return the directory to create segments in.
     */
    public static Path directory(final Path requested, final Consumer<String> warnings)
    {
        if (requested != null)
        {
            return requireWritableDirectory(requested);
        }
        final String env = System.getenv(DIR_ENV);
        if (env != null && !env.isBlank())
        {
            return requireWritableDirectory(Path.of(env));
        }
        if (Files.isDirectory(DEFAULT_DIR) && Files.isWritable(DEFAULT_DIR))
        {
            return DEFAULT_DIR;
        }
        final Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        warnings.accept("sm4j: " + DEFAULT_DIR + " is missing or not writable; using " + tmp +
            " (not a tmpfs: pages may be written back to disk)");
        return requireWritableDirectory(tmp);
    }

    /**
     * @return where jobs' segments are looked for by a command that only reads them ({@code sm4j stat}): as
     *         {@link #directory}, but a directory it may not write to will do ($SM4J_DIR, else /dev/shm, else
     *         java.io.tmpdir).
     */
    public static Path readableDirectory()
    {
        final String env = System.getenv(DIR_ENV);
        if (env != null && !env.isBlank())
        {
            return Path.of(env);
        }
        return Files.isDirectory(DEFAULT_DIR) ? DEFAULT_DIR : Path.of(System.getProperty("java.io.tmpdir"));
    }

    /**
     * @return a new random 64-bit job id, never 0.
     */
    public static long newJobId()
    {
        long id;
        do
        {
            id = RANDOM.nextLong();
        }
        while (id == 0);
        return id;
    }

    /**
     * @return the segment file name for a job: the user and the job id.
     */
    public static String fileName(final long jobId)
    {
        final String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_.-]", "_");
        return PREFIX + user + "-" + jobIdText(jobId) + SUFFIX;
    }

    /**
     * @return where the segment of {@code jobId} lives in {@code dir}.
     */
    /**
     * Removes {@code path} if it exists, ignoring failures: for cleanup paths (a failed create, the last rank
     * out, a shutdown hook), where someone else may remove it too and nothing more can be done.
     */
    public static void deleteQuietly(final Path path)
    {
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ignore)
        {
            // best effort
        }
    }

    public static Path path(final Path dir, final long jobId)
    {
        return dir.resolve(fileName(jobId));
    }

    /**
     * @return the doorbell socket of {@code rank} of the job whose segment is {@code segment}: beside it,
     *         its name followed by {@value #BELL} and the rank, so whoever removes the segment finds it.
     */
    public static Path bellPath(final Path segment, final int rank)
    {
        return segment.resolveSibling(segment.getFileName() + BELL + rank);
    }

    /**
     * @return the file of shared buffer {@code chunkId} of {@code rank} of the job whose segment is
     *         {@code segment}: beside it, its name followed by {@value #WINDOW}, the rank, '-' and the chunk id,
     *         so whoever removes the segment finds it.
     */
    public static Path windowPath(final Path segment, final int rank, final long chunkId)
    {
        return segment.resolveSibling(segment.getFileName() + WINDOW + rank + "-" + chunkId);
    }

    /**
     * Removes a job's segment and its ranks' doorbell sockets and shared buffer files (left behind by ranks
     * that died), quietly.
     */
    public static void deleteSegment(final Path segment)
    {
        deleteQuietly(segment);
        deleteCompanions(segment);
    }

    /**
     * Removes the doorbell sockets and shared buffer files of {@code segment}'s ranks, quietly.
     */
    static void deleteCompanions(final Path segment)
    {
        final Path dir = segment.toAbsolutePath().getParent();
        for (final String kind : new String[]{ BELL, WINDOW })
        {
            try (java.nio.file.DirectoryStream<Path> files = Files.newDirectoryStream(dir, segment.getFileName() + kind + "*"))
            {
                files.forEach(SegmentFiles::deleteQuietly);
            }
            catch (final IOException | RuntimeException ignore)
            {
                // best effort, as deleteQuietly
            }
        }
    }

    /**
     * @return the temporary name under which this process allocates and formats the segment of {@code jobId}
     *         before linking it to {@link #fileName}: the final name followed by {@value #CREATING} and this
     *         process's pid and start time, so that a file left by a creator that died is recognised.
     */
    public static String creatingName(final long jobId)
    {
        final ProcessIdentity self = ProcessIdentity.current();
        return fileName(jobId) + CREATING + self.pid() + "-" + self.startTicks();
    }

    /**
     * Removes the files this process left half allocated in {@code dir} ({@link #creatingName}): for a creator
     * stopped by a signal while it allocates (from a shutdown hook; never throws).
     */
    public static void deletePartials(final Path dir)
    {
        final ProcessIdentity self = ProcessIdentity.current();
        final String own = CREATING + self.pid() + "-" + self.startTicks();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, file -> file.getFileName().toString().endsWith(own)))
        {
            files.forEach(SegmentFiles::deleteQuietly);
        }
        catch (final IOException | RuntimeException ex)
        {
            // nothing to remove, or nothing this process may remove: sm4j clean finds what is left
        }
    }

    /**
     * @return {@link #creatingName} in {@code dir}.
     */
    public static Path creatingPath(final Path dir, final long jobId)
    {
        return dir.resolve(creatingName(jobId));
    }

    /**
     * @return the job id as it appears in the file name and in {@code SM4J_JOB_ID}: 16 hex digits.
     */
    public static String jobIdText(final long jobId)
    {
        return String.format(Locale.ROOT, "%016x", jobId);
    }

    /**
     * Creates {@code path} exclusively with mode 0600 and allocates every one of its {@code length} bytes
     * (a tmpfs file is otherwise allocated page by page on first touch, and a full one faults a later write).
     *
     * @param what what the file is, for the message if there is no room ("the segment").
     * @return the open channel; on failure nothing is left behind.
     */
    public static FileChannel createAllocated(final Path path, final long length, final String what) throws IOException
    {
        requireSpace(path.toAbsolutePath().getParent(), length, what);
        final FileChannel channel = FileChannel.open(path,
            Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try
        {
            final ByteBuffer zeros = ByteBuffer.allocateDirect(ZERO_CHUNK);
            long position = 0;
            while (position < length)
            {
                zeros.clear().limit((int)Math.min(ZERO_CHUNK, length - position));
                while (zeros.hasRemaining())
                {
                    position += channel.write(zeros, position);
                }
            }
            return channel;
        }
        catch (final IOException | RuntimeException ex)
        {
            channel.close();
            Files.deleteIfExists(path);
            final boolean full = String.valueOf(ex.getMessage()).contains("No space left");
            final String message = String.format(Locale.ROOT, "cannot allocate %,d bytes for %s: %s%s", length, path,
                ex.getMessage(), full ? ". " + SPACE_HINT : "");
            throw full ? new NoSpaceException(message, ex) : new Sm4jException(message, ex);
        }
    }

    /**
     * @throws Sm4jException if {@code dir} has less than {@code length} bytes free, saying what to do.
     */
    static void requireSpace(final Path dir, final long length, final String what) throws IOException
    {
        final long usable = Files.getFileStore(dir).getUsableSpace();
        if (usable < length)
        {
            throw new NoSpaceException(String.format(Locale.ROOT, "not enough space in %s: %s needs %,d bytes, " +
                "%,d are free. %s", dir, what, length, usable, SPACE_HINT), null);
        }
    }

    private static Path requireWritableDirectory(final Path dir)
    {
        if (!Files.isDirectory(dir) || !Files.isWritable(dir))
        {
            throw new IllegalArgumentException("segment directory " + dir + " is not a writable directory");
        }
        return dir;
    }
}
