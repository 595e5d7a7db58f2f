package io.sm4j.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The kernel's page samplers found among a /proc's processes by their names.
 */
class PageSamplingTest
{
    @Test
    void kdamondThreadsShouldBeCountedAndNothingElse(@TempDir final Path proc) throws IOException
    {
        process(proc, "1", "systemd\n");
        process(proc, "77", "kdamond.0\n");
        process(proc, "78", "kdamond.1\n");
        process(proc, "4242", "java\n");
        Files.createDirectories(proc.resolve("4243")); // ended while /proc was read: no comm
        process(proc, "self", "kdamond.0\n"); // not a process number
        assertEquals(2, PageSampling.kdamonds(proc));
    }

    @Test
    void aMissingProcShouldCountNone(@TempDir final Path dir)
    {
        assertEquals(0, PageSampling.kdamonds(dir.resolve("no-proc")));
    }

    private static void process(final Path proc, final String pid, final String comm) throws IOException
    {
        Files.createDirectories(proc.resolve(pid));
        Files.writeString(proc.resolve(pid).resolve("comm"), comm);
    }
}
