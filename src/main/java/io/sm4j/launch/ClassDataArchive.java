package io.sm4j.launch;

import io.sm4j.segment.BadSettingException;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The rank JVMs' class data sharing (AppCDS, JDK 13+): a job whose ranks load their classes from jars uses an
 * archive of those classes, made once by rank 0 of an earlier job with the same JDK, jars and JVM options, so that
 * each rank maps them instead of loading, verifying and linking them (a 2-rank job starts in 0.46-0.53 s instead of
 * 0.60-0.91, docs/benchmarks.md). JDK 17 cannot create the archive by itself (JDK 19's
 * {@code -XX:+AutoCreateSharedArchive}), so the launcher does: with no archive, rank 0 dumps one at its exit
 * ({@code -XX:ArchiveClassesAtExit}) into a file of its own, which is moved into place, atomically, only after a job
 * whose every rank exited 0. A JVM that finds the archive unusable (another heap mode, a jar changed since) runs
 * without it, silently: the archive is a cache, never a condition.
 * <p>
 * {@code SM4J_CDS}: {@code auto} (the default: {@code $XDG_CACHE_HOME/sm4j/cds}, else {@code ~/.cache/sm4j/cds}),
 * {@code off}, or an absolute directory. Off by itself when a classpath entry is a directory (CDS archives classes
 * from jars only), when the job's options already choose an archive, or when the directory cannot be made this
 * user's alone.
 */
public final class ClassDataArchive
{
    public static final String ENV = "SM4J_CDS";
    /** Archives kept in the directory, newest first: one per JDK, classpath and options in use. */
    static final int KEPT = 8;
    private static final String SUFFIX = ".jsa";
    private static final String PARTIAL = ".partial";
    /** A partial dump older than this belongs to a job that died: removed. */
    private static final long STALE_PARTIAL_MILLIS = TimeUnit.HOURS.toMillis(1);
    /** The dumping rank says nothing of classes CDS cannot archive (picocli's Java 5 classes): the job's output is the user's. */
    private static final List<String> QUIET = List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    /** No archive: every rank loads its classes. */
    static final ClassDataArchive OFF = new ClassDataArchive(null, null);

    /** The archive, or null: off. */
    private final Path archive;
    /** Where rank 0 dumps this job's archive, or null: the archive exists, every rank maps it. */
    private final Path partial;

    private ClassDataArchive(final Path archive, final Path partial)
    {
        this.archive = archive;
        this.partial = partial;
    }

    /**
     * @param env       the ranks' environment ({@link #ENV}).
     * @param classpath the ranks' classpath (ignored with -jar).
     * @param jvmArgs   the ranks' JVM options.
     * @param command   main class and arguments, or "-jar", jar, arguments.
     * @throws BadSettingException if {@link #ENV} is neither auto, off nor an absolute path.
     */
    public static ClassDataArchive forJob(
        final Map<String, String> env, final String classpath, final List<String> jvmArgs, final List<String> command)
    {
        final Path dir = directory(env);
        if (dir == null || choosesArchive(jvmArgs))
        {
            return OFF;
        }
        final List<Path> jars = jars(command.get(0).equals("-jar") ? command.get(1) : classpath, command.get(0).equals("-jar"));
        if (jars.isEmpty() || !ownDirectory(dir))
        {
            return OFF;
        }
        final Path archive = dir.resolve(key(jars, jvmArgs) + SUFFIX);
        if (Files.isRegularFile(archive, LinkOption.NOFOLLOW_LINKS))
        {
            return new ClassDataArchive(archive, null);
        }
        return new ClassDataArchive(archive, dir.resolve(archive.getFileName() + "." + ProcessHandle.current().pid() + PARTIAL));
    }

    /**
     * @return the options rank {@code rank}'s JVM gets: none if off.
     */
    public List<String> jvmArgs(final int rank)
    {
        if (archive == null)
        {
            return List.of();
        }
        if (partial == null)
        {
            return List.of("-XX:SharedArchiveFile=" + archive);
        }
        if (rank != 0)
        {
            return List.of();
        }
        final List<String> args = new ArrayList<>(List.of("-XX:ArchiveClassesAtExit=" + partial));
        args.addAll(QUIET);
        return args;
    }

    /**
     * After the job: moves rank 0's dump into place if every rank exited 0, else removes it; then keeps the
     * {@link #KEPT} newest archives. Never fails the job: a cache that cannot be written is skipped.
     *
     * @param succeeded every rank exited 0 (rank 0's dump is then whole).
     */
    public void finish(final boolean succeeded)
    {
        if (partial == null)
        {
            return;
        }
        try
        {
            if (succeeded && Files.size(partial) > 0)
            {
                // readers map either the whole old file or the whole new one
                Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        catch (final IOException ignore)
        {
            // no dump (a rank JVM that could not archive), or the directory gone: the next job tries again
        }
        deleteQuietly(partial);
        prune(partial.getParent());
    }

    /**
     * @return the archive's directory, or null if {@link #ENV} is off.
     */
    static Path directory(final Map<String, String> env)
    {
        final String value = env.getOrDefault(ENV, "auto");
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
            return home == null || home.isEmpty() || home.equals("?") ? null : Path.of(home, ".cache", "sm4j", "cds");
        }
        if (!value.startsWith("/"))
        {
            throw new BadSettingException(ENV + "=" + value + " (expected: auto, off or an absolute directory for the " +
                "rank JVMs' class data archive)");
        }
        return Path.of(value);
    }

    private static boolean choosesArchive(final List<String> jvmArgs)
    {
        return jvmArgs.stream().anyMatch(arg -> arg.startsWith("-Xshare") || arg.startsWith("-XX:SharedArchiveFile") ||
            arg.startsWith("-XX:ArchiveClassesAtExit") || arg.startsWith("-XX:+AutoCreateSharedArchive"));
    }

    /**
     * @return the classpath's jars (with -jar, the jar and its manifest's Class-Path), or none if an entry is
     *         not a jar file (a directory, a wildcard, a missing file): CDS would not archive it.
     */
    static List<Path> jars(final String classpath, final boolean jar)
    {
        final List<Path> jars = new ArrayList<>();
        if (classpath == null || classpath.isEmpty())
        {
            return List.of();
        }
        for (final String entry : classpath.split(File.pathSeparator))
        {
            final Path path = Path.of(entry).toAbsolutePath();
            if (entry.isEmpty() || entry.contains("*") || !Files.isRegularFile(path))
            {
                return List.of();
            }
            jars.add(path);
        }
        if (jar)
        {
            try (JarFile file = new JarFile(jars.get(0).toFile()))
            {
                final String manifestPath = file.getManifest() == null ? null :
                    file.getManifest().getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
                if (manifestPath != null)
                {
                    for (final String entry : manifestPath.trim().split("\\s+"))
                    {
                        jars.add(jars.get(0).resolveSibling(entry)); // fingerprinted as they are, present or not
                    }
                }
            }
            catch (final IOException ex)
            {
                return List.of();
            }
        }
        return jars;
    }

    /**
     * @return a name for the archive of these jars as they are now, under this JDK, with these options (logging
     *         options aside: they change nothing the archive holds).
     */
    static String key(final List<Path> jars, final List<String> jvmArgs)
    {
        final StringBuilder text = new StringBuilder()
            .append(System.getProperty("java.home")).append('\n')
            .append(System.getProperty("java.vm.version")).append('\n');
        for (final String arg : jvmArgs)
        {
            if (!arg.startsWith("-Xlog"))
            {
                text.append(arg).append('\n');
            }
        }
        for (final Path jar : jars)
        {
            text.append(jar).append(' ').append(jar.toFile().length()).append(' ').append(jar.toFile().lastModified()).append('\n');
        }
        try
        {
            final byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("every JDK has SHA-256", ex);
        }
    }

    /**
     * @return true if {@code dir} exists or was made, is a directory (not a link) of this user's, and only this
     *         user may write it: another user's archive would be code this job runs.
     */
    static boolean ownDirectory(final Path dir)
    {
        try
        {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS))
            {
                Files.createDirectories(dir.getParent());
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            return Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) &&
                Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName().equals(System.getProperty("user.name")) &&
                Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS).equals(PosixFilePermissions.fromString("rwx------"));
        }
        catch (final IOException | UnsupportedOperationException | SecurityException ex)
        {
            return false;
        }
    }

    /**
     * Keeps the {@link #KEPT} newest archives in {@code dir} and removes partial dumps of jobs long gone.
     */
    static void prune(final Path dir)
    {
        final long now = System.currentTimeMillis();
        try (Stream<Path> files = Files.list(dir))
        {
            final List<Path> archives = new ArrayList<>();
            for (final Path file : (Iterable<Path>)files::iterator)
            {
                final String name = file.getFileName().toString();
                if (name.endsWith(SUFFIX))
                {
                    archives.add(file);
                }
                else if (name.endsWith(PARTIAL) && now - modified(file) > STALE_PARTIAL_MILLIS)
                {
                    deleteQuietly(file);
                }
            }
            archives.sort(Comparator.comparingLong(ClassDataArchive::modified).reversed());
            archives.stream().skip(KEPT).forEach(ClassDataArchive::deleteQuietly);
        }
        catch (final IOException ignore)
        {
            // the cache is best effort
        }
    }

    private static long modified(final Path file)
    {
        return file.toFile().lastModified(); // 0 if gone meanwhile: oldest
    }

    private static void deleteQuietly(final Path file)
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
