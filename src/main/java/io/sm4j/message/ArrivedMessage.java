package io.sm4j.message;

import io.sm4j.segment.Sm4jException;
import io.sm4j.transport.FragmentView;
import org.agrona.DirectBuffer;

import static io.sm4j.message.MessageHeaderDescriptor.*;

/**
 * One arrived message as the message layer sees it: its header ({@link MessageHeaderDescriptor}) read once
 * from shared memory into fields and checked, since the sender can still write there, and its payload in
 * place. Reused for every message; valid while the transport's view is.
 */
final class ArrivedMessage
{
    private final int rank;
    private int source;
    private int type;
    private int tag;
    private long sequence;
    private long aux;
    private DirectBuffer buffer;
    private int offset;
    private int length;

    /**
     * @param rank the receiving rank, for error messages.
     */
    ArrivedMessage(final int rank)
    {
        this.rank = rank;
    }

    /**
     * @throws Sm4jException if the payload is shorter than its type's header or the type is unknown.
     */
    ArrivedMessage read(final FragmentView f)
    {
        source = f.source();
        buffer = f.buffer();
        final int start = f.offset();
        final int total = f.length();
        type = total < MATCH_HEADER_LENGTH ? 0 : buffer.getInt(start + TYPE_OFFSET);
        if (type < MessageType.EAGER || type > MessageType.HELP)
        {
            throw protocolError("a " + total + "-byte message of unknown type");
        }
        final int header = headerLength(type);
        if (total < header)
        {
            throw protocolError("a " + total + "-byte message, shorter than its " + header + "-byte header");
        }
        tag = buffer.getInt(start + TAG_OFFSET);
        sequence = type == MessageType.EAGER ? 0 : buffer.getLong(start + SEQUENCE_OFFSET);
        aux = type == MessageType.EAGER ? 0 : buffer.getLong(start + AUX_OFFSET);
        offset = start + header;
        length = total - header;
        return this;
    }

    int source()
    {
        return source;
    }

    int type()
    {
        return type;
    }

    int tag()
    {
        return tag;
    }

    long sequence()
    {
        return sequence;
    }

    long aux()
    {
        return aux;
    }

    /**
     * @return the buffer holding the payload at {@link #offset()}; do not write to it.
     */
    DirectBuffer buffer()
    {
        return buffer;
    }

    int offset()
    {
        return offset;
    }

    /**
     * @return payload bytes, after the header.
     */
    int length()
    {
        return length;
    }

    Sm4jException protocolError(final String what)
    {
        return new Sm4jException("protocol error from rank " + source + " at rank " + rank + " (type " + type + "): " + what);
    }
}
