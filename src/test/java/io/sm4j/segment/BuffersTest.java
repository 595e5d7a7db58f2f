package io.sm4j.segment;

import org.agrona.ExpandableArrayBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BuffersTest
{
    private static final int CAPACITY = 64;

    @Test
    void shouldCopyEveryLengthAtEveryAlignmentAsPutBytesDoes()
    {
        for (final boolean directSource : new boolean[] {false, true})
        {
            for (final boolean directTarget : new boolean[] {false, true})
            {
                final UnsafeBuffer source = buffer(directSource);
                for (int i = 0; i < CAPACITY; i++)
                {
                    source.putByte(i, (byte)(i * 7 + 3));
                }
                for (int length = 0; length <= Buffers.SHORT_COPY_BYTES + 9; length++)
                {
                    for (int from = 0; from < 8; from++)
                    {
                        for (int to = 0; to < 8; to++)
                        {
                            final UnsafeBuffer expected = buffer(false);
                            expected.putBytes(to, source, from, length);
                            final UnsafeBuffer actual = buffer(directTarget);
                            Buffers.putBytes(actual, to, source, from, length);
                            assertArrayEquals(bytes(expected), bytes(actual),
                                "length " + length + " from " + from + " to " + to);
                        }
                    }
                }
            }
        }
    }

    @Test
    void shouldCopyOverlappingRangesInOneBufferAsPutBytesDoes()
    {
        for (final boolean direct : new boolean[] {false, true})
        {
            for (int length = 0; length <= Buffers.SHORT_COPY_BYTES + 9; length++)
            {
                for (int from = 0; from < 12; from++)
                {
                    for (int to = 0; to < 12; to++)
                    {
                        final UnsafeBuffer expected = buffer(false);
                        final UnsafeBuffer actual = buffer(direct);
                        for (int i = 0; i < CAPACITY; i++)
                        {
                            expected.putByte(i, (byte)(i * 5 + 1));
                            actual.putByte(i, (byte)(i * 5 + 1));
                        }
                        expected.putBytes(to, expected, from, length);
                        Buffers.putBytes(actual, to, actual, from, length);
                        assertArrayEquals(bytes(expected), bytes(actual), "length " + length + " from " + from + " to " + to);
                    }
                }
            }
        }
    }

    /**
     * The short copy reads and writes through each buffer's array and address offset: views that start inside
     * their memory (heap and direct) and Agrona's expandable buffers must see the bytes where their own
     * accessors do.
     */
    @Test
    void shouldCopyBetweenViewsAndExpandableBuffersAsPutBytesDoes()
    {
        final List<Supplier<MutableDirectBuffer>> kinds = List.of(
            () -> buffer(false),
            () -> buffer(true),
            () -> new UnsafeBuffer(new byte[CAPACITY + 10], 3, CAPACITY),
            () -> new UnsafeBuffer(ByteBuffer.allocateDirect(CAPACITY + 10), 5, CAPACITY),
            () -> new ExpandableArrayBuffer(CAPACITY),
            () -> new ExpandableDirectByteBuffer(CAPACITY));
        for (final Supplier<MutableDirectBuffer> sourceKind : kinds)
        {
            for (final Supplier<MutableDirectBuffer> targetKind : kinds)
            {
                final MutableDirectBuffer source = sourceKind.get();
                for (int i = 0; i < CAPACITY; i++)
                {
                    source.putByte(i, (byte)(i * 11 + 2));
                }
                for (int length = 0; length <= Buffers.SHORT_COPY_BYTES; length++)
                {
                    for (final int at : new int[] {0, 3, CAPACITY - length})
                    {
                        final UnsafeBuffer expected = buffer(false);
                        expected.putBytes(CAPACITY - length - at, source, at, length);
                        final MutableDirectBuffer actual = targetKind.get();
                        Buffers.putBytes(actual, CAPACITY - length - at, source, at, length);
                        assertArrayEquals(bytes(expected), bytes(actual), source.getClass().getSimpleName() + " to " +
                            actual.getClass().getSimpleName() + ", length " + length + " at " + at);
                    }
                }
            }
        }
    }

    @Test
    void shouldRefuseACopyBeyondAViewInsideLargerMemory()
    {
        final byte[] memory = new byte[CAPACITY + 16];
        final UnsafeBuffer view = new UnsafeBuffer(memory, 8, CAPACITY);
        final UnsafeBuffer source = buffer(true);
        assertThrows(IndexOutOfBoundsException.class, () -> Buffers.putBytes(view, CAPACITY - 4, source, 0, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> Buffers.putBytes(source, 0, view, CAPACITY - 2, 4));
        assertArrayEquals(new byte[CAPACITY + 16], memory, "a refused copy wrote nothing, in the view or beyond it");
    }

    @Test
    void shouldRefuseACopyOutOfBoundsAsPutBytesDoes()
    {
        final UnsafeBuffer source = buffer(true);
        final UnsafeBuffer target = buffer(false);
        assertThrows(IndexOutOfBoundsException.class, () -> Buffers.putBytes(target, CAPACITY - 4, source, 0, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> Buffers.putBytes(target, 0, source, CAPACITY - 2, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> Buffers.putBytes(target, -1, source, 0, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> Buffers.putBytes(target, 0, source, 0, -1));
        assertArrayEquals(new byte[CAPACITY], bytes(target), "a refused copy wrote nothing");
    }

    private static UnsafeBuffer buffer(final boolean direct)
    {
        return direct ? new UnsafeBuffer(ByteBuffer.allocateDirect(CAPACITY)) : new UnsafeBuffer(new byte[CAPACITY]);
    }

    private static byte[] bytes(final MutableDirectBuffer buffer)
    {
        final byte[] copy = new byte[CAPACITY];
        buffer.getBytes(0, copy);
        return copy;
    }
}
