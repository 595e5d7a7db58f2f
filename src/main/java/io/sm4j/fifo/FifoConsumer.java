package io.sm4j.fifo;

import org.agrona.concurrent.AtomicBuffer;

import static io.sm4j.layout.CbIndexDescriptor.EMPTY_SLOT;
import static io.sm4j.layout.CbIndexDescriptor.SLOT_LENGTH;

/**
 * The receiver's end of one circular buffer, after Open MPI's {@code ompi_cb_fifo_read_from_tail}.
 * <p>
 * Implementation notes: consumed slots are cleared lazily, {@code lazyFreeBatch} at a time (the sm BTL's
 * {@code cb_lazy_free_freq}; at most {@code entries - 1}), so the consumer writes the shared queue lines once per
 * batch instead of once per message. Until cleared, a consumed slot still reads non-zero to the producer, so the usable
 * capacity is {@code entries - (lazyFreeBatch - 1)} at worst; {@code lazyFreeBatch <= entries} guarantees
 * that the slot at the tail was cleared one lap ago, so a non-zero slot at the tail is always new.
 */
public final class FifoConsumer
{
    private final AtomicBuffer queue;
    private final AtomicBuffer tailWord;
    private final int mask;
    private final int lazyFreeBatch;
    private long tail;
    private long clearedUpTo;

    /**
     * @param queue         view of the queue's {@code entries} slots.
     * @param entries       slots, a power of two.
     * @param tailWord      view of the 8-byte tail.
     * @param lazyFreeBatch consumed slots cleared together, 1..entries (entries clears entries - 1: see below).
     */
    public FifoConsumer(final AtomicBuffer queue, final int entries, final AtomicBuffer tailWord, final int lazyFreeBatch)
    {
        if (lazyFreeBatch < 1 || lazyFreeBatch > entries)
        {
            throw new IllegalArgumentException("lazyFreeBatch=" + lazyFreeBatch + " (expected: 1.." + entries + ")");
        }
        this.queue = queue;
        this.tailWord = tailWord;
        this.mask = entries - 1;
        // at most entries - 1: a consumer that has caught up leaves the producer two free slots, one of which it may
        // keep for a word that must not wait (a batch of the whole queue would leave it one until the next word)
        this.lazyFreeBatch = Math.min(lazyFreeBatch, mask);
        this.tail = tailWord.getLongAcquire(0);
        this.clearedUpTo = tail;
    }

    /**
     * @return the next published word, or {@link io.sm4j.layout.CbIndexDescriptor#EMPTY_SLOT} if none.
     */
    public long poll()
    {
        final long value = peek();
        if (value != EMPTY_SLOT)
        {
            advance();
        }
        return value;
    }

    /**
     * @return the next published word without consuming it, or {@link io.sm4j.layout.CbIndexDescriptor#EMPTY_SLOT}.
     */
    public long peek()
    {
        // NOTE: acquire pairs with the producer's release publish: the fragment it names is fully written.
        return queue.getLongAcquire((int)(tail & mask) * SLOT_LENGTH);
    }

    /**
     * A look behind the next word, consuming nothing: for a receiver that leaves the next word where it is and
     * must know what stands behind it.
     *
     * @param ahead 0 for the next word ({@link #peek()}'s), 1 for the one after it, ...
     * @return that published word, or {@link io.sm4j.layout.CbIndexDescriptor#EMPTY_SLOT} if none is published
     *         there yet or it lies past the slots this consumer may read (the consumed slots not yet cleared
     *         still hold old words).
     */
    public long peekAhead(final int ahead)
    {
        if (ahead < 0 || ahead > mask - (tail - clearedUpTo))
        {
            return EMPTY_SLOT;
        }
        // NOTE: acquire, as peek: a published word's fragment is fully written.
        return queue.getLongAcquire((int)((tail + ahead) & mask) * SLOT_LENGTH);
    }

    /**
     * Consumes the word {@link #peek()} returned (non-empty).
     */
    public void advance()
    {
        tail++;
        if (tail - clearedUpTo >= lazyFreeBatch)
        {
            clearConsumed();
        }
    }

    /**
     * Clears the consumed slots now, not a batch at a time: for a receiver that leaves the next word where it is
     * (it declined it), so that the producer has every slot the words behind it do not hold.
     *
     * @return true if slots were cleared: the producer may wait for them.
     */
    public boolean clearNow()
    {
        if (clearedUpTo == tail)
        {
            return false;
        }
        clearConsumed();
        return true;
    }

    private void clearConsumed()
    {
        for (long position = clearedUpTo; position < tail; position++)
        {
            // NOTE: release pairs with the producer's acquire: the producer reuses the slot only after this.
            queue.putLongRelease((int)(position & mask) * SLOT_LENGTH, EMPTY_SLOT);
        }
        clearedUpTo = tail;
        tailWord.putLongRelease(0, tail);
    }

}
