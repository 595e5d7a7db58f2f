package io.sm4j.bench;

import io.sm4j.transport.Endpoint;
import io.sm4j.transport.FragmentHandler;
import io.sm4j.transport.Sm4j;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

/**
 * Ping-pong between ranks 0 and 1 at the transport level (one fragment each way): rank 0 times every
 * round trip and prints, per payload size, the median and 99th percentile one-way latency (half the round
 * trip) and the bandwidth. Arguments: iterations per size (default 100000), then payload sizes (default
 * 0 8 64 1024 and the largest eager payload).
 */
public final class PingPong
{
    private final Endpoint endpoint;
    private final UnsafeBuffer payload;
    private int received;
    private final FragmentHandler onReply = fragment -> received++;

    private PingPong(final Endpoint endpoint)
    {
        this.endpoint = endpoint;
        this.payload = new UnsafeBuffer(new byte[endpoint.maxPayload()]);
    }

    public static void main(final String[] args)
    {
        final int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        try (Endpoint endpoint = Sm4j.attachFromEnvironment())
        {
            final int[] sizes = args.length > 1 ?
                Arrays.stream(args, 1, args.length).mapToInt(Integer::parseInt).toArray() :
                new int[]{ 0, 8, 64, 1024, endpoint.maxPayload() };
            final PingPong pingPong = new PingPong(endpoint);
            if (endpoint.rank() == 0)
            {
                System.out.printf("sm4j ping-pong, transport level, %d iterations per size (+10%% warm-up)%n", iterations);
                System.out.printf("%10s %14s %14s %12s%n", "bytes", "median us", "p99 us", "MB/s");
            }
            for (final int size : sizes)
            {
                pingPong.run(size, iterations);
            }
        }
    }

    private void run(final int size, final int iterations)
    {
        final Histogram roundTrips = new Histogram(3);
        final int warmup = iterations / 10;
        final long start = System.nanoTime();
        long measuredStart = start;
        for (int i = 0; i < warmup + iterations; i++)
        {
            if (i == warmup)
            {
                measuredStart = System.nanoTime();
            }
            if (endpoint.rank() == 0)
            {
                final long t0 = System.nanoTime();
                endpoint.send(1, payload, 0, size);
                await();
                if (i >= warmup)
                {
                    roundTrips.recordValue(System.nanoTime() - t0);
                }
            }
            else if (endpoint.rank() == 1)
            {
                await();
                endpoint.send(0, payload, 0, size);
            }
        }
        if (endpoint.rank() == 0)
        {
            final double seconds = (System.nanoTime() - measuredStart) / 1e9;
            System.out.printf("%10d %14.3f %14.3f %12.1f%n", size,
                roundTrips.getValueAtPercentile(50) / 2000.0, roundTrips.getValueAtPercentile(99) / 2000.0,
                size * 2.0 * iterations / seconds / 1e6);
        }
    }

    private void await()
    {
        received = 0;
        while (received == 0)
        {
            if (endpoint.poll(onReply, 1) == 0)
            {
                endpoint.idle();
            }
        }
    }
}
