package io.sm4j.segment;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

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
