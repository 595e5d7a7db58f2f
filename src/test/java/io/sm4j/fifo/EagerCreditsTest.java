package io.sm4j.fifo;

import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentLayout;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Eager credits of rank 0 of three, with the receivers' consumed counts in off-heap words: a ring of
 * fragments per receiver, spent by sends and returned by one store of a count, never more than were sent.
 */
class EagerCreditsTest
{
    private final SegmentLayout layout = SegmentLayout.compute(LayoutParams.builder(3).eagerFragsPerPeer(4).build());
    private final AtomicBuffer[] consumedWords = {
        null, new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64)), new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64)) };
    private final EagerCredits credits = new EagerCredits(layout, 0, consumedWords);

    @Test
    void aReceiverShouldHoldAtMostItsCreditsAndOneCountReturnsThem()
    {
        final Set<Long> fragments = new HashSet<>();
        for (int i = 0; i < 4; i++)
        {
            final long fragment = credits.next(1);
            assertEquals(layout.eagerFragmentOffset(0, 1, i), fragment);
            fragments.add(fragment);
            credits.sent(1);
        }
        assertEquals(4, fragments.size());
        assertEquals(-1, credits.next(1), "rank 1 holds all four");
        assertEquals(layout.eagerFragmentOffset(0, 2, 0), credits.next(2), "rank 2's credits are its own");
        consumedWords[1].putLongRelease(0, 3);
        for (int i = 0; i < 3; i++)
        {
            assertEquals(layout.eagerFragmentOffset(0, 1, i), credits.next(1), "the ring wraps in send order");
            credits.sent(1);
        }
        assertEquals(-1, credits.next(1));
    }

    /**
     * A hostile count above what was sent frees at most what was sent: once the word falls back to the
     * receiver's true count, the sender is held to its credits again (unclamped, it would never look again).
     */
    @Test
    void aCountAboveWhatWasSentShouldBeClamped()
    {
        sendTo1(4);
        consumedWords[1].putLongRelease(0, 1_000_000);
        sendTo1(4);
        consumedWords[1].putLongRelease(0, 4); // what rank 1 really consumed: four are in flight
        assertEquals(-1, credits.next(1));
    }

    private void sendTo1(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            assertTrue(credits.next(1) >= 0, "send " + i);
            credits.sent(1);
        }
    }
}
