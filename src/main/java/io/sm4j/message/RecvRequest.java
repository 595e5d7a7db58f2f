package io.sm4j.message;

import org.agrona.MutableDirectBuffer;

/**
 * A posted receive: into a buffer, or to a {@link MessageHandler} (zero copy for eager messages).
 */
final class RecvRequest extends Request
{
    final int source;
    final int tag;
    final MessageHandler handler;
    MutableDirectBuffer buffer;
    int offset;
    int capacity;
    int matchedSource;
    int matchedTag;
    int total;
    int received;

    RecvRequest(
        final Communicator communicator, final int source, final int tag,
        final MutableDirectBuffer buffer, final int offset, final int capacity, final MessageHandler handler)
    {
        super(communicator);
        this.source = source;
        this.tag = tag;
        this.buffer = buffer;
        this.offset = offset;
        this.capacity = capacity;
        this.handler = handler;
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
        return (source == Communicator.ANY_SOURCE || source == messageSource) &&
            (tag == Communicator.ANY_TAG || tag == messageTag);
    }

    Status matchedStatus()
    {
        return new Status(matchedSource, matchedTag, total);
    }
}
