package io.sm4j.it;

import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.ThreadMode;
import io.sm4j.segment.Segment;
import io.sm4j.transport.CopyingSends;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.TransportOptions;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code close()} of an endpoint while other threads are inside its calls, in a JVM of its own (a fault
 * there is a crash, which the test must see as an exit code, not as a lost test JVM). Each round: rank 0
 * maps the segment itself; two threads (MULTIPLE mode) or one (SINGLE: {@code single} as the second
 * argument) poll and send through it; once they have made calls, the main thread closes it (which
 * unmaps). Every thread must end with the endpoint's IllegalStateException. Prints "ROUNDS rounds ok" and
 * exits 0.
 */
public final class CloseRaceApp
{
    private CloseRaceApp()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int rounds = Integer.parseInt(args[0]);
        final boolean single = args.length > 1 && args[1].equals("single");
        final LayoutParams params = LayoutParams.builder(2).threadMode(single ? ThreadMode.SINGLE : ThreadMode.MULTIPLE).build();
        try (ScratchDir dir = ScratchDir.create("sm4j-close-race-"))
        {
            for (int round = 0; round < rounds; round++)
            {
                round(params, dir.path, round, single ? 1 : 2);
            }
        }
        System.out.println(rounds + " rounds ok");
    }

    private static void round(final LayoutParams params, final Path dir, final int round, final int threads) throws IOException
    {
        try (Segment segment = Segment.create(params, dir, round + 1))
        {
            final CompletableFuture<Endpoint> peerOpen =
                CompletableFuture.supplyAsync(() -> Endpoint.open(segment, 1, TransportOptions.defaults(), false));
            final Endpoint closing = Endpoint.open(Segment.attach(segment.path(), Duration.ofSeconds(10)), 0,
                TransportOptions.defaults(), true);
            final Endpoint peer = peerOpen.join();
            final AtomicLong calls = new AtomicLong();
            final AtomicBoolean closed = new AtomicBoolean();
            // the peer keeps taking what rank 0 sends, so that rank 0's close never waits for room
            final CompletableFuture<?> drainer = CompletableFuture.runAsync(() ->
            {
                while (!closed.get())
                {
                    peer.poll(fragment -> { }, 64);
                }
            });
            final CompletableFuture<?>[] users = new CompletableFuture<?>[threads];
            for (int t = 0; t < users.length; t++)
            {
                users[t] = CompletableFuture.runAsync(() -> useUntilClosed(closing, calls));
            }
            // until the threads are busy inside the endpoint (or one has already failed: join reports it)
            while (calls.get() < 2_000 && !anyDone(users))
            {
                Thread.onSpinWait();
            }
            closing.close();
            closed.set(true);
            drainer.join();
            for (final CompletableFuture<?> user : users)
            {
                user.join(); // rethrows anything but the expected IllegalStateException
            }
            peer.close();
        }
    }

    private static boolean anyDone(final CompletableFuture<?>[] users)
    {
        for (final CompletableFuture<?> user : users)
        {
            if (user.isDone())
            {
                return true;
            }
        }
        return false;
    }

    private static void useUntilClosed(final Endpoint closing, final AtomicLong calls)
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[64]);
        try
        {
            while (true)
            {
                CopyingSends.trySend(closing, 1, payload, 0, 64);
                closing.poll(fragment -> { }, 16);
                closing.job().isAttached(1);
                calls.incrementAndGet();
            }
        }
        catch (final IllegalStateException expected)
        {
            if (!expected.getMessage().equals("endpoint of rank 0 is closed"))
            {
                throw expected;
            }
        }
    }
}
