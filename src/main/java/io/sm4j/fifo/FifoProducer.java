package io.sm4j.fifo;

import org.agrona.concurrent.AtomicBuffer;

import static io.sm4j.layout.CbIndexDescriptor.EMPTY_SLOT;
import static io.sm4j.layout.CbIndexDescriptor.SLOT_LENGTH;

/**
 * The sender's end of one circular buffer, after Open MPI's {@code ompi_cb_fifo_write_to_head}.
 * <p>
 * Implementation notes: a slot is free iff it holds 0; the producer never reads the consumer's tail,
 * only the slot it is about to fill, so the queue line is the only line the two ends share. The head
 * word is the producer's position, kept in shared memory (in the sender's own region) for inspection
 * and for a restarted producer; it is written by this process only.
 */
public final class FifoProducer
{
    private final AtomicBuffer queue;
    private final AtomicBuffer headWord;
    private final int mask;
    private long head;

    /**
     * @param queue    view of the queue's {@code entries} slots.
     * @param entries  slots, a power of two.
     * @param headWord view of the 8-byte head.
     */
    public FifoProducer(final AtomicBuffer queue, final int entries, final AtomicBuffer headWord)
    {
        this.queue = queue;
        this.headWord = headWord;
        this.mask = entries - 1;
        this.head = headWord.getLongAcquire(0);
    }

    /**
     * Publishes a non-zero word.
     *
     * @param value fragment offset, possibly with the return flag; never 0.
     * @return false if the slot at the head is not free yet (the FIFO is full).
     */
    public boolean offer(final long value)
    {
        final int index = (int)(head & mask) * SLOT_LENGTH;
        // NOTE: acquire pairs with the consumer's release clear: 0 proves the consumer is done with the slot.
        if (queue.getLongAcquire(index) != EMPTY_SLOT)
        {
            return false;
        }
        // NOTE: release publishes everything written before, the fragment's header and payload in particular;
        // pairs with the consumer's acquire load of this slot.
        queue.putLongRelease(index, value);
        head++;
        headWord.putLongRelease(0, head);
        return true;
    }

    /**
     * @return true if the next {@code words} slots are free (the consumer frees slots in order: the last of them
     *         says it), so that a word published now leaves {@code words - 1} free behind it.
     */
    public boolean hasRoom(final int words)
    {
        // NOTE: acquire, as offer's: 0 proves the consumer is done with the slot.
        return words <= mask + 1 && queue.getLongAcquire((int)((head + words - 1) & mask) * SLOT_LENGTH) == EMPTY_SLOT;
    }

    /**
     * @return slots published so far.
     */
    public long head()
    {
        return head;
    }
}
