package io.sm4j.it;

import io.sm4j.transport.CopyingSends;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.FragmentView;
import io.sm4j.transport.Endpoints;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * MULTIPLE thread mode: {@code threads} threads per rank each send {@code count} fragments to every peer
 * (tag = thread index, sequence = i) and all of them poll; every (sender, tag) stream must arrive in order.
 */
public final class MultiThreadApp
{
    private MultiThreadApp()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final int threads = Integer.parseInt(args[0]);
        final int count = Integer.parseInt(args[1]);
        try (Endpoint endpoint = Endpoints.attachFromEnvironment())
        {
            final int n = endpoint.size();
            final long[][] expected = new long[n][threads];
            final AtomicLong received = new AtomicLong();
            final AtomicReference<String> failure = new AtomicReference<>();
            final long total = (long)count * threads * (n - 1);
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final int tag = t;
                final Thread worker = new Thread(() ->
                {
                    final UnsafeBuffer payload = new UnsafeBuffer(new byte[64]);
                    for (int i = 0; i < count; i++)
                    {
                        for (int dest = 0; dest < n; dest++)
                        {
                            if (dest != endpoint.rank())
                            {
                                payload.putInt(0, tag);
                                payload.putLong(Long.BYTES, i);
                                CopyingSends.send(endpoint, dest, payload, 0, 64);
                            }
                        }
                        endpoint.poll(f -> check(f, expected, received, failure), 8);
                    }
                    while (received.get() < total && failure.get() == null)
                    {
                        if (endpoint.poll(f -> check(f, expected, received, failure), 8) == 0)
                        {
                            endpoint.idle();
                        }
                    }
                }, "sender-" + t);
                worker.start();
                workers.add(worker);
            }
            for (final Thread worker : workers)
            {
                worker.join();
            }
            if (failure.get() != null)
            {
                System.err.println("FAILED: " + failure.get());
                System.exit(1);
            }
            System.out.println("rank " + endpoint.rank() + " received " + received.get() + " fragments in order from " +
                threads + " threads of each peer");
        }
    }

    /**
     * Runs under the endpoint's poll lock, so plain arrays are safe here.
     */
    private static void check(
        final FragmentView f, final long[][] expected, final AtomicLong received, final AtomicReference<String> failure)
    {
        final int thread = f.buffer().getInt(f.offset());
        final long sequence = f.buffer().getLong(f.offset() + Long.BYTES);
        final long want = expected[f.source()][thread]++;
        if (sequence != want)
        {
            failure.compareAndSet(null, "from " + f.source() + " thread " + thread + ": " + sequence + ", expected " + want);
        }
        received.incrementAndGet();
    }
}
