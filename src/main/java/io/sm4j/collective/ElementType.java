package io.sm4j.collective;

import org.agrona.UnsafeApi;

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

    ElementType(final int bytes, final Class<?> arrayClass)
    {
        this.bytes = bytes;
        this.arrayBase = UnsafeApi.arrayBaseOffset(arrayClass);
    }
}
