package io.sm4j.transport;

import io.sm4j.fifo.EagerCredits;
import io.sm4j.fifo.FragmentPool;
import io.sm4j.layout.FragmentDescriptor;
import io.sm4j.layout.SegmentLayout;
import io.sm4j.segment.Segment;
import io.sm4j.segment.Sm4jException;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The job's fragments as one rank sees them. As a sender: its eager fragments, one ring per receiver paid
 * for with credits ({@link EagerCredits}), and its max-size pool (under the pool lock). As a receiver: every
 * sender's fragments, which it reads in place, counting the eager ones it has consumed into the credit word
 * of each sender. Every offset read from shared memory is untrusted: an eager fragment other than the one
 * the pair's ring order expects, an offset that names no max-size fragment of its sender, a length beyond
 * the fragment, or a return of a fragment that is not outstanding aborts the job as corrupt data instead of
 * reading outside the segment.
 */
final class FragmentAccess
{
    private final Segment segment;
    private final Runnable ringAll;
    private final SegmentLayout layout;
    private final int rank;
    private final int perPeer;
    private final EagerCredits credits;
    private final FragmentPool maxPool;
    /** Serialises the max-size pool in MULTIPLE thread mode; null in SINGLE mode. */
    private final ReentrantLock poolLock;
    private final UnsafeBuffer[] regions;
    private final long[] regionBase;
    private final AtomicBuffer[] consumedWords;
    private final long[] consumed;
    /** Per sender: where the next eager fragment it sends to this rank must be, kept as consumed moves. */
    private final long[] nextEager;
    private final long[] eagerSliceBase;
    /** Per sender: the ring slot of {@link #nextEager}, its consumed count modulo the fragments per peer. */
    private final int[] eagerSlot;
    private final long eagerStride;
    private final long[] published;
    private final long publishEvery;

    /**
     * @param ringAll wakes every sleeping rank (after a corrupt fragment's abort, which they must see at once).
     */
    FragmentAccess(final Segment segment, final int rank, final boolean multiple, final Runnable ringAll)
    {
        this.segment = segment;
        this.ringAll = ringAll;
        this.layout = segment.layout();
        this.rank = rank;
        this.perPeer = layout.params().eagerFragsPerPeer();
        final int size = layout.params().peers();
        final AtomicBuffer[] outWords = new AtomicBuffer[size];
        consumedWords = new AtomicBuffer[size];
        regions = new UnsafeBuffer[size];
        regionBase = new long[size];
        for (int peer = 0; peer < size; peer++)
        {
            regionBase[peer] = layout.poolRegionOffset(peer);
            regions[peer] = segment.views().pool(peer);
            if (peer != rank)
            {
                outWords[peer] = segment.views().credit(rank, peer);
                consumedWords[peer] = segment.views().credit(peer, rank);
            }
        }
        credits = new EagerCredits(layout, rank, outWords);
        maxPool = new FragmentPool(layout, rank);
        poolLock = multiple ? new ReentrantLock() : null;
        consumed = new long[size];
        nextEager = new long[size];
        eagerSliceBase = new long[size];
        eagerSlot = new int[size];
        for (int peer = 0; peer < size; peer++)
        {
            if (peer != rank)
            {
                eagerSliceBase[peer] = layout.eagerFragmentOffset(peer, rank, 0);
                nextEager[peer] = eagerSliceBase[peer];
            }
        }
        eagerStride = perPeer > 1 ? layout.eagerFragmentOffset(rank, rank, 1) - layout.eagerFragmentOffset(rank, rank, 0) : 0;
        published = new long[size];
        publishEvery = Math.max(1, perPeer / 2);
    }

    /**
     * @return the next eager fragment for {@code dest} (-1 without credit), or a free max-size fragment (-1
     * if the pool has none); the caller holds dest's lock and calls {@link #published} once it is published.
     */
    long acquire(final int dest, final boolean max)
    {
        return max ? acquireMax() : credits.next(dest);
    }

    /**
     * Spends the credit of an eager fragment {@link #acquire} gave for {@code dest}.
     */
    void published(final int dest, final boolean max)
    {
        if (!max)
        {
            credits.sent(dest);
        }
    }

    private long acquireMax()
    {
        if (poolLock == null)
        {
            return maxPool.acquire();
        }
        poolLock.lock();
        try
        {
            return maxPool.acquire();
        }
        finally
        {
            poolLock.unlock();
        }
    }

    /**
     * @return this rank's region of fragments, where {@link #writeHeader} places a payload.
     */
    UnsafeBuffer ownRegion()
    {
        return regions[rank];
    }

    /**
     * Writes the transport header of a fragment of this rank (plain stores; the publish that follows is the
     * release that makes them and the payload visible).
     *
     * @return the index of the fragment's payload in {@link #ownRegion()}.
     */
    int writeHeader(final long fragment, final int length)
    {
        final UnsafeBuffer region = regions[rank];
        final int index = (int)(fragment - regionBase[rank]);
        region.putInt(index + FragmentDescriptor.LENGTH_OFFSET, length);
        region.putInt(index + FragmentDescriptor.SENDER_OFFSET, rank);
        return index + FragmentDescriptor.HEADER_LENGTH;
    }

    /**
     * Puts back a max-size fragment {@link #acquire} gave that was never published.
     */
    void unclaimMax(final long fragment)
    {
        takeBack(rank, fragment);
    }

    private boolean release(final long fragment)
    {
        if (poolLock == null)
        {
            return maxPool.release(fragment);
        }
        poolLock.lock();
        try
        {
            return maxPool.release(fragment);
        }
        finally
        {
            poolLock.unlock();
        }
    }

    /**
     * Takes back a max-size fragment of this rank that {@code source} has consumed.
     */
    void takeBack(final int source, final long fragment)
    {
        if (!release(fragment))
        {
            throw corrupt(source, "returned offset " + fragment + " is not an outstanding fragment of rank " + rank);
        }
    }

    /**
     * Points {@code view} at the fragment {@code source} published, after checking it is the eager fragment
     * the pair's order expects, or one of the sender's max-size fragments, with a sane header.
     *
     * @return true for an eager fragment (consumed with {@link #consumedEager}), false for a max-size one
     * (returned to its owner).
     */
    boolean wrapReceived(final FragmentView view, final int source, final long fragment)
    {
        final boolean eager = fragment == nextEager[source];
        final int capacity = eager ? layout.params().eagerLimit() : layout.fragmentCapacity(fragment);
        if (!eager && (layout.fragmentOwner(fragment) != source || capacity != layout.params().maxFragSize()))
        {
            throw corrupt(source, "offset " + fragment + " is neither the next eager fragment nor a max-size fragment of rank " + source);
        }
        final UnsafeBuffer buffer = regions[source];
        final int index = (int)(fragment - regionBase[source]);
        final int length = buffer.getInt(index + FragmentDescriptor.LENGTH_OFFSET);
        if (length < 0 || length > capacity - FragmentDescriptor.HEADER_LENGTH ||
            buffer.getInt(index + FragmentDescriptor.SENDER_OFFSET) != source)
        {
            throw corrupt(source, "fragment at " + fragment + " has length " + length + " (capacity " + capacity + ")");
        }
        view.wrap(buffer, index, length, source);
        return eager;
    }

    /**
     * Wraps the fragment that {@code source} published as word {@code fragment} behind the next one, for a look
     * that consumes nothing: only its place in {@code source}'s fragments is checked, not the pair's order (the
     * poll that reaches it does that).
     *
     * @return false if the word names no fragment of {@code source}.
     */
    boolean peekReceived(final FragmentView view, final int source, final long fragment)
    {
        final UnsafeBuffer buffer = regions[source];
        final long index = fragment - regionBase[source];
        if (index < 0 || index > buffer.capacity() - FragmentDescriptor.HEADER_LENGTH)
        {
            return false;
        }
        final int length = buffer.getInt((int)index + FragmentDescriptor.LENGTH_OFFSET);
        if (length < 0 || length > buffer.capacity() - index - FragmentDescriptor.HEADER_LENGTH)
        {
            return false;
        }
        view.wrap(buffer, (int)index, length, source);
        return true;
    }

    /**
     * Counts one eager fragment of {@code source} as consumed; the count is published every half ring (and
     * by {@link #publishCredits}), which returns the run of fragments to the sender in one store.
     */
    void consumedEager(final int source)
    {
        consumed[source]++;
        // the next fragment in the sender's ring for this rank, without a division per message
        final int slot = eagerSlot[source] + 1 == perPeer ? 0 : eagerSlot[source] + 1;
        eagerSlot[source] = slot;
        nextEager[source] = eagerSliceBase[source] + slot * eagerStride;
        if (consumed[source] - published[source] >= publishEvery)
        {
            publish(source);
        }
    }

    /**
     * Publishes the consumed count of {@code source} if it has moved since the last publish.
     */
    void publishCredits(final int source)
    {
        if (consumed[source] != published[source])
        {
            publish(source);
        }
    }

    private void publish(final int source)
    {
        // NOTE: release: this rank's reads of the fragments counted happen before the sender reuses them.
        consumedWords[source].putLongRelease(0, consumed[source]);
        published[source] = consumed[source];
    }

    Sm4jException corrupt(final int source, final String what)
    {
        final String reason = "corrupt data from rank " + source + " at rank " + rank + ": " + what;
        segment.abort(rank, reason);
        ringAll.run(); // after the abort's store: a woken rank's health check reads it (acquire)
        return new Sm4jException(reason);
    }
}
