package io.sm4j.layout;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SegmentLayoutTest
{
    @Test
    void shouldNeedUnderTwoMegabytesForTwoPeersWithDefaultsAndOneWithoutCollectiveRegions()
    {
        final long total = SegmentLayout.compute(LayoutParams.defaults(2)).totalBytes();
        assertTrue(total < 2_000_000, "n=2 aggregated total=" + total);
        final long point = SegmentLayout.compute(LayoutParams.builder(2).collectiveContexts(0).build()).totalBytes();
        assertTrue(point < 1_000_000, "n=2 aggregated total without collective regions=" + point);
    }

    @Test
    void theDefaultCollectiveBufferShouldShareOneMebibytePerRegionBetweenItsFloorAndCeiling()
    {
        final int[][] expected = { { 1, 262144 }, { 2, 262144 }, { 4, 262144 }, { 5, 131072 }, { 8, 131072 },
            { 9, 65536 }, { 16, 65536 }, { 17, 32768 }, { 32, 32768 }, { 1024, 32768 } };
        for (final int[] row : expected)
        {
            assertEquals(row[1], LayoutParams.defaults(row[0]).collectiveBufferSize(), "ranks=" + row[0]);
        }
        assertEquals(4096, LayoutParams.builder(2).collectiveBufferSize(4096).build().collectiveBufferSize(), "set, not the default");
        assertEquals(32768, LayoutParams.builder(2).peers(17).build().collectiveBufferSize(), "the default of the final count");
        assertEquals(262144, LayoutParams.defaults(2).toBuilder().peers(17).build().collectiveBufferSize(),
            "a copied builder keeps the size it was built with");
    }

    @Test
    void shouldExceedTwoGibibytesForAThousandPeersAndStillKeepEverySectionMappable()
    {
        final SegmentLayout layout = SegmentLayout.compute(LayoutParams.defaults(1024));
        assertTrue(layout.totalBytes() > Integer.MAX_VALUE);
        for (int s = 0; s < layout.sectionCount(); s++)
        {
            assertTrue(layout.sectionLength(s) <= SegmentLayout.MAX_SECTION_LENGTH);
        }
    }

    @Test
    void shouldComputeLargeLayoutsArithmeticallyWithoutPerPairObjects()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        SegmentLayout.compute(LayoutParams.defaults(3)); // load classes first
        final long before = threads.getCurrentThreadAllocatedBytes();
        // on this thread: the allocation counter is per thread (a timeout that runs the code elsewhere measured
        // nothing); how fast it is belongs to a benchmark, not here
        final SegmentLayout layout = SegmentLayout.compute(LayoutParams.defaults(1024));
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        // n² = 1,048,576 objects would allocate at least 16 MB.
        assertTrue(allocated < 1_000_000, "allocated " + allocated + " bytes");
        assertEquals(layout.sectionOffset(layout.sectionCount() - 1) + layout.sectionLength(layout.sectionCount() - 1),
            layout.totalBytes());
    }

    /**
     * Every fast box starts on a line of its own, and its ring too, also where the ring is smaller than a line
     * (1 KiB rings under 2 KiB lines: the next box's consumed word, which its receiver writes, fell into a line of
     * the ring its sender writes).
     */
    @Test
    void everyFastBoxShouldStartOnACachelineOfItsOwnWhateverItsSize()
    {
        for (final int[] lineAndRing : new int[][]{ { 64, 1024 }, { 128, 8192 }, { 2048, 1024 }, { 4096, 1024 } })
        {
            final LayoutParams params = LayoutParams.builder(4).cacheline(lineAndRing[0]).fastBoxSize(lineAndRing[1]).build();
            final SegmentLayout layout = SegmentLayout.compute(params);
            for (int receiver = 0; receiver < 4; receiver++)
            {
                for (int box = 0; box < 3; box++)
                {
                    assertEquals(0, layout.fastBoxOffset(receiver, box) % params.cacheline(), "box " + box + " of " + receiver);
                    assertEquals(0, layout.fastBoxRingOffset(receiver, box) % params.cacheline(), "ring " + box + " of " + receiver);
                    if (box > 0)
                    {
                        assertTrue(layout.fastBoxOffset(receiver, box) >= layout.fastBoxRingOffset(receiver, box - 1) +
                            Math.max(params.fastBoxSize(), params.cacheline()), "a ring's lines are its own");
                    }
                }
            }
            assertEquals(layout.totalBytes(), layout.bytesByCategory().values().stream().mapToLong(Long::longValue).sum(),
                "file == report");
        }
    }

    @Test
    void shouldGiveEachRankASlotPerCollectiveContextInItsPoolRegionAndChargeThemExactly()
    {
        for (final Policy policy : Policy.values())
        {
            final LayoutParams params = LayoutParams.builder(5).policy(policy).collectiveContexts(3).collectiveBufferSize(4096).build();
            final SegmentLayout layout = SegmentLayout.compute(params);
            final long stride = CollectiveSlotDescriptor.stride(params.cacheline(), 4096);
            assertEquals(params.cacheline() + 4096, stride);
            assertEquals(5 * 3 * stride, layout.bytesByCategory().get(Category.COLLECTIVES), policy + ": report == layout");
            assertEquals(layout.totalBytes(), layout.bytesByCategory().values().stream().mapToLong(Long::longValue).sum(),
                policy + ": file == report");
            for (int rank = 0; rank < 5; rank++)
            {
                for (int context = 0; context < 3; context++)
                {
                    final long slot = layout.collectiveSlotOffset(rank, context);
                    assertEquals(0, slot % params.cacheline());
                    assertEquals(rank, layout.fragmentOwner(slot), "in the rank's own pool region (its section)");
                    assertEquals(-1, layout.fragmentCapacity(slot), "never taken for a fragment");
                    assertTrue(slot >= layout.maxFragmentOffset(rank, params.maxFragsPerRank() - 1) + params.maxFragSize());
                    assertTrue(slot + stride <= layout.poolRegionOffset(rank) + layout.poolRegionLength());
                }
            }
            assertThrows(IndexOutOfBoundsException.class, () -> layout.collectiveSlotOffset(0, 3));
        }
        final SegmentLayout none = SegmentLayout.compute(LayoutParams.builder(5).collectiveContexts(0).build());
        assertEquals(0L, none.bytesByCategory().getOrDefault(Category.COLLECTIVES, 0L));
        assertNotEquals(none.checksum(), SegmentLayout.compute(LayoutParams.defaults(5)).checksum());
    }

    @Test
    void shouldPlaceHeadsBesideTheSendersInboundTails()
    {
        final SegmentLayout layout = SegmentLayout.compute(LayoutParams.defaults(4));
        // head of CB 2 -> 1 and tail of CB 1 -> 2 are interleaved in rank 2's region
        assertEquals(layout.headOffset(2, 1) + CbIndexDescriptor.HEAD_LENGTH, layout.tailOffset(1, 2));
        assertTrue(layout.headOffset(2, 1) >= layout.cbRegionOffset(2));
        assertTrue(layout.headOffset(2, 1) < layout.cbRegionOffset(3));
    }

    @Test
    void shouldGiveEveryHeadAndTailItsOwnCachelineInMultipleThreadMode()
    {
        final LayoutParams params = LayoutParams.builder(4).threadMode(ThreadMode.MULTIPLE).build();
        final SegmentLayout layout = SegmentLayout.compute(params);
        assertEquals(layout.headOffset(2, 1) + params.cacheline(), layout.tailOffset(1, 2));
    }

    @Test
    void shouldChangeChecksumWhenAnyParameterChanges()
    {
        final LayoutParams base = LayoutParams.defaults(4);
        final long checksum = SegmentLayout.compute(base).checksum();
        assertEquals(checksum, SegmentLayout.compute(LayoutParams.defaults(4)).checksum());
        assertNotEquals(checksum, SegmentLayout.compute(base.toBuilder().queueEntries(64).build()).checksum());
        assertNotEquals(checksum, SegmentLayout.compute(base.toBuilder().policy(Policy.CACHELINE).build()).checksum());
    }

    @Test
    void shouldRejectAFifoFromARankToItselfAndRanksOutOfRange()
    {
        final SegmentLayout layout = SegmentLayout.compute(LayoutParams.defaults(4));
        assertEquals("no FIFO from rank 2 to itself",
            assertThrows(IllegalArgumentException.class, () -> layout.queueOffset(2, 2)).getMessage());
        assertEquals("receiver=4 (expected: 0..3)",
            assertThrows(IllegalArgumentException.class, () -> layout.cbRegionOffset(4)).getMessage());
    }

    @Test
    void shouldRejectSizesThatOverflowALong()
    {
        final LayoutParams params = LayoutParams.builder(LayoutParams.MAX_PEERS).maxFragSize(1 << 30).eagerLimit(1 << 30)
            .eagerFragsPerPeer(Integer.MAX_VALUE).build();
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> SegmentLayout.compute(params));
        assertTrue(ex.getMessage().startsWith("segment too large to lay out (a size past a long, or a fragment count past an int): peers=4096"), ex.getMessage());
    }

    @Test
    void shouldRejectASectionLargerThanOneMapping()
    {
        final LayoutParams params = LayoutParams.builder(LayoutParams.MAX_PEERS).eagerLimit(1 << 20).maxFragSize(1 << 20).build();
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> SegmentLayout.compute(params));
        assertTrue(ex.getMessage().startsWith("fragment pools and collective slots of one rank is "), ex.getMessage());
    }
}
