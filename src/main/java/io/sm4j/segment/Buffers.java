package io.sm4j.segment;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * What the transport, the message layer and the collectives do alike with buffers: check a caller's range
 * before anything touches shared memory, and copy a few bytes.
 */
public final class Buffers
{
    /** Copies up to this long go by words ({@link #putBytes}); longer ones by the buffer's own. */
    public static final int SHORT_COPY_BYTES = 16;

    private Buffers()
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

    /**
     * As {@code dst.putBytes(dstIndex, src, srcIndex, length)}, with the same bounds checks; up to
     * {@link #SHORT_COPY_BYTES} by loads and stores of words (a small message's payload, a small collective's
     * vector in its slot line). {@code putBytes} calls {@code Unsafe.copyMemory}, which the JIT compiles to a call
     * into the JVM's copy stub: on a 2-rank 8-byte allReduce the words took a call from 0.63-0.67 us to 0.44, and an
     * 8-byte one-way median from 0.41-0.46 us to 0.38-0.40 (docs/benchmarks.md, "Short copies by words").
     */
    public static void putBytes(
        final MutableDirectBuffer dst, final int dstIndex, final DirectBuffer src, final int srcIndex, final int length)
    {
        if (length > SHORT_COPY_BYTES)
        {
            dst.putBytes(dstIndex, src, srcIndex, length);
            return;
        }
        dst.boundsCheck(dstIndex, length); // as putBytes: nothing is written if any byte is out of bounds
        src.boundsCheck(srcIndex, length);
        int done = 0;
        for (; done + Long.BYTES <= length; done += Long.BYTES)
        {
            dst.putLong(dstIndex + done, src.getLong(srcIndex + done));
        }
        if (done + Integer.BYTES <= length)
        {
            dst.putInt(dstIndex + done, src.getInt(srcIndex + done));
            done += Integer.BYTES;
        }
        for (; done < length; done++)
        {
            dst.putByte(dstIndex + done, src.getByte(srcIndex + done));
        }
    }
}
