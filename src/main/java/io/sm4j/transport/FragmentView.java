package io.sm4j.transport;

import io.sm4j.layout.FragmentDescriptor;
import org.agrona.DirectBuffer;

/**
 * A flyweight over one received message (a fragment, or a fast box's inline record): its header fields and
 * its payload, in place (zero copy).
 * Valid only inside {@link FragmentHandler#onFragment}.
 */
public final class FragmentView
{
    private DirectBuffer buffer;
    private int start;
    private int length;

    FragmentView wrap(final DirectBuffer buffer, final int start, final int length)
    {
        this.buffer = buffer;
        this.start = start;
        this.length = length;
        return this;
    }

    public int source()
    {
        return buffer.getInt(start + FragmentDescriptor.SENDER_OFFSET);
    }

    public int type()
    {
        return buffer.getInt(start + FragmentDescriptor.TYPE_OFFSET);
    }

    public int tag()
    {
        return buffer.getInt(start + FragmentDescriptor.TAG_OFFSET);
    }

    public long sequence()
    {
        return buffer.getLong(start + FragmentDescriptor.SEQUENCE_OFFSET);
    }

    public long aux()
    {
        return buffer.getLong(start + FragmentDescriptor.AUX_OFFSET);
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
