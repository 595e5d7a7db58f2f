package io.sm4j.transport;

import io.sm4j.fifo.FifoConsumer;
import io.sm4j.layout.CbIndexDescriptor;
import io.sm4j.layout.ControlBlockDescriptor;
import io.sm4j.layout.SegmentLayout;
import io.sm4j.segment.Segment;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One rank's in-bound FIFOs and the scan over them. Only senders whose bit is set in this rank's activity
 * bitmap are scanned, so an idle poll costs {@code ceil(n / 64)} loads however many ranks the job has,
 * and a busy poll costs one load per active sender. Successive scans start at successive active senders,
 * so no sender starves another. Not thread-safe: the endpoint's poll lock serialises it.
 */
final class Inbound
{
    /**
     * Receives one word from one sender.
     */
    @FunctionalInterface
    interface WordHandler
    {
        /**
         * @return true if the word counts as a delivered fragment.
         */
        boolean onWord(int source, long word);
    }

    private final int rank;
    private final int size;
    private final FifoConsumer[] consumers;
    private final UnsafeBuffer activity;
    private final long[] activityWords;
    private final int[] active;
    private int activeCount;
    private int cursor;

    Inbound(final Segment segment, final int rank, final int lazyFreeBatch)
    {
        final SegmentLayout layout = segment.layout();
        final int entries = layout.params().queueEntries();
        this.rank = rank;
        this.size = layout.params().peers();
        consumers = new FifoConsumer[size];
        for (int peer = 0; peer < size; peer++)
        {
            if (peer != rank)
            {
                consumers[peer] = new FifoConsumer(segment.view(layout.queueOffset(peer, rank), (int)layout.queueLength()),
                    entries, segment.view(layout.tailOffset(peer, rank), CbIndexDescriptor.TAIL_LENGTH), lazyFreeBatch);
            }
        }
        final int activityLength = ControlBlockDescriptor.activityLength(size);
        activity = segment.view(layout.activityOffset(rank), activityLength);
        activityWords = new long[activityLength / Long.BYTES];
        active = new int[size];
    }

    /**
     * Hands up to {@code limit} delivered words to {@code handler}.
     *
     * @return words the handler counted as delivered.
     */
    int drain(final int limit, final WordHandler handler)
    {
        refreshActivePeers();
        int delivered = 0;
        for (int i = 0; i < activeCount && delivered < limit; i++)
        {
            final int source = active[(cursor + i) % activeCount];
            final FifoConsumer consumer = consumers[source];
            long word;
            while (delivered < limit && (word = consumer.poll()) != CbIndexDescriptor.EMPTY_SLOT)
            {
                if (handler.onWord(source, word))
                {
                    delivered++;
                }
            }
        }
        cursor = activeCount == 0 ? 0 : (cursor + 1) % activeCount;
        return delivered;
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
}
