package io.sm4j.transport;

import io.sm4j.fifo.FastBoxProducer;
import io.sm4j.fifo.FifoProducer;
import io.sm4j.job.RankCounters;
import io.sm4j.layout.CbIndexDescriptor;
import io.sm4j.layout.DoorbellDescriptor;
import io.sm4j.layout.FastBoxDescriptor;
import io.sm4j.layout.FragmentDescriptor;
import io.sm4j.segment.Segment;
import org.agrona.collections.LongArrayQueue;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Everything this rank sends to one peer, in one place (after Aeron's {@code Publication}): the claim of
 * room for a message where the peer will read it, its publication once the caller has written it
 * ({@link SendClaim}), the FIFO to the peer with its process-local list of words that found it full (the sm
 * BTL's answer from Open MPI 1.3.2 on), the fast box this rank sends by, and the peer's doorbell word, read
 * after every publish. Nothing here waits or consumes anything: no room means the claim fails with its reason.
 * <p>
 * The room is an inline fast box record when the pair has a box and the payload fits in a record; else a
 * fragment (an eager one paid for by a credit, or a max-size one from the pool), published by a FIFO word or,
 * once the pair has a box, by a reference record. After {@link #FAST_BOX_THRESHOLD} messages this rank tries,
 * once, to claim one of the peer's boxes (a CAS of the box's owner word, first come first served, as vader
 * assigns its fast boxes); if it gets one it announces it through the FIFO and from then on sends everything
 * to the peer through the box, so the pair stays ordered. No boxes in MULTIPLE thread mode, where several
 * threads would write one ring.
 * <p>
 * Thread safety: in MULTIPLE mode a claim takes the pair's lock and keeps it until commit or abort, so the
 * pair's credits, fragments and records stay in one order; in SINGLE mode the lock is absent and the claim
 * stays inside the endpoint's {@link CallGate} (entered by the claim, left at commit or abort), so that a
 * close from another thread waits for the caller's writes. Only this process writes the FIFO's head.
 */
final class Publication
{
    /** Messages to a peer before this rank claims a fast box for it (Open MPI vader's default is 16). */
    static final int FAST_BOX_THRESHOLD = 16;

    private final Segment segment;
    private final int rank;
    private final int dest;
    /** Null in SINGLE thread mode. */
    private final ReentrantLock lock;
    private final FifoProducer fifo;
    private final LongArrayQueue pending;
    /** Words pending to any peer of this rank, shared by its publications: a poll skips the flush at zero. */
    private final AtomicInteger pendingWords;
    private final UnsafeBuffer peerActivity;
    private final AtomicBuffer peerBell;
    private final PeerBells bells;
    private final FragmentAccess fragments;
    private final CallGate gate;
    private final RankCounters counters;
    private final boolean boxesEnabled;
    /** The largest payload that travels inside a record; larger ones travel as references. */
    private final int inlinePayload;
    private boolean announced;
    /** A claim of this thread's (the only one: the lock, or SINGLE mode's one thread) is open until its commit or abort. */
    private boolean open;
    /** Null while this pair sends through the FIFO. */
    private FastBoxProducer box;
    private int sends;

    Publication(
        final Segment segment, final int rank, final int dest, final boolean multiple, final AtomicInteger pendingWords,
        final PeerBells bells, final FragmentAccess fragments, final CallGate gate, final RankCounters counters)
    {
        this.segment = segment;
        this.rank = rank;
        this.dest = dest;
        this.lock = multiple ? new ReentrantLock() : null;
        this.pendingWords = pendingWords;
        this.bells = bells;
        this.fragments = fragments;
        this.gate = gate;
        this.counters = counters;
        final int entries = segment.layout().params().queueEntries();
        fifo = new FifoProducer(segment.views().queue(rank, dest), entries, segment.views().head(rank, dest));
        pending = new LongArrayQueue(Math.max(LongArrayQueue.MIN_CAPACITY, entries), 0);
        peerActivity = segment.views().activity(dest);
        peerBell = segment.views().bell(dest);
        boxesEnabled = !multiple && segment.layout().fastBoxCount() > 0;
        // a record takes at most an eighth of the ring, so several are in flight at once
        inlinePayload = Math.min(segment.layout().params().eagerLimit(), segment.layout().params().fastBoxSize() / 8) -
            FragmentDescriptor.HEADER_LENGTH;
    }

    /**
     * Fast box room a message the receiver may decline leaves free: what one record the receiver never declines
     * takes at most, padding to the ring's end included (an inline message of up to
     * {@link Endpoint#MAX_URGENT_LENGTH} bytes, or a reference). One such record behind declined ones is enough:
     * the receiver then takes what stands ahead of it, which frees the ring.
     */
    static final int BOX_RESERVE = 2 * FastBoxDescriptor.inlineRecordLength(Endpoint.MAX_URGENT_LENGTH);
    /** A claim of an eager fragment or fast box room, as much as there is. */
    static final int EAGER = 0;
    /**
     * An eager claim for a message the receiver may decline ({@link FragmentHandler#accepts}): it leaves
     * {@link #BOX_RESERVE} bytes of the fast box free for {@link #URGENT} ones, and on a pair without a box one
     * FIFO slot.
     */
    static final int DECLINABLE = 1;
    /**
     * An eager claim for a message the receiver never declines and another rank may wait for: it may use the room
     * {@link #DECLINABLE} claims leave, and a max-size fragment when the eager credits are spent (declined messages
     * may hold them all), so that declined messages cannot hold it back ({@link FragmentHandler#acceptsAhead}).
     */
    static final int URGENT = 2;
    /** A claim of a max-size fragment. */
    static final int MAX = 3;

    int dest()
    {
        return dest;
    }

    /**
     * @param kind what room to claim: {@link #EAGER}, {@link #DECLINABLE}, {@link #URGENT} or {@link #MAX} (the
     *             caller checked {@code length} against its limit).
     * @return {@link Endpoint#CLAIMED}, or {@link Endpoint#NO_CREDIT}, {@link Endpoint#POOL_EMPTY},
     *         {@link Endpoint#BOX_FULL} or {@link Endpoint#QUEUE_FULL} without room.
     */
    int tryClaim(final int length, final int kind, final SendClaim claim)
    {
        claim.checkFree();
        lock();
        int result = Endpoint.BOX_FULL;
        try
        {
            if (open)
            {
                // this thread's own claim to the same rank, not committed (a lock is reentrant, SINGLE mode has none):
                // a second would get the same room, and the two commits would publish one slot twice
                throw new IllegalStateException("a claim to rank " + dest + " is still open: commit or abort it first");
            }
            result = claim(length, kind, claim);
            open = result == Endpoint.CLAIMED;
            return result;
        }
        finally
        {
            if (result != Endpoint.CLAIMED)
            {
                unlock();
            }
        }
    }

    private int claim(final int length, final int kind, final SendClaim claim)
    {
        if (this.box == null && kind == DECLINABLE && (!pending.isEmpty() || !fifo.hasRoom(2)))
        {
            // the FIFO keeps a slot for what must not wait, as the box keeps room; checked before route, whose
            // announcement of a box takes a slot too
            return Endpoint.QUEUE_FULL;
        }
        final FastBoxProducer box = route();
        final boolean max = kind == MAX;
        final int reserve = kind == DECLINABLE ? BOX_RESERVE : 0;
        if (box != null && !max && length <= inlinePayload)
        {
            final int index = box.claim(FastBoxDescriptor.inlineRecordLength(length), reserve);
            if (index >= 0)
            {
                final AtomicBuffer ring = box.ring();
                ring.putInt(index + FragmentDescriptor.SENDER_OFFSET, rank); // plain: the commit word is the release
                claim.claimed(this, box, index, -1, false, ring, index + FragmentDescriptor.HEADER_LENGTH, length);
                return Endpoint.CLAIMED;
            }
            // no room for the record: a reference to an eager fragment, if a credit is left, keeps a window
            // going while the receiver has not yet made room (measured: docs/benchmarks.md)
        }
        final int index = box == null ? 0 : box.claim(FastBoxDescriptor.REFERENCE_LENGTH, reserve);
        if (index < 0)
        {
            return Endpoint.BOX_FULL;
        }
        long fragment = fragments.acquire(dest, max);
        boolean maxSize = max;
        if (fragment < 0 && kind == URGENT)
        {
            fragment = fragments.acquire(dest, true); // the credits may all be held by declined messages
            maxSize = fragment >= 0;
        }
        if (fragment < 0)
        {
            return max ? Endpoint.POOL_EMPTY : Endpoint.NO_CREDIT;
        }
        claim.claimed(this, box, index, fragment, maxSize, fragments.ownRegion(), fragments.writeHeader(fragment, length), length);
        return Endpoint.CLAIMED;
    }

    void commit(final SendClaim claim)
    {
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
                    enqueue(claim.fragment);
                }
                else
                {
                    claim.box.commitReference(claim.index, claim.fragment);
                }
                fragments.published(dest, claim.max);
            }
            counters.fragmentSent(claim.fragment < 0);
            ringIfArmed(); // a receiver asleep waiting for this message wakes
        }
        finally
        {
            open = false;
            unlock();
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
            open = false;
            unlock();
            gate.exitClaim();
        }
    }

    /**
     * Publishes {@code word} to the peer's FIFO after any words already pending for it, or parks it. The caller
     * rings the peer ({@link #ringIfArmed}) once its publishing is done.
     */
    void enqueue(final long word)
    {
        lock();
        try
        {
            if (!announced)
            {
                announce();
            }
            if (pending.isEmpty() && fifo.offer(word))
            {
                return;
            }
            pending.offerLong(word);
            pendingWords.incrementAndGet();
            flushPending();
        }
        finally
        {
            unlock();
        }
    }

    /**
     * Retries the words pending for the peer, in order, and rings it if one reached its FIFO.
     */
    void flush()
    {
        lock();
        try
        {
            if (flushPending())
            {
                ringIfArmed();
            }
        }
        finally
        {
            unlock();
        }
    }

    /**
     * @return true if a word waits for room in the peer's FIFO.
     */
    boolean hasPending()
    {
        return !pending.isEmpty();
    }

    /**
     * Takes the pair's lock for good: for an endpoint that is closing, once a claim still held by another thread
     * is committed or aborted, nothing more is sent.
     */
    void lockForClose()
    {
        lock();
    }

    /**
     * Rings the peer if it sleeps armed: for a caller whose store to the peer's memory has just been made (a
     * release store), which the peer may be waiting for (a message, a credit, a fragment back, room in a FIFO
     * or a fast box).
     */
    void ringIfArmed()
    {
        // NOTE: no fence: the read may pass the publish before it; the sleeper's second look covers that (BellWord)
        final long armed = BellWord.takeRing(peerBell);
        if (armed != DoorbellDescriptor.AWAKE)
        {
            bells.wake(dest, armed);
        }
    }

    /**
     * @return true if a word reached the FIFO.
     */
    private boolean flushPending()
    {
        boolean moved = false;
        while (!pending.isEmpty() && fifo.offer(pending.peekLong()))
        {
            pending.pollLong();
            pendingWords.decrementAndGet();
            moved = true;
        }
        return moved;
    }

    /**
     * @return the box to send by, or null to use the FIFO; claims and announces one at the threshold. The
     *         caller holds the pair's lock.
     */
    private FastBoxProducer route()
    {
        if (box != null || !boxesEnabled || sends > FAST_BOX_THRESHOLD)
        {
            return box; // a box, or the one try at the threshold found none
        }
        if (++sends <= FAST_BOX_THRESHOLD)
        {
            return null;
        }
        final int boxes = segment.layout().fastBoxCount();
        final UnsafeBuffer owners = segment.views().fastBoxOwners(dest);
        for (int index = 0; index < boxes; index++)
        {
            final int owner = index * FastBoxDescriptor.OWNER_LENGTH;
            // NOTE: the CAS (a full fence) makes the ownership visible before the announcement below, which
            // the receiver reads with acquire before it checks the owner.
            if (owners.getIntVolatile(owner) == FastBoxDescriptor.FREE &&
                owners.compareAndSetInt(owner, FastBoxDescriptor.FREE, rank + 1))
            {
                enqueue(((long)index << CbIndexDescriptor.FAST_BOX_SHIFT) | CbIndexDescriptor.FAST_BOX_FLAG);
                box = new FastBoxProducer(segment.views().fastBoxRing(dest, index), segment.views().fastBoxPosition(dest, index));
                return box;
            }
        }
        return null; // every box of the peer is taken: this pair keeps the FIFO
    }

    /**
     * Sets this rank's bit in the peer's activity bitmap, once, before the first publish to it.
     */
    private void announce()
    {
        final int index = (rank / Long.SIZE) * Long.BYTES;
        final long bit = 1L << (rank % Long.SIZE);
        long word;
        do
        {
            word = peerActivity.getLongVolatile(index);
        }
        // NOTE: the CAS is a full fence: the bit is visible before the first slot this rank publishes to the
        // peer, so a receiver that rereads its bitmap on every poll never misses a sender.
        while ((word & bit) == 0 && !peerActivity.compareAndSetLong(index, word, word | bit));
        announced = true;
    }

    private void lock()
    {
        if (lock != null)
        {
            lock.lock();
        }
    }

    private void unlock()
    {
        if (lock != null)
        {
            lock.unlock();
        }
    }
}
