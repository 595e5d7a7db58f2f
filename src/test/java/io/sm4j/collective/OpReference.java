package io.sm4j.collective;

/**
 * Test oracle: what each {@link Op} makes of two operands, written out on purpose apart from {@link Op}'s
 * own loops, for the unit test and the multi-JVM reductions alike.
 */
public final class OpReference
{
    private OpReference()
    {
    }

    public static long combine(final Op op, final long a, final long b)
    {
        return switch (op)
        {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case BAND -> a & b;
            case BOR -> a | b;
            case BXOR -> a ^ b;
        };
    }

    /**
     * @throws IllegalArgumentException for a bitwise operator, which floating point has not.
     */
    public static double combine(final Op op, final double a, final double b)
    {
        return switch (op)
        {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            default -> throw new IllegalArgumentException(op + " on floating point");
        };
    }
}
