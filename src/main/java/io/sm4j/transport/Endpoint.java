package io.sm4j.transport;

import io.sm4j.fifo.FifoConsumer;
import io.sm4j.fifo.FifoProducer;
import io.sm4j.fragment.FragmentPool;
import io.sm4j.layout.CbIndexDescriptor;
import io.sm4j.layout.CbWrapperDescriptor;
import io.sm4j.layout.ControlBlockDescriptor;
import io.sm4j.layout.FragmentDescriptor;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentLayout;
import io.sm4j.layout.ThreadMode;
import io.sm4j.segment.JobAbortedException;
import io.sm4j.segment.Segment;
import io.sm4j.segment.Sm4jException;
import org.agrona.DirectBuffer;
import org.agrona.collections.LongArrayQueue;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import static io.sm4j.layout.CbIndexDescriptor.RETURN_FLAG;

/**
 * One rank's transport endpoint: sends fragments up to the eager limit to peers and polls in-bound FIFOs.
 * <p>
 * Implementation notes (after Open MPI's sm BTL, 1.3.2 and later): a fragment that finds its FIFO full
 * goes on a process-local pending list, retried on every poll and before every send to that peer; a send
 * that finds its pool empty keeps draining its in-bound FIFOs (fragment returns included) and parks the
 * data it drains in a backlog delivered by the next {@link #poll}, so two ranks flooding each other
 * always complete. Consumed fragments return to their owner through the reverse FIFO with
 * {@link CbIndexDescriptor#RETURN_FLAG}; only the owner touches its free lists. A receiver scans only the
 * senders whose bit is set in its activity bitmap.
 * <p>
 * Thread safety: in {@link ThreadMode#SINGLE} one thread must drive the endpoint. In
 * {@link ThreadMode#MULTIPLE} every method is thread-safe: one process-local lock serialises the
 * endpoint (heads and tails are only ever written by their own process, so no shared-memory lock is
 * needed); the layout still spaces heads and tails onto their own cachelines.
 */
public final class Endpoint implements AutoCloseable
{
    private static final long HEALTH_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long CLOSE_FLUSH_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final Segment segment;
    private final boolean ownsSegment;
    private final SegmentLayout layout;
    private final int rank;
    private final int size;
    private final int maxPayload;
    private final FifoProducer[] out;
    private final FifoConsumer[] in;
    private final LongArrayQueue[] pending;
    private final FragmentPool pool;
    private final UnsafeBuffer[] pools;
    private final long[] poolBase;
    private final UnsafeBuffer activity;
    private final UnsafeBuffer[] peerActivity;
    private final boolean[] announced;
    private final long[] activityWords;
    private final int[] active;
    private final ArrayDeque<UnsafeBuffer> backlog = new ArrayDeque<>();
    private final FragmentView view = new FragmentView();
    private final IdleStrategy idle;
    private final ReentrantLock lock;
    private int activeCount;
    private int cursor;
    private int pendingTotal;
    private long nextHealthCheck;
    private boolean closed;

    private Endpoint(final Segment segment, final int rank, final TransportOptions options, final boolean ownsSegment)
    {
        this.segment = segment;
        this.ownsSegment = ownsSegment;
        this.layout = segment.layout();
        final LayoutParams params = layout.params();
        this.rank = rank;
        this.size = params.peers();
        this.maxPayload = params.eagerLimit() - FragmentDescriptor.HEADER_LENGTH;
        final int entries = params.queueEntries();
        final int batch = options.lazyFreeBatch() == 0 ? Math.max(1, entries / 2) : options.lazyFreeBatch();
        out = new FifoProducer[size];
        in = new FifoConsumer[size];
        pending = new LongArrayQueue[size];
        pools = new UnsafeBuffer[size];
        poolBase = new long[size];
        peerActivity = new UnsafeBuffer[size];
        announced = new boolean[size];
        active = new int[size];
        final int activityLength = ControlBlockDescriptor.activityLength(size);
        activity = segment.view(layout.activityOffset(rank), activityLength);
        activityWords = new long[activityLength / Long.BYTES];
        for (int peer = 0; peer < size; peer++)
        {
            poolBase[peer] = layout.poolRegionOffset(peer);
            pools[peer] = segment.view(poolBase[peer], (int)layout.sectionLength(1 + size + peer));
            if (peer == rank)
            {
                continue;
            }
            checkWrapper(rank, peer);
            checkWrapper(peer, rank);
            out[peer] = new FifoProducer(segment.view(layout.queueOffset(rank, peer), (int)layout.queueLength()),
                entries, segment.view(layout.headOffset(rank, peer), CbIndexDescriptor.HEAD_LENGTH));
            in[peer] = new FifoConsumer(segment.view(layout.queueOffset(peer, rank), (int)layout.queueLength()),
                entries, segment.view(layout.tailOffset(peer, rank), CbIndexDescriptor.TAIL_LENGTH), batch);
            pending[peer] = new LongArrayQueue(Math.max(LongArrayQueue.MIN_CAPACITY, entries), 0);
            peerActivity[peer] = segment.view(layout.activityOffset(peer), activityLength);
        }
        pool = new FragmentPool(layout, rank);
        idle = idleStrategy(options.idle(), size);
        lock = params.threadMode() == ThreadMode.MULTIPLE ? new ReentrantLock() : null;
    }

    /**
     * Registers {@code rank} in {@code segment} and waits for all ranks to attach.
     *
     * @param ownsSegment close (unmap) the segment when the endpoint closes.
     */
    public static Endpoint open(final Segment segment, final int rank, final TransportOptions options, final boolean ownsSegment)
    {
        final int peers = segment.layout().params().peers();
        if (rank < 0 || rank >= peers)
        {
            throw new IllegalArgumentException("rank=" + rank + " (expected: 0.." + (peers - 1) + ")");
        }
        segment.checkNotAborted();
        segment.register(rank);
        try
        {
            final Endpoint endpoint = new Endpoint(segment, rank, options, ownsSegment);
            segment.awaitAll(rank, options.attachTimeout());
            return endpoint;
        }
        catch (final RuntimeException ex)
        {
            segment.abort(rank, "rank " + rank + " failed to attach: " + ex.getMessage());
            segment.detach(rank);
            throw ex;
        }
    }

    public int rank()
    {
        return rank;
    }

    public int size()
    {
        return size;
    }

    /**
     * @return the largest payload of one fragment: the eager limit less the fragment header.
     */
    public int maxPayload()
    {
        return maxPayload;
    }

    public SegmentLayout layout()
    {
        return layout;
    }

    public void send(final int dest, final byte[] payload)
    {
        send(dest, new UnsafeBuffer(payload), 0, payload.length);
    }

    public void send(final int dest, final ByteBuffer payload)
    {
        send(dest, new UnsafeBuffer(payload), payload.position(), payload.remaining());
    }

    /**
     * Sends one fragment, waiting (and progressing) while this rank's pool has no free fragment.
     */
    public void send(final int dest, final DirectBuffer payload, final int offset, final int length)
    {
        send(dest, 0, 0, 0, 0, payload, offset, length);
    }

    /**
     * Sends one fragment with the message layer's header fields.
     */
    public void send(
        final int dest, final int type, final int tag, final long sequence, final long aux,
        final DirectBuffer payload, final int offset, final int length)
    {
        while (!trySend(dest, type, tag, sequence, aux, payload, offset, length))
        {
            if (!segment.isAttached(dest))
            {
                throw new Sm4jException("rank " + dest + " has detached: rank " + rank + " cannot send to it (its pool " +
                    "is exhausted and the fragments it holds will not come back)");
            }
            idle();
        }
        idle.reset();
    }

    /**
     * Sends one fragment if a free fragment is available.
     *
     * @return false if the pool is empty even after draining in-bound fragment returns.
     */
    public boolean trySend(
        final int dest, final int type, final int tag, final long sequence, final long aux,
        final DirectBuffer payload, final int offset, final int length)
    {
        checkSend(dest, payload, offset, length);
        lock();
        try
        {
            long fragment = pool.acquireEager();
            if (fragment < 0)
            {
                drain(null, Integer.MAX_VALUE);
                fragment = pool.acquireEager();
                if (fragment < 0)
                {
                    return false;
                }
            }
            final UnsafeBuffer buffer = pools[rank];
            final int index = (int)(fragment - poolBase[rank]);
            buffer.putInt(index + FragmentDescriptor.LENGTH_OFFSET, length);
            buffer.putInt(index + FragmentDescriptor.SENDER_OFFSET, rank);
            buffer.putInt(index + FragmentDescriptor.TYPE_OFFSET, type);
            buffer.putInt(index + FragmentDescriptor.TAG_OFFSET, tag);
            buffer.putLong(index + FragmentDescriptor.SEQUENCE_OFFSET, sequence);
            buffer.putLong(index + FragmentDescriptor.AUX_OFFSET, aux);
            buffer.putBytes(index + FragmentDescriptor.HEADER_LENGTH, payload, offset, length);
            enqueue(dest, fragment);
            return true;
        }
        finally
        {
            unlock();
        }
    }

    /**
     * Delivers up to {@code limit} received fragments to {@code handler}, returns consumed fragments to
     * their owners and retries pending fragments.
     *
     * @return fragments delivered to {@code handler} (fragment returns taken back are not counted).
     * @throws JobAbortedException if the job was aborted or a peer died (checked while idle).
     */
    public int poll(final FragmentHandler handler, final int limit)
    {
        lock();
        try
        {
            int work = 0;
            while (work < limit && !backlog.isEmpty())
            {
                final UnsafeBuffer copy = backlog.poll();
                handler.onFragment(view.wrap(copy, 0, copy.getInt(FragmentDescriptor.LENGTH_OFFSET)));
                work++;
            }
            work += drain(handler, limit - work);
            if (work == 0)
            {
                healthCheck();
            }
            return work;
        }
        finally
        {
            unlock();
        }
    }

    /**
     * Waits once with the endpoint's idle strategy, checking the job's health periodically.
     */
    public void idle()
    {
        idle.idle();
        healthCheck();
    }

    private int drain(final FragmentHandler handler, final int limit)
    {
        refreshActivePeers();
        int work = 0;
        for (int i = 0; i < activeCount && work < limit; i++)
        {
            final int source = active[(cursor + i) % activeCount];
            final FifoConsumer consumer = in[source];
            long word;
            while (work < limit && (word = consumer.poll()) != CbIndexDescriptor.EMPTY_SLOT)
            {
                if (receive(source, word, handler))
                {
                    work++;
                }
            }
        }
        cursor = activeCount == 0 ? 0 : (cursor + 1) % activeCount;
        flushPending();
        return work;
    }

    /**
     * @return true if a data fragment was delivered (or parked in the backlog), false for a return.
     */
    private boolean receive(final int source, final long word, final FragmentHandler handler)
    {
        if ((word & RETURN_FLAG) != 0)
        {
            if (!pool.release(word & ~RETURN_FLAG))
            {
                throw corrupt(source, "returned offset " + (word & ~RETURN_FLAG) + " is not an outstanding fragment of rank " + rank);
            }
            return false;
        }
        final int capacity = layout.fragmentCapacity(word);
        if (layout.fragmentOwner(word) != source || capacity < 0)
        {
            throw corrupt(source, "offset " + word + " is not a fragment of rank " + source);
        }
        final UnsafeBuffer buffer = pools[source];
        final int index = (int)(word - poolBase[source]);
        final int length = buffer.getInt(index + FragmentDescriptor.LENGTH_OFFSET);
        if (length < 0 || length > capacity - FragmentDescriptor.HEADER_LENGTH ||
            buffer.getInt(index + FragmentDescriptor.SENDER_OFFSET) != source)
        {
            throw corrupt(source, "fragment at " + word + " has length " + length + " (capacity " + capacity + ")");
        }
        try
        {
            if (handler != null)
            {
                handler.onFragment(view.wrap(buffer, index, length));
            }
            else
            {
                final UnsafeBuffer copy = new UnsafeBuffer(new byte[FragmentDescriptor.HEADER_LENGTH + length]);
                copy.putBytes(0, buffer, index, copy.capacity());
                backlog.add(copy);
            }
        }
        finally
        {
            enqueue(source, word | RETURN_FLAG);
        }
        return true;
    }

    private void enqueue(final int dest, final long word)
    {
        if (!announced[dest])
        {
            announce(dest);
        }
        final LongArrayQueue queue = pending[dest];
        if (queue.isEmpty() && out[dest].offer(word))
        {
            return;
        }
        queue.offerLong(word);
        pendingTotal++;
        flushPending();
    }

    private void flushPending()
    {
        if (pendingTotal == 0)
        {
            return;
        }
        for (int dest = 0; dest < size; dest++)
        {
            final LongArrayQueue queue = pending[dest];
            while (queue != null && !queue.isEmpty() && out[dest].offer(queue.peekLong()))
            {
                queue.pollLong();
                pendingTotal--;
            }
        }
    }

    /**
     * Sets this rank's bit in {@code dest}'s activity bitmap, once, before the first publish to it.
     */
    private void announce(final int dest)
    {
        final UnsafeBuffer bitmap = peerActivity[dest];
        final int index = (rank / Long.SIZE) * Long.BYTES;
        final long bit = 1L << (rank % Long.SIZE);
        long word;
        do
        {
            word = bitmap.getLongVolatile(index);
        }
        // NOTE: the CAS is a full fence: the bit is visible before the first slot this rank publishes to
        // dest, so a receiver that rereads its bitmap on every poll never misses a sender.
        while ((word & bit) == 0 && !bitmap.compareAndSetLong(index, word, word | bit));
        announced[dest] = true;
    }

    private void refreshActivePeers()
    {
        boolean changed = false;
        for (int w = 0; w < activityWords.length; w++)
        {
            // NOTE: acquire pairs with the senders' CAS; bits are never cleared.
            final long word = activity.getLongAcquire(w * Long.BYTES);
            if (word != activityWords[w])
            {
                activityWords[w] = word;
                changed = true;
            }
        }
        if (changed)
        {
            activeCount = 0;
            for (int peer = 0; peer < size; peer++)
            {
                if (peer != rank && (activityWords[peer / Long.SIZE] & (1L << (peer % Long.SIZE))) != 0)
                {
                    active[activeCount++] = peer;
                }
            }
        }
    }

    private void healthCheck()
    {
        final long now = System.nanoTime();
        if (now - nextHealthCheck < 0)
        {
            return;
        }
        nextHealthCheck = now + HEALTH_CHECK_NANOS;
        segment.heartbeat(rank);
        segment.checkNotAborted();
        final int dead = segment.findDeadPeer(rank);
        if (dead >= 0)
        {
            segment.abort(rank, "rank " + dead + " (pid " + segment.pidOf(dead) + ") died");
            segment.checkNotAborted();
        }
    }

    private Sm4jException corrupt(final int source, final String what)
    {
        final String reason = "corrupt data from rank " + source + " at rank " + rank + ": " + what;
        segment.abort(rank, reason);
        return new Sm4jException(reason);
    }

    private void checkSend(final int dest, final DirectBuffer payload, final int offset, final int length)
    {
        if (closed)
        {
            throw new IllegalStateException("endpoint of rank " + rank + " is closed");
        }
        if (dest < 0 || dest >= size || dest == rank)
        {
            throw new IllegalArgumentException("dest=" + dest + " (expected: 0.." + (size - 1) + ", not this rank " + rank + ")");
        }
        if (payload == null)
        {
            throw new NullPointerException("payload");
        }
        if (length > maxPayload)
        {
            throw new IllegalArgumentException("length=" + length + " exceeds maxPayload=" + maxPayload +
                " (eagerLimit=" + layout.params().eagerLimit() + " less the " + FragmentDescriptor.HEADER_LENGTH +
                "-byte header)");
        }
        if (offset < 0 || length < 0 || (long)offset + length > payload.capacity())
        {
            throw new IndexOutOfBoundsException("offset=" + offset + " length=" + length + " capacity=" + payload.capacity());
        }
    }

    private void checkWrapper(final int sender, final int receiver)
    {
        final UnsafeBuffer wrapper = segment.view(layout.wrapperOffset(sender, receiver), CbWrapperDescriptor.LENGTH);
        if (wrapper.getLong(CbWrapperDescriptor.QUEUE_OFFSET) != layout.queueOffset(sender, receiver) ||
            wrapper.getInt(CbWrapperDescriptor.SENDER_OFFSET) != sender ||
            wrapper.getInt(CbWrapperDescriptor.RECEIVER_OFFSET) != receiver)
        {
            throw new Sm4jException("corrupt CB wrapper " + sender + " -> " + receiver + " in " + segment.path());
        }
    }

    private static IdleStrategy idleStrategy(final TransportOptions.Idle mode, final int ranks)
    {
        final boolean spin = mode == TransportOptions.Idle.SPIN ||
            mode == TransportOptions.Idle.AUTO && ranks <= Runtime.getRuntime().availableProcessors();
        return spin ? new BusySpinIdleStrategy() :
            new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MICROSECONDS.toNanos(500));
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

    /**
     * Flushes pending fragments (bounded), detaches, and unmaps the segment if this endpoint owns it.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            final long deadline = System.nanoTime() + CLOSE_FLUSH_NANOS;
            while (pendingToAttachedPeers() && System.nanoTime() - deadline < 0 && !aborted())
            {
                lock();
                try
                {
                    drain(null, Integer.MAX_VALUE);
                }
                finally
                {
                    unlock();
                }
                idle.idle();
            }
        }
        finally
        {
            segment.detach(rank);
            if (ownsSegment)
            {
                segment.close();
            }
        }
    }

    private boolean pendingToAttachedPeers()
    {
        for (int dest = 0; dest < size && pendingTotal > 0; dest++)
        {
            if (pending[dest] != null && !pending[dest].isEmpty() && segment.isAttached(dest))
            {
                return true;
            }
        }
        return false;
    }

    private boolean aborted()
    {
        try
        {
            segment.checkNotAborted();
            return false;
        }
        catch (final JobAbortedException ex)
        {
            return true;
        }
    }
}
