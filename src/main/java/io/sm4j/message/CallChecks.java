package io.sm4j.message;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Argument checks of the message layer's public calls, made before anything touches shared memory.
 */
final class CallChecks
{
    private CallChecks()
    {
    }

    static void checkRank(final String name, final int value, final int size, final boolean anyAllowed)
    {
        if ((value < 0 || value >= size) && !(anyAllowed && value == Communicator.ANY_SOURCE))
        {
            throw new IllegalArgumentException(name + "=" + value + " (expected: 0.." + (size - 1) +
                (anyAllowed ? " or ANY_SOURCE" : "") + ")");
        }
    }

    static void checkTag(final int tag, final boolean anyAllowed)
    {
        if (tag < 0 && !(anyAllowed && tag == Communicator.ANY_TAG))
        {
            throw new IllegalArgumentException("tag=" + tag + " (expected: >= 0" + (anyAllowed ? " or ANY_TAG" : "") + ")");
        }
    }

    static int lengthOf(final byte[] buffer)
    {
        if (buffer == null)
        {
            throw new NullPointerException("buffer is null");
        }
        return buffer.length;
    }

    static int capacityOf(final DirectBuffer buffer)
    {
        if (buffer == null)
        {
            throw new NullPointerException("buffer is null");
        }
        return buffer.capacity();
    }

    static UnsafeBuffer wrap(final byte[] buffer)
    {
        lengthOf(buffer);
        return new UnsafeBuffer(buffer);
    }

    /**
     * @return {@code buffer} up to its limit: the ByteBuffer forms move the bytes between position and limit, and a
     *         collective's n-block side, which starts at the position, must not run past the limit either.
     */
    static UnsafeBuffer wrap(final ByteBuffer buffer)
    {
        return new UnsafeBuffer(notNull(buffer), 0, buffer.limit());
    }

    /**
     * @param name the argument's name, for the error.
     * @return {@code buffer} wrapped for a receive to write into.
     * @throws IllegalArgumentException if it is read-only, naming the argument.
     */
    static UnsafeBuffer wrapWritable(final ByteBuffer buffer, final String name)
    {
        checkWritable(buffer, name);
        return new UnsafeBuffer(buffer, 0, buffer.limit());
    }

    /**
     * @throws NullPointerException     if {@code buffer} is null.
     * @throws IllegalArgumentException naming {@code name} if it is read-only.
     */
    static void checkWritable(final ByteBuffer buffer, final String name)
    {
        if (notNull(buffer).isReadOnly())
        {
            throw new IllegalArgumentException(name + " is read-only: a receive writes into it");
        }
    }

    private static ByteBuffer notNull(final ByteBuffer buffer)
    {
        if (buffer == null)
        {
            throw new NullPointerException("buffer is null");
        }
        return buffer;
    }
}
