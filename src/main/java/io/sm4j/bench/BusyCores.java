package io.sm4j.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How many cores other processes keep busy right now: the non-idle share of the node's CPU time over a
 * short window, from /proc/stat (Linux), times the core count. The load average would count the
 * previous benchmark's own spinning ranks for minutes after they ended.
 */
public final class BusyCores
{
    private static final Path STAT = Path.of("/proc/stat");

    private BusyCores()
    {
    }

    /**
     * @return busy cores over {@code millis} ms, or -1 where /proc/stat cannot be read.
     */
    public static double measure(final int cores, final long millis) throws InterruptedException
    {
        final long[] before = sample();
        Thread.sleep(millis);
        final long[] after = sample();
        if (before == null || after == null || after[0] == before[0])
        {
            return -1;
        }
        final double idleShare = (double)(after[1] - before[1]) / (after[0] - before[0]);
        return Math.max(0, (1 - idleShare) * cores);
    }

    /**
     * @return {total jiffies, idle + iowait jiffies} of the "cpu" line, or null.
     */
    private static long[] sample()
    {
        try
        {
            final String[] fields = Files.readAllLines(STAT).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < Math.min(fields.length, 9); i++)
            {
                total += Long.parseLong(fields[i]); // user .. steal: guest and guest_nice are counted in user and nice already
            }
            return new long[]{ total, Long.parseLong(fields[4]) + Long.parseLong(fields[5]) };
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }
}
