package io.sm4j.bench;

import org.HdrHistogram.Histogram;

import java.util.concurrent.TimeUnit;

/**
 * The histogram a loop records its samples into (round trips, windows, calls, wake-ups, in nanoseconds):
 * one per thread, of a fixed range, emptied and reused by every loop of the run.
 * <p>
 * A histogram per loop that grows as it records ({@code new Histogram(3)}) left 177 MB of garbage in a
 * {@code bench bw -m 16384:131072} run's timing rank (of 208 MB it allocated in all, async-profiler's
 * allocation profile): its arrays copied at every resize, in the warm-up's rounds and at every size. The
 * young collections that followed stopped that rank for 5-6 ms each: one inside a large size's 20 timed
 * windows (4-6 ms) would halve its rate (docs/benchmarks.md, "Sixteenth session").
 */
final class Samples
{
    /** The longest sample recorded exactly: an hour, beyond any run (a longer one is an error). */
    private static final long HIGHEST_NANOS = TimeUnit.HOURS.toNanos(1);
    private static final int SIGNIFICANT_DIGITS = 3;
    private static final ThreadLocal<Histogram> HISTOGRAM =
        ThreadLocal.withInitial(() -> new Histogram(HIGHEST_NANOS, SIGNIFICANT_DIGITS));

    private Samples()
    {
    }

    /**
     * @return this thread's histogram, empty; valid until this thread's next call (read it into a
     *         {@link ResultLine} first).
     */
    static Histogram empty()
    {
        final Histogram histogram = HISTOGRAM.get();
        histogram.reset();
        return histogram;
    }
}
