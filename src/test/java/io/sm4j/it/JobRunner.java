package io.sm4j.it;

import io.sm4j.launch.JobLauncher;
import io.sm4j.layout.LayoutParams;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Runs a real multi-JVM job over a real segment in a fresh directory under /dev/shm, and reports what the
 * ranks printed and whether the directory was left empty.
 */
public record JobRunner(int exitCode, String out, String err, boolean leftFiles)
{
    /** A hung job is aborted by the launcher (exit 124) so the test sees what the ranks printed. */
    private static final Duration LIMIT = Duration.ofSeconds(90);

    public static JobRunner run(final LayoutParams params, final Map<String, String> env, final String... command)
        throws IOException
    {
        return run(params, env, List.of("-Xmx768m", "-XX:+UseSerialGC"), command);
    }

    public static JobRunner run(
        final LayoutParams params, final Map<String, String> env, final List<String> jvmArgs, final String... command)
        throws IOException
    {
        final Path shm = Path.of("/dev/shm");
        final Path dir = Files.createTempDirectory(Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
            "sm4j-test-");
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        try
        {
            final int code = JobLauncher.run(new JobLauncher.Job(params, dir, System.getProperty("java.class.path"),
                    List.of(command), jvmArgs, env,
                    Duration.ofSeconds(2), LIMIT),
                new PrintWriter(out, true), new PrintWriter(err, true));
            final boolean left;
            try (Stream<Path> files = Files.list(dir))
            {
                left = files.findAny().isPresent();
            }
            return new JobRunner(code, out.toString(), err.toString(), left);
        }
        finally
        {
            try (Stream<Path> files = Files.list(dir))
            {
                files.forEach(f -> f.toFile().delete());
            }
            Files.deleteIfExists(dir);
        }
    }
}
