package io.sm4j.window;

/**
 * What the cache of peers' shared buffers did: the seeds' registration cache, counted.
 *
 * @param hits          copies from a buffer already mapped.
 * @param misses        copies that mapped a buffer first (the cost paid once per buffer).
 * @param invalidations mappings dropped because their owner had freed the buffer.
 * @param mapped        peers' buffers mapped now.
 * @param helped        chunks this rank copied of other ranks' large puts and gets into or out of its parts
 *                      ({@link SplitCopy}): each one is a chunk its origin did not copy itself.
 */
public record WindowStats(long hits, long misses, long invalidations, int mapped, long helped)
{
}
