package io.sm4j.transport;

import org.agrona.DirectBuffer;

/**
 * Argument checks shared by the transport and the message layer, done before anything touches shared
 * memory.
 */
public final class BufferChecks
{
    private BufferChecks()
    {
    }

    /**
     * @throws NullPointerException      naming {@code name} if {@code buffer} is null.
     * @throws IndexOutOfBoundsException if {@code [offset, offset + length)} is not inside the buffer.
     */
    public static void checkRange(final String name, final DirectBuffer buffer, final int offset, final int length)
    {
        if (buffer == null)
        {
            throw new NullPointerException(name + " is null");
        }
        checkBounds(offset, length, buffer.capacity());
    }

    /**
     * @throws IndexOutOfBoundsException if {@code [offset, offset + length)} is not inside {@code [0, capacity)}.
     */
    public static void checkBounds(final int offset, final int length, final int capacity)
    {
        if (offset < 0 || length < 0 || (long)offset + length > capacity)
        {
            throw new IndexOutOfBoundsException("offset=" + offset + " length=" + length + " capacity=" + capacity);
        }
    }
}
