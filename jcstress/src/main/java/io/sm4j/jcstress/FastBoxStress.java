package io.sm4j.jcstress;

import io.sm4j.fifo.FastBoxConsumer;
import io.sm4j.fifo.FastBoxProducer;
import io.sm4j.fifo.FifoConsumer;
import io.sm4j.fifo.FifoProducer;
import io.sm4j.layout.CbIndexDescriptor;
import io.sm4j.layout.FastBoxDescriptor;
import io.sm4j.layout.FragmentDescriptor;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Memory-ordering properties of a fast box ({@link FastBoxProducer} / {@link FastBoxConsumer}) over
 * off-heap memory, as the segment uses it.
 */
public final class FastBoxStress
{
    /** A record of 16 bytes: commit word 9 (an inline record of 8 payload bytes), the value at 8. */
    private static final int RECORD = 16;
    private static final int COMMIT = 9;

    private FastBoxStress()
    {
    }

    /**
     * A fast box's two sides over one piece of off-heap memory, as the segment lays them out: the ring at 0, the
     * consumed position at 128; the rest of the 256 bytes for a test's fragment.
     */
    abstract static class TwoSidedBox
    {
        final UnsafeBuffer memory = new UnsafeBuffer(BufferUtil.allocateDirectAligned(256, 64));
        final FastBoxProducer producer;
        final FastBoxConsumer consumer;

        TwoSidedBox(final int ring)
        {
            producer = new FastBoxProducer(new UnsafeBuffer(memory, 0, ring), new UnsafeBuffer(memory, 128, 8));
            consumer = new FastBoxConsumer(new UnsafeBuffer(memory, 0, ring), new UnsafeBuffer(memory, 128, 8));
        }
    }

    /**
     * Publication: a receiver that sees a record's commit word (its code, the inline length + 1, with its
     * sequence) also sees what was written before it: the sender word, which {@code FragmentPoller.drainBox} checks,
     * and the payload. r1 = the code (0 if none yet), r2 = the payload, -2 if the sender word was stale.
     */
    @JCStressTest
    @Outcome(id = "0, -1", expect = ACCEPTABLE, desc = "Receiver looked before the commit.")
    @Outcome(id = "9, 42", expect = ACCEPTABLE, desc = "Receiver saw the commit word and the record.")
    @Outcome(expect = FORBIDDEN, desc = "Commit word seen without the record's sender word or payload.")
    @State
    public static class RecordVisibleWithCommitWord extends TwoSidedBox
    {
        public RecordVisibleWithCommitWord()
        {
            super(64);
        }


        @Actor
        public void sender()
        {
            final int index = producer.claim(RECORD);
            producer.ring().putInt(index + FragmentDescriptor.SENDER_OFFSET, 5);
            producer.ring().putLong(index + 8, 42);
            producer.commitInline(index, COMMIT - 1);
        }

        @Actor
        public void receiver(final JJ_Result r)
        {
            final int word = consumer.peek();
            r.r1 = word;
            if (word == 0)
            {
                r.r2 = -1;
                return;
            }
            final int index = consumer.index();
            r.r2 = consumer.ring().getInt(index + FragmentDescriptor.SENDER_OFFSET) == 5 ?
                consumer.ring().getLong(index + 8) : -2;
        }
    }

    /**
     * A look behind the next record ({@link FastBoxConsumer#startLookahead}, as {@code FragmentPoller.boxAhead}
     * walks behind a declined message) sees committed records only, in order, each with what was written before
     * its commit word, also where the ring's earlier lap left commit words of older records: three records of a
     * 64-byte ring are written and consumed first, then the sender commits two more, 42 at the ring's end and 43
     * at its start (over an old record's commit word, which it clears before its commit of 42); the look reads the
     * first if committed, moves past it, then reads the second if committed. r1, r2 = the values seen, -1 where no
     * record was committed yet.
     */
    @JCStressTest
    @Outcome(id = "-1, -1", expect = ACCEPTABLE, desc = "Looked before the first commit.")
    @Outcome(id = "42, -1", expect = ACCEPTABLE, desc = "Saw the first record, not yet the second.")
    @Outcome(id = "42, 43", expect = ACCEPTABLE, desc = "Saw both records.")
    @Outcome(expect = FORBIDDEN, desc = "A record seen out of order, or without what was written before its commit.")
    @State
    public static class LookaheadSeesCommittedRecordsInOrder extends TwoSidedBox
    {

        public LookaheadSeesCommittedRecordsInOrder()
        {
            super(64);
            for (long value = 1; value <= 3; value++) // an earlier lap: old commit words at 0, 16 and 32
            {
                final int index = producer.claim(RECORD);
                producer.ring().putLong(index + 8, value);
                producer.commitInline(index, COMMIT - 1);
                consumer.peek();
                consumer.consume(RECORD);
            }
            consumer.publishConsumed();
        }

        @Actor
        public void sender()
        {
            for (long value = 42; value <= 43; value++)
            {
                final int index = producer.claim(RECORD);
                producer.ring().putLong(index + 8, value);
                producer.commitInline(index, COMMIT - 1);
            }
        }

        @Actor
        public void receiver(final JJ_Result r)
        {
            consumer.startLookahead();
            r.r1 = look();
            r.r2 = r.r1 == -1 ? -1 : look();
        }

        private long look()
        {
            final int code = consumer.peekAhead();
            if (code == 0)
            {
                return -1;
            }
            final long value = consumer.ring().getLong(consumer.aheadIndex() + 8);
            consumer.skipAhead(FastBoxDescriptor.inlineRecordLength(FastBoxDescriptor.inlinePayload(code)));
            return code == COMMIT ? value : -2;
        }
    }

    /**
     * Publication of a reference record: a receiver that sees a reference record's commit word also sees the
     * fragment offset in the record and the fragment it names, header and payload, all written with plain
     * stores before {@link FastBoxProducer#commitReference}. The receiver reads them as {@code FragmentPoller.drainBox}
     * and {@code FragmentAccess.wrapReceived} do: the offset at {@link FastBoxDescriptor#REFERENCE_OFFSET}, then
     * the fragment's length and sender words, then the payload in place (plain loads after the acquire of the
     * commit word). r1 = the record's code (0 if none yet), r2 = the payload, -1 if not looked at or if the
     * offset or the header is not what was written.
     */
    @JCStressTest
    @Outcome(id = "0, -1", expect = ACCEPTABLE, desc = "Receiver looked before the commit.")
    @Outcome(id = "65535, 42", expect = ACCEPTABLE, desc = "Receiver saw the reference, the fragment's header and payload.")
    @Outcome(expect = FORBIDDEN, desc = "Reference seen without its offset, or without the fragment's header or payload.")
    @State
    public static class ReferencedFragmentVisibleWithCommitWord extends TwoSidedBox
    {
        private static final int FRAGMENT = 192;
        private static final int LENGTH = 8;
        private static final int SENDER = 3;
        public ReferencedFragmentVisibleWithCommitWord()
        {
            super(64);
        }


        @Actor
        public void sender()
        {
            memory.putInt(FRAGMENT + FragmentDescriptor.LENGTH_OFFSET, LENGTH);
            memory.putInt(FRAGMENT + FragmentDescriptor.SENDER_OFFSET, SENDER);
            memory.putLong(FRAGMENT + FragmentDescriptor.HEADER_LENGTH, 42);
            final int index = producer.claim(FastBoxDescriptor.REFERENCE_LENGTH);
            producer.commitReference(index, FRAGMENT);
        }

        @Actor
        public void receiver(final JJ_Result r)
        {
            final int code = consumer.peek();
            r.r1 = code;
            r.r2 = -1;
            if (code == FastBoxDescriptor.REFERENCE)
            {
                final long fragment = consumer.ring().getLong(consumer.index() + FastBoxDescriptor.REFERENCE_OFFSET);
                final int index = (int)fragment;
                if (fragment == FRAGMENT && memory.getInt(index + FragmentDescriptor.LENGTH_OFFSET) == LENGTH &&
                    memory.getInt(index + FragmentDescriptor.SENDER_OFFSET) == SENDER)
                {
                    r.r2 = memory.getLong(index + FragmentDescriptor.HEADER_LENGTH);
                }
            }
        }
    }

    /**
     * Reuse across wrap-around: a 32-byte ring holds two 16-byte records; the sender tries records 1, 2, 3
     * once each (stopping at the first refusal) while the receiver polls three times; the arbiter drains the
     * rest. r1 = records the receiver saw, r2 = records accepted; -1 in both if a record was seen twice, out of
     * order, with stale contents, or lost. The third record can only be accepted after the receiver zeroed
     * the first and published its position.
     */
    @JCStressTest
    @Outcome(id = { "0, 2", "1, 2", "2, 2", "1, 3", "2, 3" }, expect = ACCEPTABLE,
        desc = "Receiver saw an in-order prefix of the accepted records; the rest were drained later.")
    @Outcome(id = "3, 3", expect = ACCEPTABLE_INTERESTING,
        desc = "The first record was consumed in time for the third, and the receiver saw all three.")
    @Outcome(expect = FORBIDDEN, desc = "Duplicate, reordered, stale or lost record, or a record written over an unconsumed one.")
    @State
    public static class OrderAcrossWrapAround extends TwoSidedBox
    {
        public OrderAcrossWrapAround()
        {
            super(32);
        }

        private int accepted;
        private int seen;
        private long expected = 1;
        private boolean bad;

        @Actor
        public void sender()
        {
            for (long value = 1; value <= 3; value++)
            {
                final int index = producer.claim(RECORD);
                if (index < 0)
                {
                    return;
                }
                producer.ring().putLong(index + 8, value);
                producer.commitInline(index, COMMIT - 1);
                accepted++;
            }
        }

        @Actor
        public void receiver()
        {
            for (int i = 0; i < 3; i++)
            {
                poll();
            }
            seen = (int)(expected - 1);
        }

        @Arbiter
        public void arbiter(final II_Result r)
        {
            while (consumer.peek() != 0)
            {
                poll();
            }
            final boolean complete = expected - 1 == accepted;
            r.r1 = bad || !complete ? -1 : seen;
            r.r2 = bad || !complete ? -1 : accepted;
        }

        private void poll()
        {
            final int word = consumer.peek();
            if (word == 0)
            {
                return;
            }
            if (word != COMMIT || consumer.ring().getLong(consumer.index() + 8) != expected)
            {
                bad = true;
            }
            expected++;
            consumer.consume(RECORD);
        }
    }

    /**
     * An old payload is never read as a record: in a 64-byte ring, record A (48 bytes) carries at its offset 16
     * a forged commit word with the sequence the receiver will expect there in the next lap; record B fills
     * the lap, record C (16 bytes) starts the next one, and the next record would start at 16. The sender
     * clears that spot before committing C, so the receiver finds nothing after C. r1 = records the receiver
     * and the arbiter saw in all, r2 = records accepted; -1 if anything but A, B, C in order was seen.
     */
    @JCStressTest
    @Outcome(id = { "2, 2", "3, 3" }, expect = ACCEPTABLE,
        desc = "Every accepted record seen once, in order (C refused while the receiver had not consumed A).")
    @Outcome(expect = FORBIDDEN, desc = "A forged word inside an old payload was read as a record, or a record was lost.")
    @State
    public static class OldPayloadNeverReadAsARecord extends TwoSidedBox
    {
        private static final int LONG_CODE = 33; // an inline record of 32 payload bytes: 48 bytes with its header
        public OldPayloadNeverReadAsARecord()
        {
            super(64);
        }

        private int accepted;
        private int seen;
        private boolean bad;

        @Actor
        public void sender()
        {
            final int a = producer.claim(48);
            producer.ring().putInt(a + 16, FastBoxDescriptor.commitWord(3, COMMIT)); // what C's successor would be
            producer.commitInline(a, LONG_CODE - 1);
            final int b = producer.claim(RECORD);
            producer.commitInline(b, COMMIT - 1);
            accepted = 2;
            final int c = producer.claim(RECORD);
            if (c >= 0)
            {
                producer.commitInline(c, COMMIT - 1);
                accepted = 3;
            }
        }

        @Actor
        public void receiver()
        {
            for (int i = 0; i < 4; i++)
            {
                poll();
            }
        }

        @Arbiter
        public void arbiter(final II_Result r)
        {
            for (int i = 0; i < 4; i++)
            {
                poll();
            }
            r.r1 = bad || seen != accepted ? -1 : seen;
            r.r2 = bad || seen != accepted ? -1 : accepted;
        }

        private void poll()
        {
            final int code = consumer.peek();
            if (code == 0)
            {
                return;
            }
            if (code != (seen == 0 ? LONG_CODE : COMMIT) || seen >= 3)
            {
                bad = true;
            }
            consumer.consume(seen == 0 ? 48 : RECORD);
            seen++;
        }
    }

    /**
     * A fast box's ownership before its announcement: the sender takes a free box by a CAS of its owner word (a full
     * fence), then announces it through the pair's FIFO (a release publish); the receiver polls the announcement
     * (acquire) and only then reads the owner word, which must name the sender ({@code Publication.route},
     * {@code FragmentPoller.openBox}). Real classes: {@link FifoProducer} / {@link FifoConsumer} over off-heap
     * memory; the owner word and the announcement word as those two build them. r1 = 1 if the receiver polled the
     * announcement, r2 = the owner it then read (0 if it polled nothing).
     */
    @JCStressTest
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "The receiver polled before the announcement.")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "The announcement, and the box owned by the sender (rank 0, stored as 1).")
    @Outcome(expect = FORBIDDEN, desc = "The announcement without the owner: the receiver would refuse a valid box as corrupt.")
    @State
    public static class OwnerVisibleWithAnnouncement
    {
        private final UnsafeBuffer memory = new UnsafeBuffer(BufferUtil.allocateDirectAligned(512, 64));
        private final UnsafeBuffer owners = new UnsafeBuffer(memory, 256, 8);
        private final FifoProducer producer =
            new FifoProducer(new UnsafeBuffer(memory, 0, 16), 2, new UnsafeBuffer(memory, 64, 8));
        private final FifoConsumer consumer =
            new FifoConsumer(new UnsafeBuffer(memory, 0, 16), 2, new UnsafeBuffer(memory, 128, 8), 1);

        @Actor
        public void sender()
        {
            if (owners.getIntVolatile(0) == FastBoxDescriptor.FREE && owners.compareAndSetInt(0, FastBoxDescriptor.FREE, 1))
            {
                producer.offer((0L << CbIndexDescriptor.FAST_BOX_SHIFT) | CbIndexDescriptor.FAST_BOX_FLAG);
            }
        }

        @Actor
        public void receiver(final II_Result r)
        {
            final long word = consumer.poll();
            if (word == CbIndexDescriptor.EMPTY_SLOT)
            {
                return; // 0, 0
            }
            r.r1 = (word & CbIndexDescriptor.FAST_BOX_FLAG) != 0 ? 1 : -1;
            r.r2 = owners.getIntVolatile(0); // NOTE: as openBox reads it, after the acquire of the announcement
        }
    }
}
