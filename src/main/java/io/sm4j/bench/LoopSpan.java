package io.sm4j.bench;

/**
 * When one pair's loop at one size ran, warm-up included, as a multi-pair test's timing rank prints it and
 * {@code sm4j bench} reads it back: {@code S <transport> <size> <start> <end> <bytes>}. The times are
 * {@code System.nanoTime()} values: CLOCK_MONOTONIC on Linux, one clock for every process of the machine, so the
 * spans of different ranks compare ({@link BenchResults#overlap}).
 *
 * @param transport the transport's name.
 * @param size      message size in bytes.
 * @param start     System.nanoTime() before the pair's loop.
 * @param end       System.nanoTime() after it.
 * @param bytes     payload bytes the pair's sender sent in it (a rate test's), else 0.
 */
public record LoopSpan(String transport, int size, long start, long end, long bytes)
{
    static final String PREFIX = "S ";

    /**
     * @return the line, e.g. {@code S sm4j 8 1200000 3400000 56320}.
     */
    public String format()
    {
        return PREFIX + transport + ' ' + size + ' ' + start + ' ' + end + ' ' + bytes;
    }

    /**
     * @return the span, or null if {@code line} is not a span line.
     */
    public static LoopSpan parse(final String line)
    {
        if (!line.startsWith(PREFIX))
        {
            return null;
        }
        final String[] parts = line.substring(PREFIX.length()).trim().split(" ");
        return new LoopSpan(parts[0], Integer.parseInt(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3]),
            Long.parseLong(parts[4]));
    }
}
