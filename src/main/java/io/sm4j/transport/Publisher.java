package io.sm4j.transport;

import io.sm4j.job.RankCounters;
import io.sm4j.fifo.FastBoxProducer;
import io.sm4j.layout.FastBoxDescriptor;
import io.sm4j.layout.FragmentDescriptor;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The sending side of an endpoint: claims room for one message to a receiver, where the receiver will read
 * it, and publishes it once the caller has written it ({@link SendClaim}). The room is an inline fast box
 * record when the pair has a box and the payload fits in a record and the ring; else a fragment (an eager one
 * paid for by a credit, or a max-size one from the pool), published by a FIFO word or, once the pair has a
 * box, by a reference record.
 * Nothing here waits or consumes anything: no room means the claim fails.
 * <p>
 * A claim takes the destination's lock and keeps it until commit or abort, so a pair's credits, fragments
 * and records stay in one order in MULTIPLE thread mode; in SINGLE mode it stays inside the endpoint's
 * {@link CallGate} (entered by the claim, left here), so that a close from another thread waits for the
 * caller's writes.
 */
final class Publisher
{
    private final int rank;
    private final OutboundQueues outbound;
    private final FragmentAccess fragments;
    private final FastBoxAssignment fastBoxes;
    private final PeerBells bells;
    private final CallGate gate;
    private final RankCounters counters;

    Publisher(
        final int rank, final OutboundQueues outbound, final FragmentAccess fragments, final FastBoxAssignment fastBoxes,
        final PeerBells bells, final CallGate gate, final RankCounters counters)
    {
        this.counters = counters;
        this.gate = gate;
        this.rank = rank;
        this.outbound = outbound;
        this.fragments = fragments;
        this.fastBoxes = fastBoxes;
        this.bells = bells;
    }

    /**
     * @param max claim a max-size fragment (the caller checked {@code length} against its limit).
     * @return {@link Endpoint#CLAIMED}, or {@link Endpoint#NO_CREDIT}, {@link Endpoint#POOL_EMPTY} or
     *         {@link Endpoint#BOX_FULL} without room.
     */
    int tryClaim(final int dest, final int length, final boolean max, final SendClaim claim)
    {
        claim.checkFree();
        final OptionalLock lock = outbound.lockOf(dest);
        lock.lock();
        int result = Endpoint.BOX_FULL;
        try
        {
            result = claim(dest, length, max, claim);
            return result;
        }
        finally
        {
            if (result != Endpoint.CLAIMED)
            {
                lock.unlock();
            }
        }
    }

    private int claim(final int dest, final int length, final boolean max, final SendClaim claim)
    {
        final FastBoxProducer box = fastBoxes.route(dest, outbound);
        if (box != null && !max && length <= fastBoxes.inlinePayload())
        {
            final int index = box.claim(FastBoxDescriptor.inlineRecordLength(length));
            if (index >= 0)
            {
                final AtomicBuffer ring = box.ring();
                ring.putInt(index + FragmentDescriptor.SENDER_OFFSET, rank); // plain: the commit word is the release
                claim.claimed(this, dest, box, index, -1, false, ring, index + FragmentDescriptor.HEADER_LENGTH, length);
                return Endpoint.CLAIMED;
            }
            // no room for the record: a reference to an eager fragment, if a credit is left, keeps a window
            // going while the receiver has not yet made room (measured: docs/benchmarks.md)
        }
        final int index = box == null ? 0 : box.claim(FastBoxDescriptor.REFERENCE_LENGTH);
        if (index < 0)
        {
            return Endpoint.BOX_FULL;
        }
        final long fragment = fragments.acquire(dest, max);
        if (fragment < 0)
        {
            return max ? Endpoint.POOL_EMPTY : Endpoint.NO_CREDIT;
        }
        claim.claimed(this, dest, box, index, fragment, max, fragments.ownRegion(),
            fragments.writeHeader(fragment, length), length);
        return Endpoint.CLAIMED;
    }

    void commit(final SendClaim claim)
    {
        final int dest = claim.dest;
        try
        {
            if (claim.fragment < 0)
            {
                claim.box.commitInline(claim.index, claim.length());
            }
            else
            {
                if (claim.box == null)
                {
                    outbound.enqueue(dest, claim.fragment);
                }
                else
                {
                    claim.box.commitReference(claim.index, claim.fragment);
                }
                fragments.published(dest, claim.max);
            }
            counters.fragmentSent(claim.fragment < 0);
            bells.afterPublish(dest); // a receiver asleep waiting for this message wakes
        }
        finally
        {
            outbound.lockOf(dest).unlock();
            gate.exitClaim();
        }
    }

    /**
     * Nothing was published: an eager fragment's credit is still unspent and a box record uncommitted (a
     * padding record a claim committed at the ring's end stays, harmless); a max-size fragment goes back.
     */
    void abort(final SendClaim claim)
    {
        try
        {
            if (claim.fragment >= 0 && claim.max)
            {
                fragments.unclaimMax(claim.fragment);
            }
        }
        finally
        {
            outbound.lockOf(claim.dest).unlock();
            gate.exitClaim();
        }
    }
}
