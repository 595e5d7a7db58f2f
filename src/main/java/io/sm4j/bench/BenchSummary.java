package io.sm4j.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * The few lines a person reads at a glance after a run with baselines, at 8 B, 4 KiB and 1 MiB: for latency,
 * sm4j's one-way time against Open MPI's vader and Agrona's ring (as ratios) and how far above the two-thread
 * limit it is (as a difference: the data path's goal is a median within 0.02 us of it); for the windowed rates
 * (bw, mbw_mr), the rate of sm4j's median window against theirs. Medians (p50), not means: one stall of the
 * machine (a 3 ms preemption in 100,000 round trips) moves a mean of 0.2 us by 0.03 us and a small size's
 * ratio with it, and the first ratio a reader saw once said "7.88x slower" of a run whose medians were level;
 * a large size's rate is OSU's 20 windows, and one window stalled for a millisecond halves its mean.
 */
public final class BenchSummary
{
    /** The sizes summarised, where the run measured them. */
    static final List<Integer> SIZES = List.of(8, 4096, 1 << 20);
    private static final List<String> BASELINES = List.of("ompi", "agrona");
    /** The median's place in a result line: p50 of the round trips, or the median window's MB/s. */
    private static final int LATENCY_MEDIAN = 1;
    private static final int RATE_MEDIAN = 2;

    private BenchSummary()
    {
    }

    /**
     * Prints the summary of a latency or windowed-rate run; nothing for a size that was not measured, or whose
     * windows were not timed one by one.
     */
    public static void print(final BenchResults results, final PrintWriter out)
    {
        final boolean latency = results.test().latency();
        final int median = latency ? LATENCY_MEDIAN : RATE_MEDIAN;
        boolean header = false;
        for (final int size : SIZES)
        {
            final double[] own = results.values("sm4j", size);
            if (own == null || own.length <= median)
            {
                continue;
            }
            if (!header)
            {
                out.println(latency ?
                    "# summary: one-way time, median (p50) of every round trip, robust to a stall of the machine " +
                    "(the table's first column is OSU's mean); x below 1: sm4j is faster" :
                    "# summary: rate of the median (p50) window, robust to a stall of the machine (the table's first " +
                    "column is OSU's mean over every window); x above 1: sm4j is faster");
                header = true;
            }
            final String unit = latency ? "us" : "MB/s";
            final StringBuilder line = new StringBuilder(
                String.format(Locale.ROOT, "#   %-8s sm4j %8.2f %s", name(size), own[median], unit));
            for (final String baseline : BASELINES)
            {
                final double[] other = results.values(baseline, size);
                if (other != null && other.length > median && other[median] > 0)
                {
                    line.append(String.format(Locale.ROOT, "   %.2fx %s (%.2f %s)", own[median] / other[median],
                        label(baseline), other[median], unit));
                }
            }
            final double[] limit = results.values(ThreadPingPong.name(), size);
            if (latency && limit != null && limit.length > median && limit[median] > 0)
            {
                line.append(String.format(Locale.ROOT, "   %+.2f us over two threads (%.2f us)", own[median] - limit[median], limit[median]));
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
