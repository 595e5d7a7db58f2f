package io.sm4j.transport;

import io.sm4j.fifo.FastBoxConsumer;
import io.sm4j.fifo.FifoConsumer;
import io.sm4j.layout.ControlBlockDescriptor;
import io.sm4j.layout.FastBoxDescriptor;
import io.sm4j.layout.SegmentLayout;
import io.sm4j.segment.Segment;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One rank's in-bound paths: a FIFO from every sender, and the fast boxes senders have announced, with the
 * set of senders to scan. Only senders whose bit is set in this rank's activity bitmap are scanned, so an
 * idle poll costs {@code ceil(n / 64)} loads however many ranks the job has, and a busy poll costs one load
 * per active sender (two with a fast box). Successive scans start at successive active senders, so no sender
 * starves another. Not thread-safe: the endpoint's poll lock serialises it.
 */
final class InboundQueues
{
    private final Segment segment;
    private final SegmentLayout layout;
    private final int rank;
    private final int size;
    private final FifoConsumer[] consumers;
    private final FastBoxConsumer[] boxes;
    private final UnsafeBuffer activity;
    private final long[] activityWords;
    private final int[] active;
    private int activeCount;
    private int cursor;

    InboundQueues(final Segment segment, final int rank, final int lazyFreeBatch)
    {
        this.segment = segment;
        this.layout = segment.layout();
        final int entries = layout.params().queueEntries();
        this.rank = rank;
        this.size = layout.params().peers();
        consumers = new FifoConsumer[size];
        boxes = new FastBoxConsumer[size];
        for (int peer = 0; peer < size; peer++)
        {
            if (peer != rank)
            {
                consumers[peer] = new FifoConsumer(segment.views().queue(peer, rank), entries, segment.views().tail(peer, rank), lazyFreeBatch);
            }
        }
        final int activityLength = ControlBlockDescriptor.activityLength(size);
        activity = segment.views().activity(rank);
        activityWords = new long[activityLength / Long.BYTES];
        active = new int[size];
    }

    /**
     * Rereads the activity bitmap and starts a scan.
     *
     * @return senders to scan this time: {@link #source}(0 .. count-1).
     */
    int startScan()
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
        cursor = activeCount == 0 ? 0 : (cursor + 1) % activeCount;
        return activeCount;
    }

    /**
     * @return the {@code i}-th sender of this scan.
     */
    int source(final int i)
    {
        return active[(cursor + i) % activeCount];
    }

    FifoConsumer fifo(final int source)
    {
        return consumers[source];
    }

    /**
     * @return the fast box {@code source} sends by, or null while it uses the FIFO.
     */
    FastBoxConsumer box(final int source)
    {
        return boxes[source];
    }

    /**
     * Starts reading fast box {@code box} from {@code source}, which announced it through its FIFO: every
     * message it sent before is already consumed, everything after is in the box.
     *
     * @return null if the announcement is valid, else what is wrong with it.
     */
    String openBox(final int source, final long box)
    {
        if (box < 0 || box >= layout.fastBoxCount() || boxes[source] != null)
        {
            return "fast box " + box + " announced (boxes: " + layout.fastBoxCount() + ", one already open: " +
                (boxes[source] != null) + ")";
        }
        final int index = (int)box;
        // NOTE: acquire pairs with the sender's CAS of the owner word, which came before its announcement.
        final int owner = segment.views().fastBoxOwners(rank).getIntVolatile(index * FastBoxDescriptor.OWNER_LENGTH);
        if (owner != source + 1)
        {
            return "fast box " + box + " announced but owned by " + (owner - 1);
        }
        boxes[source] = new FastBoxConsumer(segment.views().fastBoxRing(rank, index), segment.views().fastBoxPosition(rank, index));
        return null;
    }
}
