package io.sm4j.message;

import java.util.ArrayList;

/**
 * The two matching queues of one rank, both in arrival order: receives posted and not yet matched, and
 * messages arrived (or announced, if large) before any receive accepted them. An arriving message takes
 * the earliest posted receive that accepts it; a new receive takes the earliest queued message it
 * accepts. That, with each pair's FIFO being ordered, is what makes matching non-overtaking.
 */
final class MatchQueues
{
    private final PostedReceives posted = new PostedReceives();
    private final UnexpectedQueue unexpected;
    /**
     * The posted receives on a collective's tag (a communicator's collective waits for one at a time, so this
     * holds one per communicator with a collective under way, usually none): each message queued from their
     * source on their context's collectives' tags is checked against them ({@link #queue}).
     */
    private final ArrayList<RecvRequest> collective = new ArrayList<>(2);
    /** Neither a receive posted nor a message queued ({@link #settle}). */
    private boolean empty = true;

    /**
     * @param size the ranks of the job: the sources whose messages may be queued.
     */
    MatchQueues(final int size)
    {
        this.unexpected = new UnexpectedQueue(size);
    }

    /**
     * @return payload bytes the queued unexpected messages keep on the heap.
     */
    long unexpectedBytes()
    {
        return unexpected.keptBytes();
    }

    /**
     * @return true if no receive is posted and no message is queued.
     */
    boolean isEmpty()
    {
        return empty;
    }

    /**
     * After every change of either queue: {@link #isEmpty} is asked before each blocking receive, which then enters
     * neither queue's class.
     */
    private void settle()
    {
        empty = posted.isEmpty() && unexpected.isEmpty();
    }

    boolean hasPosted(final int source, final int tag)
    {
        return posted.has(source, tag);
    }

    /**
     * @return the earliest posted receive accepting ({@code source}, {@code tag}), removed, or null.
     */
    RecvRequest takePosted(final int source, final int tag)
    {
        final RecvRequest taken = posted.take(source, tag);
        if (taken != null)
        {
            if (!collective.isEmpty())
            {
                collective.remove(taken);
            }
            settle();
        }
        return taken;
    }

    /**
     * Posts {@code request}, which no queued message matched, unless it is on a collective's tag from a named
     * source whose earliest queued message on its context's collectives' tags carries another tag: that
     * source called another collective ({@link CrossedCollectiveException}).
     *
     * @return that message (then {@code request} is not posted), or null.
     */
    Unexpected post(final RecvRequest request)
    {
        final int context = request.source == Communicator.ANY_SOURCE ? -1 : Contexts.collectiveContext(request.tag);
        if (context >= 0)
        {
            final Unexpected crossing = queuedCollective(request.source, context);
            if (crossing != null)
            {
                return crossing;
            }
            collective.add(request);
        }
        posted.add(request);
        empty = false;
        return null;
    }

    /**
     * @return true if {@code request} was still posted (no message had matched it).
     */
    boolean withdraw(final RecvRequest request)
    {
        collective.remove(request);
        final boolean removed = posted.remove(request);
        settle();
        return removed;
    }

    /**
     * Queues a message no posted receive took.
     *
     * @return a receive posted on a collective's tag from the message's source, on the same context's
     *         collectives' tags but another one, withdrawn: the source called another collective (its message
     *         is the first from it on those tags, or that receive would not have been posted); else null.
     */
    RecvRequest queue(final Unexpected message)
    {
        unexpected.add(message);
        empty = false;
        final int context = Contexts.collectiveContext(message.tag());
        for (int i = 0; context >= 0 && i < collective.size(); i++)
        {
            final RecvRequest request = collective.get(i);
            if (request.source == message.source() && request.tag != message.tag() &&
                Contexts.collectiveContext(request.tag) == context)
            {
                collective.remove(i);
                posted.remove(request);
                return request;
            }
        }
        return null;
    }

    /**
     * @return the earliest queued message {@code request} accepts, removed, or null.
     */
    Unexpected takeUnexpected(final RecvRequest request)
    {
        final Unexpected taken = unexpected.take(request.source, request.tag);
        if (taken != null)
        {
            settle();
        }
        return taken;
    }

    /**
     * @return the earliest queued message from {@code source} on one of {@code context}'s collectives' tags, or
     *         null: a message of a collective call that this rank, in the same call, has not received.
     */
    Unexpected queuedCollective(final int source, final int context)
    {
        return unexpected.firstCollective(source, context);
    }

    /**
     * @return the envelope of the earliest queued message a receive for ({@code source}, {@code tag}) would
     * take, or null.
     */
    Status peekUnexpected(final int source, final int tag)
    {
        final Unexpected message = unexpected.peek(source, tag);
        return message == null ? null : new Status(message.source(), message.tag(), message.total());
    }

    /**
     * @return the unexpected messages no receive has taken, in arrival order.
     */
    java.util.List<Unexpected> unexpected()
    {
        return unexpected.all();
    }

    /**
     * Fails the posted receives that only ranks in {@code gone} could satisfy.
     */
    void failOrphans(final boolean[] gone, final int self)
    {
        try
        {
            posted.failOrphans(gone, self);
        }
        finally
        {
            collective.removeIf(Request::isDone);
            settle();
        }
    }
}
