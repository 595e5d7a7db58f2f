package io.sm4j.window;

import io.sm4j.layout.WindowChunkDescriptor;
import io.sm4j.segment.SegmentFiles;
import io.sm4j.segment.Sm4jException;
import org.agrona.IoUtil;
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
 * A peer's shared buffer file, mapped by this rank: the whole file, its header checked before anything is
 * trusted ({@link WindowChunkDescriptor}).
 *
 * @param file    the mapping (unmapped by {@link #unmap}, or by a GC once unreachable).
 * @param view    the whole file.
 * @param payload the payload's length, from the checked header.
 */
record ChunkFile(MappedByteBuffer file, UnsafeBuffer view, long payload)
{
    /**
     * Maps {@code rank}'s buffer {@code chunkId} of the job whose segment is {@code segment}.
     *
     * @throws Sm4jException if the file is gone or not that buffer, each in one line.
     */
    static ChunkFile map(final Path segment, final int rank, final long chunkId)
    {
        final Path path = SegmentFiles.windowPath(segment, rank, chunkId);
        final MappedByteBuffer file;
        // read-write: puts write into a window's part, PUSH into a receiver's buffer
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final long size = channel.size();
            if (size < PAYLOAD_OFFSET || size > Integer.MAX_VALUE)
            {
                throw new Sm4jException("rank " + rank + "'s shared buffer " + path + " has " + size +
                    " bytes, not a shared buffer's length");
            }
            file = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
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
        // NOTE: acquire: LIVE is released after the header, so the fields read below are the owner's
        final long state = view.getLongAcquire(STATE_OFFSET);
        final long payload = view.getLong(LENGTH_OFFSET);
        if (view.getLong(MAGIC_OFFSET) != MAGIC || view.getInt(OWNER_OFFSET) != rank ||
            view.getLong(CHUNK_ID_OFFSET) != chunkId || payload < 1 || payload > view.capacity() - PAYLOAD_OFFSET)
        {
            IoUtil.unmap(file);
            throw new Sm4jException(path + " is not rank " + rank + "'s shared buffer " + chunkId +
                " (its header is damaged, or another program wrote it)");
        }
        if (state != WindowChunkDescriptor.LIVE)
        {
            IoUtil.unmap(file);
            throw gone(rank, chunkId);
        }
        return new ChunkFile(file, view, payload);
    }

    static BufferGoneException gone(final int rank, final long chunkId)
    {
        return new BufferGoneException("rank " + rank + "'s shared buffer " + chunkId + " is gone: its rank freed it, or left");
    }

    /**
     * @return true while the owner has not freed the buffer.
     */
    boolean isLive()
    {
        // NOTE: acquire, pairing with the owner's release of FREED (LocalWindows.release)
        return view.getLongAcquire(STATE_OFFSET) == WindowChunkDescriptor.LIVE;
    }

    void unmap()
    {
        IoUtil.unmap(file);
    }
}
