package io.sm4j.message;

/**
 * A message that arrived before a matching receive was posted. An eager message keeps its whole payload; a
 * large one only its first chunk: the rest stays with the sender until a receive matches (so unexpected
 * large messages cost the receiver at most one eager payload each). A large message to this rank itself
 * keeps no copy at all: {@code localSend} is the send, whose buffer is read when a receive matches.
 */
record Unexpected(int source, int tag, long sequence, int total, byte[] firstChunk, boolean large, SendRequest localSend)
{
    /**
     * @return bytes this message keeps on the heap, counted against the unexpected-message budget.
     */
    long keptBytes()
    {
        return firstChunk == null ? 0 : firstChunk.length;
    }
}
