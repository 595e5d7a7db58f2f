package io.sm4j.fifo;

import io.sm4j.layout.CbIndexDescriptor;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The FIFO's two ends over one queue in off-heap memory, driven by one thread: order, full and empty, the
 * lazy clearing of consumed slots, and a restart from the published head and tail.
 */
class FifoTest
{
    private static final int ENTRIES = 8;

    private final UnsafeBuffer queue = new UnsafeBuffer(BufferUtil.allocateDirectAligned(ENTRIES * CbIndexDescriptor.SLOT_LENGTH, 64));
    private final UnsafeBuffer head = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
    private final UnsafeBuffer tail = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));

    @Test
    void wordsShouldArriveInOrderUntilTheQueueIsFullThenEmpty()
    {
        final FifoProducer producer = new FifoProducer(queue, ENTRIES, head);
        final FifoConsumer consumer = new FifoConsumer(queue, ENTRIES, tail, 1);
        assertEquals(CbIndexDescriptor.EMPTY_SLOT, consumer.poll());
        for (long word = 1; word <= ENTRIES; word++)
        {
            assertTrue(producer.offer(word << 3), "word " + word);
        }
        assertFalse(producer.offer(99 << 3), "every slot holds a word");
        assertEquals(ENTRIES, head.getLong(0), "the head word is the producer's position");
        for (long word = 1; word <= ENTRIES; word++)
        {
            assertEquals(word << 3, consumer.peek());
            assertEquals(word << 3, consumer.poll());
        }
        assertEquals(CbIndexDescriptor.EMPTY_SLOT, consumer.poll());
        assertEquals(ENTRIES, tail.getLong(0), "the tail word is the consumer's position");
        assertTrue(producer.offer(9 << 3), "a consumed slot is free again");
        assertEquals(9 << 3, consumer.poll());
    }

    /**
     * A look behind the next word sees the published words in order, consumes nothing, and stops before the
     * consumed slots not yet cleared, which still hold old words; a receiver that leaves the next word clears them
     * at once.
     */
    @Test
    void aLookAheadShouldSeePublishedWordsOnly()
    {
        final FifoProducer producer = new FifoProducer(queue, ENTRIES, head);
        final FifoConsumer consumer = new FifoConsumer(queue, ENTRIES, tail, 4);
        for (long word = 1; word <= 6; word++)
        {
            assertTrue(producer.offer(word << 3));
        }
        assertEquals(3 << 3, consumer.peekAhead(2));
        assertEquals(CbIndexDescriptor.EMPTY_SLOT, consumer.peekAhead(6), "not published yet");
        assertEquals(1 << 3, consumer.poll(), "the look consumed nothing");
        assertEquals(2 << 3, consumer.poll());
        assertEquals(3 << 3, consumer.poll());
        assertTrue(producer.offer(7 << 3) && producer.offer(8 << 3));
        // slots of words 1-3 are consumed but not cleared (a batch is 4): a look reaches words 4-8 only
        assertEquals(8 << 3, consumer.peekAhead(4));
        assertEquals(CbIndexDescriptor.EMPTY_SLOT, consumer.peekAhead(5), "word 1's old slot");
        assertEquals(CbIndexDescriptor.EMPTY_SLOT, consumer.peekAhead(-1));
        consumer.clearNow(); // a receiver that leaves word 4 where it is clears what it consumed at once
        assertEquals(3, tail.getLong(0), "the consumed slots are free to the producer");
        assertTrue(producer.offer(9 << 3) && producer.offer(10 << 3) && producer.offer(11 << 3), "three slots");
        assertEquals(11 << 3, consumer.peekAhead(7));
    }

    /**
     * A producer can keep a slot free (for a word that must not wait): a batch is at most the queue less one slot,
     * so a consumer that has caught up always leaves the producer two free slots, whatever batch it was given.
     */
    @Test
    void aConsumerThatCaughtUpShouldLeaveTheProducerTwoSlots()
    {
        final FifoProducer producer = new FifoProducer(queue, ENTRIES, head);
        final FifoConsumer consumer = new FifoConsumer(queue, ENTRIES, tail, ENTRIES);
        assertTrue(producer.hasRoom(ENTRIES) && !producer.hasRoom(ENTRIES + 1));
        for (long word = 1; word <= 3 * ENTRIES; word++)
        {
            assertTrue(producer.hasRoom(2), "word " + word);
            assertTrue(producer.offer(word << 3));
            assertEquals(word << 3, consumer.poll());
        }
        assertEquals(3 * ENTRIES - 3 * ENTRIES % (ENTRIES - 1), tail.getLong(0), "cleared " + (ENTRIES - 1) + " at a time");
    }

    @Test
    void consumedSlotsShouldBeFreedOnlyAFullBatchAtATime()
    {
        final int batch = 4;
        final FifoProducer producer = new FifoProducer(queue, ENTRIES, head);
        final FifoConsumer consumer = new FifoConsumer(queue, ENTRIES, tail, batch);
        for (long word = 1; word <= ENTRIES; word++)
        {
            producer.offer(word);
        }
        for (int i = 0; i < batch - 1; i++)
        {
            consumer.poll();
        }
        assertFalse(producer.offer(100), "three consumed slots are not cleared yet");
        assertEquals(0, tail.getLong(0));
        consumer.poll();
        assertEquals(batch, tail.getLong(0));
        for (int i = 0; i < batch; i++)
        {
            assertTrue(producer.offer(100 + i), "the batch's slots are free");
        }
        assertFalse(producer.offer(200));
    }

    @Test
    void bothEndsShouldResumeFromTheirPublishedPositions()
    {
        final FifoProducer producer = new FifoProducer(queue, ENTRIES, head);
        final FifoConsumer consumer = new FifoConsumer(queue, ENTRIES, tail, 1);
        producer.offer(1);
        producer.offer(2);
        consumer.poll();
        final FifoProducer again = new FifoProducer(queue, ENTRIES, head);
        final FifoConsumer againConsumer = new FifoConsumer(queue, ENTRIES, tail, 1);
        assertEquals(2, again.head());
        assertTrue(again.offer(3));
        assertEquals(2, againConsumer.poll());
        assertEquals(3, againConsumer.poll());
    }

    @Test
    void aBatchLargerThanTheQueueShouldBeRefused()
    {
        assertEquals("lazyFreeBatch=9 (expected: 1..8)",
            assertThrows(IllegalArgumentException.class, () -> new FifoConsumer(queue, ENTRIES, tail, 9)).getMessage());
    }
}
