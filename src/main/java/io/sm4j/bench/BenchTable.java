package io.sm4j.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prints results as OSU prints them: {@code #} header lines, then one row per size whose first two
 * columns are OSU's (size, average latency or bandwidth), so OSU parsers read it; then sm4j's percentiles
 * (latency) or message rate and the rates of its median and 99th-percentile windows (bandwidth), then per
 * baseline its value and the ratio sm4j / baseline.
 */
public final class BenchTable
{
    /** Below this share of their loops side by side, a multi-pair row gets a note ({@link BenchResults#overlap}). */
    static final double SIDE_BY_SIDE = 0.5;

    private BenchTable()
    {
    }

    /**
     * @param facts header lines (without {@code # }) describing the machine and the settings.
     */
    public static void print(final BenchResults results, final List<String> facts, final String version, final PrintWriter out)
    {
        final BenchTest test = results.test();
        final boolean latency = test.latency();
        final List<String> baselines = results.transports().stream().filter(t -> !t.equals("sm4j")).toList();
        out.println("# OSU MPI-style " + test.title() + " Test (sm4j " + version + ")");
        facts.forEach(fact -> out.println("# " + fact));
        if (!baselines.isEmpty())
        {
            out.println("# x = sm4j / baseline (" + (latency ? "below 1: sm4j is faster" : "above 1: sm4j is faster") + ")");
        }
        final StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-10s", "# Size"));
        if (latency)
        {
            header.append(String.format(Locale.ROOT, "%18s%11s%11s%11s%11s", "Avg Latency(us)", "p50(us)", "p99(us)",
                "p99.9(us)", "max(us)"));
        }
        else
        {
            // the rate of the median window and of the 99th-percentile (slow) window: a few stalls or all slow
            header.append(String.format(Locale.ROOT, "%18s%14s%14s%14s", "Bandwidth (MB/s)", "Messages/s", "p50 window",
                "p99 window"));
        }
        for (final String baseline : baselines)
        {
            header.append(String.format(Locale.ROOT, "%14s%8s", baseline + (latency ? "(us)" : "(MB/s)"), "x"));
        }
        out.println(header);
        for (final int size : results.sizes())
        {
            final StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-10d", size));
            final double[] own = results.values("sm4j", size);
            final int ownColumns = latency ? 5 : 4;
            for (int i = 0; i < ownColumns; i++)
            {
                final int width = i == 0 ? 18 : latency ? 11 : 14;
                row.append(own == null || i >= own.length ? String.format(Locale.ROOT, "%" + width + "s", "-") :
                    String.format(Locale.ROOT, "%" + width + "." + (latency || i != 1 ? 2 : 0) + "f", own[i]));
            }
            for (final String baseline : baselines)
            {
                final Double value = results.headline(baseline, size);
                row.append(value == null ? String.format(Locale.ROOT, "%14s", "-") : String.format(Locale.ROOT, "%14.2f", value));
                row.append(value == null || own == null || value == 0 ? String.format(Locale.ROOT, "%8s", "-") :
                    String.format(Locale.ROOT, "%8.2f", own[0] / value));
            }
            out.println(row);
        }
        notes(results).forEach(note -> out.println("# " + note));
        out.flush();
    }

    /**
     * @return a note (without {@code # }) for each size whose sm4j pairs ran side by side for less than
     *         {@link #SIDE_BY_SIDE} of their loops (a multi-pair test's), with what they moved together for a rate test.
     */
    public static List<String> notes(final BenchResults results)
    {
        final List<String> notes = new ArrayList<>();
        for (final int size : results.sizes())
        {
            final double overlap = results.overlap("sm4j", size);
            if (overlap < SIDE_BY_SIDE)
            {
                final double together = results.wallRate("sm4j", size);
                notes.add(String.format(Locale.ROOT, "NOTE: %d B: sm4j's pairs ran side by side for %.0f %% of their " +
                    "loops (warm-up included): pairs that take turns have the cores to fewer ranks at a time, so this row " +
                    "is not what all pairs get at once%s", size, overlap * 100, Double.isNaN(together) ? "" :
                    String.format(Locale.ROOT, "; together they moved %.2f MB/s from the first loop's start to the last " +
                        "one's end", together)));
            }
        }
        return notes;
    }
}
