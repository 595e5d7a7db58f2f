package io.sm4j.layout;

/**
 * Overflow-checked alignment and size arithmetic for the layout.
 */
final class Align
{
    private Align()
    {
    }

    /**
     * @param value     non-negative value to round.
     * @param alignment power of two.
     * @return the smallest multiple of {@code alignment} that is {@code >= value}.
     * @throws ArithmeticException if the result overflows a long.
     */
    static long up(final long value, final long alignment)
    {
        return Math.addExact(value, alignment - 1) & -alignment;
    }

    static boolean isPowerOfTwo(final long value)
    {
        return value > 0 && (value & (value - 1)) == 0;
    }
}
