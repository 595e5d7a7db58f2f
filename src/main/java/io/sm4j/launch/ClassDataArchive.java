package io.sm4j.launch;

import io.sm4j.job.Environment;

import io.sm4j.segment.BadSettingException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The rank JVMs' class data sharing (AppCDS, JDK 10+): a job whose ranks load their classes from jars uses an
 * archive of those classes, made after an earlier job with the same JDK, jars and JVM options
 * ({@link ArchiveKey}), so that each rank maps them instead of loading, verifying and linking them (a 2-rank job
 * ends in 0.45-0.53 s instead of 0.56-0.70, docs/benchmarks.md). JDK 17 cannot create the archive by itself (JDK
 * 19's {@code -XX:+AutoCreateSharedArchive}), so the launcher does, in two steps that cannot fail a job: rank 0 of
 * the first job writes the classes it loads to a list ({@code -XX:DumpLoadedClassList}, which only writes names),
 * and once every rank has exited 0 on its own, the launcher starts the ranks' JVM with their options to dump the
 * listed classes ({@code -Xshare:dump}) into a file of its own, moved into place, atomically, only if the dump
 * exited 0 with its header written and the same JVM then maps it ({@code -Xshare:on}: a class path it sees
 * otherwise at run time than the key says would leave every rank without class data sharing). A dump that fails
 * is remembered for {@link #RETRY_MILLIS} ({@link ArchiveDirectory#REFUSED}).
 * <p>
 * The archive is a cache, never a condition: every rank that maps one says nothing of it on its output
 * ({@link #QUIET}), and a JVM that cannot map it (another heap mode than the dump's) runs without class data
 * sharing at all, the JDK's own archive included.
 * <p>
 * {@code SM4J_CDS}: {@code auto} (the default: {@code $XDG_CACHE_HOME/sm4j/cds}, else {@code ~/.cache/sm4j/cds}),
 * {@code off}, or an absolute directory ({@link ArchiveDirectory}). Off by itself when a classpath entry is a
 * directory (CDS archives classes from jars only), when the job's options or the environment's choose how the JVM
 * shares classes, or when the directory cannot be made this user's alone.
 */
public final class ClassDataArchive
{
    public static final String ENV = ArchiveDirectory.ENV;
    /** What a rank that maps an archive, or lists its classes, says of it: nothing (the job's output is the user's). */
    static final List<String> QUIET = List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    /** How long a failed dump keeps a key from dumping again. */
    static final long RETRY_MILLIS = TimeUnit.DAYS.toMillis(1);
    /**
     * Options under which the JVM archives no classes or archives jars the key does not follow (modules, the boot
     * class path): the archive is then off.
     */
    private static final List<String> MODULE_OPTIONS = List.of("--module-path", "--upgrade-module-path",
        "--patch-module", "--limit-modules", "-Xbootclasspath");
    /** No archive: every rank loads its classes. */
    static final ClassDataArchive OFF = new ClassDataArchive(null, null, null, null);

    /** The archive, or null: off. */
    private final Path archive;
    /** Where rank 0 lists its classes for the dump after the job, or null: the archive exists, every rank maps it. */
    private final Path classes;
    /** Where the dump goes before it is moved into place; null with {@link #classes}. */
    private final Path dump;
    /** The ranks' JVM, to dump and check the archive after the job; null with {@link #classes}. */
    private final ArchiveJvm jvm;

    private ClassDataArchive(final Path archive, final Path classes, final Path dump, final ArchiveJvm jvm)
    {
        this.archive = archive;
        this.classes = classes;
        this.dump = dump;
        this.jvm = jvm;
    }

    /**
     * @param env       the ranks' environment ({@link #ENV}, the JVM option variables).
     * @param classpath the ranks' classpath (ignored with -jar).
     * @param jvmArgs   the ranks' JVM options, all of them (what the launcher adds included).
     * @param command   main class and arguments, or "-jar", jar, arguments.
     * @param warn      told, in one line, why a directory that {@link #ENV} names cannot be used.
     * @throws BadSettingException if {@link #ENV} is neither auto, off nor an absolute path.
     */
    public static ClassDataArchive forJob(
        final Map<String, String> env, final String classpath, final List<String> jvmArgs, final List<String> command,
        final Consumer<String> warn)
    {
        final Path dir = ArchiveDirectory.of(env);
        if (dir == null || choosesArchive(jvmArgs, env))
        {
            return OFF;
        }
        final String ranksClasspath = command.get(0).equals("-jar") ? command.get(1) : classpath;
        final List<Path> jars = ArchiveKey.jars(ranksClasspath);
        if (jars.isEmpty())
        {
            return OFF;
        }
        if (!ArchiveDirectory.own(dir))
        {
            if (Environment.isSet(env, ENV))
            {
                warn.accept(ENV + "=" + dir + " is not used: the class data archives need a directory of this user's " +
                    "alone (mode rwx------, not a link, in a parent others cannot write); the ranks load their classes");
            }
            return OFF;
        }
        ArchiveDirectory.prune(dir);
        final Path archive = dir.resolve(ArchiveKey.of(jars, jvmArgs, env) + ArchiveDirectory.SUFFIX);
        if (Files.isRegularFile(archive, LinkOption.NOFOLLOW_LINKS))
        {
            ArchiveDirectory.touch(archive);
            return new ClassDataArchive(archive, null, null, null);
        }
        if (ArchiveDirectory.refusedSince(archive, System.currentTimeMillis() - RETRY_MILLIS))
        {
            return OFF;
        }
        final long token = new SecureRandom().nextLong();
        return new ClassDataArchive(archive, ArchiveDirectory.partialOf(archive, "classes", token),
            ArchiveDirectory.partialOf(archive, "dump", token), new ArchiveJvm(ranksClasspath, dumpable(jvmArgs), Map.copyOf(env)));
    }

    /**
     * @return the options rank {@code rank}'s JVM gets, before the job's: none if off.
     */
    public List<String> jvmArgs(final int rank)
    {
        final List<String> args = new ArrayList<>();
        if (archive != null && (classes == null || rank == 0))
        {
            args.add(classes == null ? "-XX:SharedArchiveFile=" + archive : "-XX:DumpLoadedClassList=" + classes);
            args.addAll(QUIET);
        }
        return args;
    }

    /**
     * After the job: if it listed its classes and every rank exited 0 on its own, dumps them and checks that the
     * ranks' JVM maps the dump (taking as long as that JVM needs: about a second for sm4j's classes); a dump that
     * fails, or that the JVM would not map (a classpath it sees otherwise than its key), is remembered. Never fails
     * the job.
     *
     * @param succeeded every rank exited 0 on its own (not a job that was stopped: rank 0's list may be cut).
     */
    public void finish(final boolean succeeded)
    {
        if (classes == null)
        {
            return;
        }
        try
        {
            if (succeeded && Files.size(classes) > 0)
            {
                if (jvm.run(List.of("-Xshare:dump", "-XX:SharedClassListFile=" + classes, "-XX:SharedArchiveFile=" + dump),
                        List.of(), classes, dump) &&
                    ArchiveDirectory.finished(dump) &&
                    jvm.run(List.of("-Xshare:on", "-XX:SharedArchiveFile=" + dump), List.of("-version"), classes, dump))
                {
                    // readers map either the whole old file or the whole new one
                    Files.move(dump, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                }
                else
                {
                    ArchiveDirectory.refuse(archive);
                }
            }
        }
        catch (final IOException ignore)
        {
            // no list (rank 0 could not write it), the directory gone, or another launcher's move first: tried again
        }
        ArchiveDirectory.deleteQuietly(dump);
        ArchiveDirectory.deleteQuietly(classes);
    }

    /**
     * @return {@code jvmArgs} but those that, in the dump's JVM, would write files, run agents, wait for a debugger or
     *         touch a whole heap: none of them changes which classes an archive can hold.
     */
    static List<String> dumpable(final List<String> jvmArgs)
    {
        final List<String> kept = new ArrayList<>();
        for (final String arg : jvmArgs)
        {
            if (!(arg.startsWith("-Xlog") || arg.startsWith("-agent") || arg.startsWith("-javaagent") ||
                arg.startsWith("-Xrun") || arg.equals("-Xdebug") || arg.startsWith("-XX:StartFlightRecording") ||
                arg.startsWith("-XX:+AlwaysPreTouch") || arg.startsWith("-XX:+HeapDumpOnOutOfMemoryError")))
            {
                kept.add(arg);
            }
        }
        return kept;
    }

    /**
     * @return true if the job's JVM options, or the options every JVM takes from the environment, choose how the
     *         JVM shares classes (or may, from a file of options), or keep it from archiving the ranks' jars (module
     *         options), or if the environment's would run an agent or a debugger in the dump's JVM.
     */
    static boolean choosesArchive(final List<String> jvmArgs, final Map<String, String> env)
    {
        final List<String> environment = new ArrayList<>();
        for (final String variable : ArchiveKey.OPTION_VARIABLES)
        {
            environment.addAll(List.of(env.getOrDefault(variable, "").trim().split("\\s+")));
        }
        if (dumpable(environment).size() != environment.size())
        {
            return true; // the dump's JVM takes the environment's options too: an agent or a debugger there would run in it
        }
        final List<String> all = new ArrayList<>(jvmArgs);
        all.addAll(environment);
        return all.stream().anyMatch(arg -> arg.startsWith("-Xshare") || arg.startsWith("-XX:SharedArchiveFile") ||
            arg.startsWith("-XX:ArchiveClassesAtExit") || arg.contains("AutoCreateSharedArchive") ||
            arg.contains("UseSharedSpaces") || arg.startsWith("-XX:SharedClassListFile") ||
            arg.startsWith("-XX:DumpLoadedClassList") || arg.startsWith("-XX:AOT") || arg.startsWith("-XX:VMOptionsFile") ||
            arg.startsWith("@") || arg.equals("-p") || MODULE_OPTIONS.stream().anyMatch(arg::startsWith));
    }
}
