package io.sm4j.transport;

import io.sm4j.it.ScratchDir;
import io.sm4j.layout.DoorbellDescriptor;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.Segment;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The check each rank makes as it attaches, of whether it can read every peer that reads, out of its process
 * (the doorbell line's address word): what lets a collective leave off-heap data for its readers.
 */
class PeerReadCheckTest
{
    private static final int[] BOTH = { 0, 1 };

    @Test
    @Timeout(60)
    void ranksThatCanReadEachOtherShouldSaySo() throws IOException
    {
        Assumptions.assumeTrue(PeerMemory.whyNot(TransportOptions.PeerReads.AUTO) == null, "this machine refuses reads");
        try (TwoRanks ranks = new TwoRanks(LayoutParams.defaults(2)))
        {
            assertTrue(ranks.rank0.readEachOther(BOTH));
            assertTrue(ranks.rank1.readEachOther(BOTH));
        }
    }

    /**
     * Rank 1's address word forged once it has registered: rank 0's read of it finds another value, so rank 0
     * says a peer is unreadable, and neither rank then offers its data to be read.
     */
    @Test
    @Timeout(60)
    void aPeerThatCannotBeReadShouldLeaveNoRankReadingAnother() throws IOException
    {
        Assumptions.assumeTrue(PeerMemory.whyNot(TransportOptions.PeerReads.AUTO) == null, "this machine refuses reads");
        try (ScratchDir dir = ScratchDir.create("sm4j-read-check-");
             Segment segment = Segment.create(LayoutParams.defaults(2), dir.path, 11))
        {
            final CompletableFuture<Endpoint> one =
                CompletableFuture.supplyAsync(() -> Endpoint.open(segment, 1, TransportOptions.defaults(), false));
            while (!segment.ranks().isAttached(1) && !one.isDone())
            {
                Thread.onSpinWait(); // rank 1 waits for rank 0 in its open: registered, its words are written
            }
            final long word = segment.views().bell(1).getLong(DoorbellDescriptor.ADDRESS_OFFSET);
            segment.views().bell(1).putLong(DoorbellDescriptor.ADDRESS_OFFSET, word + 64); // not where rank 1 has it
            try (Endpoint zero = Endpoint.open(segment, 0, TransportOptions.defaults(), false);
                 Endpoint first = one.join())
            {
                assertFalse(zero.readEachOther(BOTH), "rank 0 read a value that is not where rank 1 said");
                assertFalse(first.readEachOther(BOTH), "rank 0 could not read rank 1: rank 1 must not offer");
                assertTrue(first.readEachOther(new int[]{ 1 }), "rank 1 alone reads itself");
            }
        }
    }
}
