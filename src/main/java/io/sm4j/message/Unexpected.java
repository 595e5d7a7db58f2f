package io.sm4j.message;

/**
 * A message that arrived before a matching receive was posted. An eager message keeps its whole payload; a
 * large one only its first chunk: the rest stays with the sender until a receive matches (so unexpected
 * large messages cost the receiver at most one eager payload each, and only their envelope when the budget
 * is nearly full); one sent from a shared buffer keeps where it is ({@link MessageType#RGET}'s payload). A
 * large message to this rank itself
 * keeps no copy at all: {@code localSend} is the send, whose buffer is read when a receive matches.
 */
record Unexpected(int source, int tag, long sequence, int total, byte[] firstChunk, int type, SendRequest localSend)
{
    /**
     * What a queued message costs the heap besides its payload (the record, its array's header, its queue
     * node), rounded up: counted so that a flood of small or large messages is bounded too.
     */
    static final int ENVELOPE_BYTES = 96;

    /**
     * @return bytes this message keeps on the heap, counted against the unexpected-message budget.
     */
    long keptBytes()
    {
        return ENVELOPE_BYTES + (firstChunk == null ? 0 : firstChunk.length);
    }

    /**
     * @return true for a large message kept without its first chunk (the budget had no room for it): its
     *         receiver asks the sender for every byte, from the first.
     */
    boolean envelopeOnly()
    {
        return type == MessageType.RNDV && firstChunk.length == 0;
    }
}
