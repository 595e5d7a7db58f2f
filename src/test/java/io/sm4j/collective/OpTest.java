package io.sm4j.collective;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The predefined operators' unchecked loops against Java's arithmetic element by element, for every operator
 * and type, on heap and off-heap buffers at odd offsets, with NaN, infinities, -0.0 and wrapping values.
 */
class OpTest
{
    private static final int COUNT = 37;

    @Test
    void everyOperatorShouldComputeWhatJavaComputesElementByElement()
    {
        final Random random = new Random(20_261_126);
        for (final Op op : Op.values())
        {
            for (final ElementType type : ElementType.values())
            {
                if (op.ordinal() >= Op.BAND.ordinal() && (type == ElementType.FLOAT || type == ElementType.DOUBLE))
                {
                    assertThrows(IllegalArgumentException.class, () -> op.over(type));
                    continue;
                }
                for (final boolean offHeap : new boolean[]{ false, true })
                {
                    check(op, type, offHeap, random);
                }
            }
        }
    }

    @Test
    void aRangeBeyondEitherBufferShouldBeRefusedBeforeAnythingIsWritten()
    {
        final UnsafeBuffer left = new UnsafeBuffer(new byte[16]);
        final UnsafeBuffer right = new UnsafeBuffer(new byte[8]);
        left.putLong(0, 5);
        final ByteOperator sum = Op.SUM.over(ElementType.LONG);
        assertThrows(IndexOutOfBoundsException.class, () -> sum.apply(left, 0, right, 0, 16));
        assertEquals(5, left.getLong(0));
    }

    private static void check(final Op op, final ElementType type, final boolean offHeap, final Random random)
    {
        final int length = COUNT * type.bytes + 3; // a partial element at the end stays as it is
        final UnsafeBuffer left = buffer(length + 5, offHeap);
        final UnsafeBuffer right = buffer(length + 7, offHeap);
        final UnsafeBuffer expected = new UnsafeBuffer(new byte[length]);
        for (int i = 0; i < length; i++)
        {
            left.putByte(5 + i, (byte)random.nextInt());
            right.putByte(7 + i, (byte)random.nextInt());
        }
        special(left, 5, type);
        expected.putBytes(0, left, 5, length);
        for (int at = 0; at + type.bytes <= length; at += type.bytes)
        {
            switch (type)
            {
                case INT -> expected.putInt(at, (int)OpReference.combine(op, left.getInt(5 + at), right.getInt(7 + at)));
                case LONG -> expected.putLong(at, OpReference.combine(op, left.getLong(5 + at), right.getLong(7 + at)));
                case FLOAT -> expected.putFloat(at, (float)OpReference.combine(op, left.getFloat(5 + at), right.getFloat(7 + at)));
                default -> expected.putDouble(at, OpReference.combine(op, left.getDouble(5 + at), right.getDouble(7 + at)));
            }
        }
        op.over(type).apply(left, 5, right, 7, length);
        final String what = op + " over " + type + (offHeap ? " off heap" : "");
        int at = 0;
        for (; at + type.bytes <= length; at += type.bytes)
        {
            // floating point: NaN's payload is not part of Java's arithmetic (floatToIntBits makes every NaN one)
            if (type == ElementType.FLOAT)
            {
                assertEquals(Float.floatToIntBits(expected.getFloat(at)), Float.floatToIntBits(left.getFloat(5 + at)), what + " @" + at);
            }
            else if (type == ElementType.DOUBLE)
            {
                assertEquals(Double.doubleToLongBits(expected.getDouble(at)), Double.doubleToLongBits(left.getDouble(5 + at)), what + " @" + at);
            }
        }
        for (int i = 0; i < length; i++)
        {
            if (type == ElementType.INT || type == ElementType.LONG || i >= at)
            {
                assertEquals(expected.getByte(i), left.getByte(5 + i), what + ", byte " + i);
            }
        }
    }

    /** NaN, infinity and -0.0 in the first elements of floating-point data, MIN_VALUE in integer data. */
    private static void special(final UnsafeBuffer buffer, final int at, final ElementType type)
    {
        switch (type)
        {
            case INT -> buffer.putInt(at, Integer.MIN_VALUE);
            case LONG -> buffer.putLong(at, Long.MIN_VALUE);
            case FLOAT ->
            {
                buffer.putFloat(at, Float.NaN);
                buffer.putFloat(at + 4, Float.NEGATIVE_INFINITY);
                buffer.putFloat(at + 8, -0.0f);
            }
            default ->
            {
                buffer.putDouble(at, Double.NaN);
                buffer.putDouble(at + 8, Double.POSITIVE_INFINITY);
                buffer.putDouble(at + 16, -0.0);
            }
        }
    }

    private static UnsafeBuffer buffer(final int length, final boolean offHeap)
    {
        return offHeap ? new UnsafeBuffer(BufferUtil.allocateDirectAligned(64 + length, 64), 0, length) :
            new UnsafeBuffer(new byte[length]);
    }
}
