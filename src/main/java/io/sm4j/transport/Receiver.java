package io.sm4j.transport;

import io.sm4j.layout.FragmentDescriptor;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;

import static io.sm4j.layout.CbIndexDescriptor.RETURN_FLAG;

/**
 * The receiving side of an endpoint: drains the in-bound FIFOs, takes back this rank's returned
 * fragments, hands data fragments to the handler in place and returns each to its sender, and keeps the
 * backlog: heap copies of data fragments drained while no handler could take them (a send waiting for a
 * free fragment drains with none), delivered first by the next poll. Callers hold the poll lock.
 */
final class Receiver
{
    private final Inbound inbound;
    private final Outbound outbound;
    private final FragmentAccess fragments;
    private final ArrayDeque<UnsafeBuffer> backlog = new ArrayDeque<>();
    private final FragmentView view = new FragmentView();
    private final Inbound.WordHandler onWord = this::onWord;
    private FragmentHandler handler;

    Receiver(final Inbound inbound, final Outbound outbound, final FragmentAccess fragments)
    {
        this.inbound = inbound;
        this.outbound = outbound;
        this.fragments = fragments;
    }

    /**
     * Delivers the backlog first, then fresh fragments, up to {@code limit} in all.
     *
     * @return data fragments delivered.
     */
    int poll(final FragmentHandler handler, final int limit)
    {
        int delivered = 0;
        while (delivered < limit && !backlog.isEmpty())
        {
            final UnsafeBuffer copy = backlog.poll();
            handler.onFragment(view.wrap(copy, 0, copy.getInt(FragmentDescriptor.LENGTH_OFFSET)));
            delivered++;
        }
        return delivered + drain(handler, limit - delivered);
    }

    /**
     * Drains in-bound FIFOs; with a null handler, data goes to the backlog. Re-entrant: a handler whose send
     * finds the pool empty drains again, and the outer handler is restored afterwards.
     */
    int drain(final FragmentHandler handler, final int limit)
    {
        final FragmentHandler outer = this.handler;
        this.handler = handler;
        try
        {
            final int delivered = inbound.drain(limit, onWord);
            outbound.flushAll();
            return delivered;
        }
        finally
        {
            this.handler = outer;
        }
    }

    /**
     * Delivers a data fragment to the handler, or parks a copy in the backlog when there is no handler or
     * the backlog is not empty (anything behind a parked fragment is parked too, so order per sender holds).
     *
     * @return true if a data fragment was handed to the handler.
     */
    private boolean onWord(final int source, final long word)
    {
        if ((word & RETURN_FLAG) != 0)
        {
            fragments.takeBack(source, word & ~RETURN_FLAG);
            return false;
        }
        final FragmentView fragment = fragments.wrapReceived(view, source, word);
        final boolean direct = handler != null && backlog.isEmpty();
        try
        {
            if (direct)
            {
                handler.onFragment(fragment);
            }
            else
            {
                final int start = fragment.offset() - FragmentDescriptor.HEADER_LENGTH;
                final UnsafeBuffer copy = new UnsafeBuffer(new byte[FragmentDescriptor.HEADER_LENGTH + fragment.length()]);
                copy.putBytes(0, fragment.buffer(), start, copy.capacity());
                backlog.add(copy);
            }
        }
        finally
        {
            outbound.enqueue(source, word | RETURN_FLAG);
        }
        return direct;
    }
}
