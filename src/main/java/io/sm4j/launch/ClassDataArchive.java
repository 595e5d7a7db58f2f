package io.sm4j.launch;

import io.sm4j.segment.BadSettingException;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The rank JVMs' class data sharing (AppCDS, JDK 13+): a job whose ranks load their classes from jars uses an
 * archive of those classes, made by rank 0 of an earlier job with the same JDK, jars and JVM options
 * ({@link ArchiveKey}), so that each rank maps them instead of loading, verifying and linking them (a 2-rank job
 * ends in 0.43-0.55 s instead of 0.56-0.62, docs/benchmarks.md). JDK 17 cannot create the archive by itself (JDK
 * 19's {@code -XX:+AutoCreateSharedArchive}), so the launcher does: with no archive, rank 0 dumps one at its exit
 * ({@code -XX:ArchiveClassesAtExit}) into a file of its own, which is moved into place, atomically, only after a job
 * whose every rank exited 0 and only if its header was written (the JVM writes it last).
 * <p>
 * The archive is a cache, never a condition: a JDK 17 JVM without its own base archive (the options
 * {@code -Xshare:off}, {@code -XX:-UseCompressedClassPointers}, a jlink image made without one) stops at start when
 * asked to dump, so the launcher first tries the ranks' JVM and options once ({@link #probe}) and remembers a refusal
 * ({@link ArchiveDirectory#REFUSED}); a dump needs {@link #DUMP_ROOM} free in the directory; and every rank that maps
 * an archive or dumps one says nothing of it on its output ({@link #QUIET}). A JVM that cannot map an archive (another
 * heap mode than the dump's) runs without class data sharing at all, the JDK's own archive included.
 * <p>
 * {@code SM4J_CDS}: {@code auto} (the default: {@code $XDG_CACHE_HOME/sm4j/cds}, else {@code ~/.cache/sm4j/cds}),
 * {@code off}, or an absolute directory ({@link ArchiveDirectory}). Off by itself when a classpath entry is a
 * directory (CDS archives classes from jars only), when the job's options or the environment's choose an archive,
 * or when the directory cannot be made this user's alone.
 */
public final class ClassDataArchive
{
    public static final String ENV = ArchiveDirectory.ENV;
    /** Room a dump needs in the directory: a rank 0 whose dump cannot be written exits 1. */
    static final long DUMP_ROOM = 256L << 20;
    /** What a rank that maps or dumps an archive says of it: nothing (the job's output is the user's). */
    static final List<String> QUIET = List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    /** How long the probe of a key's JVM may take. */
    private static final long PROBE_SECONDS = 30;
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
     * @param env       the ranks' environment ({@link #ENV}, the JVM option variables).
     * @param classpath the ranks' classpath (ignored with -jar).
     * @param jvmArgs   the ranks' JVM options, all of them (what the launcher adds included).
     * @param command   main class and arguments, or "-jar", jar, arguments.
     * @throws BadSettingException if {@link #ENV} is neither auto, off nor an absolute path.
     */
    public static ClassDataArchive forJob(
        final Map<String, String> env, final String classpath, final List<String> jvmArgs, final List<String> command)
    {
        final Path dir = ArchiveDirectory.of(env);
        if (dir == null || choosesArchive(jvmArgs, env))
        {
            return OFF;
        }
        final List<Path> jars = ArchiveKey.jars(command.get(0).equals("-jar") ? command.get(1) : classpath);
        if (jars.isEmpty() || !ArchiveDirectory.own(dir))
        {
            return OFF;
        }
        ArchiveDirectory.prune(dir);
        final Path archive = dir.resolve(ArchiveKey.of(jars, jvmArgs, env) + ArchiveDirectory.SUFFIX);
        if (Files.isRegularFile(archive, LinkOption.NOFOLLOW_LINKS))
        {
            ArchiveDirectory.touch(archive);
            return new ClassDataArchive(archive, null);
        }
        final Path refused = ArchiveDirectory.refusedOf(archive);
        if (Files.exists(refused, LinkOption.NOFOLLOW_LINKS) || dir.toFile().getUsableSpace() < DUMP_ROOM)
        {
            return OFF;
        }
        final Path partial = ArchiveDirectory.partialOf(archive);
        if (!probe(env, jars, jvmArgs, partial))
        {
            try
            {
                Files.createFile(refused);
            }
            catch (final IOException ignore)
            {
                // tried again by the next job
            }
            return OFF;
        }
        return new ClassDataArchive(archive, partial);
    }

    /**
     * @return the options rank {@code rank}'s JVM gets, before the job's: none if off.
     */
    public List<String> jvmArgs(final int rank)
    {
        final List<String> args = new ArrayList<>();
        if (archive != null && (partial == null || rank == 0))
        {
            args.add(partial == null ? "-XX:SharedArchiveFile=" + archive : "-XX:ArchiveClassesAtExit=" + partial);
            args.addAll(QUIET);
        }
        return args;
    }

    /**
     * After the job: moves rank 0's dump into place if every rank exited 0 and the dump is whole, else removes it.
     * Never fails the job: a cache that cannot be written is skipped.
     *
     * @param succeeded every rank exited 0 on its own (not a job that was stopped: a rank killed in its dump
     *                  leaves a file without its header).
     */
    public void finish(final boolean succeeded)
    {
        if (partial == null)
        {
            return;
        }
        try
        {
            if (succeeded && ArchiveDirectory.finished(partial))
            {
                // readers map either the whole old file or the whole new one
                Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        catch (final IOException ignore)
        {
            // the directory gone, or another launcher's move first: the next job tries again
        }
        ArchiveDirectory.deleteQuietly(partial);
    }

    /**
     * The ranks' JVM, started once with their options and environment and asked to dump (into {@code partial},
     * removed after): a JDK 17 JVM that has no base archive to dump on top of stops at start, which would fail
     * every job's rank 0.
     *
     * @return true if it could.
     */
    private static boolean probe(final Map<String, String> env, final List<Path> jars, final List<String> jvmArgs, final Path partial)
    {
        final List<String> args = new ArrayList<>(jvmArgs);
        args.add("-XX:ArchiveClassesAtExit=" + partial);
        args.addAll(QUIET);
        final String classpath = jars.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
        final ProcessBuilder builder = new ProcessBuilder(JobLauncher.javaCommand(classpath, args, List.of("-version")))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().putAll(env);
        try
        {
            final Process probe = builder.start();
            if (!probe.waitFor(PROBE_SECONDS, TimeUnit.SECONDS))
            {
                probe.destroyForcibly();
                return false;
            }
            return probe.exitValue() == 0;
        }
        catch (final IOException ex)
        {
            return false;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
        finally
        {
            ArchiveDirectory.deleteQuietly(partial);
        }
    }

    /**
     * @return true if the job's JVM options, or the options every JVM takes from the environment, choose how the
     *         JVM shares classes: theirs is the choice.
     */
    static boolean choosesArchive(final List<String> jvmArgs, final Map<String, String> env)
    {
        final List<String> all = new ArrayList<>(jvmArgs);
        for (final String variable : ArchiveKey.OPTION_VARIABLES)
        {
            all.addAll(List.of(env.getOrDefault(variable, "").trim().split("\\s+")));
        }
        return all.stream().anyMatch(arg -> arg.startsWith("-Xshare") || arg.startsWith("-XX:SharedArchiveFile") ||
            arg.startsWith("-XX:ArchiveClassesAtExit") || arg.contains("AutoCreateSharedArchive") ||
            arg.contains("UseSharedSpaces") || arg.startsWith("-XX:SharedClassListFile"));
    }
}
