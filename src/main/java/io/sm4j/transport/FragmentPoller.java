package io.sm4j.transport;

import io.sm4j.fifo.FastBoxConsumer;
import io.sm4j.fifo.FifoConsumer;
import io.sm4j.layout.CbIndexDescriptor;
import io.sm4j.layout.ControlBlockDescriptor;
import io.sm4j.layout.FastBoxDescriptor;
import io.sm4j.layout.FragmentDescriptor;
import io.sm4j.segment.Segment;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The receiving side of an endpoint: one rank's in-bound paths (a FIFO from every sender, and the fast boxes
 * senders have announced) and their drain. For each active sender it drains the FIFO (data fragments, returns
 * of this rank's max-size fragments, a fast box announcement), then the sender's fast box if it has one,
 * handing every message to the handler in place. Consumed eager fragments go back as credits, max-size ones
 * through the reverse FIFO. A handler that declines a message leaves it, and everything behind it from that
 * sender, for a later poll. Nothing is ever copied here, and nothing is consumed anywhere but in a poll: there
 * is no re-entrant drain. Callers hold the poll lock.
 * <p>
 * Only senders whose bit is set in this rank's activity bitmap are scanned, so an idle poll costs
 * {@code ceil(n / 64)} loads however many ranks the job has, and a busy poll costs one load per active
 * sender (two with a fast box). Successive scans start at successive active senders, so no sender starves
 * another.
 */
final class FragmentPoller
{
    private final Segment segment;
    private final int rank;
    private final FifoConsumer[] consumers;
    /** The fast box each sender sends by, or null while it uses the FIFO. */
    private final FastBoxConsumer[] boxes;
    private final UnsafeBuffer activity;
    private final long[] activityWords;
    /** The senders whose bit is set, in rank order; a scan starts at {@link #cursor}. */
    private final int[] active;
    private int activeCount;
    private int cursor;
    /** This rank's publication to each peer (null at its own rank): returns go back through them. */
    private final Publication[] publications;
    /** Words waiting for FIFO room to any peer, over all of {@link #publications}. */
    private final AtomicInteger pendingWords;
    private final FragmentAccess fragments;
    /** Senders this pass published something back to: rung at its end, once each. */
    private final boolean[] touched;
    private final int[] touchedList;
    private int touchedCount;
    private final FragmentView view = new FragmentView();
    /** The look behind a declined message ({@link #fifoAhead}, {@link #boxAhead}). */
    private final FragmentView ahead = new FragmentView();
    /** Per sender: a reader of the fast box it announced behind a declined FIFO word, for the look; opened later. */
    private final FastBoxConsumer[] announced;
    /** Per sender: the index of the box {@link #announced} reads. */
    private final long[] announcedBox;
    /** Words and records consumed so far: a source whose scan moved it gets its doorbell checked. */
    private long consumed;
    /** Per sender: an eager fragment of it was consumed since its credits were last published. */
    private final boolean[] creditsOwed;

    FragmentPoller(
        final Segment segment, final int rank, final int lazyFreeBatch, final Publication[] publications,
        final AtomicInteger pendingWords, final FragmentAccess fragments)
    {
        this.segment = segment;
        this.rank = rank;
        final int size = segment.layout().params().peers();
        final int entries = segment.layout().params().queueEntries();
        consumers = new FifoConsumer[size];
        boxes = new FastBoxConsumer[size];
        announced = new FastBoxConsumer[size];
        announcedBox = new long[size];
        for (int peer = 0; peer < size; peer++)
        {
            if (peer != rank)
            {
                consumers[peer] = new FifoConsumer(segment.views().queue(peer, rank), entries, segment.views().tail(peer, rank), lazyFreeBatch);
            }
        }
        activity = segment.views().activity(rank);
        activityWords = new long[ControlBlockDescriptor.activityLength(size) / Long.BYTES];
        active = new int[size];
        creditsOwed = new boolean[size];
        this.publications = publications;
        this.pendingWords = pendingWords;
        this.fragments = fragments;
        touched = new boolean[publications.length];
        touchedList = new int[publications.length];
    }

    /**
     * @return messages delivered to {@code handler}, up to {@code limit}.
     */
    int poll(final FragmentHandler handler, final int limit)
    {
        int delivered = 0;
        final int count = startScan();
        for (int i = 0, next = cursor; i < count && delivered < limit; i++, next = next + 1 == count ? 0 : next + 1)
        {
            delivered += drainSource(active[next], handler, limit - delivered);
        }
        flushPending();
        ringTouched();
        return delivered;
    }

    /**
     * Drains one sender's in-bound paths only (its FIFO, then its fast box), as {@link #poll} drains each
     * active sender's: for a caller that waits for a message from that sender alone. What other senders
     * published stays for the next poll.
     *
     * @return messages delivered to {@code handler}, up to {@code limit}.
     */
    int pollSource(final int source, final FragmentHandler handler, final int limit)
    {
        final int delivered = drainSource(source, handler, limit);
        flushPending();
        ringTouched();
        return delivered;
    }

    private int drainSource(final int source, final FragmentHandler handler, final int limit)
    {
        final long before = consumed;
        int delivered = drainFifo(source, handler, limit);
        final FastBoxConsumer box = boxes[source];
        final long room = box == null ? 0 : box.published();
        if (box != null && delivered < limit)
        {
            delivered += drainBox(source, box, handler, limit - delivered);
        }
        if (creditsOwed[source])
        {
            creditsOwed[source] = false; // an inline record has no fragment: that path does not come here
            fragments.publishCredits(source);
        }
        if (consumed != before || box != null && box.published() != room)
        {
            // credits, slots, box room or fragments back: the sender may wait for them. The box's room is
            // also published by a pass that finds it empty after an earlier pass consumed its records.
            touch(source);
        }
        return delivered;
    }

    /**
     * Rereads the activity bitmap and moves the scan's start to the next active sender.
     *
     * @return senders to scan this time: {@code active} from {@code cursor} on, wrapping.
     */
    private int startScan()
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
            for (int peer = 0; peer < consumers.length; peer++)
            {
                if (peer != rank && (activityWords[peer / Long.SIZE] & (1L << (peer % Long.SIZE))) != 0)
                {
                    active[activeCount++] = peer;
                }
            }
        }
        // bits are only ever set, so the cursor is below the count: no division on the poll's path
        cursor = cursor + 1 >= activeCount ? 0 : cursor + 1;
        return activeCount;
    }

    /**
     * Starts reading fast box {@code box} from {@code source}, which announced it through its FIFO: every
     * message it sent before is already consumed, everything after is in the box.
     *
     * @return null if the announcement is valid, else what is wrong with it.
     */
    private String openBox(final int source, final long box)
    {
        final String wrong = announcementProblem(source, box);
        if (wrong == null)
        {
            // the look's reader, if it read this box (an announcement of another box would be a second one: corrupt)
            boxes[source] = announced[source] != null && announcedBox[source] == box ? announced[source] : boxReader(box);
            announced[source] = null;
        }
        return wrong;
    }

    /**
     * @return null if {@code source} may announce fast box {@code box} now, else what is wrong with it.
     */
    private String announcementProblem(final int source, final long box)
    {
        final int count = segment.layout().fastBoxCount();
        if (box < 0 || box >= count || boxes[source] != null)
        {
            return "fast box " + box + " announced (boxes: " + count + ", one already open: " + (boxes[source] != null) + ")";
        }
        // NOTE: acquire pairs with the sender's CAS of the owner word, which came before its announcement.
        final int owner = segment.views().fastBoxOwners(rank).getIntVolatile((int)box * FastBoxDescriptor.OWNER_LENGTH);
        return owner == source + 1 ? null : "fast box " + box + " announced but owned by " + (owner - 1);
    }

    /**
     * @return a reader of this rank's fast box {@code box} (a checked index), from its start.
     */
    private FastBoxConsumer boxReader(final long box)
    {
        return new FastBoxConsumer(segment.views().fastBoxRing(rank, (int)box), segment.views().fastBoxPosition(rank, (int)box));
    }

    /**
     * Retries every word waiting for FIFO room, in order per FIFO.
     */
    void flushPending()
    {
        if (pendingWords.get() == 0)
        {
            return;
        }
        for (final Publication publication : publications)
        {
            if (publication != null)
            {
                publication.flush();
            }
        }
    }

    private void touch(final int source)
    {
        if (!touched[source])
        {
            touched[source] = true;
            touchedList[touchedCount++] = source;
        }
    }

    private void ringTouched()
    {
        for (int i = 0; i < touchedCount; i++)
        {
            final int source = touchedList[i];
            touched[source] = false;
            publications[source].ringIfArmed();
        }
        touchedCount = 0;
    }

    private int drainFifo(final int source, final FragmentHandler handler, final int limit)
    {
        final FifoConsumer fifo = consumers[source];
        int delivered = 0;
        boolean overdraw = false; // taking declined messages, up to one that must not wait behind them
        long word;
        while (delivered < limit && (word = fifo.peek()) != CbIndexDescriptor.EMPTY_SLOT)
        {
            if ((word & (CbIndexDescriptor.RETURN_FLAG | CbIndexDescriptor.FAST_BOX_FLAG)) != 0)
            {
                onControlWord(source, word);
                fifo.advance();
                consumed++;
                overdraw = false;
                continue;
            }
            final boolean eager = fragments.wrapReceived(view, source, word);
            final boolean accepted = handler.accepts(view);
            if (!accepted && (!handler.acceptsAhead(view) || !overdraw && !(overdraw = fifoAhead(source, fifo, handler))))
            {
                if (fifo.clearNow())
                {
                    touch(source); // every slot the words left here do not hold, for what must not wait behind them
                }
                break;
            }
            overdraw &= !accepted; // taken as it is: the message that must not wait, and declines from here hold again
            fifo.advance(); // frees the slot only: the fragment goes back after the handler
            consumed++;
            try
            {
                handler.onFragment(view);
                delivered++;
            }
            finally
            {
                giveBack(source, word, eager);
            }
        }
        return delivered;
    }

    /**
     * A return of this rank's max-size fragment, or the announcement of the sender's fast box.
     */
    private void onControlWord(final int source, final long word)
    {
        if ((word & CbIndexDescriptor.RETURN_FLAG) != 0)
        {
            fragments.takeBack(source, word & ~CbIndexDescriptor.RETURN_FLAG);
            return;
        }
        final String wrong = openBox(source, word >>> CbIndexDescriptor.FAST_BOX_SHIFT);
        if (wrong != null)
        {
            throw fragments.corrupt(source, wrong);
        }
    }

    private int drainBox(final int source, final FastBoxConsumer box, final FragmentHandler handler, final int limit)
    {
        final AtomicBuffer ring = box.ring();
        int delivered = 0;
        boolean overdraw = false; // as drainFifo's
        int code;
        while (delivered < limit && (code = box.peek()) != 0)
        {
            final int index = box.index();
            final int recordLength;
            long fragment = -1;
            boolean eager = false;
            if (code != FastBoxDescriptor.REFERENCE)
            {
                final int length = FastBoxDescriptor.inlinePayload(code);
                if (length > box.remaining() - FragmentDescriptor.HEADER_LENGTH ||
                    ring.getInt(index + FragmentDescriptor.SENDER_OFFSET) != source)
                {
                    throw fragments.corrupt(source, "fast box record of " + length + " bytes at " + index);
                }
                recordLength = FastBoxDescriptor.inlineRecordLength(length);
                view.wrap(ring, index, length, source);
            }
            else if (box.remaining() >= FastBoxDescriptor.REFERENCE_LENGTH)
            {
                recordLength = FastBoxDescriptor.REFERENCE_LENGTH;
                fragment = ring.getLong(index + FastBoxDescriptor.REFERENCE_OFFSET);
                eager = fragments.wrapReceived(view, source, fragment);
            }
            else
            {
                throw fragments.corrupt(source, "fast box reference record at " + index);
            }
            final boolean accepted = handler.accepts(view);
            if (!accepted && (!handler.acceptsAhead(view) || !overdraw && !(overdraw = boxAhead(source, box, handler))))
            {
                box.publishConsumed(); // the room freed so far, for a sender that waits on it
                break;
            }
            overdraw &= !accepted;
            try
            {
                handler.onFragment(view);
                delivered++;
            }
            finally
            {
                consumed++;
                box.consume(recordLength);
                if (fragment >= 0)
                {
                    giveBack(source, fragment, eager);
                }
            }
        }
        return delivered;
    }

    /**
     * Looks behind the declined word at the head of {@code source}'s FIFO, consuming nothing, for what must not
     * wait behind it: a return of this rank's fragment, or a message the handler says must not wait, in the FIFO
     * or in the fast box the sender announced behind it (its later messages are there: the box opens only when
     * the announcement is reached in order, so the look reads it with a reader of its own).
     *
     * @return true if there is one: the handler may then take the messages ahead of it past its decline
     *         ({@link FragmentHandler#acceptsAhead}).
     */
    private boolean fifoAhead(final int source, final FifoConsumer fifo, final FragmentHandler handler)
    {
        long word;
        for (int k = 1; (word = fifo.peekAhead(k)) != CbIndexDescriptor.EMPTY_SLOT; k++)
        {
            if ((word & CbIndexDescriptor.FAST_BOX_FLAG) != 0)
            {
                final long box = word >>> CbIndexDescriptor.FAST_BOX_SHIFT;
                if (announced[source] == null && announcementProblem(source, box) == null)
                {
                    announced[source] = boxReader(box); // kept, so that each poll's look goes on where the last stopped
                    announcedBox[source] = box;
                }
                if (announced[source] != null && announcedBox[source] == box && boxAhead(source, announced[source], handler))
                {
                    return true; // a poll that reaches a wrong announcement reports it
                }
                continue;
            }
            if ((word & CbIndexDescriptor.RETURN_FLAG) != 0)
            {
                return true;
            }
            if (!fragments.peekReceived(ahead, source, word))
            {
                return false; // the poll that reaches it reports it
            }
            if (handler.mustNotWait(ahead))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * As {@link #fifoAhead}, behind the declined record at the head of {@code source}'s fast box (returns and
     * announcements travel in the FIFO, which a poll drains first). While the head stays, each poll's look goes on
     * from where the last one stopped ({@link FastBoxConsumer#startLookahead}): a rank that waits with a declined
     * head reads each record behind it once, not once per poll.
     */
    private boolean boxAhead(final int source, final FastBoxConsumer box, final FragmentHandler handler)
    {
        final AtomicBuffer ring = box.ring();
        box.startLookahead();
        int code;
        // the walk ends a lap past the head whatever the sender writes (peekAhead); the head, declined, is no such message
        while ((code = box.peekAhead()) != 0)
        {
            final int index = box.aheadIndex();
            final int remaining = ring.capacity() - index;
            final int recordLength;
            if (code != FastBoxDescriptor.REFERENCE)
            {
                final int length = FastBoxDescriptor.inlinePayload(code);
                if (length > remaining - FragmentDescriptor.HEADER_LENGTH)
                {
                    return false; // the poll that reaches it reports it
                }
                recordLength = FastBoxDescriptor.inlineRecordLength(length);
                ahead.wrap(ring, index, length, source);
            }
            else if (remaining < FastBoxDescriptor.REFERENCE_LENGTH ||
                !fragments.peekReceived(ahead, source, ring.getLong(index + FastBoxDescriptor.REFERENCE_OFFSET)))
            {
                return false;
            }
            else
            {
                recordLength = FastBoxDescriptor.REFERENCE_LENGTH;
            }
            if (handler.mustNotWait(ahead))
            {
                return true; // the look stays on it: the next one, if the head has not moved, finds it at once
            }
            box.skipAhead(recordLength);
        }
        return false;
    }

    /**
     * Returns a consumed fragment: an eager one as a credit, a max-size one through the reverse FIFO.
     */
    private void giveBack(final int source, final long fragment, final boolean eager)
    {
        if (eager)
        {
            fragments.consumedEager(source);
            creditsOwed[source] = true;
        }
        else
        {
            publications[source].enqueue(fragment | CbIndexDescriptor.RETURN_FLAG);
        }
    }
}
