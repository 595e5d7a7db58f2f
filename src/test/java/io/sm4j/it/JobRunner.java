package io.sm4j.it;

import io.sm4j.launch.JobLauncher;
import io.sm4j.layout.LayoutParams;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Runs a real multi-JVM job over a real segment in a fresh directory under /dev/shm, and reports what the
 * ranks printed and whether the directory was left empty.
 */
public record JobRunner(int exitCode, String out, String err, boolean leftFiles)
{
    /**
     * How long survivors of a failure get to print what they saw and exit before the launcher kills them:
     * generous, because a loaded 2-core CI machine can take seconds to schedule a JVM; a passing test never
     * waits for it.
     */
    private static final Duration GRACE = Duration.ofSeconds(15);
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
        return run(params, env, jvmArgs, LIMIT, command);
    }

    /**
     * @param limit the job's time limit: a long run behind a flag needs more than the default.
     */
    public static JobRunner run(
        final LayoutParams params, final Map<String, String> env, final List<String> jvmArgs, final Duration limit,
        final String... command) throws IOException
    {
        return run(System.getProperty("java.class.path"), params, env, jvmArgs, limit, command);
    }

    /**
     * @param classpath the rank JVMs' classpath (this JVM's by default: the build's class directories).
     */
    public static JobRunner run(
        final String classpath, final LayoutParams params, final Map<String, String> env, final List<String> jvmArgs,
        final Duration limit, final String... command) throws IOException
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        try (ScratchDir dir = ScratchDir.create("sm4j-test-"))
        {
            final int code = JobLauncher.run(new JobLauncher.Job(params, dir.path, classpath, List.of(command), jvmArgs,
                    env, GRACE, limit),
                new PrintWriter(out, true), new PrintWriter(err, true));
            return new JobRunner(code, out.toString(), err.toString(), !dir.isEmpty());
        }
    }
}
