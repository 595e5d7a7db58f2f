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
