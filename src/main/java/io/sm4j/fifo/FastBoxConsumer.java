package io.sm4j.fifo;

import io.sm4j.layout.FastBoxDescriptor;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The receiver's end of one fast box ({@link FastBoxDescriptor}): finds the next committed record, and once
 * the caller has consumed it, zeroes it and (in batches) publishes the consumed position. Single reader: the
 * receiving process's poller.
 * <p>
 * Implementation notes: the consumed position is published every quarter ring and whenever the box is found
 * empty with records consumed since the last publish, so a sender waiting for room is never left waiting on
 * a receiver that has caught up, and a streaming pair writes the receiver's line a few times per lap.
 */
public final class FastBoxConsumer
{
    private final AtomicBuffer ring;
    private final AtomicBuffer consumed;
    private final int capacity;
    private final int mask;
    private long position;
    private long published;

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
     * @return the next record's commit word (0 if none is committed yet), having skipped padding; untrusted.
     */
    public int peek()
    {
        final int index = (int)(position & mask);
        // NOTE: acquire pairs with the sender's release of the commit word: the record is fully written.
        final int word = ring.getIntAcquire(index + FastBoxDescriptor.COMMIT_OFFSET);
        if (word != FastBoxDescriptor.PADDING)
        {
            if (word == 0)
            {
                publishConsumed();
            }
            return word;
        }
        ring.putInt(index + FastBoxDescriptor.COMMIT_OFFSET, 0); // the rest of the padding is zero already
        position += capacity - index;
        return peek();
    }

    /**
     * @return bytes from {@link #index()} to the ring's end: no record may be longer.
     */
    public int remaining()
    {
        return capacity - index();
    }

    /**
     * Zeroes the record of {@code length} bytes at {@link #index()} (checked by the caller against
     * {@link #remaining()}) and moves past it.
     */
    public void consume(final int length)
    {
        ring.setMemory(index(), length, (byte)0);
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

    private void publish()
    {
        // NOTE: release: the zeroing of every record before this position is visible to the sender's acquire.
        consumed.putLongRelease(FastBoxDescriptor.CONSUMED_OFFSET, position);
        published = position;
    }
}
