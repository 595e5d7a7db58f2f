package io.sm4j.bench;

import io.sm4j.collective.Op;
import io.sm4j.message.Communicator;
import org.HdrHistogram.Histogram;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The OSU collective loops over sm4j (osu_allreduce, osu_reduce, osu_bcast, osu_gather, osu_allgather,
 * osu_alltoall, osu_barrier): every rank calls the
 * collective {@code skip + iterations} times and times each call; rank 0 reports the time per call over
 * every rank's calls, as OSU reports it (not halved: a collective is not a round trip).
 */
final class CollectiveLoop
{
    private final Communicator comm;
    private final BenchTest test;
    private final MutableDirectBuffer bytes;
    /** gather's, allgather's and alltoall's n blocks. */
    private final MutableDirectBuffer blocksIn;
    private final MutableDirectBuffer blocksOut;
    private final float[] floats;
    private final float[] sums;

    /**
     * @param largest the largest size measured: the buffers are allocated once, for it.
     * @param buffers the byte data's buffers (bcast, gather, allgather, alltoall): direct (as OSU's loops pass
     *                malloc'd memory: a bcast's, allGather's or allToAll's readers read them out of the writer's
     *                process, where every rank reads the others'), shared (copied straight out of them) or heap.
     */
    CollectiveLoop(final Communicator comm, final BenchTest test, final int largest, final BufferKind buffers)
    {
        this.comm = comm;
        this.test = test;
        final boolean blocks = test.keepsBlocks();
        this.bytes = buffers.allocate(comm, blocks || test == BenchTest.BCAST ? largest : 0);
        this.blocksIn = buffers.allocate(comm, blocks ? largest * comm.size() : 0);
        this.blocksOut = buffers.allocate(comm, blocks ? largest * comm.size() : 0);
        this.floats = new float[largest / Float.BYTES];
        this.sums = new float[largest / Float.BYTES];
    }

    /**
     * Every rank times each call; the next call starts after a barrier (as OSU's loops, but for the barrier
     * test itself). The times of every rank's calls are gathered to rank 0: the mean and the percentiles are
     * over all of them (OSU's average over ranks).
     *
     * @return rank 0's result line; null on the other ranks and when {@code report} is false.
     */
    ResultLine run(final boolean report, final int size, final int skip, final int iterations)
    {
        final boolean reduces = test == BenchTest.ALLREDUCE || test == BenchTest.REDUCE || test == BenchTest.REDUCE_SCATTER;
        // reduceScatter: size / 4 floats in whole blocks of size / 4 / n, one of which each rank receives
        final int count = test == BenchTest.REDUCE_SCATTER ? size / Float.BYTES / comm.size() * comm.size() : size / Float.BYTES;
        final float[] in = reduces ? java.util.Arrays.copyOf(floats, count) : null;
        final float[] out = reduces ? java.util.Arrays.copyOf(sums, test == BenchTest.REDUCE_SCATTER ? count / comm.size() : count) : null;
        final UnsafeBuffer calls = new UnsafeBuffer(new byte[iterations * Long.BYTES]);
        for (int i = 0; i < skip + iterations; i++)
        {
            final long start = System.nanoTime();
            switch (test)
            {
                case ALLREDUCE -> comm.allReduce(in, out, Op.SUM);
                case REDUCE -> comm.reduce(in, out, Op.SUM, 0);
                case REDUCE_SCATTER -> comm.reduceScatter(in, out, Op.SUM);
                case BCAST -> comm.bcast(bytes, 0, size, 0);
                case GATHER -> comm.gather(bytes, 0, size, blocksIn, 0, 0);
                case ALLGATHER -> comm.allGather(bytes, 0, size, blocksIn, 0);
                case ALLTOALL -> comm.allToAll(blocksOut, 0, blocksIn, 0, size);
                default -> comm.barrier();
            }
            if (i >= skip)
            {
                calls.putLong((i - skip) * Long.BYTES, System.nanoTime() - start);
            }
            if (test != BenchTest.BARRIER)
            {
                comm.barrier();
            }
        }
        if (!report)
        {
            return null;
        }
        final UnsafeBuffer everyones = comm.rank() == 0 ? new UnsafeBuffer(new byte[calls.capacity() * comm.size()]) : null;
        comm.gather(calls, 0, calls.capacity(), everyones, 0, 0);
        if (everyones == null)
        {
            return null;
        }
        final Histogram histogram = Samples.empty();
        long total = 0;
        for (int at = 0; at < everyones.capacity(); at += Long.BYTES)
        {
            final long nanos = everyones.getLong(at);
            histogram.recordValue(nanos);
            total += nanos;
        }
        return OsuLoops.timeLine("sm4j", size, total, (long)iterations * comm.size(), histogram, 1);
    }
}
