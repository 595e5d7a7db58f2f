package io.sm4j.bench;

import org.HdrHistogram.Histogram;

/**
 * OSU's measurement loops over a {@link PairTransport}, run by both ranks of a pair; the sender (the lower
 * rank) times them and returns the {@link ResultLine}, the other side returns null.
 */
final class OsuLoops
{
    /** Bytes of bw's acknowledgement, as osu_bw. */
    private static final int ACK = 4;

    private OsuLoops()
    {
    }

    /**
     * osu_latency: {@code skip + iterations} round trips; every measured one recorded, half of it being
     * the one-way time.
     */
    static ResultLine latency(
        final PairTransport transport, final boolean timer, final int size, final int skip, final int iterations)
    {
        // one clock read per round trip, into an array allocated before the loop (as osu_mpi.c's rt[]); the
        // histogram is filled afterwards, so its recording never lands inside the timed window
        final long[] ends = timer ? new long[iterations] : null;
        long start = System.nanoTime();
        for (int i = 0; i < skip + iterations; i++)
        {
            if (i == skip)
            {
                start = System.nanoTime();
            }
            if (timer)
            {
                transport.send(size);
                transport.receive(size);
                if (i >= skip)
                {
                    ends[i - skip] = System.nanoTime();
                }
            }
            else
            {
                transport.receive(size);
                transport.send(size);
            }
        }
        if (!timer)
        {
            return null;
        }
        final Histogram roundTrips = Samples.empty();
        long previous = start;
        for (final long end : ends)
        {
            roundTrips.recordValue(end - previous);
            previous = end;
        }
        return latencyLine(transport.name(), size, previous - start, iterations, roundTrips);
    }

    static ResultLine latencyLine(
        final String transport, final int size, final long elapsedNanos, final int iterations, final Histogram roundTrips)
    {
        return timeLine(transport, size, elapsedNanos, iterations, roundTrips, 2);
    }

    /**
     * @param samples nanoseconds of each sample (a round trip, a call, a batch's share).
     * @param per     operations one sample stands for (2: a round trip is two one-way trips).
     * @return a time line: the mean over {@code elapsedNanos} and the samples' percentiles, µs per operation.
     */
    static ResultLine timeLine(
        final String transport, final int size, final long elapsedNanos, final long samplesTaken, final Histogram samples,
        final int per)
    {
        final double divisor = 1e3 * per;
        return new ResultLine(transport, size, new double[]{
            elapsedNanos / divisor / samplesTaken,
            samples.getValueAtPercentile(50) / divisor,
            samples.getValueAtPercentile(99) / divisor,
            samples.getValueAtPercentile(99.9) / divisor,
            samples.getMaxValue() / divisor });
    }

    /**
     * osu_bw: per iteration a window of {@code window} sends, then a small acknowledgement back.
     */
    static ResultLine bandwidth(
        final PairTransport transport, final boolean sender, final int size, final int window, final int skip,
        final int iterations)
    {
        // each window's end, as latency's round trips: whether every window is slow or a few stall
        final long[] ends = sender ? new long[iterations] : null;
        long start = System.nanoTime();
        for (int i = 0; i < skip + iterations; i++)
        {
            if (i == skip)
            {
                start = System.nanoTime();
            }
            if (sender)
            {
                transport.sendWindow(size, window);
                transport.receive(ACK);
                if (i >= skip)
                {
                    ends[i - skip] = System.nanoTime();
                }
            }
            else
            {
                transport.receiveWindow(size, window);
                transport.send(ACK);
            }
        }
        if (!sender)
        {
            return null;
        }
        final Histogram windows = Samples.empty();
        long previous = start;
        for (final long end : ends)
        {
            windows.recordValue(end - previous);
            previous = end;
        }
        return windowedRateLine(transport.name(), size, window, iterations, previous - start, windows);
    }

    /**
     * @param windows nanoseconds each window took.
     * @return a rate line: MB/s and messages/s over {@code elapsedNanos}, then the rates of the median and the
     *         99th-percentile window.
     */
    static ResultLine windowedRateLine(
        final String transport, final int size, final int window, final int iterations, final long elapsedNanos,
        final Histogram windows)
    {
        final ResultLine rate = rateLine(transport, size, 1, window, iterations, elapsedNanos);
        final double windowBytes = (double)window * size;
        return new ResultLine(transport, size, new double[]{ rate.values()[0], rate.values()[1],
            windowBytes / windows.getValueAtPercentile(50) * 1e3, windowBytes / windows.getValueAtPercentile(99) * 1e3 });
    }

    /**
     * The wake-up test: before every round trip the timer pauses {@code pauseNanos} (it sleeps), so the
     * receiver's wait lasts and it sleeps too; the timer then sends its clock reading, and the receiver
     * answers with how long after that reading it had the message (the node's monotonic clock is the same
     * in every process). The receiver also reports, on stderr, the CPU its process used while it waited.
     */
    static ResultLine wake(
        final Sm4jPair transport, final boolean timer, final int size, final int skip, final int iterations,
        final long pauseNanos)
    {
        final Histogram wakes = Samples.empty();
        final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean)java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long sum = 0;
        long cpuStart = 0;
        long wallStart = 0;
        for (int i = 0; i < skip + iterations; i++)
        {
            if (!timer && i == skip)
            {
                cpuStart = os.getProcessCpuTime();
                wallStart = System.nanoTime();
            }
            if (timer)
            {
                java.util.concurrent.locks.LockSupport.parkNanos(pauseNanos);
                transport.out().putLong(0, System.nanoTime());
                transport.send(size);
                transport.receive(size);
                final long wake = transport.in().getLong(0);
                if (i >= skip)
                {
                    wakes.recordValue(Math.max(0, wake));
                    sum += wake;
                }
            }
            else
            {
                transport.receive(size);
                transport.out().putLong(0, System.nanoTime() - transport.in().getLong(0));
                transport.send(size);
            }
        }
        if (!timer)
        {
            final long cpu = os.getProcessCpuTime() - cpuStart;
            final long wall = System.nanoTime() - wallStart;
            System.out.printf(java.util.Locale.ROOT, "# wake, %d B: the receiving rank used %.1f ms of CPU in %.1f ms of waiting " +
                "(%.2f %% of a core)%n", size, cpu / 1e6, wall / 1e6, 100.0 * cpu / Math.max(1, wall));
            return null;
        }
        return new ResultLine(transport.name(), size, new double[]{
            sum / 1e3 / iterations,
            wakes.getValueAtPercentile(50) / 1e3,
            wakes.getValueAtPercentile(99) / 1e3,
            wakes.getValueAtPercentile(99.9) / 1e3,
            wakes.getMaxValue() / 1e3 });
    }

    /**
     * osu_bibw: both sides post a window of receives and of sends per iteration; counts both directions.
     */
    static ResultLine bidirectional(
        final Sm4jPair transport, final boolean timer, final int size, final int window, final int skip, final int iterations)
    {
        long start = System.nanoTime();
        for (int i = 0; i < skip + iterations; i++)
        {
            if (i == skip)
            {
                start = System.nanoTime();
            }
            transport.exchangeWindow(size, window);
        }
        return timer ? rateLine(transport.name(), size, 2, window, iterations, System.nanoTime() - start) : null;
    }

    private static ResultLine rateLine(
        final String transport, final int size, final int directions, final int window, final int iterations,
        final long elapsedNanos)
    {
        final double seconds = elapsedNanos / 1e9;
        final double messages = (double)directions * window * iterations;
        return new ResultLine(transport, size, new double[]{ messages * size / seconds / 1e6, messages / seconds });
    }
}
