package io.sm4j.segment;

import io.sm4j.layout.CbIndexDescriptor;
import io.sm4j.layout.CbWrapperDescriptor;
import io.sm4j.layout.CollectiveSlotDescriptor;
import io.sm4j.layout.ControlBlockDescriptor;
import io.sm4j.layout.CountersDescriptor;
import io.sm4j.layout.DoorbellDescriptor;
import io.sm4j.layout.FastBoxDescriptor;
import io.sm4j.layout.SegmentLayout;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Typed views of a mapped segment: each method returns exactly one component of the layout
 * ({@link SegmentLayout}), sized by its descriptor, so that no caller computes an offset or a length into
 * the raw mapping. Every view is bounds-checked by Agrona: an index outside the component throws instead of
 * reading a neighbour.
 */
public final class SegmentViews
{
    private final Segment segment;

    SegmentViews(final Segment segment)
    {
        this.segment = segment;
    }

    private SegmentLayout layout()
    {
        return segment.layout();
    }

    /** @return the queue of CB {@code sender -> receiver}: its entries' words. */
    public UnsafeBuffer queue(final int sender, final int receiver)
    {
        return segment.view(layout().queueOffset(sender, receiver), (int)layout().queueLength());
    }

    /** @return the head index of CB {@code sender -> receiver}, written by the receiver. */
    public UnsafeBuffer head(final int sender, final int receiver)
    {
        return segment.view(layout().headOffset(sender, receiver), CbIndexDescriptor.HEAD_LENGTH);
    }

    /** @return the tail index of CB {@code sender -> receiver}, written by the sender. */
    public UnsafeBuffer tail(final int sender, final int receiver)
    {
        return segment.view(layout().tailOffset(sender, receiver), CbIndexDescriptor.TAIL_LENGTH);
    }

    /** @return the CB wrapper of {@code sender -> receiver} ({@link CbWrapperDescriptor}). */
    public UnsafeBuffer wrapper(final int sender, final int receiver)
    {
        return segment.view(layout().wrapperOffset(sender, receiver), CbWrapperDescriptor.LENGTH);
    }

    /** @return the activity bitmap of {@code rank}'s control block: one bit per sender with news for it. */
    public UnsafeBuffer activity(final int rank)
    {
        return segment.view(layout().activityOffset(rank), ControlBlockDescriptor.activityLength(layout().params().peers()));
    }

    /** @return the doorbell word of {@code rank} ({@link DoorbellDescriptor}). */
    public UnsafeBuffer bell(final int rank)
    {
        return segment.view(layout().bellOffset(rank), DoorbellDescriptor.LENGTH);
    }

    /** @return the counters of {@code rank} ({@link CountersDescriptor}). */
    public UnsafeBuffer counters(final int rank)
    {
        return segment.view(layout().countersOffset(rank), CountersDescriptor.LENGTH);
    }

    /** @return the eager credit word of the pair {@code sender -> receiver}. */
    public UnsafeBuffer credit(final int sender, final int receiver)
    {
        return segment.view(layout().creditOffset(sender, receiver), Long.BYTES);
    }

    /** @return the owner words of every fast box of {@code receiver} ({@link FastBoxDescriptor#OWNER_LENGTH} each). */
    public UnsafeBuffer fastBoxOwners(final int receiver)
    {
        return segment.view(layout().fastBoxOwnerOffset(receiver, 0), layout().fastBoxCount() * FastBoxDescriptor.OWNER_LENGTH);
    }

    /** @return the ring of fast box {@code box} of {@code receiver}. */
    public UnsafeBuffer fastBoxRing(final int receiver, final int box)
    {
        return segment.view(layout().fastBoxRingOffset(receiver, box), layout().params().fastBoxSize());
    }

    /** @return the consumed position of fast box {@code box} of {@code receiver}, written by the receiver. */
    public UnsafeBuffer fastBoxPosition(final int receiver, final int box)
    {
        return segment.view(layout().fastBoxOffset(receiver, box), Long.BYTES);
    }

    /** @return the fragment pool of {@code owner}: its eager fragments, then its max-size fragments. */
    public UnsafeBuffer pool(final int owner)
    {
        return segment.view(layout().poolRegionOffset(owner), (int)layout().poolRegionLength());
    }

    /** @return the slot of {@code rank} in the collective region of communicator context {@code context}. */
    public UnsafeBuffer collectiveSlot(final int rank, final int context)
    {
        return segment.view(layout().collectiveSlotOffset(rank, context), (int)CollectiveSlotDescriptor.stride(
            layout().params().cacheline(), layout().params().collectiveBufferSize()));
    }
}
