package io.sm4j.message;

import java.util.BitSet;

/**
 * The matching contexts ({@link Contexts}) this rank's communicators hold: a communicator made by
 * {@code split} or {@code dup} takes the lowest context free on every rank of its parent (an allReduce of
 * these masks, as MPICH agrees on context ids). Two communicators that share a rank therefore never share a
 * context. A rank that {@code split} leaves out gives the context back at once; a closed communicator keeps
 * it (a receive or a message may be left in it). One per rank, shared by the world's communicator and every
 * communicator derived from it; used by one thread at a time, as collectives are.
 */
final class ContextIds
{
    private final BitSet used = new BitSet(Contexts.MAX_CONTEXT + 1);

    ContextIds()
    {
        used.set(0); // the world's
    }

    /**
     * @return one bit per context (bit c of word c / 64), set where this rank has context c free.
     */
    long[] freeMask()
    {
        final BitSet free = new BitSet(Contexts.MAX_CONTEXT + 1);
        free.set(1, Contexts.MAX_CONTEXT + 1);
        free.andNot(used);
        return java.util.Arrays.copyOf(free.toLongArray(), (Contexts.MAX_CONTEXT + 64) / 64);
    }

    /**
     * @return the lowest context set in {@code commonFree}, now taken; -1 if none.
     */
    int take(final long[] commonFree)
    {
        final int context = BitSet.valueOf(commonFree).nextSetBit(1);
        if (context < 0 || context > Contexts.MAX_CONTEXT)
        {
            return -1;
        }
        used.set(context);
        return context;
    }

    void release(final int context)
    {
        used.clear(context);
    }
}
