package io.sm4j.message;

/**
 * The two matching queues of one rank, both in arrival order: receives posted and not yet matched, and
 * messages arrived (or announced, if large) before any receive accepted them. An arriving message takes
 * the earliest posted receive that accepts it; a new receive takes the earliest queued message it
 * accepts. That, with each pair's FIFO being ordered, is what makes matching non-overtaking.
 */
final class MatchQueues
{
    private final PostedReceives posted = new PostedReceives();
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
        return posted.has(source, tag);
    }

    /**
     * @return the earliest posted receive accepting ({@code source}, {@code tag}), removed, or null.
     */
    RecvRequest takePosted(final int source, final int tag)
    {
        return posted.take(source, tag);
    }

    void post(final RecvRequest request)
    {
        posted.add(request);
    }

    /**
     * Withdraws a receive that is still posted.
     */
    /**
     * @return true if {@code request} was still posted (no message had matched it).
     */
    boolean withdraw(final RecvRequest request)
    {
        return posted.remove(request);
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
        posted.failOrphans(gone, self);
    }
}
