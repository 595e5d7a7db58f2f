package io.sm4j.transport;

import io.sm4j.layout.FragmentDescriptor;
import org.agrona.DirectBuffer;

/**
 * A flyweight over one received message (a fragment, or a fast box's inline record): its sender and its
 * payload, in place (zero copy). The transport knows nothing else of a message: a message layer's own
 * header is the start of the payload.
 * Valid only inside {@link FragmentHandler#onFragment}.
 */
public final class FragmentView
{
    private DirectBuffer buffer;
    private int start;
    private int length;
    private int source;

    /**
     * @param source the sender, checked against the header's sender word by the caller: kept, not re-read
     *               from memory the sender can still write.
     */
    FragmentView wrap(final DirectBuffer buffer, final int start, final int length, final int source)
    {
        this.source = source;
        this.buffer = buffer;
        this.start = start;
        this.length = length;
        return this;
    }

    public int source()
    {
        return source;
    }

    /**
     * @return the buffer holding the payload at {@link #offset()}; do not write to it.
     */
    public DirectBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return index of the payload's first byte in {@link #buffer()}.
     */
    public int offset()
    {
        return start + FragmentDescriptor.HEADER_LENGTH;
    }

    /**
     * @return payload bytes.
     */
    public int length()
    {
        return length;
    }
}
