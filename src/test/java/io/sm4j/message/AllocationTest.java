package io.sm4j.message;

import io.sm4j.collective.Op;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The steady state allocates nothing per message: each rank's thread counts the bytes it allocates
 * (ThreadMXBean, on the thread that sends and receives) over 10^5 messages after a warm-up, for blocking
 * send/recv of byte[] and DirectBuffer (a caller's {@link Status}), inline, fragment and rendezvous sizes,
 * and for windows of persistent requests with osu_bw's acknowledgement. The bound is below one byte per
 * message: any object per message fails it, while the health check's few allocations every 100 ms do not.
 */
@Timeout(120)
class AllocationTest extends TwoCommunicators
{
    private static final int WARM_UP = 50_000;
    private static final int MESSAGES = 100_000;
    private static final int TAG = 5;
    /**
     * What a rank may allocate once, whatever the count: on a loaded machine a wait can outlast the spin and
     * sleep on the doorbell for the first time inside the measured loop, and the first ring each way opens
     * the doorbell connection (a socket channel and its selection key: about 12 KiB, seen in a full test run).
     */
    private static final int ONE_TIME_SETUP = 32 << 10;

    @Test
    void blockingByteArrayPingPongShouldAllocateNothingPerMessage()
    {
        for (final int size : new int[]{ 8, 2000 })
        {
            final long[] bytes = pingPong(MESSAGES, (comm, peer, first) -> roundTrip(comm, peer, first, size, false));
            assertBelowOneBytePerMessage(bytes, MESSAGES, size + " B, byte[]");
        }
    }

    @Test
    void blockingDirectBufferPingPongShouldAllocateNothingPerMessage()
    {
        final long[] bytes = pingPong(MESSAGES, (comm, peer, first) -> roundTrip(comm, peer, first, 100, true));
        assertBelowOneBytePerMessage(bytes, MESSAGES, "100 B, DirectBuffer");
    }

    @Test
    void blockingLargePingPongShouldAllocateNothingPerMessage()
    {
        final int messages = MESSAGES / 10;
        final long[] bytes = pingPong(messages, (comm, peer, first) -> roundTrip(comm, peer, first, 100_000, true));
        assertBelowOneBytePerMessage(bytes, messages, "100,000 B (rendezvous), DirectBuffer");
    }

    @Test
    void windowsOfPersistentRequestsShouldAllocateNothingPerMessage()
    {
        final int window = 64;
        final long[] bytes = runBoth((comm, peer) ->
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
            final UnsafeBuffer ack = new UnsafeBuffer(new byte[4]);
            final Status ackStatus = new Status();
            final Request[] requests = new Request[window];
            for (int i = 0; i < window; i++)
            {
                requests[i] = comm.rank() == 0 ? comm.sendInit(peer, TAG, buffer, 0, 64) : comm.recvInit(peer, TAG, buffer, 0, 64);
            }
            final Runnable windowOnce = () ->
            {
                for (final Request request : requests)
                {
                    request.start();
                }
                for (final Request request : requests)
                {
                    assertEquals(64, request.await().length());
                }
                // osu_bw's acknowledgement: no window starts before the last is received (else it is unexpected)
                if (comm.rank() == 0)
                {
                    comm.recv(peer, TAG + 1, ack, 0, 4, ackStatus);
                }
                else
                {
                    comm.send(peer, TAG + 1, ack, 0, 4);
                }
            };
            for (int i = 0; i < WARM_UP / window; i++)
            {
                windowOnce.run();
            }
            final long before = allocatedBytes();
            for (int i = 0; i < MESSAGES / window; i++)
            {
                windowOnce.run();
            }
            return allocatedBytes() - before;
        });
        assertBelowOneBytePerMessage(bytes, MESSAGES, "64 B windows of persistent requests");
    }

    /**
     * A reduction's exchange reuses one request, its operands and result reuse grow-only buffers, and the
     * operator is made once: an allReduce of 4 doubles allocates no object per call. A full run once counted
     * 98,256 bytes over 50,000 calls (2 per call; not traced: both ranks wait in every call, and a wait that
     * sleeps on the doorbell of a loaded machine goes through the JDK's selector), so the bound is 8 bytes per
     * call, still half the smallest object a call could allocate.
     */
    @Test
    void allReduceShouldAllocateNothingPerCall()
    {
        final int calls = MESSAGES / 2;
        final long[] bytes = runBoth((comm, peer) ->
        {
            final double[] mine = { comm.rank(), 1, 2, 3 };
            final double[] sum = new double[4];
            for (int i = 0; i < WARM_UP / 2; i++)
            {
                comm.allReduce(mine, sum, Op.SUM);
            }
            final long before = allocatedBytes();
            for (int i = 0; i < calls; i++)
            {
                comm.allReduce(mine, sum, Op.SUM);
            }
            assertEquals(1.0, sum[0]);
            return allocatedBytes() - before;
        });
        for (int rank = 0; rank < bytes.length; rank++)
        {
            assertTrue(bytes[rank] < 8L * calls + ONE_TIME_SETUP, "allReduce of 4 doubles: rank " + rank + " allocated " +
                bytes[rank] + " bytes over " + calls + " calls");
        }
    }

    private interface RoundTrip
    {
        void run(Communicator comm, int peer, boolean first);
    }

    private interface Rank
    {
        long run(Communicator comm, int peer);
    }

    /**
     * Warms up, then counts what each rank's thread allocates over {@code messages} round trips.
     */
    private long[] pingPong(final int messages, final RoundTrip roundTrip)
    {
        return runBoth((comm, peer) ->
        {
            final boolean first = comm.rank() == 0;
            for (int i = 0; i < WARM_UP / 10; i++)
            {
                roundTrip.run(comm, peer, first);
            }
            final long before = allocatedBytes();
            for (int i = 0; i < messages; i++)
            {
                roundTrip.run(comm, peer, first);
            }
            return allocatedBytes() - before;
        });
    }

    private long[] runBoth(final Rank rank)
    {
        final CompletableFuture<Long> other = CompletableFuture.supplyAsync(() -> rank.run(rank1, 0));
        final long bytes0 = rank.run(rank0, 1);
        return new long[]{ bytes0, other.join() };
    }

    /**
     * One blocking round trip of {@code size} bytes, from a byte[] or a DirectBuffer, into the caller's status.
     */
    private static void roundTrip(
        final Communicator comm, final int peer, final boolean first, final int size, final boolean direct)
    {
        final Status status = Buffers.STATUS.get();
        if (first)
        {
            sendOne(comm, peer, size, direct);
            receiveOne(comm, peer, size, direct, status);
        }
        else
        {
            receiveOne(comm, peer, size, direct, status);
            sendOne(comm, peer, size, direct);
        }
        if (status.length() != size || status.source() != peer || status.tag() != TAG)
        {
            throw new AssertionError(status.toString());
        }
    }

    private static void sendOne(final Communicator comm, final int peer, final int size, final boolean direct)
    {
        if (direct)
        {
            comm.send(peer, TAG, Buffers.DIRECT.get(size), 0, size);
        }
        else
        {
            comm.send(peer, TAG, Buffers.BYTES.get(size), 0, size);
        }
    }

    private static void receiveOne(
        final Communicator comm, final int peer, final int size, final boolean direct, final Status status)
    {
        if (direct)
        {
            comm.recv(peer, TAG, Buffers.DIRECT.get(size), 0, size, status);
        }
        else
        {
            comm.recv(peer, TAG, Buffers.BYTES.get(size), 0, size, status);
        }
    }

    /**
     * Less than a byte per message, beside {@link #ONE_TIME_SETUP}: an object per message (16 bytes at least)
     * fails it whatever the count.
     */
    private static void assertBelowOneBytePerMessage(final long[] bytes, final int messages, final String what)
    {
        for (int rank = 0; rank < bytes.length; rank++)
        {
            assertTrue(bytes[rank] < messages + ONE_TIME_SETUP, what + ": rank " + rank + " allocated " + bytes[rank] +
                " bytes over " + messages + " round trips");
        }
    }

    private static long allocatedBytes()
    {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        return threads.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    /**
     * One buffer and status per thread and size, made before anything is counted.
     */
    private static final class Buffers
    {
        static final ThreadLocal<Status> STATUS = ThreadLocal.withInitial(Status::new);
        static final PerSize<byte[]> BYTES = new PerSize<>(byte[]::new);
        static final PerSize<UnsafeBuffer> DIRECT = new PerSize<>(size -> new UnsafeBuffer(new byte[size]));
    }

    private static final class PerSize<T>
    {
        private final java.util.function.IntFunction<T> make;
        private final ThreadLocal<org.agrona.collections.Int2ObjectHashMap<T>> cache =
            ThreadLocal.withInitial(org.agrona.collections.Int2ObjectHashMap::new);

        PerSize(final java.util.function.IntFunction<T> make)
        {
            this.make = make;
        }

        T get(final int size)
        {
            return cache.get().computeIfAbsent(size, make);
        }
    }
}
