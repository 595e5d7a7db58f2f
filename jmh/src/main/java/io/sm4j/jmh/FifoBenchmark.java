package io.sm4j.jmh;

import io.sm4j.fifo.FifoConsumer;
import io.sm4j.fifo.FifoProducer;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * One FIFO publish (release store of a slot) plus its consume (acquire load, lazy free) on one thread,
 * off-heap, as the segment lays them out: the floor under every eager message (two per message today:
 * the fragment and its return). The lazy-free batch decides how often the consumer writes the tail.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED")
@State(Scope.Thread)
public class FifoBenchmark
{
    private static final int ENTRIES = 128;

    @Param({ "1", "64" })
    int lazyFreeBatch;

    FifoProducer producer;
    FifoConsumer consumer;

    @Setup
    public void setup()
    {
        final UnsafeBuffer memory = new UnsafeBuffer(BufferUtil.allocateDirectAligned(ENTRIES * 8 + 256, 128));
        final UnsafeBuffer queue = new UnsafeBuffer(memory, 0, ENTRIES * 8);
        producer = new FifoProducer(queue, ENTRIES, new UnsafeBuffer(memory, ENTRIES * 8, 8));
        consumer = new FifoConsumer(queue, ENTRIES, new UnsafeBuffer(memory, ENTRIES * 8 + 128, 8), lazyFreeBatch);
    }

    @Benchmark
    public long publishAndConsume()
    {
        producer.offer(4096);
        return consumer.poll();
    }
}
