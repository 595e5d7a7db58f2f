package io.sm4j.collective;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The element types a predefined {@link Op} reduces, as they are laid out in a message (little-endian, as
 * Agrona's buffers write them on every platform Java runs sm4j on).
 */
public enum ElementType
{
    INT(Integer.BYTES, int[].class), LONG(Long.BYTES, long[].class), FLOAT(Float.BYTES, float[].class),
    DOUBLE(Double.BYTES, double[].class);

    /** Bytes per element. */
    public final int bytes;
    /** Offset of element 0 in an array of this type, for bulk copies between arrays and buffers. */
    final long arrayBase;

    private final Class<?> arrayClass;

    ElementType(final int bytes, final Class<?> arrayClass)
    {
        this.bytes = bytes;
        this.arrayClass = arrayClass;
        this.arrayBase = UnsafeApi.arrayBaseOffset(arrayClass);
    }

    /**
     * Copies {@code count} elements of {@code values}, an array of this type, into {@code into} from 0: one
     * bulk copy in the platform's order, which is how the buffers' putInt and getInt lay elements out (an
     * element at a time through them took 2-5 ns per element).
     */
    void pack(final Object values, final int count, final UnsafeBuffer into)
    {
        UnsafeApi.copyMemory(values, arrayBase, into.byteArray(), into.addressOffset(), (long)count * bytes);
    }

    /**
     * Copies {@code count} elements from {@code from} at 0 into {@code values}, an array of this type.
     */
    void unpack(final UnsafeBuffer from, final Object values, final int count)
    {
        UnsafeApi.copyMemory(from.byteArray(), from.addressOffset(), values, arrayBase, (long)count * bytes);
    }

    /**
     * @return the elements of {@code values}, checked to be an array of this type ({@code name} in the error).
     */
    int length(final Object values, final String name)
    {
        if (values == null)
        {
            throw new NullPointerException(name + " is null");
        }
        if (values.getClass() != arrayClass)
        {
            throw new IllegalArgumentException(name + " is a " + values.getClass().getSimpleName() + " (expected: " +
                arrayClass.getSimpleName() + ")");
        }
        return java.lang.reflect.Array.getLength(values);
    }
}
