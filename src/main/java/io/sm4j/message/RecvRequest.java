package io.sm4j.message;

import org.agrona.MutableDirectBuffer;

/**
 * A posted receive: into a buffer, or to a {@link MessageHandler} (zero copy for eager messages). Reusable: a
 * persistent request, or the communicator's own request for blocking receives, is set again per run.
 */
final class RecvRequest extends Request
{
    int source;
    int tag;
    MessageHandler handler;
    MutableDirectBuffer buffer;
    int offset;
    int capacity;
    /** The world rank of the message matched to this run (a large one may still be arriving), or -1. */
    int matchedSource = -1;
    int matchedTag;
    int total;
    int received;
    /** Order of posting, which decides between a receive naming the source and tag and a wildcard one. */
    long postNumber;
    /** System.nanoTime() when its receiver chose to have it streamed rather than read ({@link FasterOfTwo}), else 0. */
    long streamedSince;
    /** Its matcher's time spent reading other messages when it chose the stream ({@link FasterOfTwo}'s timing). */
    long readNanosBefore;

    RecvRequest(final Progress progress, final boolean persistent)
    {
        super(progress, persistent);
    }

    RecvRequest set(
        final int source, final int tag, final MutableDirectBuffer buffer, final int offset, final int capacity,
        final MessageHandler handler)
    {
        this.source = source;
        this.tag = tag;
        this.buffer = buffer;
        this.offset = offset;
        this.capacity = capacity;
        this.handler = handler;
        return this;
    }

    @Override
    void reset()
    {
        super.reset();
        received = 0;
        matchedSource = -1;
        streamedSince = 0;
    }

    @Override
    void startIn(final Progress progress)
    {
        progress.post(this);
    }

    @Override
    public int awaitedSource()
    {
        // Communicator.ANY_SOURCE is Awaitable.ANY; once matched, what is left (FRAGs, PUSHED) is never held back
        return matchedSource >= 0 ? ANY : source;
    }

    @Override
    public boolean cancel()
    {
        if (isDone() || !progress().withdraw(this))
        {
            return false;
        }
        completeCancelled();
        return true;
    }

    boolean matches(final int messageSource, final int messageTag)
    {
        return accepts(source, tag, messageSource, messageTag);
    }

    /**
     * @return true if a receive for ({@code source}, {@code tag}), wildcards allowed, takes a message from
     * {@code messageSource} with {@code messageTag}.
     */
    static boolean accepts(final int source, final int tag, final int messageSource, final int messageTag)
    {
        // a wildcard takes its context's user tags only, never a collective's or another context's
        return (source == Communicator.ANY_SOURCE || source == messageSource) && Contexts.accepts(tag, messageTag);
    }

    /**
     * @return the status, filled with the matched envelope.
     */
    Status matchedStatus()
    {
        return fill(matchedSource, matchedTag, total);
    }

    /**
     * Completes with the matched envelope.
     */
    void completeMatched()
    {
        complete(matchedSource, matchedTag, total);
    }
}
