package io.sm4j.launch;

import io.sm4j.segment.BadSettingException;
import io.sm4j.segment.ProcessIdentity;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Where the rank JVMs' class data archives live ({@link ClassDataArchive}): a directory of this user's alone, since
 * an archive is code the ranks run (the JVM does not check an archive's contents by default). Archives are kept
 * least recently used first out, {@link #KEPT} at most; a dump in progress is a partial file of its own.
 */
final class ArchiveDirectory
{
    static final String ENV = "SM4J_CDS";
    /** Archives kept (about 15 MB each: a static archive holds the JDK's classes too): one per JDK, classpath and options in use. */
    static final int KEPT = 4;
    static final String SUFFIX = ".jsa";
    static final String PARTIAL = ".partial";
    /** A key whose dump failed (the marker's time says when): no dump is tried again for a while. */
    static final String REFUSED = ".off";
    /** A partial dump older than this belongs to a job that died: removed. */
    private static final long STALE_PARTIAL_MILLIS = TimeUnit.HOURS.toMillis(1);
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    /** The first bytes of a static archive the JVM finished writing (0xf00baba2, little-endian). */
    private static final byte[] STATIC_MAGIC = { (byte)0xa2, (byte)0xab, 0x0b, (byte)0xf0 };

    private ArchiveDirectory()
    {
    }

    /**
     * @return the archives' directory, or null if {@link #ENV} is off (or auto finds no home).
     * @throws BadSettingException if {@link #ENV} is neither auto, off nor an absolute path.
     */
    static Path of(final Map<String, String> env)
    {
        final String set = env.get(ENV);
        final String value = set == null || set.isBlank() ? "auto" : set; // empty is unset, as every SM4J_ setting
        if (value.equals("off"))
        {
            return null;
        }
        if (value.equals("auto"))
        {
            final String cache = env.get("XDG_CACHE_HOME");
            final String home = System.getProperty("user.home");
            if (cache != null && cache.startsWith("/"))
            {
                return Path.of(cache, "sm4j", "cds");
            }
            return home == null || !home.startsWith("/") ? null : Path.of(home, ".cache", "sm4j", "cds");
        }
        if (!value.startsWith("/"))
        {
            throw new BadSettingException(ENV + "=" + value + " (expected: auto, off or an absolute directory for the " +
                "rank JVMs' class data archive)");
        }
        return Path.of(value);
    }

    /**
     * Makes {@code dir} if it is missing, this user's alone.
     *
     * @return true if {@code dir} is a directory (not a link) that this user owns and only this user may write, in
     *         a parent that no other user can replace it in (owned by this user or root, and not writable by
     *         others unless sticky).
     */
    static boolean own(final Path dir)
    {
        try
        {
            final Object me = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS))
            {
                // made for this user alone, whatever the umask (002, many distributions' default, left ~/.cache/sm4j
                // group-writable: refused as a parent below, and the archive silently never used)
                Files.createDirectories(dir.getParent(), PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            }
            return Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) &&
                me.equals(Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS)) &&
                Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS).equals(OWNER_ONLY) &&
                safeParent(dir.getParent(), me);
        }
        catch (final IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException ex)
        {
            return false;
        }
    }

    private static boolean safeParent(final Path parent, final Object me) throws IOException
    {
        final Object owner = Files.getAttribute(parent, "unix:uid");
        final int mode = (Integer)Files.getAttribute(parent, "unix:mode");
        final boolean othersWrite = (mode & 0022) != 0;
        final boolean sticky = (mode & 01000) != 0;
        return (owner.equals(me) || owner.equals(0)) && (!othersWrite || sticky);
    }

    /**
     * @return a file of one job's on the way to {@code archive}, {@code kind} of it (a class list, a dump): no other
     *         launcher, in any PID namespace, names the same.
     */
    static Path partialOf(final Path archive, final String kind, final long token)
    {
        return archive.resolveSibling(archive.getFileName() + "." + ProcessHandle.current().pid() + "-" +
            Long.toHexString(token) + "." + kind + PARTIAL);
    }

    /**
     * @return true if a dump of {@code archive}'s key failed after {@code since} (milliseconds since the epoch).
     */
    static boolean refusedSince(final Path archive, final long since)
    {
        final Path marker = refusedOf(archive);
        return Files.exists(marker, LinkOption.NOFOLLOW_LINKS) && modified(marker) > since;
    }

    /**
     * Remembers, from now, that a dump of {@code archive}'s key failed.
     */
    static void refuse(final Path archive)
    {
        final Path marker = refusedOf(archive);
        try
        {
            if (!Files.exists(marker, LinkOption.NOFOLLOW_LINKS))
            {
                Files.createFile(marker);
            }
            touch(marker);
        }
        catch (final IOException ignore)
        {
            // tried again by the next job
        }
    }

    private static Path refusedOf(final Path archive)
    {
        final String name = archive.getFileName().toString();
        return archive.resolveSibling(name.substring(0, name.length() - SUFFIX.length()) + REFUSED);
    }

    /**
     * @return true if {@code file} starts with a static archive's header.
     */
    static boolean finished(final Path file)
    {
        try (InputStream in = Files.newInputStream(file))
        {
            return Arrays.equals(in.readNBytes(STATIC_MAGIC.length), STATIC_MAGIC);
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    /**
     * Marks {@code file} used now: pruning removes the least recently used.
     */
    static void touch(final Path file)
    {
        try
        {
            Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis()));
        }
        catch (final IOException ignore)
        {
            // a cache: at worst pruned sooner
        }
    }

    /**
     * Keeps the {@link #KEPT} most recently used archives in {@code dir} (and as many refusal markers) and removes
     * partial files an hour old of launchers gone.
     */
    static void prune(final Path dir)
    {
        final long now = System.currentTimeMillis();
        final List<Path> archives = new ArrayList<>();
        final List<Path> refusals = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir))
        {
            for (final Path file : (Iterable<Path>)files::iterator)
            {
                final String name = file.getFileName().toString();
                if (name.endsWith(SUFFIX))
                {
                    archives.add(file);
                }
                else if (name.endsWith(REFUSED))
                {
                    refusals.add(file);
                }
                else if (name.endsWith(PARTIAL) && now - modified(file) > STALE_PARTIAL_MILLIS && !launcherAlive(name))
                {
                    deleteQuietly(file);
                }
            }
        }
        catch (final IOException | RuntimeException ignore)
        {
            return; // the cache is best effort (a file gone while listed)
        }
        keepNewest(archives);
        keepNewest(refusals);
    }

    /**
     * @return true if the launcher that named a partial file ({@link #partialOf}) runs (or another process of its
     *         pid, in another PID namespace: the file then waits longer): a job's rank 0 lists its classes for as
     *         long as the job runs.
     */
    private static boolean launcherAlive(final String partial)
    {
        final int from = partial.indexOf(SUFFIX + ".") + SUFFIX.length() + 1;
        final int to = partial.indexOf('-', from);
        try
        {
            return new ProcessIdentity(Long.parseLong(partial.substring(from, to)), 0).isAlive(); // a zombie is dead
        }
        catch (final RuntimeException notOurs)
        {
            return false;
        }
    }

    private static void keepNewest(final List<Path> files)
    {
        // each file's time read once: other jobs touch and remove files while this sorts
        final Map<Path, Long> times = new HashMap<>();
        files.forEach(file -> times.put(file, modified(file)));
        files.sort(Comparator.comparingLong((Path file) -> times.get(file)).reversed());
        files.stream().skip(KEPT).forEach(ArchiveDirectory::deleteQuietly);
    }

    private static long modified(final Path file)
    {
        return file.toFile().lastModified(); // 0 if gone meanwhile: oldest
    }

    static void deleteQuietly(final Path file)
    {
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ignore)
        {
            // best effort: pruned by a later job
        }
    }
}
