package io.sm4j.it;

import io.sm4j.cli.Sm4jCli;
import io.sm4j.launch.JobLauncher;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs {@code sm4j run -n 2} of an application on the newest JDK 22+ under /usr/lib/jvm
 * ({@link FutexDoorbellTest#newerJava}; the test is skipped without one), in a fresh directory: for what only
 * such a JDK can do (a downcall into the C library).
 */
final class NewerJdkJob
{
    private NewerJdkJob()
    {
    }

    /**
     * @return what the launcher and its ranks printed; the job has finished in time, with exit code 0, and left
     *         its directory empty.
     */
    static String run(final Map<String, String> env, final String app, final String... args) throws Exception
    {
        final Path java = FutexDoorbellTest.newerJava();
        try (ScratchDir dir = ScratchDir.create("sm4j-newer-"))
        {
            final Path log = Files.createTempFile("sm4j-newer-", ".log");
            try
            {
                final List<String> command = new ArrayList<>(List.of(java.toString()));
                command.addAll(JobLauncher.JVM_FLAGS);
                command.addAll(List.of("-cp", System.getProperty("java.class.path"), Sm4jCli.class.getName(), "run", "-n", "2",
                    "--dir", dir.path.toString(), "-cp", System.getProperty("java.class.path"), "--", app));
                command.addAll(List.of(args));
                final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
                builder.environment().putAll(env);
                final Process launcher = builder.start();
                final boolean finished = launcher.waitFor(150, TimeUnit.SECONDS);
                if (!finished)
                {
                    launcher.destroyForcibly().waitFor();
                }
                final String output = Files.readString(log, StandardCharsets.UTF_8);
                assertTrue(finished, "the job did not finish: " + output);
                assertEquals(0, launcher.exitValue(), output);
                assertTrue(dir.isEmpty(), "segment left behind");
                return output;
            }
            finally
            {
                Files.delete(log);
            }
        }
    }
}
