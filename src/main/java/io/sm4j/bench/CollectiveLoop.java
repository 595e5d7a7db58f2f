package io.sm4j.bench;

import io.sm4j.collective.Op;
import io.sm4j.message.Communicator;
import org.HdrHistogram.Histogram;

/**
 * The OSU collective loops over sm4j (osu_allreduce, osu_bcast, osu_barrier): every rank calls the
 * collective {@code skip + iterations} times; the timing rank records each call and reports the time per
 * call, as OSU reports it (not halved: a collective is not a round trip).
 */
final class CollectiveLoop
{
    private final Communicator comm;
    private final BenchTest test;
    private final byte[] bytes;
    private final float[] floats;
    private final float[] sums;

    /**
     * @param largest the largest size measured: the buffers are allocated once, for it.
     */
    CollectiveLoop(final Communicator comm, final BenchTest test, final int largest)
    {
        this.comm = comm;
        this.test = test;
        this.bytes = new byte[largest];
        this.floats = new float[largest / Float.BYTES];
        this.sums = new float[largest / Float.BYTES];
    }

    /**
     * @return the timing rank's result line; null on the other ranks.
     */
    ResultLine run(final boolean timer, final int size, final int skip, final int iterations)
    {
        final long[] ends = timer ? new long[iterations] : null;
        final float[] in = test == BenchTest.ALLREDUCE ? java.util.Arrays.copyOf(floats, size / Float.BYTES) : null;
        final float[] out = test == BenchTest.ALLREDUCE ? java.util.Arrays.copyOf(sums, size / Float.BYTES) : null;
        long start = System.nanoTime();
        for (int i = 0; i < skip + iterations; i++)
        {
            if (i == skip)
            {
                start = System.nanoTime();
            }
            switch (test)
            {
                case ALLREDUCE -> comm.allReduce(in, out, Op.SUM);
                case BCAST -> comm.bcast(bytes, 0, size, 0);
                default -> comm.barrier();
            }
            if (timer && i >= skip)
            {
                ends[i - skip] = System.nanoTime();
            }
        }
        if (!timer)
        {
            return null;
        }
        final Histogram calls = new Histogram(3);
        long previous = start;
        for (final long end : ends)
        {
            calls.recordValue(end - previous);
            previous = end;
        }
        return new ResultLine("sm4j", size, new double[]{
            (previous - start) / 1e3 / iterations,
            calls.getValueAtPercentile(50) / 1e3,
            calls.getValueAtPercentile(99) / 1e3,
            calls.getValueAtPercentile(99.9) / 1e3,
            calls.getMaxValue() / 1e3 });
    }
}
