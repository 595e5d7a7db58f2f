package io.sm4j.bench;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A PNG of the headline value (average latency, or bandwidth) against message size, log-log, one line per
 * transport. Size 0 has no place on a log axis and is left out.
 */
public final class BenchChart
{
    private BenchChart()
    {
    }

    public static void write(final BenchResults results, final String title, final Path png) throws IOException
    {
        final boolean latency = results.test().latency();
        final XYChart chart = new XYChartBuilder().width(1000).height(650).title(title)
            .xAxisTitle("message size (bytes)").yAxisTitle(latency ? "one-way latency, average (us)" : "bandwidth (MB/s)")
            .build();
        final XYStyler styler = chart.getStyler();
        styler.setXAxisLogarithmic(true);
        styler.setYAxisLogarithmic(true);
        styler.setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        styler.setLegendPosition(latency ? Styler.LegendPosition.InsideNW : Styler.LegendPosition.InsideSE);
        styler.setChartBackgroundColor(java.awt.Color.WHITE);
        for (final String transport : results.transports())
        {
            final List<Double> x = new ArrayList<>();
            final List<Double> y = new ArrayList<>();
            for (final int size : results.sizes())
            {
                final Double value = results.headline(transport, size);
                if (size > 0 && value != null && value > 0)
                {
                    x.add((double)size);
                    y.add(value);
                }
            }
            if (!x.isEmpty())
            {
                chart.addSeries(transport, x, y);
            }
        }
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
