package io.sm4j.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether the kernel samples the node's memory pages while a benchmark runs: DAMON's threads ({@code kdamond.N}),
 * visible to every user in /proc. Where they ran, they stalled JVM ranks for milliseconds at every sample (twice
 * a second on the VM measured) and made the tails of every table (docs/benchmarks.md, "Seventeenth session").
 * Kernel threads are hidden from a container with a process namespace of its own: there it finds none.
 */
public final class PageSampling
{
    private static final String KDAMOND = "kdamond";
    private static final Path PROC = Path.of("/proc");

    private PageSampling()
    {
    }

    /**
     * @return the kernel's DAMON threads running on this node, 0 if none or where /proc cannot be read.
     */
    public static int kdamonds()
    {
        return kdamonds(PROC);
    }

    /**
     * @param proc the proc file system's root, /proc.
     * @return the kernel's DAMON threads running, 0 if none or where {@code proc} cannot be read.
     */
    static int kdamonds(final Path proc)
    {
        int found = 0;
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(proc, PageSampling::isProcess))
        {
            for (final Path process : processes)
            {
                found += isKdamond(process.resolve("comm")) ? 1 : 0;
            }
        }
        catch (final IOException | RuntimeException unreadable)
        {
            // not Linux, or a /proc that hides processes: what was counted stands
        }
        return found;
    }

    private static boolean isProcess(final Path entry)
    {
        return entry.getFileName().toString().chars().allMatch(Character::isDigit);
    }

    private static boolean isKdamond(final Path comm)
    {
        try
        {
            return Files.readString(comm).startsWith(KDAMOND);
        }
        catch (final IOException | RuntimeException gone)
        {
            return false; // the process ended while the directory was read
        }
    }
}
