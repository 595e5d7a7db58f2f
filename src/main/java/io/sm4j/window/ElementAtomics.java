package io.sm4j.window;

import io.sm4j.collective.Op;
import org.agrona.concurrent.AtomicBuffer;

/**
 * One element of a window's part combined atomically with a value (MPI accumulate's element-wise
 * atomicity): SUM of longs by one fetch-and-add, everything else by a CAS loop on the element's 64 bits.
 * Another rank's accumulate of the same element is never lost; a plain put racing with it may be, as MPI
 * allows. Proven in jcstress (WindowLockStress).
 */
public final class ElementAtomics
{
    private ElementAtomics()
    {
    }

    /**
     * @param op SUM, MIN or MAX (the caller checked).
     */
    public static void combine(final AtomicBuffer part, final int at, final long value, final Op op)
    {
        if (op == Op.SUM)
        {
            part.getAndAddLong(at, value);
            return;
        }
        long seen;
        do
        {
            seen = part.getLongVolatile(at);
        }
        while ((op == Op.MIN ? value < seen : value > seen) && !part.compareAndSetLong(at, seen, value));
    }

    /**
     * As {@link #combine(AtomicBuffer, int, long, Op)} for a double (MIN and MAX as Math.min and Math.max).
     */
    public static void combine(final AtomicBuffer part, final int at, final double value, final Op op)
    {
        long seen;
        long combined;
        do
        {
            seen = part.getLongVolatile(at);
            final double current = Double.longBitsToDouble(seen);
            combined = Double.doubleToRawLongBits(op == Op.SUM ? current + value :
                op == Op.MIN ? Math.min(current, value) : Math.max(current, value));
        }
        while (combined != seen && !part.compareAndSetLong(at, seen, combined)); // unchanged: no write to the line
    }
}
