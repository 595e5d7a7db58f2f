package io.sm4j.report;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * A PNG chart of total segment bytes against peers, one line per policy and one per Open MPI sizing rule,
 * log-log.
 */
public final class SweepChart
{
    private SweepChart()
    {
    }

    /**
     * @param sweep the data.
     * @param title chart title.
     * @param png   where to write; ".png" is appended by XChart when missing.
     */
    public static void write(final Sweep sweep, final String title, final Path png) throws IOException
    {
        final XYChart chart = new XYChartBuilder().width(1000).height(650).title(title)
            .xAxisTitle("peers (n)").yAxisTitle("bytes").build();
        final XYStyler styler = chart.getStyler();
        styler.setXAxisLogarithmic(true);
        styler.setYAxisLogarithmic(true);
        styler.setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        styler.setLegendPosition(Styler.LegendPosition.InsideNW);
        styler.setChartBackgroundColor(java.awt.Color.WHITE);
        final List<Sweep.Point> points = sweep.points();
        final double[] peers = points.stream().mapToDouble(Sweep.Point::peers).toArray();
        for (final Column column : Column.values())
        {
            add(chart, column.title(), peers, points, p -> p.totals()[column.ordinal()]);
        }
        add(chart, "Open MPI 1.3.0 default file", peers, points, Sweep.Point::ompi130Default);
        add(chart, "Open MPI 1.8 computed file", peers, points, Sweep.Point::ompi18Formula);
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    private static void add(
        final XYChart chart,
        final String name,
        final double[] peers,
        final List<Sweep.Point> points,
        final ToLongFunction<Sweep.Point> value)
    {
        final double[] y = points.stream().mapToDouble(p -> (double)value.applyAsLong(p)).toArray();
        chart.addSeries(name, peers, y).setMarker(SeriesMarkers.NONE);
    }
}
