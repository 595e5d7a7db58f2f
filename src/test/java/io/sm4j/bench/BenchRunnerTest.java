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
    void theCallersOptionsShouldComeLastAndItsCollectorReplaceTheDefault()
    {
        final List<String> args = BenchRunner.rankJvmArgs(List.of("-XX:+UseSerialGC", "-XX:-UseTransparentHugePages"));
        assertEquals(List.of("-XX:+UseSerialGC", "-XX:-UseTransparentHugePages"), args.subList(args.size() - 2, args.size()));
        assertFalse(args.contains("-XX:+UseParallelGC"), args.toString());
        assertEquals(List.of("-Xms256m", "-XX:+AlwaysPreTouch"), args.subList(0, 2));
    }
}
