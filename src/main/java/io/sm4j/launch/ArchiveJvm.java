package io.sm4j.launch;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The ranks' JVM, started by the launcher with their options, classpath and environment to dump or to check a class
 * data archive ({@link ClassDataArchive}); what it prints is discarded. A launcher stopped meanwhile (SIGINT,
 * SIGTERM) takes it down with it and removes its files.
 */
final class ArchiveJvm
{
    /** How long a dump or a check may take (a dump of sm4j's classes: 0.8 s on 2 vCPUs). */
    private static final long TIMEOUT_SECONDS = 60;

    private final String classpath;
    private final List<String> jvmArgs;
    private final Map<String, String> env;

    /**
     * @param classpath the ranks' classpath as their JVMs take it (with -jar, the jar).
     * @param jvmArgs   the ranks' options, but those that would write files, run agents or wait for a debugger.
     * @param env       the ranks' environment.
     */
    ArchiveJvm(final String classpath, final List<String> jvmArgs, final Map<String, String> env)
    {
        this.classpath = classpath;
        this.jvmArgs = jvmArgs;
        this.env = env;
    }

    /**
     * @param options JVM options for what it is to do (-Xshare:dump and its files, or -Xshare:on and the archive).
     * @param command after the classpath: none, or -version (the launcher reads no option after it).
     * @param files   removed if the launcher is stopped meanwhile.
     * @return true if it exited 0 in time.
     */
    boolean run(final List<String> options, final List<String> command, final Path... files)
    {
        final List<String> args = new ArrayList<>(jvmArgs);
        args.addAll(options);
        args.addAll(ClassDataArchive.QUIET);
        final ProcessBuilder builder = new ProcessBuilder(JobLauncher.javaCommand(classpath, args, command))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().putAll(env);
        final AtomicReference<Process> started = new AtomicReference<>(); // the hook reads it from another thread
        final Thread stop = new Thread(() ->
        {
            final Process process = started.get();
            if (process != null)
            {
                process.destroyForcibly();
            }
            for (final Path file : files)
            {
                ArchiveDirectory.deleteQuietly(file);
            }
        });
        try
        {
            Runtime.getRuntime().addShutdownHook(stop);
        }
        catch (final IllegalStateException shuttingDown)
        {
            return false;
        }
        try
        {
            final Process process = builder.start();
            started.set(process);
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS))
            {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                return false;
            }
            return process.exitValue() == 0;
        }
        catch (final IOException ex)
        {
            return false;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            started.get().destroyForcibly();
            return false;
        }
        finally
        {
            try
            {
                Runtime.getRuntime().removeShutdownHook(stop);
            }
            catch (final IllegalStateException shuttingDown)
            {
                // the hook runs
            }
        }
    }
}
