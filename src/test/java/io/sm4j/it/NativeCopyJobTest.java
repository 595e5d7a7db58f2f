package io.sm4j.it;

import io.sm4j.cli.Sm4jCli;
import io.sm4j.launch.JobLauncher;
import io.sm4j.segment.NativeCopy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code SM4J_COPY=native} over real JVMs on a JDK 22+ ({@link FutexDoorbellTest#newerJava}; skipped without
 * one): the ranks copy into the segment with the C library's memcpy, and every byte of messages, bcasts,
 * allGathers and allToAlls from direct and heap buffers arrives intact ({@link NativeCopyApp}).
 */
class NativeCopyJobTest
{
    @Test
    @Timeout(180)
    void ranksOnJdk22ShouldCopyWithMemcpyEveryByteIntact() throws Exception
    {
        final Path java = FutexDoorbellTest.newerJava();
        try (ScratchDir dir = ScratchDir.create("sm4j-copy-"))
        {
            final Path log = Files.createTempFile("sm4j-copy-", ".log");
            try
            {
                final List<String> command = new ArrayList<>(List.of(java.toString()));
                command.addAll(JobLauncher.JVM_FLAGS);
                command.addAll(List.of("-cp", System.getProperty("java.class.path"), Sm4jCli.class.getName(), "run", "-n", "2",
                    "--dir", dir.path.toString(), "-cp", System.getProperty("java.class.path"), "--",
                    NativeCopyApp.class.getName()));
                final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
                builder.environment().put(NativeCopy.ENV, "native");
                final Process launcher = builder.start();
                final boolean finished = launcher.waitFor(150, TimeUnit.SECONDS);
                if (!finished)
                {
                    launcher.destroyForcibly().waitFor();
                }
                final String output = Files.readString(log, StandardCharsets.UTF_8);
                assertTrue(finished, "the job did not finish: " + output);
                assertEquals(0, launcher.exitValue(), output);
                for (int rank = 0; rank < 2; rank++)
                {
                    assertTrue(output.contains("rank " + rank + " copies native (memcpy), every byte checked"), output);
                }
            }
            finally
            {
                Files.delete(log);
            }
            assertTrue(dir.isEmpty(), "segment left behind");
        }
    }
}
