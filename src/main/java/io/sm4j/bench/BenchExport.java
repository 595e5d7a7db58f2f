package io.sm4j.bench;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Results as CSV or JSON: one record per transport and size, with every value the rank measured.
 */
public final class BenchExport
{
    private static final String[] LATENCY = { "avg_us", "p50_us", "p99_us", "p999_us", "max_us" };
    /** The window rates: every loop times each window (bibw's and put_bw's give the first two only). */
    private static final String[] RATE = { "mb_per_s", "messages_per_s", "p50_window_mb_per_s", "p99_window_mb_per_s" };

    private BenchExport()
    {
    }

    public static void csv(final BenchResults results, final PrintWriter out)
    {
        final String[] names = names(results);
        out.println("test,transport,size," + String.join(",", names));
        forEach(results, (transport, size, values) ->
        {
            final StringBuilder line = new StringBuilder(results.test().id()).append(',').append(transport).append(',').append(size);
            for (int i = 0; i < names.length; i++)
            {
                line.append(',').append(i < values.length ? String.format(Locale.ROOT, "%.4f", values[i]) : "");
            }
            out.println(line);
        });
        out.flush();
    }

    public static void json(final BenchResults results, final PrintWriter out)
    {
        final String[] names = names(results);
        final StringBuilder json = new StringBuilder("[");
        forEach(results, (transport, size, values) ->
        {
            json.append(json.length() > 1 ? ",\n " : "\n ").append("{\"test\":\"").append(results.test().id())
                .append("\",\"transport\":\"").append(transport).append("\",\"size\":").append(size);
            for (int i = 0; i < names.length && i < values.length; i++)
            {
                json.append(",\"").append(names[i]).append("\":").append(String.format(Locale.ROOT, "%.4f", values[i]));
            }
            json.append('}');
        });
        out.println(json.append("\n]"));
        out.flush();
    }

    private static String[] names(final BenchResults results)
    {
        return results.test().latency() ? LATENCY : RATE;
    }

    private static void forEach(final BenchResults results, final Row row)
    {
        for (final String transport : results.transports())
        {
            for (final int size : results.sizes())
            {
                final double[] values = results.values(transport, size);
                if (values != null)
                {
                    row.accept(transport, size, values);
                }
            }
        }
    }

    @FunctionalInterface
    private interface Row
    {
        void accept(String transport, int size, double[] values);
    }
}
