package io.sm4j.fifo;

import io.sm4j.layout.SegmentLayout;
import org.agrona.concurrent.AtomicBuffer;

/**
 * One sender's eager fragments as credits: for each receiver it owns {@code eagerFragsPerPeer} fragments,
 * used as a ring in send order. The receiver consumes them in the same order (the pair's path is ordered)
 * and counts them in one shared word ({@link SegmentLayout#creditOffset}), so a single store returns a
 * whole run of fragments and nothing travels back through the FIFOs. A sender without credit for a receiver
 * simply waits: it never consumes anything to make room.
 * Not thread-safe: in MULTIPLE thread mode the caller holds the destination's lock.
 */
public final class EagerCredits
{
    private final SegmentLayout layout;
    private final int owner;
    private final int perPeer;
    private final AtomicBuffer[] consumedWords;
    private final long[] sent;
    /** Per receiver: the ring slot of the next fragment, {@code sent % perPeer} kept without a division. */
    private final int[] slot;
    private final long[] consumed;

    /**
     * @param consumedWords for each receiver, a view of the word in which it counts what it consumed from
     *                      {@code owner} (null for {@code owner} itself).
     */
    public EagerCredits(final SegmentLayout layout, final int owner, final AtomicBuffer[] consumedWords)
    {
        this.layout = layout;
        this.owner = owner;
        this.perPeer = layout.params().eagerFragsPerPeer();
        this.consumedWords = consumedWords;
        this.sent = new long[consumedWords.length];
        this.slot = new int[consumedWords.length];
        this.consumed = new long[consumedWords.length];
    }

    /**
     * @return the next eager fragment for {@code dest}, or -1 while {@code dest} holds all of them; call
     * {@link #sent} once it is published.
     */
    public long next(final int dest)
    {
        if (sent[dest] - consumed[dest] >= perPeer)
        {
            // NOTE: acquire pairs with the receiver's release of its count, stored after it last read the
            // fragments it counts: they may be overwritten now. A hostile count larger than what was sent
            // is clamped: it could only make this sender overwrite what that peer has still to read.
            consumed[dest] = Math.min(sent[dest], consumedWords[dest].getLongAcquire(0));
            if (sent[dest] - consumed[dest] >= perPeer)
            {
                return -1;
            }
        }
        return layout.eagerFragmentOffset(owner, dest, slot[dest]);
    }

    public void sent(final int dest)
    {
        sent[dest]++;
        slot[dest] = slot[dest] + 1 == perPeer ? 0 : slot[dest] + 1;
    }
}
