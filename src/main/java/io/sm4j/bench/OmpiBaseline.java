package io.sm4j.bench;

import io.sm4j.launch.Executables;

import org.agrona.IoUtil;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Open MPI's shared-memory transport (vader) as a baseline, when {@code mpicc} and an Open MPI
 * {@code mpirun} are installed: compiles {@code osu_mpi.c} (this package's resource: the same loops in C)
 * and runs it with {@code --mca btl self,vader --oversubscribe} on as many ranks as the sm4j run had (two
 * for the pair tests). Never required: without Open MPI the column is left out and the reason printed.
 */
public final class OmpiBaseline
{
    private OmpiBaseline()
    {
    }

    /**
     * @return null if Open MPI can be used, else why not.
     */
    public static String unavailable()
    {
        for (final String tool : List.of("mpicc", "mpirun"))
        {
            if (!Executables.onPath(tool))
            {
                return tool + " not found (Debian: apt-get install openmpi-bin libopenmpi-dev)";
            }
        }
        try
        {
            final String version = capture(List.of("mpirun", "--version"), 30);
            return version.contains("Open MPI") ? null : "mpirun is not Open MPI's (" + version.lines().findFirst().orElse("") + ")";
        }
        catch (final IOException ex)
        {
            return "mpirun --version failed: " + ex.getMessage();
        }
    }

    /**
     * Runs the test on {@code ranks} ranks; every result line goes to {@code results}.
     *
     * @param bound the sm4j ranks of the same run were bound to cores: Open MPI's are too, else not (mpirun binds
     *              2 ranks or fewer to cores by default: against unbound sm4j ranks, a row compared pinned with free).
     * @throws IOException if the build or the run fails (with their output).
     */
    public static void run(final BenchSpec spec, final int ranks, final boolean bound, final BenchResults results,
        final long timeoutSeconds)
        throws IOException
    {
        final Path dir = Files.createTempDirectory("sm4j-ompi-");
        try
        {
            final Path source = dir.resolve("osu_mpi.c");
            try (InputStream in = OmpiBaseline.class.getResourceAsStream("osu_mpi.c"))
            {
                Files.copy(in, source);
            }
            final Path binary = dir.resolve("osu_mpi");
            capture(List.of("mpicc", "-O2", "-o", binary.toString(), source.toString()), 120);
            final List<String> command = new ArrayList<>(List.of("mpirun", "--oversubscribe", "-np", Integer.toString(ranks),
                "--bind-to", bound ? "core" : "none", "--mca", "btl", "self,vader", binary.toString(), spec.test().id(), Integer.toString(spec.minSize()),
                Integer.toString(spec.maxSize()), Integer.toString(spec.iterations()), Integer.toString(spec.skip()),
                Integer.toString(spec.window())));
            if ("root".equals(System.getProperty("user.name")))
            {
                command.add(1, "--allow-run-as-root");
            }
            for (final String line : capture(command, timeoutSeconds).split("\n"))
            {
                final ResultLine result = ResultLine.parse(line.strip());
                if (result != null)
                {
                    results.add(result);
                }
            }
        }
        finally
        {
            IoUtil.delete(dir.toFile(), false);
        }
    }

    /**
     * Stops {@code process} and what it started: SIGTERM first, which mpirun passes on to its ranks and after which
     * it removes its session files (its ranks' /dev/shm segments among them); what is left after 5 s is killed.
     */
    private static void stop(final Process process)
    {
        final List<ProcessHandle> started = process.descendants().toList();
        process.destroy();
        try
        {
            process.waitFor(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        started.forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    private static String capture(final List<String> command, final long timeoutSeconds) throws IOException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final StringBuilder output = new StringBuilder();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            final Thread drain = new Thread(() -> reader.lines().forEach(l -> output.append(l).append('\n')));
            drain.setDaemon(true);
            drain.start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS))
            {
                stop(process);
                throw new IOException(command.get(0) + " did not finish within " + timeoutSeconds + " s");
            }
            drain.join(TimeUnit.SECONDS.toMillis(5));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            stop(process);
            throw new IOException("interrupted", ex);
        }
        if (process.exitValue() != 0)
        {
            throw new IOException(String.join(" ", command) + " exited with " + process.exitValue() + ": " + output.toString().strip());
        }
        return output.toString();
    }
}
