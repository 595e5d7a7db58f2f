package io.sm4j.it;

import io.sm4j.cli.Sm4jCli;
import io.sm4j.launch.JobLauncher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code sm4j create} as a process manager runs it, in a JVM of its own.
 */
class CreateCommandTest
{
    /**
     * A SIGTERM (or Ctrl-C) while the file is being allocated leaves no partial file: 64 ranks with 32 fragments
     * of 1 MiB each make a 2 GiB segment, which takes a second or more to allocate and touch (before: a
     * {@code .creating-PID-...} file of hundreds of MB stayed until {@code sm4j clean}).
     */
    @Test
    @Timeout(120)
    void aCreateStoppedWhileItAllocatesShouldLeaveNoFile() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-create-"))
        {
            final Path output = Files.createTempFile("sm4j-create-", ".log");
            final Process create = new ProcessBuilder(JobLauncher.javaCommand(System.getProperty("java.class.path"),
                List.of("-Xmx64m"), List.of(Sm4jCli.class.getName(), "create", "-n", "64", "--max-frag", "1048576",
                    "--max-frags-per-rank", "32", "--dir", dir.path.toString())))
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            try
            {
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!partialIn(dir.path))
                {
                    assertTrue(create.isAlive() && System.nanoTime() < deadline,
                        "no partial file while it allocated: " + Files.readString(output));
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // a poll of the directory
                }
                Procs.signal("-TERM", Long.toString(create.pid()));
                assertTrue(create.waitFor(60, TimeUnit.SECONDS), "sm4j create did not stop");
                assertTrue(dir.isEmpty(), "left behind after SIGTERM: " + list(dir.path) + "; " + Files.readString(output));
            }
            finally
            {
                create.destroyForcibly();
                Files.deleteIfExists(output);
            }
        }
    }

    private static boolean partialIn(final Path dir) throws IOException
    {
        return list(dir).stream().anyMatch(name -> name.contains(".creating-"));
    }

    private static List<String> list(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.map(file -> file.getFileName().toString()).toList();
        }
    }
}
