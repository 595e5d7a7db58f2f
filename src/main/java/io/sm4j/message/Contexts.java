package io.sm4j.message;

/**
 * Matching contexts: the tag space on the wire, shared by the world communicator (context 0) and the
 * communicators {@code split} and {@code dup} derive from it, so that no receive of one matches a message
 * of another. Context 0 keeps the user's tags as they are (>= 0) and its collectives' tags just below
 * {@link Communicator#ANY_TAG} (-2 down to -63). Context c (1..{@value #MAX_CONTEXT}) owns the block of
 * 2^21 negative tags below {@code base(c) = -c * 2^21}:
 * <pre>
 *   base(c)                  base(c) - 63 .. base(c) - 2: its collectives' tags (-2..-63 shifted)
 *   base(c) - 64 - t         the user's tag t, 0 <= t <= {@value #MAX_TAG}
 *   base(c) - 2^21 + 1       its wildcard: a receive for any tag of context c, which no message carries
 * </pre>
 * A receive for {@link Communicator#ANY_TAG} in context 0 matches tags >= 0 only, one for context c's
 * wildcard only c's user tags.
 */
final class Contexts
{
    /** Contexts are numbered 1..MAX_CONTEXT (0 is the world's); the blocks stay within an int. */
    static final int MAX_CONTEXT = 1022;
    /** The largest user tag in a derived communicator (MPI_TAG_UB is at least 32767). */
    static final int MAX_TAG = (1 << 20) - 1;
    private static final int BLOCK_BITS = 21;
    private static final int RESERVED = 64;

    private Contexts()
    {
    }

    /**
     * @return the tag on the wire for the user's {@code tag} (>= 0) or {@link Communicator#ANY_TAG} in
     *         {@code context}.
     */
    static int userTag(final int context, final int tag)
    {
        if (context == 0)
        {
            return tag;
        }
        return tag == Communicator.ANY_TAG ? wildcard(context) : base(context) - RESERVED - tag;
    }

    /**
     * @return the tag on the wire for a collective's {@code tag} (-2..-63) in {@code context}.
     */
    static int collectiveTag(final int context, final int tag)
    {
        return context == 0 ? tag : base(context) + tag;
    }

    /**
     * @return the context whose collectives' tags hold {@code wire}, or -1 if it is no collective's tag.
     */
    static int collectiveContext(final int wire)
    {
        final int within = -wire & ((1 << BLOCK_BITS) - 1); // -2..-63 shifted by -base(c), negated: 2..63
        return wire < 0 && within >= 2 && within < RESERVED ? -wire >>> BLOCK_BITS : -1;
    }

    /**
     * @return the context whose user tags hold {@code wire} (0 for a tag >= 0), or -1 for a collective's tag.
     */
    static int userContext(final int wire)
    {
        if (wire >= 0)
        {
            return 0;
        }
        return collectiveContext(wire) >= 0 ? -1 : -wire >>> BLOCK_BITS;
    }

    /**
     * @return the collective's tag (-2..-63) that {@code wire}, one of {@code context}'s collectives' tags, carries.
     */
    static int fromCollectiveWire(final int context, final int wire)
    {
        return context == 0 ? wire : wire - base(context);
    }

    /**
     * @return the user's tag of a message of {@code context} that carried {@code wire} (a user tag).
     */
    static int fromWire(final int context, final int wire)
    {
        return context == 0 ? wire : base(context) - RESERVED - wire;
    }

    /**
     * @return true if a receive for {@code tag} (on the wire) takes a message that carried {@code messageTag}.
     */
    static boolean accepts(final int tag, final int messageTag)
    {
        if (tag == Communicator.ANY_TAG)
        {
            return messageTag >= 0;
        }
        if (isContextWildcard(tag))
        {
            return messageTag > tag && messageTag <= tag - 1 + (1 << BLOCK_BITS) - RESERVED;
        }
        return tag == messageTag;
    }

    /**
     * @return true if {@code tag} (on the wire) is a wildcard: {@link Communicator#ANY_TAG} or a context's.
     */
    static boolean isWildcard(final int tag)
    {
        return tag == Communicator.ANY_TAG || isContextWildcard(tag);
    }

    private static boolean isContextWildcard(final int tag)
    {
        return tag < -RESERVED && ((tag - 1) & ((1 << BLOCK_BITS) - 1)) == 0;
    }

    private static int base(final int context)
    {
        return -(context << BLOCK_BITS);
    }

    private static int wildcard(final int context)
    {
        return base(context) - (1 << BLOCK_BITS) + 1;
    }
}
