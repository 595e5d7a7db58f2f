package io.sm4j.bench;

import java.util.Locale;

/**
 * The OSU micro-benchmarks sm4j reproduces, with OSU's names and defaults.
 */
public enum BenchTest
{
    /** osu_latency: ping-pong, one-way latency = round trip / 2. */
    LATENCY("Latency", true, 10_000, 1_000, 1_000, 100),
    /** osu_bw: a window of sends, then an acknowledgement. */
    BW("Bandwidth", true, 100, 10, 20, 2),
    /** osu_bibw: windows both ways at once. */
    BIBW("Bi-Directional Bandwidth", true, 100, 10, 20, 2),
    /** osu_mbw_mr: n/2 pairs stream windows at once; aggregate bandwidth and message rate. */
    MBW_MR("Multiple Bandwidth / Message Rate", false, 100, 10, 20, 2),
    /**
     * osu_multi_lat: n/2 pairs ping-pong at once; latency averaged over the pairs. Skips as many round trips
     * as it measures (OSU: a tenth): with more ranks than cores, the scheduler
     * takes tens of milliseconds to even out ranks that waited unequally before the timed loop (the barrier
     * after the progress line), and 1,000 round trips of 2 us do not cover it. Both sm4j and the Open MPI
     * baseline run the same counts.
     */
    MULTI_LAT("Multi-pair Latency", false, 10_000, 10_000, 1_000, 1_000),
    /**
     * Not OSU's: ping-pong with a pause before every round trip, long enough that the receiver sleeps; what
     * is measured is the time from the send to the receiver having it (both clocks are the node's monotonic
     * clock), i.e. how fast a sleeping rank wakes.
     */
    WAKE("Wake-up Latency", true, 1_000, 10, 1_000, 10),
    /** osu_allreduce: every rank calls allReduce of size / 4 floats (SUM); time per call on rank 0. */
    ALLREDUCE("Allreduce Latency", false, 10_000, 1_000, 1_000, 100),
    /** osu_reduce: every rank calls reduce of size / 4 floats (SUM) to rank 0. */
    REDUCE("Reduce Latency", false, 10_000, 1_000, 1_000, 100),
    /**
     * osu_reduce_scatter: every rank calls reduceScatter of size / 4 floats (SUM), each rank receiving its
     * block of size / 4 / n floats (MPI_Reduce_scatter_block).
     */
    REDUCE_SCATTER("Reduce_scatter Latency", false, 10_000, 1_000, 1_000, 100),
    /** osu_bcast: every rank calls bcast of size bytes from rank 0; time per call on rank 0. */
    BCAST("Broadcast Latency", false, 10_000, 1_000, 1_000, 100),
    /** osu_gather: every rank calls gather of size bytes each to rank 0. */
    GATHER("Gather Latency", false, 10_000, 1_000, 1_000, 100),
    /** osu_allgather: every rank calls allGather of size bytes each. */
    ALLGATHER("Allgather Latency", false, 10_000, 1_000, 1_000, 100),
    /** osu_alltoall: every rank calls allToAll of size bytes per pair. */
    ALLTOALL("All-to-All Latency", false, 10_000, 1_000, 1_000, 100),
    /** osu_barrier: every rank calls barrier (one size, 0); time per call on rank 0. */
    BARRIER("Barrier Latency", false, 10_000, 1_000, 10_000, 1_000),
    /**
     * osu_put_latency with OSU's default synchronisation (flush): rank 0 puts into rank 1's part of a window
     * and flushes, under one shared lock per size; time per put.
     */
    PUT_LATENCY("Put Latency", true, 10_000, 1_000, 1_000, 100),
    /** osu_get_latency: as put_latency, with get. */
    GET_LATENCY("Get Latency", true, 10_000, 1_000, 1_000, 100),
    /** osu_put_bw: rank 0 puts a window of messages into rank 1's part, then flushes. */
    PUT_BW("Put Bandwidth", true, 100, 10, 20, 2);

    /** OSU's switch to the large-message counts, in bytes. */
    public static final int LARGE_MESSAGE = 8192;

    private final String title;
    private final boolean pair;
    private final int iterations;
    private final int skip;
    private final int iterationsLarge;
    private final int skipLarge;

    BenchTest(final String title, final boolean pair, final int iterations, final int skip, final int iterationsLarge,
        final int skipLarge)
    {
        this.title = title;
        this.pair = pair;
        this.iterations = iterations;
        this.skip = skip;
        this.iterationsLarge = iterationsLarge;
        this.skipLarge = skipLarge;
    }

    /**
     * @return the name on the command line and in result lines: latency, bw, bibw, mbw_mr, multi_lat.
     */
    public String id()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @return OSU's title, e.g. "Latency" in "# OSU MPI-style Latency Test".
     */
    public String title()
    {
        return title;
    }

    /**
     * @return true for the two-rank tests (latency, bw, bibw), false for the n/2-pair ones.
     */
    public boolean pair()
    {
        return pair;
    }

    /**
     * @return true if the result is a time (latency), false for a rate.
     */
    public boolean latency()
    {
        return this == LATENCY || this == MULTI_LAT || this == WAKE || this == PUT_LATENCY || this == GET_LATENCY || collective();
    }

    /**
     * @return true for the tests that send windows of two-sided requests (bw, bibw, mbw_mr): {@code --requests}
     *         applies, and {@code -W} (which put_bw's windows of puts take too).
     */
    public boolean windowed()
    {
        return this == BW || this == BIBW || this == MBW_MR;
    }

    /**
     * @return true for the one-sided tests (put_latency, get_latency, put_bw): rank 0 against rank 1's part
     *         of a window.
     */
    public boolean rma()
    {
        return this == PUT_LATENCY || this == GET_LATENCY || this == PUT_BW;
    }

    /**
     * @return true for the collectives (allreduce, reduce, reduce_scatter, bcast, gather, allgather, alltoall,
     *         barrier): every
     *         rank calls, on any number of ranks.
     */
    public boolean collective()
    {
        return this == ALLREDUCE || this == REDUCE || this == REDUCE_SCATTER || this == BCAST || this == GATHER || this == ALLGATHER ||
            this == ALLTOALL || this == BARRIER;
    }

    /**
     * @return true for the collectives whose buffers hold one block per rank (gather, allgather, alltoall).
     */
    public boolean keepsBlocks()
    {
        return this == GATHER || this == ALLGATHER || this == ALLTOALL;
    }

    /**
     * @return OSU's default iterations (round trips or windows) for a message of {@code size} bytes.
     */
    public int defaultIterations(final int size)
    {
        return size > LARGE_MESSAGE ? iterationsLarge : iterations;
    }

    /**
     * @return OSU's default warm-up iterations for a message of {@code size} bytes.
     */
    public int defaultSkip(final int size)
    {
        return size > LARGE_MESSAGE ? skipLarge : skip;
    }

    /**
     * @throws IllegalArgumentException naming the valid tests.
     */
    public static BenchTest of(final String id)
    {
        for (final BenchTest test : values())
        {
            if (test.id().equals(id))
            {
                return test;
            }
        }
        throw new IllegalArgumentException("unknown test '" + id + "' (expected: latency, bw, bibw, mbw_mr, multi_lat, wake, " +
            "allreduce, reduce, reduce_scatter, bcast, gather, allgather, alltoall, barrier, put_latency, get_latency or put_bw)");
    }
}
