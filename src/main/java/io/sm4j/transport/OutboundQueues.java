package io.sm4j.transport;

import io.sm4j.fifo.FifoProducer;
import io.sm4j.layout.SegmentLayout;
import io.sm4j.segment.Segment;
import org.agrona.collections.LongArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * One rank's out-bound FIFOs: a producer per peer, the process-local pending list of words that found
 * their FIFO full (the sm BTL's answer from Open MPI 1.3.2 on), and the one-time announcement in each
 * receiver's activity bitmap. In MULTIPLE thread mode each FIFO has its own process-local lock, as the sm
 * BTL locked each FIFO; no lock is in shared memory since only this process writes these heads.
 */
final class OutboundQueues
{
    private final int rank;
    private final int size;
    private final FifoProducer[] producers;
    private final LongArrayQueue[] pending;
    private final UnsafeBuffer[] peerActivity;
    private final boolean[] announced;
    private final OptionalLock[] locks;
    private final AtomicInteger pendingWords = new AtomicInteger();
    private final PeerBells bells;

    /**
     * @param bells rung when a pending word reaches its FIFO ({@link #enqueue}'s callers ring for theirs).
     */
    OutboundQueues(final Segment segment, final int rank, final boolean locked, final PeerBells bells)
    {
        this.bells = bells;
        final SegmentLayout layout = segment.layout();
        final int entries = layout.params().queueEntries();
        this.rank = rank;
        this.size = layout.params().peers();
        producers = new FifoProducer[size];
        pending = new LongArrayQueue[size];
        peerActivity = new UnsafeBuffer[size];
        announced = new boolean[size];
        locks = new OptionalLock[size];
        for (int peer = 0; peer < size; peer++)
        {
            if (peer == rank)
            {
                continue;
            }
            producers[peer] = new FifoProducer(segment.views().queue(rank, peer), entries, segment.views().head(rank, peer));
            pending[peer] = new LongArrayQueue(Math.max(LongArrayQueue.MIN_CAPACITY, entries), 0);
            peerActivity[peer] = segment.views().activity(peer);
            locks[peer] = OptionalLock.create(locked);
        }
    }

    /**
     * Publishes {@code word} to {@code dest} after any words already pending for it, or parks it. The caller
     * rings {@code dest}'s doorbell ({@link PeerBells}) once its publishing is done.
     */
    void enqueue(final int dest, final long word)
    {
        locks[dest].lock();
        try
        {
            if (!announced[dest])
            {
                announce(dest);
            }
            final LongArrayQueue queue = pending[dest];
            if (queue.isEmpty() && producers[dest].offer(word))
            {
                return;
            }
            queue.offerLong(word);
            pendingWords.incrementAndGet();
            flush(dest);
        }
        finally
        {
            locks[dest].unlock();
        }
    }

    /**
     * @return the lock that orders everything this rank sends to {@code dest} (a no-op in SINGLE mode).
     */
    OptionalLock lockOf(final int dest)
    {
        return locks[dest];
    }

    /**
     * Takes every destination's lock, for good: for an endpoint that is closing, once a claim still held by
     * another thread is committed or aborted, nothing more is sent.
     */
    void lockAll()
    {
        for (final OptionalLock lock : locks)
        {
            if (lock != null)
            {
                lock.lock();
            }
        }
    }

    /**
     * Retries every pending word, in order per FIFO.
     */
    void flushAll()
    {
        if (pendingWords.get() == 0)
        {
            return;
        }
        for (int dest = 0; dest < size; dest++)
        {
            if (dest != rank)
            {
                locks[dest].lock();
                try
                {
                    if (flush(dest))
                    {
                        bells.afterPublish(dest);
                    }
                }
                finally
                {
                    locks[dest].unlock();
                }
            }
        }
    }

    /**
     * @return true if a word is still pending for a peer that {@code segment} says is attached.
     */
    boolean pendingToAttached(final Segment segment)
    {
        for (int dest = 0; dest < size && pendingWords.get() > 0; dest++)
        {
            if (dest != rank && !pending[dest].isEmpty() && segment.ranks().isAttached(dest))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @return true if a word reached the FIFO.
     */
    private boolean flush(final int dest)
    {
        final LongArrayQueue queue = pending[dest];
        boolean moved = false;
        while (!queue.isEmpty() && producers[dest].offer(queue.peekLong()))
        {
            queue.pollLong();
            pendingWords.decrementAndGet();
            moved = true;
        }
        return moved;
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
}
