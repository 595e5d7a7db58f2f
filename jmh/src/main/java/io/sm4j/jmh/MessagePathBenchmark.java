package io.sm4j.jmh;

import io.sm4j.fifo.FastBoxConsumer;
import io.sm4j.fifo.FastBoxProducer;
import io.sm4j.layout.FastBoxDescriptor;
import io.sm4j.layout.FragmentDescriptor;
import io.sm4j.message.Communicator;
import io.sm4j.message.Request;
import io.sm4j.transport.FragmentHandler;
import io.sm4j.transport.FragmentView;
import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The CPU cost of one small message's path, layer by layer, in one thread: each op sends one message of
 * {@code size} bytes and receives it, so what is measured is the work the path does (no cache line crosses
 * cores, no waiting, no scheduler). A ping-pong between two processes pays this once per one-way trip on top
 * of moving the lines between cores, so this is the part of sm4j's small-message latency that the code
 * decides (issue 22, item 1). Layers, from the outside in:
 * <ul>
 *   <li>{@code communicator}: {@code Communicator.send} then {@code recv} (the message layer over the
 *       transport): what an application calls;</li>
 *   <li>{@code endpoint}: {@code Endpoint.tryClaim}, a copy and {@code commit}, then {@code poll} with a handler that only counts: the
 *       transport alone (claim, copy, commit; scan, deliver, give back);</li>
 *   <li>{@code fastBox}: the fast box ring's producer and consumer alone, record header and copies included;</li>
 *   <li>{@code agronaRing}: the baseline, Agrona's {@code OneToOneRingBuffer} write and read.</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED")
public class MessagePathBenchmark
{
    private static final int TAG = 1;
    /** Messages per window of the windowed benchmarks: a window fits the 8 KiB fast box at 64 B. */
    private static final int WINDOW = 16;

    /** Both ranks of a real two-rank segment in /dev/shm, attached in this JVM. */
    @State(Scope.Thread)
    public static class Ranks
    {
        @Param({ "8", "64" })
        int size;

        TwoEndpoints endpoints;
        Communicator comm0;
        Communicator comm1;
        final Request[] recvs = new Request[WINDOW];
        final Request[] sends = new Request[WINDOW];
        final Request[] persistentRecvs = new Request[WINDOW];
        final Request[] persistentSends = new Request[WINDOW];
        final UnsafeBuffer out = new UnsafeBuffer(BufferUtil.allocateDirectAligned(4096, 64));
        final UnsafeBuffer in = new UnsafeBuffer(BufferUtil.allocateDirectAligned(4096, 64));

        @Setup(Level.Trial)
        public void setup()
        {
            endpoints = new TwoEndpoints();
            comm0 = new Communicator(endpoints.rank0);
            comm1 = new Communicator(endpoints.rank1);
            for (int i = 0; i < WINDOW; i++)
            {
                persistentRecvs[i] = comm1.recvInit(0, TAG, in, 0, size);
                persistentSends[i] = comm0.sendInit(1, TAG, out, 0, size);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            endpoints.close(comm0::close, comm1::close); // a communicator closes its endpoint
        }
    }

    /** A handler that only counts what a poll delivers. */
    @State(Scope.Thread)
    public static class Counting implements FragmentHandler
    {
        int count;

        @Override
        public void onFragment(final FragmentView fragment)
        {
            count++;
        }
    }

    /** A fast box ring and its position word, off the heap, with its two ends. */
    @State(Scope.Thread)
    public static class Box
    {
        @Param({ "8", "64" })
        int size;

        final UnsafeBuffer ring = new UnsafeBuffer(BufferUtil.allocateDirectAligned(4096, 64));
        final UnsafeBuffer out = new UnsafeBuffer(BufferUtil.allocateDirectAligned(4096, 64));
        final UnsafeBuffer in = new UnsafeBuffer(BufferUtil.allocateDirectAligned(4096, 64));
        FastBoxProducer producer;
        FastBoxConsumer consumer;

        @Setup(Level.Trial)
        public void setup()
        {
            final UnsafeBuffer position = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
            producer = new FastBoxProducer(ring, position);
            consumer = new FastBoxConsumer(ring, position);
        }
    }

    /** Agrona's one-to-one ring over 64 KiB off the heap, and a handler that copies the message out. */
    @State(Scope.Thread)
    public static class Ring implements MessageHandler
    {
        @Param({ "8", "64" })
        int size;

        final UnsafeBuffer out = new UnsafeBuffer(BufferUtil.allocateDirectAligned(4096, 64));
        final UnsafeBuffer in = new UnsafeBuffer(BufferUtil.allocateDirectAligned(4096, 64));
        OneToOneRingBuffer ring;

        @Setup(Level.Trial)
        public void setup()
        {
            ring = new OneToOneRingBuffer(new UnsafeBuffer(
                BufferUtil.allocateDirectAligned(65536 + RingBufferDescriptor.TRAILER_LENGTH, 64)));
        }

        @Override
        public void onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
        {
            in.putBytes(0, buffer, index, length);
        }
    }

    @Benchmark
    public int communicator(final Ranks ranks)
    {
        ranks.comm0.send(1, TAG, ranks.out, 0, ranks.size);
        ranks.comm1.recv(0, TAG, ranks.in, 0, ranks.size, null);
        return ranks.in.getByte(0);
    }

    /**
     * A window of {@link #WINDOW} messages as osu_bw writes it: a new {@code irecv} and {@code isend} request
     * per message, then a wait for all of them.
     */
    @Benchmark
    @OperationsPerInvocation(WINDOW)
    public int isendWindow(final Ranks ranks)
    {
        final Request[] recvs = ranks.recvs;
        final Request[] sends = ranks.sends;
        for (int i = 0; i < WINDOW; i++)
        {
            recvs[i] = ranks.comm1.irecv(0, TAG, ranks.in, 0, ranks.size);
            sends[i] = ranks.comm0.isend(1, TAG, ranks.out, 0, ranks.size);
        }
        return awaitWindow(recvs, sends);
    }

    /**
     * The same window of persistent requests ({@code recvInit}/{@code sendInit} once, {@code start} per message):
     * what {@link #isendWindow} costs beyond it is the price of a request per message (issue 22, item 2).
     */
    @Benchmark
    @OperationsPerInvocation(WINDOW)
    public int persistentWindow(final Ranks ranks)
    {
        final Request[] recvs = ranks.recvs;
        final Request[] sends = ranks.sends;
        for (int i = 0; i < WINDOW; i++)
        {
            recvs[i] = ranks.persistentRecvs[i].start();
            sends[i] = ranks.persistentSends[i].start();
        }
        return awaitWindow(recvs, sends);
    }

    private static int awaitWindow(final Request[] recvs, final Request[] sends)
    {
        int length = 0;
        for (int i = 0; i < WINDOW; i++)
        {
            sends[i].await();
            length += recvs[i].await().length();
        }
        return length;
    }

    @Benchmark
    public int endpoint(final Ranks ranks, final Counting counting)
    {
        if (!TwoEndpoints.trySend(ranks.endpoints.rank0, ranks.endpoints.claim0, 1, ranks.out, ranks.size))
        {
            throw new IllegalStateException("no room: the poll below took nothing");
        }
        ranks.endpoints.rank1.poll(counting, 1);
        return counting.count;
    }

    @Benchmark
    public int fastBox(final Box box)
    {
        final int index = box.producer.claim(FastBoxDescriptor.inlineRecordLength(box.size));
        box.ring.putInt(index + FragmentDescriptor.SENDER_OFFSET, 0);
        box.ring.putBytes(index + FragmentDescriptor.HEADER_LENGTH, box.out, 0, box.size);
        box.producer.commitInline(index, box.size);
        final int length = FastBoxDescriptor.inlinePayload(box.consumer.peek());
        box.in.putBytes(0, box.ring, box.consumer.index() + FragmentDescriptor.HEADER_LENGTH, length);
        box.consumer.consume(FastBoxDescriptor.inlineRecordLength(length));
        return box.in.getByte(0);
    }

    @Benchmark
    public int agronaRing(final Ring ring)
    {
        ring.ring.write(1, ring.out, 0, ring.size);
        return ring.ring.read(ring);
    }
}
