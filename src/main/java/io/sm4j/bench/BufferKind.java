package io.sm4j.bench;

import io.sm4j.message.Communicator;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * What sm4j's ranks send from and receive into in a benchmark ({@code sm4j bench --buffers}).
 */
public enum BufferKind
{
    /**
     * Direct ByteBuffers, as OSU's loops pass malloc'd memory: large messages and collectives' data are read
     * out of the sender's process where the ranks read each other's.
     */
    DIRECT,
    /** Shared buffers ({@code Communicator.allocate}): read straight out of the sender's buffer. */
    SHARED,
    /** Arrays on the heap ({@code byte[]}), which a collector may move: copied through the segment. */
    HEAP;

    /**
     * @return a buffer of this kind of {@code length} bytes; an empty array for none (a buffer a test does not
     *         use: nothing to carry, so no shared chunk or direct memory for it).
     */
    UnsafeBuffer allocate(final Communicator comm, final int length)
    {
        if (length == 0)
        {
            return new UnsafeBuffer(new byte[0]);
        }
        return switch (this)
        {
            case DIRECT -> new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, BitUtil.CACHE_LINE_LENGTH));
            case SHARED -> comm.allocate(length);
            case HEAP -> new UnsafeBuffer(new byte[length]);
        };
    }
}
