package io.sm4j.window;

import io.sm4j.layout.WindowChunkDescriptor;
import io.sm4j.segment.SegmentFiles;
import io.sm4j.segment.Sm4jException;
import org.agrona.IoUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static io.sm4j.layout.WindowChunkDescriptor.CHUNK_ID_OFFSET;
import static io.sm4j.layout.WindowChunkDescriptor.LENGTH_OFFSET;
import static io.sm4j.layout.WindowChunkDescriptor.MAGIC;
import static io.sm4j.layout.WindowChunkDescriptor.MAGIC_OFFSET;
import static io.sm4j.layout.WindowChunkDescriptor.OWNER_OFFSET;
import static io.sm4j.layout.WindowChunkDescriptor.PAYLOAD_OFFSET;
import static io.sm4j.layout.WindowChunkDescriptor.STATE_OFFSET;

/**
 * The peers' shared buffers this rank has copied from, mapped read-only the first time and kept mapped
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
    private final Long2ObjectHashMap<Mapping>[] byRank;
    private long hits;
    private long misses;
    private long invalidations;
    private int mapped;

    private record Mapping(MappedByteBuffer file, UnsafeBuffer view, long payload)
    {
    }

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
     * @throws Sm4jException if the buffer is gone (its owner freed it with the send pending, or left), or
     *                       its file is not what the message said (a protocol error, named).
     */
    public synchronized void copy(
        final int rank, final long chunkId, final long position, final MutableDirectBuffer into, final int offset,
        final int length)
    {
        final Mapping mapping = mapping(rank, chunkId);
        if (position < 0 || position + length > mapping.payload)
        {
            throw new Sm4jException("rank " + rank + " named bytes " + position + ".." + (position + length) +
                " of its shared buffer " + chunkId + ", which has " + mapping.payload);
        }
        try
        {
            into.putBytes(offset, mapping.view, PAYLOAD_OFFSET + (int)position, length);
        }
        catch (final InternalError fault)
        {
            throw new Sm4jException("rank " + rank + "'s shared buffer " + path(rank, chunkId) +
                " faulted while it was read (the file was truncated): " + fault.getMessage(), fault);
        }
    }

    public synchronized WindowStats stats()
    {
        return new WindowStats(hits, misses, invalidations, mapped);
    }

    /**
     * Unmaps every kept mapping.
     */
    @Override
    public synchronized void close()
    {
        for (final Long2ObjectHashMap<Mapping> chunks : byRank)
        {
            if (chunks != null)
            {
                chunks.values().forEach(m -> IoUtil.unmap(m.file));
                chunks.clear();
            }
        }
        mapped = 0;
    }

    private Mapping mapping(final int rank, final long chunkId)
    {
        Long2ObjectHashMap<Mapping> chunks = byRank[rank];
        if (chunks == null)
        {
            chunks = new Long2ObjectHashMap<>();
            byRank[rank] = chunks;
        }
        final Mapping kept = chunks.get(chunkId);
        if (kept != null)
        {
            if (isLive(kept))
            {
                hits++;
                return kept;
            }
            drop(chunks, chunkId, kept);
            throw gone(rank, chunkId);
        }
        misses++;
        chunks.values().removeIf(m -> !isLive(m) && unmapped(m)); // the rank freed some: let their pages go
        final Mapping fresh = map(rank, chunkId);
        chunks.put(chunkId, fresh);
        mapped++;
        return fresh;
    }

    private Mapping map(final int rank, final long chunkId)
    {
        final Path path = path(rank, chunkId);
        final MappedByteBuffer file;
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ))
        {
            final long size = channel.size();
            if (size < PAYLOAD_OFFSET || size > Integer.MAX_VALUE)
            {
                throw new Sm4jException("rank " + rank + "'s shared buffer " + path + " has " + size +
                    " bytes, not a shared buffer's length");
            }
            file = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
        }
        catch (final NoSuchFileException ex)
        {
            throw gone(rank, chunkId);
        }
        catch (final IOException ex)
        {
            throw new Sm4jException("cannot map rank " + rank + "'s shared buffer " + path + ": " + ex, ex);
        }
        final UnsafeBuffer view = new UnsafeBuffer(file);
        final long payload = view.getLong(LENGTH_OFFSET);
        // NOTE: acquire: LIVE is released after the header, so the fields read below are the owner's
        final long state = view.getLongAcquire(STATE_OFFSET);
        if (view.getLong(MAGIC_OFFSET) != MAGIC || view.getInt(OWNER_OFFSET) != rank ||
            view.getLong(CHUNK_ID_OFFSET) != chunkId || payload < 1 || PAYLOAD_OFFSET + payload > view.capacity())
        {
            IoUtil.unmap(file);
            throw new Sm4jException(path + " is not rank " + rank + "'s shared buffer " + chunkId +
                " (its header is damaged, or another program wrote it)");
        }
        final Mapping mapping = new Mapping(file, view, payload);
        if (state != WindowChunkDescriptor.LIVE)
        {
            IoUtil.unmap(file);
            throw gone(rank, chunkId);
        }
        return mapping;
    }

    private static boolean isLive(final Mapping mapping)
    {
        return mapping.view.getLongAcquire(STATE_OFFSET) == WindowChunkDescriptor.LIVE;
    }

    private void drop(final Long2ObjectHashMap<Mapping> chunks, final long chunkId, final Mapping mapping)
    {
        chunks.remove(chunkId);
        unmapped(mapping);
    }

    private boolean unmapped(final Mapping mapping)
    {
        IoUtil.unmap(mapping.file);
        invalidations++;
        mapped--;
        return true;
    }

    private Sm4jException gone(final int rank, final long chunkId)
    {
        return new Sm4jException("rank " + rank + "'s shared buffer " + chunkId + " is gone: it was freed (or its rank " +
            "left) while a send from it was pending");
    }

    private Path path(final int rank, final long chunkId)
    {
        return SegmentFiles.windowPath(segment, rank, chunkId);
    }
}
