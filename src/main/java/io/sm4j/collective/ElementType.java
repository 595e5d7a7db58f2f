package io.sm4j.collective;

/**
 * The element types a predefined {@link Op} reduces, as they are laid out in a message (little-endian, as
 * Agrona's buffers write them on every platform Java runs sm4j on).
 */
public enum ElementType
{
    INT(Integer.BYTES), LONG(Long.BYTES), FLOAT(Float.BYTES), DOUBLE(Double.BYTES);

    /** Bytes per element. */
    public final int bytes;

    ElementType(final int bytes)
    {
        this.bytes = bytes;
    }
}
