package io.sm4j.report;

import io.sm4j.layout.LayoutParams;

/**
 * The size of the shared file Open MPI would have created, for comparison with the size sm4j computes.
 */
public final class OmpiFileSizes
{
    public static final long MIB = 1L << 20;
    /** mpool_sm_min_size default. */
    public static final long MIN_SIZE = 128 * MIB;
    /** Open MPI 1.3.0's mpool_sm_per_peer_size default. */
    public static final long PER_PEER_SIZE = 32 * MIB;
    /** Open MPI 1.3.0's mpool_sm_max_size default. */
    public static final long MAX_SIZE = 512 * MIB;
    /** Open MPI 1.8's per-FIFO constant and default FIFO size and count. */
    public static final long V18_FIFO_CONSTANT = 640;
    public static final long V18_FIFO_SIZE = 4096;
    public static final long V18_NUM_FIFOS = 1;

    private OmpiFileSizes()
    {
    }

    /**
     * @param peers ranks on the node.
     * @return min(max, max(min, n * per_peer)) with Open MPI 1.3.0's defaults.
     */
    public static long v130Default(final int peers)
    {
        return Math.min(MAX_SIZE, Math.max(MIN_SIZE, peers * PER_PEER_SIZE));
    }

    /**
     * Open MPI 1.8's computed size:
     * {@code n * [nfifos(640 + 8 fifo_size + 4 CL) + (2n + 64)(eager + 2 CL) + 8(maxfrag + 2 CL)]},
     * raised to its minimum.
     *
     * @param params     peers, max fragment size and cacheline are used.
     * @param eagerLimit Open MPI's eager limit: its default ({@link OmpiV13Model#EAGER_LIMIT}) unless the
     *                   user set one; sm4j's default counts 16 bytes of headers that Open MPI's does not.
     * @return bytes.
     */
    public static long v18Formula(final LayoutParams params, final int eagerLimit)
    {
        final long n = params.peers();
        final long cl = params.cacheline();
        final long perPeer = V18_NUM_FIFOS * (V18_FIFO_CONSTANT + 8 * V18_FIFO_SIZE + 4 * cl) +
            (2 * n + 64) * (eagerLimit + 2 * cl) +
            8 * (params.maxFragSize() + 2 * cl);
        return Math.max(MIN_SIZE, Math.multiplyExact(n, perPeer));
    }
}
