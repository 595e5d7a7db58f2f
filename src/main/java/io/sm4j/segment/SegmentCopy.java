package io.sm4j.segment;

import io.sm4j.layout.ControlBlockDescriptor;
import io.sm4j.layout.SegmentHeaderDescriptor;
import io.sm4j.layout.SegmentLayout;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A segment file read from outside its job, never mapped (a file truncated under the reader must not
 * fault it): the header, validated, and copies of every rank's owner line, read as the ranks read their
 * own ({@link RankRegistry}). {@code sm4j clean} and {@code sm4j stat} read files this way.
 */
final class SegmentCopy implements AutoCloseable
{
    final FileChannel channel;
    final SegmentHeader header;
    final SegmentLayout layout;
    final RankRegistry ranks;
    /** The job's abort, or null: read once (a reader of an ABORTING header waits up to 1 s for it). */
    final JobAbortedException aborted;

    /**
     * Why a file is not a segment this version can read.
     */
    static final class Unreadable extends Exception
    {
        private static final long serialVersionUID = 1L;
        /** It has sm4j's magic: another version, or a damaged file. */
        final boolean sm4j;

        Unreadable(final String reason, final boolean sm4j)
        {
            super(reason, null, false, false);
            this.sm4j = sm4j;
        }
    }

    private SegmentCopy(
        final FileChannel channel, final SegmentHeader header, final SegmentLayout layout, final RankRegistry ranks,
        final JobAbortedException aborted)
    {
        this.channel = channel;
        this.header = header;
        this.layout = layout;
        this.ranks = ranks;
        this.aborted = aborted;
    }

    /**
     * @param channel open for reading; the copy does not close it.
     * @throws Unreadable if the file is shorter than a header, has no magic, does not validate, or holds a state
     *                    sm4j never writes.
     */
    static SegmentCopy read(final FileChannel channel, final Path path) throws IOException, Unreadable
    {
        UnsafeBuffer headerBytes = read(channel, 0, SegmentHeaderDescriptor.LENGTH);
        if (headerBytes == null)
        {
            throw new Unreadable("shorter than a header", false);
        }
        // a job caught in the middle of its abort, its reason being written: read the header again until it is
        // ABORTED (a copy never changes; waiting on it spun for a second and then blamed a dead aborter)
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (headerBytes.getInt(SegmentHeaderDescriptor.STATE_OFFSET) == SegmentHeader.STATE_ABORTING &&
            System.nanoTime() - deadline < 0)
        {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            final UnsafeBuffer again = read(channel, 0, SegmentHeaderDescriptor.LENGTH);
            if (again == null)
            {
                break;
            }
            headerBytes = again;
        }
        final long magic = headerBytes.getLong(SegmentHeaderDescriptor.MAGIC_OFFSET);
        if (magic != SegmentHeaderDescriptor.MAGIC)
        {
            // 0: a creator still allocating it (it writes the magic last), or a file of zeros
            throw new Unreadable(magic == 0 ? "no magic" : "its magic is 0x" + Long.toHexString(magic), false);
        }
        final SegmentHeader header = new SegmentHeader(headerBytes);
        final SegmentLayout layout;
        final JobAbortedException aborted;
        try
        {
            layout = header.validate(channel.size(), path.toString());
            aborted = header.abortCause(0); // the file was re-read above while it said ABORTING
        }
        catch (final Sm4jException ex)
        {
            throw new Unreadable(ex.getMessage(), true);
        }
        final int n = layout.params().peers();
        final UnsafeBuffer[] controls = new UnsafeBuffer[n];
        for (int r = 0; r < n; r++)
        {
            final UnsafeBuffer control = read(channel, layout.controlBlockOffset(r), ControlBlockDescriptor.OWNER_LENGTH);
            controls[r] = control == null ? new UnsafeBuffer(new byte[ControlBlockDescriptor.OWNER_LENGTH]) : control;
        }
        return new SegmentCopy(channel, header, layout, new RankRegistry(path.toString(), controls), aborted);
    }

    /**
     * @return READY, ABORTED or CREATING.
     */
    String state()
    {
        return aborted != null ? "ABORTED" : header.isReady() ? "READY" : "CREATING";
    }

    /**
     * @return {@code length} bytes of the file at {@code position}, or null if the file ends before.
     */
    static UnsafeBuffer read(final FileChannel channel, final long position, final int length) throws IOException
    {
        final ByteBuffer bytes = ByteBuffer.allocate(length).order(ByteOrder.nativeOrder());
        while (bytes.hasRemaining())
        {
            if (channel.read(bytes, position + bytes.position()) < 0)
            {
                return null;
            }
        }
        return new UnsafeBuffer(bytes.array());
    }

    /**
     * Closes the /proc files the registry opened to read the ranks' states (not the channel).
     */
    @Override
    public void close()
    {
        ranks.close();
    }
}
