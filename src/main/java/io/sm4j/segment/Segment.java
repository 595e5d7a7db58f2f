package io.sm4j.segment;

import io.sm4j.layout.CbWrapperDescriptor;
import io.sm4j.layout.ControlBlockDescriptor;
import io.sm4j.layout.FifoDescriptor;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentHeaderDescriptor;
import io.sm4j.layout.SegmentLayout;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.sm4j.layout.ControlBlockDescriptor.*;

/**
 * One mapped segment file. {@link #create} is the node leader's path (launcher or test): allocate,
 * format, publish READY last. {@link #attach} is every rank's: wait for READY, validate against this
 * build's layout, map. Ranks then {@link #register}, {@link #awaitAll} and finally {@link #detach}; the last
 * rank out, or the creator's {@link #close}, removes the file.
 */
public final class Segment implements AutoCloseable
{
    private static final long ATTACH_POLL_NANOS = 1_000_000L;

    private final Path path;
    private final SegmentLayout layout;
    private final FileChannel channel;
    private final MappedSections sections;
    private final SegmentHeader header;
    private final UnsafeBuffer[] controls;
    /** Per rank, the handle of the process last seen registered: looked up once per pid, not per check. */
    private final ProcessHandle[] processes;
    private final boolean creator;
    private boolean closed;

    private Segment(final Path path, final SegmentLayout layout, final FileChannel channel, final boolean creator)
        throws IOException
    {
        this.path = path;
        this.layout = layout;
        this.channel = channel;
        this.sections = MappedSections.map(channel, layout);
        this.header = new SegmentHeader(sections.view(layout.headerOffset(), SegmentHeaderDescriptor.LENGTH));
        // one view per control block, made once: isAttached is read on every send
        this.controls = new UnsafeBuffer[layout.params().peers()];
        for (int rank = 0; rank < controls.length; rank++)
        {
            controls[rank] = sections.view(layout.controlBlockOffset(rank), ControlBlockDescriptor.OWNER_LENGTH);
        }
        this.processes = new ProcessHandle[controls.length];
        this.creator = creator;
    }

    /**
     * Creates, allocates and formats a segment, then publishes it READY.
     *
     * @param params layout parameters.
     * @param dir    directory, e.g. from {@link SegmentFiles#directory}.
     * @param jobId  job id, part of the file name.
     * @return the segment; closing it removes the file.
     */
    public static Segment create(final LayoutParams params, final Path dir, final long jobId)
    {
        return create(params, dir, jobId, true);
    }

    /**
     * Creates a READY segment as {@link #create} does, then unmaps it and leaves the file to the ranks: the
     * last rank to {@link #detach} removes it.
     *
     * @return the path of the new file.
     */
    public static Path createForRanks(final LayoutParams params, final Path dir, final long jobId)
    {
        final Segment segment = create(params, dir, jobId, false);
        segment.close();
        return segment.path;
    }

    /**
     * @param ownsFile whether {@link #close} removes the file.
     */
    private static Segment create(final LayoutParams params, final Path dir, final long jobId, final boolean ownsFile)
    {
        final SegmentLayout layout = SegmentLayout.compute(params);
        final Path path = dir.resolve(SegmentFiles.fileName(jobId));
        FileChannel channel = null;
        try
        {
            channel = SegmentFiles.createAllocated(path, layout.totalBytes());
            final Segment segment = new Segment(path, layout, channel, ownsFile);
            try
            {
                segment.format(jobId);
            }
            catch (final RuntimeException ex)
            {
                segment.sections.close();
                throw ex;
            }
            return segment;
        }
        catch (final IOException | RuntimeException ex)
        {
            if (channel != null)
            {
                // only a file this call created is removed, never one that was already there
                closeQuietly(channel);
                deleteQuietly(path);
            }
            if (ex instanceof Sm4jException sm4j)
            {
                throw sm4j;
            }
            throw new Sm4jException("cannot create segment " + path + ": " + ex, ex);
        }
    }

    /**
     * Waits for the segment at {@code path} to be READY, validates it and maps it.
     *
     * @throws Sm4jException if it is not an sm4j segment, is incompatible or truncated, is aborted, or is
     *                       not ready within {@code timeout}.
     */
    public static Segment attach(final Path path, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        String waitingFor = "the file to exist";
        while (true)
        {
            try (FileChannel probe = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS))
            {
                waitingFor = "the creator to publish READY";
                final SegmentLayout layout = probeReady(path, probe);
                if (layout != null)
                {
                    final FileChannel channel = FileChannel.open(path, StandardOpenOption.READ,
                        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
                    try
                    {
                        return new Segment(path, layout, channel, false);
                    }
                    catch (final IOException | RuntimeException ex)
                    {
                        closeQuietly(channel);
                        throw ex;
                    }
                }
            }
            catch (final NoSuchFileException ex)
            {
                waitingFor = "the file to exist";
            }
            catch (final IOException ex)
            {
                throw new Sm4jException("cannot open segment " + path + ": " + ex, ex);
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new Sm4jException("segment " + path + " not ready after " + timeout.toMillis() + " ms (waiting for " +
                    waitingFor + ")");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(ATTACH_POLL_NANOS);
        }
    }

    /**
     * @return the validated layout if the segment is READY, null while it is still being created.
     */
    private static SegmentLayout probeReady(final Path path, final FileChannel probe) throws IOException
    {
        final long size = probe.size();
        if (size < SegmentHeaderDescriptor.LENGTH)
        {
            if (size > 0 && Files.isRegularFile(path) && !isBeingCreated(probe, size))
            {
                throw new Sm4jException("truncated segment " + path + ": length=" + size + " (expected at least " +
                    SegmentHeaderDescriptor.LENGTH + ")");
            }
            return null;
        }
        final MappedByteBuffer mapped = probe.map(FileChannel.MapMode.READ_WRITE, 0, SegmentHeaderDescriptor.LENGTH);
        try
        {
            final SegmentHeader header = new SegmentHeader(new UnsafeBuffer(mapped));
            // NOTE: magic first (a foreign file fails fast), then the state's acquire, then the rest of the header
            if (!header.hasMagic(path.toString()) || header.state() == SegmentHeaderDescriptor.STATE_CREATING)
            {
                return null;
            }
            final SegmentLayout layout = header.validate(size, path.toString());
            final JobAbortedException aborted = header.abortCause();
            if (aborted != null)
            {
                throw aborted;
            }
            return layout;
        }
        finally
        {
            IoUtil.unmap(mapped);
        }
    }

    /**
     * A short file whose first bytes are still zero is a creator at work; anything else is truncated.
     */
    private static boolean isBeingCreated(final FileChannel probe, final long size) throws IOException
    {
        final java.nio.ByteBuffer first = java.nio.ByteBuffer.allocate((int)Math.min(size, Long.BYTES));
        probe.read(first, 0);
        for (int i = 0; i < first.position(); i++)
        {
            if (first.get(i) != 0)
            {
                return false;
            }
        }
        return true;
    }

    private void format(final long jobId)
    {
        header.format(layout, jobId);
        final int n = layout.params().peers();
        for (int r = 0; r < n; r++)
        {
            for (int s = 0; s < n; s++)
            {
                if (s == r)
                {
                    continue;
                }
                final UnsafeBuffer descriptor = view(layout.fifoDescriptorOffset(s, r), FifoDescriptor.LENGTH);
                descriptor.putInt(FifoDescriptor.SENDER_OFFSET, s);
                descriptor.putInt(FifoDescriptor.RECEIVER_OFFSET, r);
                descriptor.putLong(FifoDescriptor.WRAPPER_OFFSET, layout.wrapperOffset(s, r));
                final UnsafeBuffer wrapper = view(layout.wrapperOffset(s, r), CbWrapperDescriptor.LENGTH);
                wrapper.putLong(CbWrapperDescriptor.QUEUE_OFFSET, layout.queueOffset(s, r));
                wrapper.putLong(CbWrapperDescriptor.HEAD_OFFSET, layout.headOffset(s, r));
                wrapper.putLong(CbWrapperDescriptor.TAIL_OFFSET, layout.tailOffset(s, r));
                wrapper.putInt(CbWrapperDescriptor.ENTRIES_OFFSET, layout.params().queueEntries());
                wrapper.putInt(CbWrapperDescriptor.SENDER_OFFSET, s);
                wrapper.putInt(CbWrapperDescriptor.RECEIVER_OFFSET, r);
            }
        }
        header.publishReady();
    }

    public Path path()
    {
        return path;
    }

    public SegmentLayout layout()
    {
        return layout;
    }

    public long jobId()
    {
        return header.jobId();
    }

    /**
     * @return a direct view of {@code [offset, offset + length)} of the segment.
     */
    public UnsafeBuffer view(final long offset, final int length)
    {
        return sections.view(offset, length);
    }

    int mappingCount()
    {
        return sections.mappingCount();
    }

    /**
     * Marks the job ABORTED; the first reason wins.
     */
    public void abort(final int rank, final String reason)
    {
        header.abort(rank, reason);
    }

    /**
     * @throws JobAbortedException if the job has been aborted.
     */
    public void checkNotAborted()
    {
        if (!header.isReady())
        {
            final JobAbortedException aborted = header.abortCause();
            if (aborted != null)
            {
                throw aborted;
            }
        }
    }

    /**
     * Claims {@code rank}'s control block for this process.
     *
     * @throws Sm4jException if another process holds the rank.
     */
    public void register(final int rank)
    {
        final UnsafeBuffer control = control(rank);
        if (!control.compareAndSetInt(STATE_OFFSET, STATE_ABSENT, STATE_ATTACHED))
        {
            throw new Sm4jException("rank " + rank + " is already attached (pid " + control.getLongVolatile(PID_OFFSET) +
                ", state " + control.getIntVolatile(STATE_OFFSET) + ") in " + path);
        }
        control.putLongRelease(PID_OFFSET, ProcessHandle.current().pid());
        heartbeat(rank);
    }

    public void heartbeat(final int rank)
    {
        control(rank).putLongRelease(HEARTBEAT_OFFSET, System.nanoTime());
    }

    /**
     * Waits until every rank has registered (a rank that already detached counts).
     *
     * @throws Sm4jException naming the missing ranks after {@code timeout}; the job is then aborted.
     */
    public void awaitAll(final int rank, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final int n = layout.params().peers();
        while (true)
        {
            checkNotAborted();
            final List<Integer> missing = new ArrayList<>();
            for (int r = 0; r < n; r++)
            {
                if (control(r).getIntAcquire(STATE_OFFSET) == STATE_ABSENT)
                {
                    missing.add(r);
                }
            }
            if (missing.isEmpty())
            {
                return;
            }
            if (System.nanoTime() - deadline > 0)
            {
                final String reason = "timed out after " + timeout.toMillis() + " ms waiting for ranks " + missing +
                    " of " + n + " to attach";
                abort(rank, reason);
                throw new Sm4jException(reason);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(ATTACH_POLL_NANOS);
        }
    }

    /**
     * @return a rank other than {@code self} that registered but whose process is gone, or -1.
     */
    public int findDeadPeer(final int self)
    {
        final int n = layout.params().peers();
        for (int r = 0; r < n; r++)
        {
            if (r == self)
            {
                continue;
            }
            final UnsafeBuffer control = control(r);
            final int state = control.getIntAcquire(STATE_OFFSET);
            final long pid = control.getLongAcquire(PID_OFFSET);
            if (state == STATE_ATTACHED && pid != 0 && !isAlive(r, pid))
            {
                return r;
            }
        }
        return -1;
    }

    /**
     * @return System.nanoTime() of {@code rank}'s last health check while waiting, 0 if never.
     */
    public long lastHeartbeat(final int rank)
    {
        return control(rank).getLongAcquire(HEARTBEAT_OFFSET);
    }

    /**
     * Liveness of {@code rank}'s process through a handle kept per rank, so a check allocates nothing; the
     * handle remembers the process's start time, so the pid reused by a later process reads as dead. Racy
     * in MULTIPLE mode on purpose: two threads may both look a handle up.
     */
    private boolean isAlive(final int rank, final long pid)
    {
        ProcessHandle process = processes[rank];
        if (process == null || process.pid() != pid)
        {
            process = ProcessHandle.of(pid).orElse(null);
            if (process == null)
            {
                return false;
            }
            processes[rank] = process;
        }
        return process.isAlive();
    }

    /**
     * @return true while {@code rank} is registered and has not detached.
     */
    public boolean isAttached(final int rank)
    {
        return control(rank).getIntAcquire(STATE_OFFSET) == STATE_ATTACHED;
    }

    public long pidOf(final int rank)
    {
        return control(rank).getLongAcquire(PID_OFFSET);
    }

    /**
     * Marks {@code rank} detached; the last rank out removes the file.
     */
    public void detach(final int rank)
    {
        control(rank).putIntRelease(STATE_OFFSET, STATE_DETACHED);
        if (header.incrementDetached() == layout.params().peers())
        {
            deleteQuietly(path);
        }
    }

    private UnsafeBuffer control(final int rank)
    {
        layout.controlBlockOffset(rank); // range check with the layout's message
        return controls[rank];
    }

    /**
     * Unmaps; the creator also removes the file.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        sections.close();
        closeQuietly(channel);
        if (creator)
        {
            deleteQuietly(path);
        }
    }

    private static void closeQuietly(final FileChannel channel)
    {
        if (channel != null)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignore)
            {
                // nothing left to release
            }
        }
    }

    private static void deleteQuietly(final Path path)
    {
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ignore)
        {
            // best effort: the launcher also removes it
        }
    }
}
