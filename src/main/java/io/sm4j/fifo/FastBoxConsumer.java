package io.sm4j.fifo;

import io.sm4j.layout.FastBoxDescriptor;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The receiver's end of one fast box ({@link FastBoxDescriptor}): finds the next committed record and, once
 * the caller has consumed it, moves past it, publishing the consumed position in batches. It only reads the
 * ring: a record is new when its commit word carries the sequence expected next, so no line of the ring is
 * ever written by both sides. Single reader: the receiving process's poller.
 * <p>
 * Implementation notes: the consumed position is published every quarter ring and whenever the box is found
 * empty with records consumed since the last publish (vader publishes once per poll), so a sender waiting for
 * room is never left waiting on a receiver that has caught up, and a streaming pair writes the receiver's
 * line a few times per lap.
 */
public final class FastBoxConsumer
{
    private final AtomicBuffer ring;
    private final AtomicBuffer consumed;
    private final int capacity;
    private final int mask;
    private long position;
    private long published;
    private long sequence;
    /** The look ahead's record ({@link #startLookahead}): its position and sequence, as the consumer's own. */
    private long aheadPosition;
    private long aheadSequence;
    /** Where the consumer stood when the look ahead last started ({@code -1}: never). */
    private long aheadFrom = -1;

    /**
     * @param ring     view of the ring, a power-of-two number of bytes, zeroed.
     * @param consumed view of the 8-byte consumed position this reader publishes.
     */
    public FastBoxConsumer(final AtomicBuffer ring, final AtomicBuffer consumed)
    {
        this.ring = ring;
        this.consumed = consumed;
        this.capacity = ring.capacity();
        this.mask = capacity - 1;
    }

    public AtomicBuffer ring()
    {
        return ring;
    }

    /**
     * @return the index in {@link #ring()} of the next record, valid after {@link #peek()} returned non-zero.
     */
    public int index()
    {
        return (int)(position & mask);
    }

    /**
     * @return the next record's code (0 if none is committed yet), having skipped padding; untrusted.
     */
    public int peek()
    {
        while (true)
        {
            final int index = (int)(position & mask);
            final int code = codeAt(index, sequence);
            if (code != FastBoxDescriptor.PADDING)
            {
                if (code == 0)
                {
                    publishConsumed();
                }
                return code;
            }
            sequence++;
            position += capacity - index;
        }
    }

    /**
     * Starts a look at the records behind the next one, which consumes nothing: for a receiver that leaves
     * the next record where it is and must know what stands behind it. {@link #peekAhead()} then reads the
     * next record, {@link #skipAhead} moves past it. While the consumer has not moved since the last look, the
     * look goes on from where that one stopped: a receiver that looks on every poll reads each record once.
     */
    public void startLookahead()
    {
        if (aheadFrom != position)
        {
            aheadFrom = position;
            aheadPosition = position;
            aheadSequence = sequence;
        }
    }

    /**
     * @return the look ahead's record's code (0 if none is committed there yet, or the look has gone a lap past
     *         the next record: no sender writes that far), having skipped padding; untrusted.
     */
    public int peekAhead()
    {
        while (aheadPosition - position < capacity)
        {
            final int index = aheadIndex();
            final int code = codeAt(index, aheadSequence);
            if (code != FastBoxDescriptor.PADDING)
            {
                return code;
            }
            aheadSequence++;
            aheadPosition += capacity - index;
        }
        return 0;
    }

    /**
     * @return the index in {@link #ring()} of the look ahead's record.
     */
    public int aheadIndex()
    {
        return (int)(aheadPosition & mask);
    }

    /**
     * Moves the look ahead past its record of {@code length} bytes (checked by the caller against the ring's
     * end), consuming nothing.
     */
    public void skipAhead(final int length)
    {
        aheadSequence++;
        aheadPosition += length;
    }

    /**
     * @return the code of the record at {@code index} if it is the {@code sequence}-th, else 0.
     */
    private int codeAt(final int index, final long sequence)
    {
        // NOTE: acquire pairs with the sender's release of the commit word: the record is fully written.
        return FastBoxDescriptor.codeIfSequence(ring.getIntAcquire(index + FastBoxDescriptor.COMMIT_OFFSET), sequence);
    }

    /**
     * @return bytes from {@link #index()} to the ring's end: no record may be longer.
     */
    public int remaining()
    {
        return capacity - index();
    }

    /**
     * Moves past the record of {@code length} bytes at {@link #index()} (checked by the caller against
     * {@link #remaining()}), which the caller has finished reading.
     */
    public void consume(final int length)
    {
        sequence++;
        position += length;
        if (position - published >= capacity >> 2)
        {
            publish();
        }
    }

    /**
     * Publishes the consumed position if it moved since the last publish (also done whenever the box is
     * found empty, and every quarter ring).
     */
    public void publishConsumed()
    {
        if (published != position)
        {
            publish();
        }
    }

    /**
     * @return the consumed position last published: a change means room for the sender, which may wait for it.
     */
    public long published()
    {
        return published;
    }

    private void publish()
    {
        // NOTE: release: this reader's loads of every record before this position happen before the sender,
        // after its acquire of the position, writes over them.
        consumed.putLongRelease(FastBoxDescriptor.CONSUMED_OFFSET, position);
        published = position;
    }
}
