package io.sm4j.fifo;

import io.sm4j.layout.FastBoxDescriptor;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The sender's end of one fast box ({@link FastBoxDescriptor}): claims room for a record, lets the caller
 * write it in place, and commits it by writing its commit word last. Single writer: one thread of the
 * sending process.
 * <p>
 * Implementation notes (after Open MPI vader's {@code mca_btl_vader_fbox_sendi}): the write position and the
 * record sequence are process-local; the receiver's consumed position is read (acquire) only when the cached
 * limit says the ring is full, so a sender that stays ahead touches the receiver's line once per lap, not
 * once per record. The receiver never writes into the ring: every commit word carries its record's sequence,
 * and before committing a record this sender clears the commit word where the next one will start, if the
 * receiver is past that spot (it may lie inside an old payload). If it is not, that spot is the start of a
 * record the receiver has still to read, whose old sequence tells it apart from a new one.
 */
public final class FastBoxProducer
{
    private final AtomicBuffer ring;
    private final AtomicBuffer consumed;
    private final int capacity;
    private final int mask;
    private long position;
    private long limit;
    private long sequence;
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
     * the record always fit in one ring). A record never crosses the ring's end: the rest of the lap is
     * committed as padding first. Claiming again without a commit returns the same index.
     *
     * @return the record's index in {@link #ring()}, or -1 while the receiver has not consumed enough.
     */
    public int claim(final int length)
    {
        return claim(length, 0);
    }

    /**
     * As {@link #claim(int)}, leaving {@code reserve} bytes of the ring free after the record: room that only
     * a claim with a smaller reserve may take.
     */
    public int claim(final int length, final int reserve)
    {
        int index = (int)(position & mask);
        final int toEnd = capacity - index;
        final int needed = (length <= toEnd ? length : toEnd + length) + reserve;
        if (position + needed > limit)
        {
            // NOTE: acquire pairs with the receiver's release of its consumed position, stored after it last
            // read the records before it: they may be overwritten now.
            limit = consumed.getLongAcquire(FastBoxDescriptor.CONSUMED_OFFSET) + capacity;
            if (position + needed > limit)
            {
                return -1;
            }
        }
        if (length > toEnd)
        {
            // the ring's start is always a record's start: nothing to clear there
            commit(index, FastBoxDescriptor.PADDING, toEnd);
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
        commit(index, FastBoxDescriptor.inlineCode(payload), claimed);
    }

    /**
     * Writes and publishes a reference record, claimed at {@code index}, to the fragment at {@code fragment}.
     */
    public void commitReference(final int index, final long fragment)
    {
        ring.putLong(index + FastBoxDescriptor.REFERENCE_OFFSET, fragment);
        commit(index, FastBoxDescriptor.REFERENCE, claimed);
    }

    private void commit(final int index, final int code, final int length)
    {
        final int next = index + length;
        if (next < capacity && position + length + FastBoxDescriptor.RECORD_ALIGNMENT <= limit)
        {
            // consumed in the last lap, maybe inside an old payload: the receiver reads it after this record
            ring.putInt(next + FastBoxDescriptor.COMMIT_OFFSET, 0);
        }
        // NOTE: release: the record (plain stores) and the cleared next commit word are visible before this
        // commit word, which the receiver reads with acquire (Agrona's length-as-commit-flag idiom).
        ring.putIntRelease(index + FastBoxDescriptor.COMMIT_OFFSET, FastBoxDescriptor.commitWord(sequence++, code));
        position += length;
        claimed = 0;
    }
}
