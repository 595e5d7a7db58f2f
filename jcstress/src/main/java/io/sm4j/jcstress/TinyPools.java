package io.sm4j.jcstress;

import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentLayout;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The smallest two-rank layout the fragment tests need (one eager fragment per peer, one max-size fragment of 128
 * bytes per rank, no fast boxes), and rank 0's pool region over off-heap memory, as a mapped segment would hold it.
 */
final class TinyPools
{
    static final SegmentLayout LAYOUT = SegmentLayout.compute(LayoutParams.builder(2)
        .eagerLimit(64).maxFragSize(128).queueEntries(2).eagerFragsPerPeer(1).maxFragsPerRank(1)
        .cacheline(64).pageSize(64).fastBoxes(0).build());
    /** The rank whose pool region {@link #region} holds. */
    static final int SENDER = 0;

    /** Where the region starts in the segment: a fragment's offset minus this is its index in {@link #region}. */
    final long regionBase = LAYOUT.poolRegionOffset(SENDER);
    final UnsafeBuffer region = new UnsafeBuffer(BufferUtil.allocateDirectAligned((int)LAYOUT.poolRegionLength(), 64));
}
