package io.sm4j.transport;

import io.sm4j.fifo.FastBoxProducer;
import io.sm4j.layout.CbIndexDescriptor;
import io.sm4j.layout.FastBoxDescriptor;
import io.sm4j.layout.FragmentDescriptor;
import io.sm4j.layout.SegmentLayout;
import io.sm4j.segment.Segment;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The fast boxes this rank sends by. After {@link #THRESHOLD} sends to a receiver it tries, once, to claim
 * one of that receiver's boxes (a CAS of the box's owner word, first come first served, as vader assigns
 * its fast boxes); if it gets one, it announces it through the FIFO and from then on sends everything to
 * that receiver through the box, so the pair stays ordered. Disabled in MULTIPLE thread mode, where several
 * threads would write one ring.
 */
final class FastBoxAssignment
{
    /** Messages to a receiver before this rank claims a fast box for it (Open MPI vader's default is 16). */
    static final int THRESHOLD = 16;

    private final Segment segment;
    private final SegmentLayout layout;
    private final int rank;
    private final boolean enabled;
    private final int inlinePayload;
    private final FastBoxProducer[] producers;
    private final int[] sends;

    FastBoxAssignment(final Segment segment, final int rank, final boolean multiple)
    {
        this.segment = segment;
        this.layout = segment.layout();
        this.rank = rank;
        this.enabled = !multiple && layout.fastBoxCount() > 0;
        final int size = layout.params().peers();
        producers = new FastBoxProducer[size];
        sends = new int[size];
        // a record takes at most an eighth of the ring, so several are in flight at once
        inlinePayload = Math.min(layout.params().eagerLimit(), layout.params().fastBoxSize() / 8) -
            FragmentDescriptor.HEADER_LENGTH;
    }

    /**
     * @return the largest payload that travels inside a record; larger ones travel as references.
     */
    int inlinePayload()
    {
        return inlinePayload;
    }

    /**
     * @return the box to send to {@code dest} by, or null to use the FIFO; claims and announces one at the
     * threshold. The caller holds dest's lock.
     */
    FastBoxProducer route(final int dest, final OutboundQueues outbound)
    {
        final FastBoxProducer producer = producers[dest];
        if (producer != null || !enabled || sends[dest] > THRESHOLD)
        {
            return producer; // a box, or the one try at the threshold found none
        }
        if (++sends[dest] <= THRESHOLD)
        {
            return null;
        }
        final int boxes = layout.fastBoxCount();
        final UnsafeBuffer owners = segment.views().fastBoxOwners(dest);
        for (int box = 0; box < boxes; box++)
        {
            final int owner = box * FastBoxDescriptor.OWNER_LENGTH;
            // NOTE: the CAS (a full fence) makes the ownership visible before the announcement below, which
            // the receiver reads with acquire before it checks the owner.
            if (owners.getIntVolatile(owner) == FastBoxDescriptor.FREE &&
                owners.compareAndSetInt(owner, FastBoxDescriptor.FREE, rank + 1))
            {
                outbound.enqueue(dest, ((long)box << CbIndexDescriptor.FAST_BOX_SHIFT) | CbIndexDescriptor.FAST_BOX_FLAG);
                producers[dest] = new FastBoxProducer(segment.views().fastBoxRing(dest, box), segment.views().fastBoxPosition(dest, box));
                return producers[dest];
            }
        }
        return null; // every box of dest is taken: this pair keeps the FIFO
    }
}
