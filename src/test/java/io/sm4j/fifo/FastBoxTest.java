package io.sm4j.fifo;

import io.sm4j.layout.FastBoxDescriptor;
import io.sm4j.layout.FragmentDescriptor;
import io.sm4j.layout.LayoutParams;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fast box's two ends over one ring in off-heap memory, driven by one thread: inline and reference records
 * in order across many laps (padding at the ring's end), a full ring that frees up as the reader consumes,
 * and the consumed position the reader publishes.
 */
class FastBoxTest
{
    private static final int RING = 1024;

    private final UnsafeBuffer ring = new UnsafeBuffer(BufferUtil.allocateDirectAligned(RING, 64));
    private final UnsafeBuffer consumed = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
    private final FastBoxProducer producer = new FastBoxProducer(ring, consumed);
    private final FastBoxConsumer consumer = new FastBoxConsumer(ring, consumed);

    @Test
    void recordsShouldArriveInOrderOverManyLaps()
    {
        final List<Long> sent = new ArrayList<>();
        final List<Long> received = new ArrayList<>();
        for (long i = 0; i < 10_000; i++)
        {
            final int payload = (int)(i % 13) * 8; // record lengths that do not divide the ring: padding
            if (i % 5 == 4)
            {
                final int index = producer.claim(FastBoxDescriptor.REFERENCE_LENGTH);
                assertTrue(index >= 0);
                producer.commitReference(index, 4096 * (i + 1));
            }
            else
            {
                final int index = producer.claim(FastBoxDescriptor.inlineRecordLength(Math.max(payload, 8)));
                assertTrue(index >= 0);
                ring.putLong(index + FragmentDescriptor.HEADER_LENGTH, i);
                producer.commitInline(index, Math.max(payload, 8));
            }
            sent.add(i);
            received.add(readOne());
        }
        assertEquals(sent, received);
        assertEquals(0, consumer.peek(), "nothing more committed");
    }

    /**
     * A look behind the next record walks the committed records in order, padding skipped, consumes nothing,
     * and ends where nothing is committed yet; a claim that keeps a reserve leaves that room to claims that
     * keep less.
     */
    @Test
    void aLookAheadShouldWalkCommittedRecordsAndAReserveShouldStayFree()
    {
        final int record = FastBoxDescriptor.inlineRecordLength(200); // 208 bytes: four, then padding to the end
        for (long i = 0; i < 6; i++)
        {
            final int index = producer.claim(record);
            assertTrue(index >= 0, "record " + i);
            ring.putLong(index + FragmentDescriptor.HEADER_LENGTH, i);
            producer.commitInline(index, 200);
            if (i < 2)
            {
                assertEquals(i, readOne(), "the first two are consumed");
            }
        }
        consumer.startLookahead();
        final List<Long> seen = new ArrayList<>();
        int code;
        while ((code = consumer.peekAhead()) != 0)
        {
            seen.add(ring.getLong(consumer.aheadIndex() + FragmentDescriptor.HEADER_LENGTH));
            consumer.skipAhead(FastBoxDescriptor.inlineRecordLength(FastBoxDescriptor.inlinePayload(code)));
        }
        assertEquals(List.of(2L, 3L, 4L, 5L), seen, "across the padding at the ring's end");
        consumer.startLookahead();
        assertEquals(0, consumer.peekAhead(), "the consumer has not moved: the look goes on where it stopped");
        assertEquals(2L, readOne(), "the look consumed nothing");
        consumer.startLookahead();
        assertTrue(consumer.peekAhead() != 0, "the consumer moved: the look starts again at its next record");
        assertEquals(3L, ring.getLong(consumer.aheadIndex() + FragmentDescriptor.HEADER_LENGTH));
        consumer.publishConsumed();
        // records 3-5 and the padding (816 bytes) stand in the 1,024-byte ring: 208 more fit, not with 208 kept free
        assertEquals(-1, producer.claim(record, record));
        assertTrue(producer.claim(record, 0) >= 0);
    }

    @Test
    void aFullRingShouldRefuseAClaimUntilTheReaderConsumes()
    {
        final int record = FastBoxDescriptor.inlineRecordLength(64);
        int written = 0;
        int index;
        while ((index = producer.claim(record)) >= 0)
        {
            ring.putLong(index + FragmentDescriptor.HEADER_LENGTH, written++);
            producer.commitInline(index, 64);
        }
        assertEquals(RING / record, written, "whole records in one lap");
        assertEquals(0, consumed.getLong(FastBoxDescriptor.CONSUMED_OFFSET));
        for (int i = 0; i < written; i++)
        {
            assertEquals(i, readOne());
        }
        assertEquals(0, consumer.peek());
        assertEquals(written * (long)record, consumed.getLong(FastBoxDescriptor.CONSUMED_OFFSET),
            "an empty box publishes what was consumed");
        assertTrue(producer.claim(record) >= 0, "room again");
    }

    /**
     * The largest ring full of the smallest records (empty messages, 8 bytes each), twice: the second lap's reader
     * stops where the writer stopped, and no commit word of the lap before reads as a record. At 512 KiB a ring held
     * 2^16 such records, a record's 16-bit sequence came round in one lap, and the reader replayed the old lap.
     */
    @Test
    void aFullLapOfTheSmallestRecordsInTheLargestRingShouldNotBeReadTwice()
    {
        final UnsafeBuffer large = new UnsafeBuffer(BufferUtil.allocateDirectAligned(LayoutParams.MAX_FAST_BOX_SIZE, 64));
        final UnsafeBuffer position = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
        final FastBoxProducer writer = new FastBoxProducer(large, position);
        final FastBoxConsumer reader = new FastBoxConsumer(large, position);
        final int record = FastBoxDescriptor.inlineRecordLength(0);
        for (int lap = 1; lap <= 2; lap++)
        {
            int written = 0;
            int index;
            while ((index = writer.claim(record)) >= 0)
            {
                writer.commitInline(index, 0);
                written++;
            }
            assertEquals(LayoutParams.MAX_FAST_BOX_SIZE / record, written, "records in lap " + lap);
            int read = 0;
            while (reader.peek() != 0)
            {
                assertEquals(0, FastBoxDescriptor.inlinePayload(reader.peek()));
                reader.consume(record);
                assertTrue(++read <= written, "lap " + lap + ": read more records than were written");
            }
            assertEquals(written, read, "lap " + lap);
        }
    }

    /**
     * @return an inline record's first long, or a reference's fragment offset, consumed.
     */
    private long readOne()
    {
        final int code = consumer.peek();
        assertTrue(code != 0, "a record is committed");
        final int index = consumer.index();
        if (code == FastBoxDescriptor.REFERENCE)
        {
            final long fragment = ring.getLong(index + FastBoxDescriptor.REFERENCE_OFFSET);
            consumer.consume(FastBoxDescriptor.REFERENCE_LENGTH);
            return fragment / 4096 - 1;
        }
        final long value = ring.getLong(index + FragmentDescriptor.HEADER_LENGTH);
        consumer.consume(FastBoxDescriptor.inlineRecordLength(FastBoxDescriptor.inlinePayload(code)));
        return value;
    }
}
