package io.sm4j.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one benchmark run measures, passed from {@code sm4j bench} to the rank JVMs as {@code key=value}
 * arguments.
 *
 * @param test       the OSU test.
 * @param transports the transports to measure, sm4j first.
 * @param minSize    smallest message, bytes.
 * @param maxSize    largest message, bytes.
 * @param iterations iterations per size, or 0 for OSU's defaults (fewer above 8 KiB).
 * @param skip       warm-up iterations per size, or -1 for OSU's defaults.
 * @param window     sends per window (bw, bibw, mbw_mr).
 * @param jitWarmup  round trips (or windows) of 8-byte messages, three tenths as many on each larger message's
 *                   path, run once per transport before the first size, so the JIT has compiled the paths
 *                   being measured.
 * @param persistent sm4j's windows use persistent requests (sendInit/recvInit, then start), else a new
 *                   isend/irecv request per message.
 * @param buffers    what sm4j's ranks send from and receive into.
 * @param pauseMicros wake: the pause before every round trip, microseconds.
 */
public record BenchSpec(
    BenchTest test, List<String> transports, int minSize, int maxSize, int iterations, int skip, int window, int jitWarmup,
    boolean persistent, BufferKind buffers, long pauseMicros)
{
    /** Largest message size, bytes. */
    public static final int MAX_SIZE = PairTransport.MAX_MESSAGE;

    /**
     * @return the sizes measured: {@code minSize} (0 included), then every power of two up to {@code maxSize}.
     */
    public List<Integer> sizes()
    {
        final List<Integer> sizes = new ArrayList<>();
        if (minSize == 0)
        {
            sizes.add(0);
        }
        for (long size = 1; size <= maxSize; size <<= 1)
        {
            if (size >= minSize)
            {
                sizes.add((int)size);
            }
        }
        return sizes;
    }

    /**
     * @return iterations for {@code size}: the setting, or OSU's default.
     */
    public int iterationsFor(final int size)
    {
        return iterations > 0 ? iterations : test.defaultIterations(size);
    }

    /**
     * @return warm-up iterations for {@code size}: the setting, or OSU's default.
     */
    public int skipFor(final int size)
    {
        return skip >= 0 ? skip : test.defaultSkip(size);
    }

    /**
     * @return the spec whose loop warms the JIT up: wake's own loop pauses before every round trip, so it
     *         warms up with latency's.
     */
    BenchSpec warmUp()
    {
        return test != BenchTest.WAKE ? this :
            new BenchSpec(BenchTest.LATENCY, transports, minSize, maxSize, iterations, skip, window, jitWarmup, persistent, buffers, 0);
    }

    /**
     * @return the arguments {@link #parse} reads back.
     */
    public List<String> toArgs()
    {
        return List.of("test=" + test.id(), "transports=" + String.join(",", transports), "min=" + minSize, "max=" + maxSize,
            "iterations=" + iterations, "skip=" + skip, "window=" + window, "jit=" + jitWarmup,
            "persistent=" + persistent, "buffers=" + buffers, "pause=" + pauseMicros);
    }

    static BenchSpec parse(final String[] args)
    {
        final Map<String, String> values = new HashMap<>();
        for (final String arg : args)
        {
            final int eq = arg.indexOf('=');
            values.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return new BenchSpec(BenchTest.of(values.get("test")), Arrays.asList(values.get("transports").split(",")),
            Integer.parseInt(values.get("min")), Integer.parseInt(values.get("max")),
            Integer.parseInt(values.get("iterations")), Integer.parseInt(values.get("skip")),
            Integer.parseInt(values.get("window")), Integer.parseInt(values.get("jit")),
            Boolean.parseBoolean(values.get("persistent")), BufferKind.valueOf(values.get("buffers")),
            Long.parseLong(values.get("pause")));
    }
}
