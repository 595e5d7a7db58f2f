package io.sm4j.message;

/**
 * A message that arrived before a matching receive was posted. An eager message keeps its whole payload; a
 * large one only its first chunk: the rest stays with the sender until a receive matches (so unexpected
 * large messages cost the receiver at most one eager payload each).
 */
record Unexpected(int source, int tag, long sequence, int total, byte[] firstChunk, boolean large)
{
}
