package io.sm4j.transport;

import io.sm4j.fifo.FastBoxConsumer;
import io.sm4j.fifo.FifoConsumer;
import io.sm4j.layout.CbIndexDescriptor;
import io.sm4j.layout.FastBoxDescriptor;
import io.sm4j.layout.FragmentDescriptor;
import org.agrona.concurrent.AtomicBuffer;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The receiving side of an endpoint: for each active sender, drains its FIFO (data fragments, returns of
 * this rank's max-size fragments, a fast box announcement), then its fast box if it has one, handing every
 * message to the handler in place. Consumed eager fragments go back as credits, max-size ones through the
 * reverse FIFO. A handler that declines a message leaves it, and everything behind it from that sender, for
 * a later poll. Nothing is ever copied here, and nothing is consumed anywhere but in a poll: there is no
 * re-entrant drain. Callers hold the poll lock.
 */
final class FragmentPoller
{
    private final InboundQueues inbound;
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
    /** Words and records consumed so far: a source whose scan moved it gets its doorbell checked. */
    private long consumed;

    FragmentPoller(
        final InboundQueues inbound, final Publication[] publications, final AtomicInteger pendingWords,
        final FragmentAccess fragments)
    {
        this.inbound = inbound;
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
        final int count = inbound.startScan();
        for (int i = 0; i < count && delivered < limit; i++)
        {
            final int source = inbound.source(i);
            final long before = consumed;
            delivered += drainFifo(source, handler, limit - delivered);
            final FastBoxConsumer box = inbound.box(source);
            final long room = box == null ? 0 : box.published();
            if (box != null && delivered < limit)
            {
                delivered += drainBox(source, box, handler, limit - delivered);
            }
            fragments.publishCredits(source);
            if (consumed != before || box != null && box.published() != room)
            {
                // credits, slots, box room or fragments back: the sender may wait for them. The box's room is
                // also published by a pass that finds it empty after an earlier pass consumed its records.
                touch(source);
            }
        }
        flushPending();
        ringTouched();
        return delivered;
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
        final FifoConsumer fifo = inbound.fifo(source);
        int delivered = 0;
        long word;
        while (delivered < limit && (word = fifo.peek()) != CbIndexDescriptor.EMPTY_SLOT)
        {
            if ((word & (CbIndexDescriptor.RETURN_FLAG | CbIndexDescriptor.FAST_BOX_FLAG)) != 0)
            {
                onControlWord(source, word);
                fifo.advance();
                consumed++;
                continue;
            }
            final boolean eager = fragments.wrapReceived(view, source, word);
            if (!handler.accepts(view))
            {
                break;
            }
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
        final String wrong = inbound.openBox(source, word >>> CbIndexDescriptor.FAST_BOX_SHIFT);
        if (wrong != null)
        {
            throw fragments.corrupt(source, wrong);
        }
    }

    private int drainBox(final int source, final FastBoxConsumer box, final FragmentHandler handler, final int limit)
    {
        final AtomicBuffer ring = box.ring();
        int delivered = 0;
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
            if (!handler.accepts(view))
            {
                box.publishConsumed(); // the room freed so far, for a sender that waits on it
                break;
            }
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
     * Returns a consumed fragment: an eager one as a credit, a max-size one through the reverse FIFO.
     */
    private void giveBack(final int source, final long fragment, final boolean eager)
    {
        if (eager)
        {
            fragments.consumedEager(source);
        }
        else
        {
            publications[source].enqueue(fragment | CbIndexDescriptor.RETURN_FLAG);
        }
    }
}
