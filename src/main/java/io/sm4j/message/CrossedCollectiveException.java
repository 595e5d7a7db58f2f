package io.sm4j.message;

import io.sm4j.segment.Sm4jException;

/**
 * A receive on one of a communicator's collectives' tags whose source's next message on those tags carries
 * another: that rank called another collective (ranks call a communicator's collectives in the same order, and
 * each pair's messages stay in order, so the source's first message not yet received on these tags belongs to
 * the call this receive is part of). {@link CollectiveChannel} names both calls.
 */
final class CrossedCollectiveException extends Sm4jException
{
    private static final long serialVersionUID = 1L;

    private final int theirTag;

    /**
     * @param theirTag the collective's tag (-2..-63) the source's message carried.
     * @param tag      the collective's tag the receive was for.
     */
    CrossedCollectiveException(final int source, final int theirTag, final int tag)
    {
        super("rank " + source + " sent a message of collective tag " + theirTag + " where this rank waits for one of tag " +
            tag + ": every rank must call a communicator's collectives in the same order");
        this.theirTag = theirTag;
    }

    int theirTag()
    {
        return theirTag;
    }
}
