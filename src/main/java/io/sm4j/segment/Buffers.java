package io.sm4j.segment;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;

/**
 * Two things done with buffers on the message path: the message layer checks a caller's range before anything
 * touches shared memory, and the message layer and the collectives copy a few bytes into and out of it.
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
     * As {@code dst.putBytes(dstIndex, src, srcIndex, length)} into a buffer that does not grow (an expandable one
     * is refused where putBytes would grow it; no caller passes one), overlapping ranges included; up to
     * {@link #SHORT_COPY_BYTES} by loads and stores of words, every load before the first store (a small
     * message's payload, a small collective's vector in its slot line). {@code putBytes} calls
     * {@code Unsafe.copyMemory}, which the JIT compiles to a call into the JVM's copy stub: on a 2-rank 8-byte
     * allReduce the words took a call from 0.63-0.67 us to 0.44, and an 8-byte one-way median from 0.41-0.46 us
     * to 0.38-0.40 (docs/benchmarks.md, "Short copies by words"). Once both ranges are checked, the words go
     * through {@code byteArray()} and {@code addressOffset()} unchecked, as every Agrona buffer's own accessors do
     * (and as {@code putBytes} trusts its source): a buffer must locate its bytes by them.
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
        // both ranges checked: the words go through Unsafe unchecked (the buffers' own accessors checked each one
        // again, 4-6 checks a copy; bounds checks were a tenth of a window's samples, these copies' the largest
        // part: docs/benchmarks.md, "Nineteenth session")
        final byte[] from = src.byteArray();
        final long at = src.addressOffset() + srcIndex;
        final byte[] into = dst.byteArray();
        final long to = dst.addressOffset() + dstIndex;
        // a head and a tail word, which overlap below twice the word's length: both loaded, then both stored
        if (length >= Long.BYTES)
        {
            final long head = UnsafeApi.getLong(from, at);
            final long tail = UnsafeApi.getLong(from, at + length - Long.BYTES);
            UnsafeApi.putLong(into, to + length - Long.BYTES, tail);
            UnsafeApi.putLong(into, to, head);
        }
        else if (length >= Integer.BYTES)
        {
            final int head = UnsafeApi.getInt(from, at);
            final int tail = UnsafeApi.getInt(from, at + length - Integer.BYTES);
            UnsafeApi.putInt(into, to + length - Integer.BYTES, tail);
            UnsafeApi.putInt(into, to, head);
        }
        else if (length > 0)
        {
            final byte first = UnsafeApi.getByte(from, at);
            final byte middle = UnsafeApi.getByte(from, at + length / 2);
            final byte last = UnsafeApi.getByte(from, at + length - 1);
            UnsafeApi.putByte(into, to + length - 1, last);
            UnsafeApi.putByte(into, to + length / 2, middle);
            UnsafeApi.putByte(into, to, first);
        }
    }
}
