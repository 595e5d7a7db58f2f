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
    private final ArrayList<RecvRequest> posted = new ArrayList<>();
    private final UnexpectedQueue unexpected = new UnexpectedQueue();

    /**
     * @return payload bytes the queued unexpected messages keep on the heap.
     */
    long unexpectedBytes()
    {
        return unexpected.keptBytes();
    }

    boolean hasPosted(final int source, final int tag)
    {
        return indexOfPosted(source, tag) >= 0;
    }

    /**
     * @return the earliest posted receive accepting ({@code source}, {@code tag}), removed, or null.
     */
    RecvRequest takePosted(final int source, final int tag)
    {
        final int index = indexOfPosted(source, tag);
        return index < 0 ? null : posted.remove(index);
    }

    void post(final RecvRequest request)
    {
        posted.add(request);
    }

    void queue(final Unexpected message)
    {
        unexpected.add(message);
    }

    /**
     * @return the earliest queued message {@code request} accepts, removed, or null.
     */
    Unexpected takeUnexpected(final RecvRequest request)
    {
        return unexpected.take(request.source, request.tag);
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
     * Fails the posted receives that only ranks in {@code gone} could satisfy.
     */
    void failOrphans(final boolean[] gone, final boolean everyoneGone)
    {
        posted.removeIf(recv -> (recv.source == Communicator.ANY_SOURCE ? everyoneGone : gone[recv.source]) &&
            Request.orphan(recv, "receive from " + (recv.source == Communicator.ANY_SOURCE ? "any rank" : "rank " + recv.source)));
    }

    private int indexOfPosted(final int source, final int tag)
    {
        for (int i = 0; i < posted.size(); i++)
        {
            if (posted.get(i).matches(source, tag))
            {
                return i;
            }
        }
        return -1;
    }
}
