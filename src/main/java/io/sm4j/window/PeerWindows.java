package io.sm4j.window;

import io.sm4j.segment.SegmentFiles;
import io.sm4j.segment.Sm4jException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.file.Path;

import static io.sm4j.layout.WindowChunkDescriptor.PAYLOAD_OFFSET;

/**
 * The peers' shared buffers this rank has copied from or into, mapped the first time and kept mapped
 * ("leave pinned", the seeds' registration cache). Open MPI's cache was keyed by virtual address, which
 * malloc reuses, so it needed malloc hooks, ptmalloc2 or mmu notifiers to learn that an entry went stale;
 * here a buffer is named by (owner rank, chunk id) and chunk ids are never reused, so a kept mapping can
 * never show another buffer's bytes. What a kept mapping can be is of a buffer its owner has freed: its
 * header's state says FREED, read before every copy, and the mapping is dropped (its tmpfs pages are
 * returned only once nobody maps them). A new mapping of a rank drops that rank's freed ones too.
 * Thread-safe (one lock: a copy is a large message's whole transfer).
 */
public final class PeerWindows implements AutoCloseable
{
    private final Path segment;
    private final Long2ObjectHashMap<ChunkFile>[] byRank;
    private long hits;
    private long helped;
    private long misses;
    private long invalidations;
    private int mapped;

    @SuppressWarnings("unchecked")
    public PeerWindows(final Path segment, final int ranks)
    {
        this.segment = segment;
        this.byRank = new Long2ObjectHashMap[ranks];
    }

    /**
     * Copies {@code length} bytes at {@code position} of {@code rank}'s buffer {@code chunkId} into
     * {@code into} at {@code offset}: the one copy of a single-copy message.
     *
     * @throws BufferGoneException if the buffer is gone (its owner freed it with the send pending, or left).
     * @throws Sm4jException       if the file or the bytes named are not what a message can name: a
     *                             protocol error, named.
     */
    public synchronized void copy(
        final int rank, final long chunkId, final long position, final MutableDirectBuffer into, final int offset,
        final int length)
    {
        final ChunkFile mapping = checked(rank, chunkId, position, length);
        try
        {
            into.putBytes(offset, mapping.view(), PAYLOAD_OFFSET + (int)position, length);
        }
        catch (final InternalError fault)
        {
            throw faulted(rank, chunkId, fault);
        }
    }

    /**
     * Copies {@code length} bytes of {@code from} at {@code offset} into {@code rank}'s buffer {@code chunkId}
     * at {@code position}: this rank's part of a message that rank receives into a shared buffer of its own.
     *
     * @throws BufferGoneException if the buffer is gone.
     * @throws Sm4jException       if the bytes named are outside it (a protocol error, named).
     */
    public synchronized void copyInto(
        final int rank, final long chunkId, final long position, final DirectBuffer from, final int offset, final int length)
    {
        final ChunkFile mapping = checked(rank, chunkId, position, length);
        try
        {
            mapping.view().putBytes(PAYLOAD_OFFSET + (int)position, from, offset, length);
        }
        catch (final InternalError fault)
        {
            throw faulted(rank, chunkId, fault);
        }
    }

    /**
     * The target's part of a window's {@code put} or {@code get} that its origin split with it
     * ({@link SplitCopy}): chunks of the {@code length} bytes between {@code origin}'s buffer {@code chunkId}
     * at {@code position} and {@code own} at {@code ownOffset}, into {@code own} for a put, out of it for a get.
     *
     * @return the chunks this rank copied (0: the request came late).
     * @throws BufferGoneException if the origin's buffer is gone (a late request: nothing is left to take).
     * @throws Sm4jException       if the bytes named are outside it (a protocol error, named), or the file faulted.
     */
    public synchronized int helpCopy(
        final int origin, final long chunkId, final long position, final long sequence, final MutableDirectBuffer own,
        final int ownOffset, final int length, final boolean get)
    {
        final ChunkFile mapping = checked(origin, chunkId, position, length);
        final UnsafeBuffer file = mapping.view();
        final int at = PAYLOAD_OFFSET + (int)position;
        try
        {
            final int chunkBytes = SplitCopy.chunkBytes(length);
            final int copied = get ? SplitCopy.help(file, sequence, file, at, own, ownOffset, length, chunkBytes) :
                SplitCopy.help(file, sequence, own, ownOffset, file, at, length, chunkBytes);
            helped += copied;
            return copied;
        }
        catch (final InternalError fault)
        {
            throw faulted(origin, chunkId, fault);
        }
    }

    public synchronized WindowStats stats()
    {
        return new WindowStats(hits, misses, invalidations, mapped, helped);
    }

    /**
     * Unmaps every kept mapping.
     */
    @Override
    public synchronized void close()
    {
        for (final Long2ObjectHashMap<ChunkFile> chunks : byRank)
        {
            if (chunks != null)
            {
                chunks.values().forEach(ChunkFile::unmap);
                chunks.clear();
            }
        }
        mapped = 0;
    }

    /**
     * @return {@code rank}'s buffer {@code chunkId}, mapped, once bytes {@code position..+length} are known
     *         to lie in it.
     */
    private ChunkFile checked(final int rank, final long chunkId, final long position, final int length)
    {
        final ChunkFile mapping = mapping(rank, chunkId);
        if (position < 0 || length < 0 || position > mapping.payload() - length)
        {
            throw new Sm4jException("rank " + rank + " named bytes " + position + ".." + (position + length) +
                " of its shared buffer " + chunkId + ", which has " + mapping.payload());
        }
        return mapping;
    }

    private Sm4jException faulted(final int rank, final long chunkId, final InternalError fault)
    {
        return new Sm4jException("rank " + rank + "'s shared buffer " + path(rank, chunkId) +
            " faulted (the file was truncated): " + fault.getMessage(), fault);
    }

    private ChunkFile mapping(final int rank, final long chunkId)
    {
        Long2ObjectHashMap<ChunkFile> chunks = byRank[rank];
        if (chunks == null)
        {
            chunks = new Long2ObjectHashMap<>();
            byRank[rank] = chunks;
        }
        final ChunkFile kept = chunks.get(chunkId);
        if (kept != null)
        {
            if (kept.isLive())
            {
                hits++;
                return kept;
            }
            drop(chunks, chunkId, kept);
            throw ChunkFile.gone(rank, chunkId);
        }
        misses++;
        chunks.values().removeIf(this::droppedIfFreed); // the rank freed some: let their pages go
        final ChunkFile fresh = ChunkFile.map(segment, rank, chunkId);
        chunks.put(chunkId, fresh);
        mapped++;
        return fresh;
    }

    private void drop(final Long2ObjectHashMap<ChunkFile> chunks, final long chunkId, final ChunkFile mapping)
    {
        chunks.remove(chunkId);
        invalidate(mapping);
    }

    /**
     * @return true, having unmapped it, if {@code mapping}'s buffer was freed.
     */
    private boolean droppedIfFreed(final ChunkFile mapping)
    {
        if (mapping.isLive())
        {
            return false;
        }
        invalidate(mapping);
        return true;
    }

    private void invalidate(final ChunkFile mapping)
    {
        mapping.unmap();
        invalidations++;
        mapped--;
    }

    private Path path(final int rank, final long chunkId)
    {
        return SegmentFiles.windowPath(segment, rank, chunkId);
    }
}
