package io.sm4j.bench;

import org.HdrHistogram.Histogram;

import java.util.Arrays;
import java.util.Locale;

/**
 * Ping-pong between ranks 0 and 1 (run with {@code sm4j run -n 2}): rank 0 times every round trip and
 * prints, per payload size, the median and 99th percentile one-way latency (half the round trip) and the
 * bandwidth. Arguments: {@code transport} or {@code message} (the layer; default transport), iterations
 * per size (default 100000), then payload sizes (default: 0 8 64 1024 and the largest eager payload; the
 * message layer adds 64 KiB, 1 MiB and 4 MiB, which go by rendezvous).
 */
public final class PingPong
{
    private final RoundTrip side;

    private PingPong(final RoundTrip side)
    {
        this.side = side;
    }

    public static void main(final String[] args)
    {
        final boolean message = args.length > 0 && args[0].equals("message");
        final int first = args.length > 0 && (message || args[0].equals("transport")) ? 1 : 0;
        final int iterations = args.length > first ? Integer.parseInt(args[first]) : 100_000;
        try (RoundTrip side = message ? new MessageRoundTrip() : new TransportRoundTrip())
        {
            final int[] sizes = args.length > first + 1 ?
                Arrays.stream(args, first + 1, args.length).mapToInt(Integer::parseInt).toArray() :
                side.defaultSizes();
            if (side.rank() == 0)
            {
                System.out.printf("sm4j ping-pong, %s level, %d iterations per size (+10%% warm-up)%n",
                    message ? "message" : "transport", iterations);
                System.out.printf("%10s %14s %14s %12s%n", "bytes", "median us", "p99 us", "MB/s");
            }
            final PingPong pingPong = new PingPong(side);
            for (final int size : sizes)
            {
                pingPong.run(size, size > 65536 ? Math.max(1, iterations / 100) : iterations);
            }
        }
    }

    private void run(final int size, final int iterations)
    {
        final Histogram roundTrips = new Histogram(3);
        final int warmup = Math.max(1, iterations / 10);
        long measuredStart = System.nanoTime();
        for (int i = 0; i < warmup + iterations; i++)
        {
            if (i == warmup)
            {
                measuredStart = System.nanoTime();
            }
            if (side.rank() == 0)
            {
                final long t0 = System.nanoTime();
                side.send(size);
                side.await();
                if (i >= warmup)
                {
                    roundTrips.recordValue(System.nanoTime() - t0);
                }
            }
            else if (side.rank() == 1)
            {
                side.await();
                side.send(size);
            }
        }
        if (side.rank() == 0)
        {
            final double seconds = (System.nanoTime() - measuredStart) / 1e9;
            System.out.printf(Locale.ROOT, "%10d %14.3f %14.3f %12.1f%n", size,
                roundTrips.getValueAtPercentile(50) / 2000.0, roundTrips.getValueAtPercentile(99) / 2000.0,
                size * 2.0 * iterations / seconds / 1e6);
        }
    }
}
