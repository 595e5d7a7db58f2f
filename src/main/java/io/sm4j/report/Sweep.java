package io.sm4j.report;

import io.sm4j.layout.LayoutParams;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.IntFunction;

/**
 * Segment size against peer count for every column, plus Open MPI's file sizes, for CSV, JSON and chart.
 */
public final class Sweep
{
    /** Ranges with more peer counts than this are sampled geometrically. */
    static final int MAX_POINTS = 4096;

    private final List<Point> points;

    /**
     * One peer count's totals, in bytes, in {@link Column} order.
     */
    public record Point(int peers, long[] totals, long ompi130Default, long ompi18Formula)
    {
    }

    private Sweep(final List<Point> points)
    {
        this.points = points;
    }

    /**
     * @param paramsFor the parameters of each point's peer count (a default may depend on it).
     * @param ompiEagerLimit the eager limit of the Open MPI 1.8 formula ({@link OmpiFileSizes#v18Formula}).
     * @param model whose structures to count.
     * @param from  first peer count, >= 1.
     * @param to    last peer count, >= from.
     * @return the sweep.
     */
    public static Sweep run(
        final IntFunction<LayoutParams> paramsFor, final int ompiEagerLimit, final MemoryModel model, final int from, final int to)
    {
        if (from < 1 || to < from || to > LayoutParams.MAX_PEERS)
        {
            throw new IllegalArgumentException("sweep=" + from + ".." + to + " (expected: 1 <= from <= to <= " +
                LayoutParams.MAX_PEERS + ")");
        }
        final List<Point> points = new ArrayList<>();
        for (final int peers : peerCounts(from, to))
        {
            final LayoutParams params = paramsFor.apply(peers);
            final MemoryTable table = MemoryTable.of(params, model);
            final long[] totals = new long[Column.values().length];
            for (final Column column : Column.values())
            {
                totals[column.ordinal()] = table.total(column);
            }
            points.add(new Point(peers, totals, OmpiFileSizes.v130Default(peers), OmpiFileSizes.v18Formula(params, ompiEagerLimit)));
        }
        return new Sweep(points);
    }

    public List<Point> points()
    {
        return points;
    }

    public void writeCsv(final PrintWriter out)
    {
        out.print("peers");
        for (final Column column : Column.values())
        {
            out.print(',' + column.name());
        }
        out.println(",OMPI_1_3_0_DEFAULT,OMPI_1_8_FORMULA");
        for (final Point point : points)
        {
            out.print(point.peers());
            for (final long total : point.totals())
            {
                out.print(',');
                out.print(total);
            }
            out.println("," + point.ompi130Default() + "," + point.ompi18Formula());
        }
        out.flush();
    }

    public void writeJson(final PrintWriter out)
    {
        out.println("{\"unit\":\"bytes\",\"points\":[");
        for (int i = 0; i < points.size(); i++)
        {
            final Point point = points.get(i);
            out.print("  {\"peers\":" + point.peers());
            for (final Column column : Column.values())
            {
                out.print(",\"" + column.name() + "\":" + point.totals()[column.ordinal()]);
            }
            out.print(",\"OMPI_1_3_0_DEFAULT\":" + point.ompi130Default() + ",\"OMPI_1_8_FORMULA\":" + point.ompi18Formula() + "}");
            out.println(i + 1 < points.size() ? "," : "");
        }
        out.println("]}");
        out.flush();
    }

    private static TreeSet<Integer> peerCounts(final int from, final int to)
    {
        final TreeSet<Integer> counts = new TreeSet<>();
        if ((long)to - from < MAX_POINTS)
        {
            for (int n = from; n <= to; n++)
            {
                counts.add(n);
            }
            return counts;
        }
        final double ratio = Math.pow((double)to / from, 1.0 / (MAX_POINTS - 1));
        double n = from;
        for (int i = 0; i < MAX_POINTS; i++, n *= ratio)
        {
            counts.add((int)Math.min(to, Math.round(n)));
        }
        counts.add(to);
        return counts;
    }
}
