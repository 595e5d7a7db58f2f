package io.sm4j.window;

import io.sm4j.layout.WindowChunkDescriptor;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.MappedByteBuffer;

/**
 * Memory in shared memory owned by this rank, from {@code Communicator.allocate}: an ordinary
 * {@link org.agrona.MutableDirectBuffer} to the application, and a buffer its peers can read in place. A
 * message above the eager limit sent from it goes single-copy: the receiver copies straight out of it, and
 * the send completes once it has. Do not change its bytes while a send from it is pending (as MPI's rule
 * for send buffers).
 * <p>
 * {@link #free()} gives the memory back; the buffer then has no bytes. Re-wrapping it (any {@code wrap})
 * makes it an ordinary buffer: sends from it copy again, as do sends of it by another communicator than
 * the one that allocated it.
 */
public final class SharedBuffer extends UnsafeBuffer
{
    private static final byte[] NO_BYTES = new byte[0];

    private final LocalWindows owner;
    private final long chunkId;
    private final UnsafeBuffer header;
    private final long payloadAddress;
    private final int payloadLength;
    private boolean freed;

    SharedBuffer(final LocalWindows owner, final long chunkId, final MappedByteBuffer file, final int length)
    {
        super(file, WindowChunkDescriptor.PAYLOAD_OFFSET, length);
        this.owner = owner;
        this.chunkId = chunkId;
        this.header = new UnsafeBuffer(file, 0, WindowChunkDescriptor.PAYLOAD_OFFSET);
        this.payloadAddress = addressOffset();
        this.payloadLength = length;
    }

    /**
     * Frees the buffer: peers see it gone, its file is removed, and this buffer has no bytes from now on. The
     * node gets the pages back once nothing maps them: this process's mapping goes at a GC once unreachable
     * (never under a view derived from it), and a peer's kept mapping at its next copy from this rank or its
     * close. Call it from the thread that uses the communicator.
     *
     * @throws IllegalStateException if it was freed already.
     */
    public void free()
    {
        owner.free(this);
    }

    /**
     * @return true until {@link #free()}.
     */
    public boolean isLive()
    {
        return !freed;
    }

    /**
     * @return this rank's number of the buffer: it names the file, and is never used again within the job.
     */
    public long chunkId()
    {
        return chunkId;
    }

    /**
     * @param sender the sending rank's buffers.
     * @return the position in the buffer's payload of {@code offset} of this view, or -1 if a send of it by
     *         {@code sender} must copy: the view is no longer the buffer's own memory (re-wrapped, or freed),
     *         or the buffer is another rank's (whose chunk ids a receiver would look up as the sender's).
     */
    public long sharedPosition(final LocalWindows sender, final int offset, final int length)
    {
        final long position = addressOffset() - payloadAddress + offset;
        return sender == owner && !freed && byteArray() == null && position >= 0 && position <= payloadLength - length ?
            position : -1;
    }

    UnsafeBuffer header()
    {
        return header;
    }

    void markFreed()
    {
        freed = true;
        // the mapping goes with the last reference to it, at a GC: never under a reader
        super.wrap(NO_BYTES);
        header.wrap(NO_BYTES);
    }
}
