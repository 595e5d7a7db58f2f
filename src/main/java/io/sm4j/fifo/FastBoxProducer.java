package io.sm4j.fifo;

import io.sm4j.layout.FastBoxDescriptor;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The sender's end of one fast box ({@link FastBoxDescriptor}): claims room for a record, lets the caller
 * write it in place, and commits it by writing its commit word last. Single writer: one thread of the
 * sending process.
 * <p>
 * Implementation notes: the write position is process-local; the receiver's consumed position is read
 * (acquire) only when the cached limit says the ring is full, so a sender that stays ahead of a full ring
 * touches the receiver's line once per lap, not once per record.
 */
public final class FastBoxProducer
{
    private final AtomicBuffer ring;
    private final AtomicBuffer consumed;
    private final int capacity;
    private final int mask;
    private long position;
    private long limit;
    private int claimed;

    /**
     * @param ring     view of the ring, a power-of-two number of bytes, zeroed.
     * @param consumed view of the 8-byte consumed position the receiver publishes.
     */
    public FastBoxProducer(final AtomicBuffer ring, final AtomicBuffer consumed)
    {
        this.ring = ring;
        this.consumed = consumed;
        this.capacity = ring.capacity();
        this.mask = capacity - 1;
        this.limit = capacity;
    }

    public AtomicBuffer ring()
    {
        return ring;
    }

    /**
     * Reserves room for a record of {@code length} bytes (a multiple of
     * {@link FastBoxDescriptor#RECORD_ALIGNMENT}, at most half the ring, so that padding the rest of a lap and
     * the record always fit in one ring). A record never crosses the
     * ring's end: the rest of the lap is committed as padding first. Claiming again without a commit
     * returns the same index.
     *
     * @return the record's index in {@link #ring()}, or -1 while the receiver has not consumed enough.
     */
    public int claim(final int length)
    {
        int index = (int)(position & mask);
        final int toEnd = capacity - index;
        final int needed = length <= toEnd ? length : toEnd + length;
        if (position + needed > limit)
        {
            // NOTE: acquire pairs with the receiver's release of its consumed position, which it stores only
            // after zeroing every record before it: what this sender writes next lands on zeroes.
            limit = consumed.getLongAcquire(FastBoxDescriptor.CONSUMED_OFFSET) + capacity;
            if (position + needed > limit)
            {
                return -1;
            }
        }
        if (length > toEnd)
        {
            // NOTE: release, like a record's commit; the receiver skips to the ring's start on reading it.
            ring.putIntRelease(index + FastBoxDescriptor.COMMIT_OFFSET, FastBoxDescriptor.PADDING);
            position += toEnd;
            index = 0;
        }
        claimed = length;
        return index;
    }

    /**
     * Publishes the inline record claimed at {@code index}, whose header and payload the caller has written.
     */
    public void commitInline(final int index, final int payload)
    {
        commit(index, FastBoxDescriptor.inlineCommitWord(payload));
    }

    /**
     * Writes and publishes a reference record, claimed at {@code index}, to the fragment at {@code fragment}.
     */
    public void commitReference(final int index, final long fragment)
    {
        ring.putLong(index + FastBoxDescriptor.REFERENCE_OFFSET, fragment);
        commit(index, FastBoxDescriptor.REFERENCE);
    }

    private void commit(final int index, final int commitWord)
    {
        // NOTE: release: the record's header and payload (plain stores) are visible before its commit word,
        // which the receiver reads with acquire (Agrona's length-as-commit-flag idiom).
        ring.putIntRelease(index + FastBoxDescriptor.COMMIT_OFFSET, commitWord);
        position += claimed;
        claimed = 0;
    }
}
