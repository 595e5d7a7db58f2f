package io.sm4j.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * The few lines a person reads at a glance after a latency run with baselines: sm4j's one-way time at 8 B,
 * 4 KiB and 1 MiB against Open MPI's vader and Agrona's ring (as ratios), and how far above the two-thread
 * limit it is (as a difference: the data path's goal is a median within 0.02 us of it). Medians (p50), not means: one stall of the
 * machine (a 3 ms preemption in 100,000 round trips) moves a mean of 0.2 us by 0.03 us and a small size's
 * ratio with it, and the first ratio a reader saw once said "7.88x slower" of a run whose medians were level.
 */
public final class BenchSummary
{
    /** The sizes summarised, where the run measured them. */
    static final List<Integer> SIZES = List.of(8, 4096, 1 << 20);
    private static final List<String> BASELINES = List.of("ompi", "agrona");

    private BenchSummary()
    {
    }

    /**
     * Prints the summary of a latency run; nothing if no summarised size was measured.
     */
    public static void print(final BenchResults results, final PrintWriter out)
    {
        boolean header = false;
        for (final int size : SIZES)
        {
            final double[] own = results.values("sm4j", size);
            if (own == null)
            {
                continue;
            }
            if (!header)
            {
                out.println("# summary: one-way time, median (p50) of every round trip, robust to a stall of the machine " +
                    "(the table's first column is OSU's mean); x below 1: sm4j is faster");
                header = true;
            }
            final StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "#   %-8s sm4j %8.2f us", name(size), own[1]));
            for (final String baseline : BASELINES)
            {
                final double[] other = results.values(baseline, size);
                if (other != null && other.length > 1 && other[1] > 0)
                {
                    line.append(String.format(Locale.ROOT, "   %.2fx %s (%.2f us)", own[1] / other[1], label(baseline), other[1]));
                }
            }
            final double[] limit = results.values(ThreadPingPong.name(), size);
            if (limit != null && limit.length > 1 && limit[1] > 0)
            {
                line.append(String.format(Locale.ROOT, "   %+.2f us over two threads (%.2f us)", own[1] - limit[1], limit[1]));
            }
            out.println(line);
        }
        out.flush();
    }

    private static String name(final int size)
    {
        return size >= 1 << 20 ? (size >> 20) + " MiB" : size >= 1024 ? (size >> 10) + " KiB" : size + " B";
    }

    private static String label(final String baseline)
    {
        return baseline.equals("ompi") ? "Open MPI vader" : "Agrona's ring";
    }
}
