package io.sm4j.jcstress;

import io.sm4j.fifo.EagerCredits;
import io.sm4j.layout.FragmentDescriptor;
import io.sm4j.layout.SegmentLayout;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Memory-ordering property of the eager credits: a receiver counts the eager fragments it has consumed in one
 * word per pair (a release store, after its reads of the fragment), and the sender reuses a fragment only once
 * that count, read with an acquire in {@link EagerCredits#next}, says the receiver is done with it.
 */
public final class EagerCreditStress
{
    private EagerCreditStress()
    {
    }

    /**
     * Reuse after the credit: the receiver's reads of an eager fragment happen before the sender rewrites it.
     * <p>
     * Real classes: {@link SegmentLayout} (2 peers, one eager fragment per peer) and rank 0's {@link EagerCredits}
     * over off-heap memory (the fragment's pool region and the pair's credit word). {@code FragmentAccess} needs a
     * mapped {@code Segment}, so its two steps are done here with the operations it uses: the receiver's plain reads
     * of the fragment in place, then its count released ({@code FragmentAccess.publishCredits}: {@code putLongRelease});
     * the sender's header and payload by plain stores ({@code writeHeader} and a copy).
     * <p>
     * The state writes message 1 into the pair's only fragment and counts it sent before the actors run. The
     * receiver reads it and releases its count of 1; the sender asks {@link EagerCredits#next} for a fragment and,
     * if it gets one (the same, the ring has one), writes message 2 into it. r1 = the message the receiver read (-1
     * for a mix), r2 = 1 if the sender rewrote the fragment, 0 if it had no credit yet.
     */
    @JCStressTest
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "The sender asked before the count was released; the receiver read message 1.")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "The receiver read message 1, then the sender reused the fragment.")
    @Outcome(expect = FORBIDDEN,
        desc = "The receiver saw message 2 or a mix: the fragment was rewritten before the receiver was done with it.")
    @State
    public static class ReadsHappenBeforeReuse
    {
        private static final SegmentLayout LAYOUT = TinyPools.LAYOUT;
        private static final int SENDER = TinyPools.SENDER;
        private static final int RECEIVER = 1;
        private static final int PAYLOAD = 48;

        private final TinyPools pools = new TinyPools();
        private final long regionBase = pools.regionBase;
        private final UnsafeBuffer region = pools.region;
        private final AtomicBuffer count = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
        private final EagerCredits credits = new EagerCredits(LAYOUT, SENDER, new AtomicBuffer[]{ null, count });
        private final int fragment;

        public ReadsHappenBeforeReuse()
        {
            fragment = (int)(credits.next(RECEIVER) - regionBase);
            write(fragment, 1);
            credits.sent(RECEIVER);
        }

        @Actor
        public void receiver(final II_Result r)
        {
            final long first = region.getLong(fragment + FragmentDescriptor.HEADER_LENGTH);
            final long last = region.getLong(fragment + FragmentDescriptor.HEADER_LENGTH + PAYLOAD - Long.BYTES);
            final int sender = region.getInt(fragment + FragmentDescriptor.SENDER_OFFSET);
            r.r1 = first == last && sender == SENDER ? (int)first : -1;
            count.putLongRelease(0, 1); // NOTE: as FragmentAccess publishes what it consumed: after its reads
        }

        @Actor
        public void sender(final II_Result r)
        {
            final long next = credits.next(RECEIVER);
            if (next < 0)
            {
                r.r2 = 0;
                return;
            }
            write((int)(next - regionBase), 2);
            credits.sent(RECEIVER);
            r.r2 = 1;
        }

        private void write(final int index, final long value)
        {
            region.putInt(index + FragmentDescriptor.LENGTH_OFFSET, PAYLOAD);
            region.putInt(index + FragmentDescriptor.SENDER_OFFSET, SENDER);
            region.putLong(index + FragmentDescriptor.HEADER_LENGTH, value);
            region.putLong(index + FragmentDescriptor.HEADER_LENGTH + PAYLOAD - Long.BYTES, value);
        }
    }
}
