package io.sm4j.collective;

/**
 * The predefined reduction operators (MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR, MPI_BXOR)
 * over elements of one {@link ElementType}. Integer arithmetic wraps as Java's does; floating-point MIN and
 * MAX follow {@link Math#min(double, double)} (NaN wins, -0.0 below 0.0).
 */
public enum Op
{
    SUM, PROD, MIN, MAX, BAND, BOR, BXOR;

    /**
     * @throws IllegalArgumentException if this operator does not apply to {@code type} (bitwise ones to
     *                                  floating point).
     */
    void check(final ElementType type)
    {
        if (ordinal() >= BAND.ordinal() && (type == ElementType.FLOAT || type == ElementType.DOUBLE))
        {
            throw new IllegalArgumentException(this + " applies to integers only, not to " + type.name().toLowerCase() + "[]");
        }
    }

    /**
     * @return this operator over {@code type}'s elements, as a {@link ByteOperator}; element by element,
     *         computed as Java computes it in that type (a float's sum in double, then rounded, is the float
     *         sum: double carries more than twice a float's precision).
     */
    ByteOperator over(final ElementType type)
    {
        check(type);
        return switch (type)
        {
            case INT -> (left, leftOffset, right, rightOffset, length) ->
            {
                for (int i = 0; i < length; i += Integer.BYTES)
                {
                    left.putInt(leftOffset + i, (int)combine(left.getInt(leftOffset + i), right.getInt(rightOffset + i)));
                }
            };
            case LONG -> (left, leftOffset, right, rightOffset, length) ->
            {
                for (int i = 0; i < length; i += Long.BYTES)
                {
                    left.putLong(leftOffset + i, combine(left.getLong(leftOffset + i), right.getLong(rightOffset + i)));
                }
            };
            case FLOAT -> (left, leftOffset, right, rightOffset, length) ->
            {
                for (int i = 0; i < length; i += Float.BYTES)
                {
                    left.putFloat(leftOffset + i, (float)combine(left.getFloat(leftOffset + i), right.getFloat(rightOffset + i)));
                }
            };
            case DOUBLE -> (left, leftOffset, right, rightOffset, length) ->
            {
                for (int i = 0; i < length; i += Double.BYTES)
                {
                    left.putDouble(leftOffset + i, combine(left.getDouble(leftOffset + i), right.getDouble(rightOffset + i)));
                }
            };
        };
    }

    private long combine(final long a, final long b)
    {
        return switch (this)
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

    private double combine(final double a, final double b)
    {
        return switch (this)
        {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            default -> throw new IllegalStateException(this + " on floating point"); // refused by check
        };
    }
}
