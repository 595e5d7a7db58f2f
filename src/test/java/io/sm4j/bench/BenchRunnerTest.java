package io.sm4j.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rank JVMs' options: huge pages asked for only where the kernel gives them, and the caller's options last.
 */
class BenchRunnerTest
{
    @Test
    void hugePagesShouldBeAskedForWhereTheKernelGivesThemToWhoAsks()
    {
        assertTrue(BenchRunner.offersHugePages("[always] madvise never\n"));
        assertTrue(BenchRunner.offersHugePages("always [madvise] never\n"));
        assertFalse(BenchRunner.offersHugePages("always madvise [never]\n"), "never: the JVM would warn at every start");
        assertFalse(BenchRunner.offersHugePages(null), "no such file: not Linux, or a kernel without them");
    }

    @Test
    void theRankJvmsShouldAskForHugePagesOnlyWhereTheKernelGivesThem()
    {
        assertEquals(List.of("-XX:+UseParallelGC", "-Xms256m", "-XX:+AlwaysPreTouch", "-XX:+UseTransparentHugePages"),
            BenchRunner.rankJvmArgs(List.of(), "always [madvise] never"));
        assertEquals(List.of("-XX:+UseParallelGC", "-Xms256m", "-XX:+AlwaysPreTouch"),
            BenchRunner.rankJvmArgs(List.of(), "always madvise [never]"));
    }

    @Test
    void theCallersOptionsShouldComeLastAndItsCollectorReplaceTheDefault()
    {
        assertEquals(List.of("-Xms256m", "-XX:+AlwaysPreTouch", "-XX:+UseTransparentHugePages", "-XX:+UseSerialGC",
                "-XX:-UseTransparentHugePages"),
            BenchRunner.rankJvmArgs(List.of("-XX:+UseSerialGC", "-XX:-UseTransparentHugePages"), "[always] madvise never"));
    }
}
