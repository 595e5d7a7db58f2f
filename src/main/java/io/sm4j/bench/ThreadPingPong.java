package io.sm4j.bench;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The physical limit, as a baseline: two threads of one JVM exchanging a message through one shared
 * buffer, the sender copying it in and publishing a sequence number on its own cache line with a release
 * store, the receiver spinning on it with acquire loads and copying the message out: the two copies and
 * the cache-line hand-offs any shared-memory transport needs, with no queue, no pool and no process
 * boundary. Rank 0 runs it alone, while rank 1 sleeps in the kernel.
 */
final class ThreadPingPong
{
    /** Index of the ping word; the pong word is 16 longs (128 bytes, a line pair) further. */
    private static final int PING = 0;
    private static final int PONG = 16;

    private final AtomicLongArray words = new AtomicLongArray(PONG + 16);
    private final byte[] shared = new byte[PairTransport.MAX_MESSAGE];
    private final byte[] out = new byte[PairTransport.MAX_MESSAGE];
    private final byte[] in = new byte[PairTransport.MAX_MESSAGE];
    private final byte[] echo = new byte[PairTransport.MAX_MESSAGE];

    static String name()
    {
        return "threads";
    }

    /**
     * Runs {@code skip + iterations} round trips of {@code length} bytes against an echo thread.
     *
     * @param recorder gets every measured round trip, in nanoseconds.
     * @return nanoseconds of the measured round trips together.
     */
    long run(final int length, final int skip, final int iterations, final java.util.function.LongConsumer recorder)
        throws InterruptedException
    {
        final int total = skip + iterations;
        words.set(PING, 0);
        words.set(PONG, 0);
        final Thread echoer = new Thread(() -> echo(length, total), "sm4j-bench-echo");
        echoer.setDaemon(true);
        echoer.start();
        // each measured round trip's end, recorded after the loop: as sm4j's loop (OsuLoops.latency), one clock read
        // per round trip and no histogram inside the timed window
        final long[] ends = new long[iterations];
        long start = System.nanoTime();
        for (int i = 1; i <= total; i++)
        {
            if (i == skip + 1)
            {
                start = System.nanoTime();
            }
            System.arraycopy(out, 0, shared, 0, length);
            words.setRelease(PING, i); // NOTE: publishes the copy above; pairs with the echo's getAcquire
            while (words.getAcquire(PONG) != i)
            {
                Thread.onSpinWait();
            }
            System.arraycopy(shared, 0, in, 0, length);
            if (i > skip)
            {
                ends[i - skip - 1] = System.nanoTime();
            }
        }
        final long elapsed = System.nanoTime() - start;
        echoer.join();
        long previous = start;
        for (final long end : ends)
        {
            recorder.accept(end - previous);
            previous = end;
        }
        return elapsed;
    }

    private void echo(final int length, final int total)
    {
        for (int i = 1; i <= total; i++)
        {
            while (words.getAcquire(PING) != i)
            {
                Thread.onSpinWait();
            }
            System.arraycopy(shared, 0, echo, 0, length);
            System.arraycopy(echo, 0, shared, 0, length);
            words.setRelease(PONG, i); // NOTE: publishes the echoed copy; pairs with the pinger's getAcquire
        }
    }
}
