package io.sm4j.bench;

import io.sm4j.message.Communicator;
import io.sm4j.window.SharedBuffer;
import io.sm4j.window.Window;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The OSU one-sided loops over an sm4j window (osu_put_latency, osu_get_latency, osu_put_bw, with OSU's
 * default flush synchronisation): rank 0 puts into (or gets from) rank 1's part and flushes, under one shared
 * lock per size, while rank 1 waits at a barrier. Timed in batches of {@value #BATCH} operations (a window for
 * put_bw), as the Open MPI baseline, so that the clock's cost does not swamp a put of a few bytes.
 */
final class RmaLoop implements AutoCloseable
{
    private static final int BATCH = 16;

    private final Communicator comm;
    private final BenchTest test;
    private final Window window;
    private final UnsafeBuffer local;

    /**
     * @param largest the largest size measured: the window's parts and the local buffer are made once, for it.
     * @param buffers the local buffer's kind.
     */
    RmaLoop(final Communicator comm, final BenchTest test, final int largest, final BufferKind buffers)
    {
        this.comm = comm;
        this.test = test;
        this.window = comm.allocateWindow(Math.max(1, largest));
        this.local = buffers.allocate(comm, largest);
    }

    /**
     * @return rank 0's result line (a time per operation, or a rate for put_bw); null on rank 1 and when
     *         {@code report} is false.
     */
    ResultLine run(final boolean report, final int size, final int skip, final int iterations, final int windowSize)
    {
        comm.barrier();
        ResultLine line = null;
        if (comm.rank() == 0)
        {
            final boolean bandwidth = test == BenchTest.PUT_BW;
            final int batch = bandwidth ? 1 : BATCH;
            final int per = bandwidth ? windowSize : 1;
            final int timed = (iterations + batch - 1) / batch * batch;
            final Histogram batches = Samples.empty();
            window.lock(1, false);
            long start = 0;
            long batchStart = 0;
            for (int i = 0; i < skip + timed; i++)
            {
                if (i == skip)
                {
                    start = System.nanoTime();
                }
                if (i >= skip && (i - skip) % batch == 0)
                {
                    batchStart = System.nanoTime();
                }
                for (int w = 0; w < per; w++)
                {
                    if (test == BenchTest.GET_LATENCY)
                    {
                        window.get(1, 0, local, 0, size);
                    }
                    else
                    {
                        window.put(1, 0, local, 0, size);
                    }
                }
                window.flush(1);
                if (i >= skip && (i - skip) % batch == batch - 1)
                {
                    batches.recordValue(Math.max(1, (System.nanoTime() - batchStart) / batch));
                }
            }
            final long elapsed = System.nanoTime() - start;
            window.unlock(1);
            if (report)
            {
                line = bandwidth ? OsuLoops.windowedRateLine("sm4j", size, per, timed, elapsed, batches) :
                    OsuLoops.timeLine("sm4j", size, elapsed, timed, batches, 1);
            }
        }
        comm.barrier();
        return line;
    }

    @Override
    public void close()
    {
        window.close();
        if (local instanceof SharedBuffer)
        {
            ((SharedBuffer)local).free();
        }
    }
}
