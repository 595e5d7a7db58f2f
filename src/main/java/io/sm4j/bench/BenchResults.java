package io.sm4j.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The measurements of one run, by transport (in the order they were first seen) and size. Several
 * lines for one transport and size (the pairs of mbw_mr and multi_lat) are combined: rates add up,
 * latencies are averaged over the pairs, as OSU reports them.
 */
public final class BenchResults
{
    private final BenchTest test;
    private final Map<String, TreeMap<Integer, List<double[]>>> byTransport = new LinkedHashMap<>();
    private final Map<String, TreeMap<Integer, List<LoopSpan>>> spans = new LinkedHashMap<>();

    public BenchResults(final BenchTest test)
    {
        this.test = test;
    }

    public BenchTest test()
    {
        return test;
    }

    synchronized void add(final ResultLine line)
    {
        byTransport.computeIfAbsent(line.transport(), t -> new TreeMap<>())
            .computeIfAbsent(line.size(), s -> new ArrayList<>()).add(line.values());
    }

    synchronized void add(final LoopSpan span)
    {
        spans.computeIfAbsent(span.transport(), t -> new TreeMap<>())
            .computeIfAbsent(span.size(), s -> new ArrayList<>()).add(span);
    }

    /**
     * How much the pairs of a multi-pair test ran side by side at one size: the time every pair's loop was running
     * over the mean length of a loop. 1: all at once; 0: one after the other (pairs that took turns, each with the
     * cores to itself).
     *
     * @return between 0 and 1, or NaN unless at least two pairs reported their loop's span.
     */
    public synchronized double overlap(final String transport, final int size)
    {
        final Spans loops = spansAt(transport, size);
        return loops == null || loops.meanLength() <= 0 ? Double.NaN :
            Math.max(0, loops.firstEnd() - loops.lastStart()) / loops.meanLength();
    }

    /**
     * What a multi-pair rate test's pairs moved together, whether they ran at once or took turns: every pair's
     * bytes over the time from the first loop's start to the last one's end (warm-up included).
     *
     * @return MB/s (10^6 bytes per second), or NaN unless at least two pairs reported the bytes of their loop.
     */
    public synchronized double wallRate(final String transport, final int size)
    {
        final Spans loops = spansAt(transport, size);
        return loops == null || loops.bytes() == 0 || loops.lastEnd() <= loops.firstStart() ? Double.NaN :
            loops.bytes() * 1e3 / (loops.lastEnd() - loops.firstStart());
    }

    /**
     * @return the pairs' loops at {@code size} taken together, or null unless at least two pairs reported one.
     */
    private Spans spansAt(final String transport, final int size)
    {
        final TreeMap<Integer, List<LoopSpan>> sizes = spans.get(transport);
        final List<LoopSpan> pairs = sizes == null ? null : sizes.get(size);
        if (pairs == null || pairs.size() < 2)
        {
            return null;
        }
        long firstStart = Long.MAX_VALUE;
        long lastStart = Long.MIN_VALUE;
        long firstEnd = Long.MAX_VALUE;
        long lastEnd = Long.MIN_VALUE;
        double lengths = 0;
        long bytes = 0;
        for (final LoopSpan pair : pairs)
        {
            firstStart = Math.min(firstStart, pair.start());
            lastStart = Math.max(lastStart, pair.start());
            firstEnd = Math.min(firstEnd, pair.end());
            lastEnd = Math.max(lastEnd, pair.end());
            lengths += pair.end() - pair.start();
            bytes += pair.bytes();
        }
        return new Spans(firstStart, lastStart, firstEnd, lastEnd, lengths / pairs.size(), bytes);
    }

    /** Several pairs' loops at one size: their earliest and latest starts and ends, mean length, and bytes. */
    private record Spans(long firstStart, long lastStart, long firstEnd, long lastEnd, double meanLength, long bytes)
    {
    }

    /**
     * @return the transports measured, sm4j first.
     */
    public synchronized List<String> transports()
    {
        return new ArrayList<>(byTransport.keySet());
    }

    /**
     * @return every size any transport measured, ascending.
     */
    public synchronized List<Integer> sizes()
    {
        final TreeSet<Integer> sizes = new TreeSet<>();
        byTransport.values().forEach(m -> sizes.addAll(m.keySet()));
        return new ArrayList<>(sizes);
    }

    /**
     * @return the combined values of {@code transport} at {@code size}, or null if it was not measured.
     */
    public synchronized double[] values(final String transport, final int size)
    {
        final TreeMap<Integer, List<double[]>> sizes = byTransport.get(transport);
        final List<double[]> lines = sizes == null ? null : sizes.get(size);
        if (lines == null)
        {
            return null;
        }
        final double[] combined = new double[lines.get(0).length];
        for (final double[] values : lines)
        {
            for (int i = 0; i < combined.length; i++)
            {
                combined[i] += values[i];
            }
        }
        if (test.latency())
        {
            for (int i = 0; i < combined.length; i++)
            {
                combined[i] /= lines.size();
            }
        }
        return combined;
    }

    /**
     * @return the headline value: average latency (us) or bandwidth (MB/s); null if not measured.
     */
    public Double headline(final String transport, final int size)
    {
        final double[] values = values(transport, size);
        return values == null ? null : values[0];
    }
}
