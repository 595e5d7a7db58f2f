package io.sm4j.bench;

import java.util.Arrays;
import java.util.Locale;

/**
 * One measurement as a rank prints it and {@code sm4j bench} reads it back:
 * {@code R <transport> <size> <value>...}. Latency values are microseconds: average (OSU's: elapsed time
 * over 2 x iterations), p50, p99, p99.9, max. Rate values are MB/s (10^6 bytes per second) and messages
 * per second.
 *
 * @param transport the transport's name.
 * @param size      message size in bytes.
 * @param values    as above.
 */
public record ResultLine(String transport, int size, double[] values)
{
    static final String PREFIX = "R ";

    /**
     * @return the line, e.g. {@code R sm4j 64 0.412 0.381 0.950 3.1 25.0}.
     */
    public String format()
    {
        final StringBuilder line = new StringBuilder(PREFIX).append(transport).append(' ').append(size);
        for (final double value : values)
        {
            line.append(' ').append(String.format(Locale.ROOT, "%.4f", value));
        }
        return line.toString();
    }

    /**
     * @return the measurement, or null if {@code line} is not a result line.
     */
    public static ResultLine parse(final String line)
    {
        if (!line.startsWith(PREFIX))
        {
            return null;
        }
        final String[] parts = line.substring(PREFIX.length()).trim().split(" ");
        final double[] values = Arrays.stream(parts, 2, parts.length).mapToDouble(Double::parseDouble).toArray();
        return new ResultLine(parts[0], Integer.parseInt(parts[1]), values);
    }
}
