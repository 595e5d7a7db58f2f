package io.sm4j.transport;

import io.sm4j.fragment.FragmentPool;
import io.sm4j.layout.FragmentDescriptor;
import io.sm4j.layout.SegmentLayout;
import io.sm4j.segment.Segment;
import io.sm4j.segment.Sm4jException;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The job's fragments as one rank sees them: its own pool (free lists under the pool lock, fragments it
 * fills), and every sender's pool region, from which it reads what it receives. Every offset read from
 * shared memory is untrusted: one that names no fragment of its sender, a length beyond the fragment, or a
 * return of a fragment that is not outstanding aborts the job as corrupt data instead of reading outside
 * the segment.
 */
final class FragmentAccess
{
    private final Segment segment;
    private final SegmentLayout layout;
    private final int rank;
    private final FragmentPool pool;
    private final OptionalLock poolLock;
    private final UnsafeBuffer[] regions;
    private final long[] regionBase;

    FragmentAccess(final Segment segment, final int rank, final boolean multiple)
    {
        this.segment = segment;
        this.layout = segment.layout();
        this.rank = rank;
        this.pool = new FragmentPool(layout, rank);
        this.poolLock = OptionalLock.create(multiple);
        final int size = layout.params().peers();
        regions = new UnsafeBuffer[size];
        regionBase = new long[size];
        for (int peer = 0; peer < size; peer++)
        {
            regionBase[peer] = layout.poolRegionOffset(peer);
            regions[peer] = segment.view(regionBase[peer], (int)layout.poolRegionLength());
        }
    }

    /**
     * @return a free fragment of this rank (max-size or eager), or -1 if the pool has none.
     */
    long acquire(final boolean max)
    {
        poolLock.lock();
        try
        {
            return max ? pool.acquireMax() : pool.acquireEager();
        }
        finally
        {
            poolLock.unlock();
        }
    }

    /**
     * Fills an acquired fragment: header, then payload (plain stores; the FIFO publish that follows is
     * the release that makes them visible).
     */
    void write(
        final long fragment, final int type, final int tag, final long sequence, final long aux,
        final DirectBuffer payload, final int offset, final int length)
    {
        final UnsafeBuffer buffer = regions[rank];
        final int index = (int)(fragment - regionBase[rank]);
        buffer.putInt(index + FragmentDescriptor.LENGTH_OFFSET, length);
        buffer.putInt(index + FragmentDescriptor.SENDER_OFFSET, rank);
        buffer.putInt(index + FragmentDescriptor.TYPE_OFFSET, type);
        buffer.putInt(index + FragmentDescriptor.TAG_OFFSET, tag);
        buffer.putLong(index + FragmentDescriptor.SEQUENCE_OFFSET, sequence);
        buffer.putLong(index + FragmentDescriptor.AUX_OFFSET, aux);
        buffer.putBytes(index + FragmentDescriptor.HEADER_LENGTH, payload, offset, length);
    }

    /**
     * Takes back a fragment of this rank that {@code source} has consumed.
     */
    void takeBack(final int source, final long fragment)
    {
        final boolean released;
        poolLock.lock();
        try
        {
            released = pool.release(fragment);
        }
        finally
        {
            poolLock.unlock();
        }
        if (!released)
        {
            throw corrupt(source, "returned offset " + fragment + " is not an outstanding fragment of rank " + rank);
        }
    }

    /**
     * Points {@code view} at the fragment {@code source} published, after checking it is one of the
     * sender's fragments with a sane header.
     */
    FragmentView wrapReceived(final FragmentView view, final int source, final long fragment)
    {
        final int capacity = layout.fragmentCapacity(fragment);
        if (layout.fragmentOwner(fragment) != source || capacity < 0)
        {
            throw corrupt(source, "offset " + fragment + " is not a fragment of rank " + source);
        }
        final UnsafeBuffer buffer = regions[source];
        final int index = (int)(fragment - regionBase[source]);
        final int length = buffer.getInt(index + FragmentDescriptor.LENGTH_OFFSET);
        if (length < 0 || length > capacity - FragmentDescriptor.HEADER_LENGTH ||
            buffer.getInt(index + FragmentDescriptor.SENDER_OFFSET) != source)
        {
            throw corrupt(source, "fragment at " + fragment + " has length " + length + " (capacity " + capacity + ")");
        }
        return view.wrap(buffer, index, length);
    }

    private Sm4jException corrupt(final int source, final String what)
    {
        final String reason = "corrupt data from rank " + source + " at rank " + rank + ": " + what;
        segment.abort(rank, reason);
        return new Sm4jException(reason);
    }
}
