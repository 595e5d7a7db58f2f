package io.sm4j.window;

import io.sm4j.layout.WindowChunkDescriptor;
import io.sm4j.segment.NoSpaceException;
import io.sm4j.segment.SegmentFiles;
import io.sm4j.segment.Sm4jException;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import static io.sm4j.layout.WindowChunkDescriptor.CHUNK_ID_OFFSET;
import static io.sm4j.layout.WindowChunkDescriptor.LENGTH_OFFSET;
import static io.sm4j.layout.WindowChunkDescriptor.MAGIC;
import static io.sm4j.layout.WindowChunkDescriptor.MAGIC_OFFSET;
import static io.sm4j.layout.WindowChunkDescriptor.MAX_PAYLOAD;
import static io.sm4j.layout.WindowChunkDescriptor.OWNER_OFFSET;
import static io.sm4j.layout.WindowChunkDescriptor.STATE_OFFSET;

/**
 * This rank's shared buffers: each {@link #allocate} is a file of its own beside the segment
 * ({@link SegmentFiles#windowPath}), created exclusively with mode 0600 and allocated to its last page
 * before it is mapped, so a full /dev/shm fails the call instead of faulting a later write. Each gets the
 * next chunk id, never reused within the job. {@link #free} marks the file FREED, then removes it; whatever
 * is left at {@link #close} goes then, and {@code sm4j clean} removes the files of a rank that died with its
 * segment. Thread-safe: allocation is a cold path.
 */
public final class LocalWindows implements AutoCloseable
{
    /** After a GC, how many doubling waits (1 ms to 128 ms) for freed buffers' mappings to go. */
    private static final int GC_ATTEMPTS = 8;

    private final Path segment;
    private final int rank;
    private final Map<Long, SharedBuffer> live = new LinkedHashMap<>();
    private long nextChunkId = 1;
    private boolean closed;

    /**
     * @param segment the job's segment file: the buffers' files go beside it.
     */
    public LocalWindows(final Path segment, final int rank)
    {
        this.segment = segment;
        this.rank = rank;
    }

    /**
     * @return a new shared buffer of {@code bytes} bytes, zeroed.
     * @throws IllegalArgumentException if {@code bytes} is not 1 to {@link WindowChunkDescriptor#MAX_PAYLOAD}.
     * @throws Sm4jException            if the directory has no room for it, or the file cannot be made.
     */
    public synchronized SharedBuffer allocate(final int bytes)
    {
        if (bytes < 1 || bytes > MAX_PAYLOAD)
        {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "bytes=%d (expected: 1..%,d)", bytes, MAX_PAYLOAD));
        }
        if (closed)
        {
            throw new IllegalStateException("this communicator is closed: no shared buffer can be allocated");
        }
        final long chunkId = nextChunkId++;
        final Path path = SegmentFiles.windowPath(segment, rank, chunkId);
        final long length = WindowChunkDescriptor.fileLength(bytes);
        final MappedByteBuffer file;
        try (FileChannel channel = create(path, length, bytes))
        {
            file = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
        }
        catch (final IOException ex)
        {
            SegmentFiles.deleteQuietly(path);
            throw new Sm4jException("cannot allocate a shared buffer of " + bytes + " bytes in " + path + ": " + ex, ex);
        }
        final SharedBuffer buffer = new SharedBuffer(this, chunkId, file, bytes);
        buffer.header().putLong(MAGIC_OFFSET, MAGIC);
        buffer.header().putInt(OWNER_OFFSET, rank);
        buffer.header().putLong(CHUNK_ID_OFFSET, chunkId);
        buffer.header().putLong(LENGTH_OFFSET, bytes);
        // NOTE: released last: a peer that reads LIVE with acquire sees the header above
        buffer.header().putLongRelease(STATE_OFFSET, WindowChunkDescriptor.LIVE);
        live.put(chunkId, buffer);
        return buffer;
    }

    /**
     * @return this rank's buffer {@code chunkId}, or null if it is not allocated (freed, or never was).
     */
    public synchronized SharedBuffer live(final long chunkId)
    {
        return live.get(chunkId);
    }

    synchronized void free(final SharedBuffer buffer)
    {
        if (live.remove(buffer.chunkId()) != buffer)
        {
            throw new IllegalStateException("shared buffer " + buffer.chunkId() + " of rank " + rank + " was freed already");
        }
        release(buffer);
    }

    /**
     * Frees every buffer still allocated, for peers and the node: FREED and the file removed. The buffers
     * themselves keep their bytes (a close may come from another thread while the owner still reads one; the
     * memory goes at a GC, once unreachable).
     */
    @Override
    public synchronized void close()
    {
        closed = true;
        for (final SharedBuffer buffer : live.values())
        {
            unlink(buffer);
        }
        live.clear();
    }

    private void release(final SharedBuffer buffer)
    {
        unlink(buffer);
        buffer.markFreed();
    }

    private void unlink(final SharedBuffer buffer)
    {
        // NOTE: release, pairing with ChunkFile.isLive's acquire: a peer whose kept mapping reads FREED drops it
        buffer.header().putLongRelease(STATE_OFFSET, WindowChunkDescriptor.FREED);
        SegmentFiles.deleteQuietly(SegmentFiles.windowPath(segment, rank, buffer.chunkId()));
    }

    /**
     * Creates the buffer's file. Freed buffers' pages come back to the node only once nothing maps them, and
     * this process's mappings go at a GC: with no room, one GC and a retry, as the JDK's direct memory does.
     */
    private static FileChannel create(final Path path, final long length, final int bytes) throws IOException
    {
        final String what = "a shared buffer of " + bytes + " bytes";
        try
        {
            return SegmentFiles.createAllocated(path, length, what);
        }
        catch (final NoSpaceException full)
        {
            System.gc();
            final java.nio.file.FileStore store = java.nio.file.Files.getFileStore(path.toAbsolutePath().getParent());
            for (int attempt = 0; attempt < GC_ATTEMPTS && store.getUsableSpace() < length; attempt++)
            {
                // the cleaners unmap after the GC, on their own thread: wait for them as java.nio.Bits does
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L << attempt);
            }
            return SegmentFiles.createAllocated(path, length, what);
        }
    }
}
