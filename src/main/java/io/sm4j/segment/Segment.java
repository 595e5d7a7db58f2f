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
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

/**
 * One mapped segment file: its creation, attachment, mapping, header and removal. The ranks it holds are
 * {@link #ranks()}.
 * <p>
 * {@link #create} is the node leader's path (launcher or test). The file is allocated, formatted and
 * published READY under a temporary name that carries the creator's pid and start time
 * ({@link SegmentFiles#creatingName}), then linked to its final name: a file under the final name is
 * always complete, and one left by a creator that died is recognised as such ({@link StaleSegments}).
 * {@link #attach} is every rank's: wait for the file, validate its header against this build's layout,
 * and map what was validated, through the one open channel. Ranks then register, {@link #awaitAll} and
 * finally {@link #detach}; the last rank out, or the creator's {@link #close}, removes the file.
 */
public final class Segment implements AutoCloseable
{
    private static final long ATTACH_POLL_NANOS = 1_000_000L;
    /** Attach polls between two liveness checks (each reads /proc): every 100 ms, as the health check does. */
    private static final int POLLS_PER_LIVENESS_CHECK = 100;
    /** How long a rank waits for the file in silence before it says what it waits for. */
    private static final long ATTACH_NOTICE_NANOS = 1_000_000_000L;
    /** Where ranks started without sm4j run usually get the path from. */
    private static final String SEGMENT_VARIABLE = "SM4J_SEGMENT";
    /** What the segment file is called in a message that there is no room for it. */
    private static final String SEGMENT = "the segment";

    private final Path path;
    private final SegmentLayout layout;
    private final FileChannel channel;
    private final MappedSections sections;
    private final SegmentHeader header;
    private final RankRegistry ranks;
    private final SegmentViews views = new SegmentViews(this);
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
        final UnsafeBuffer[] controls = new UnsafeBuffer[layout.params().peers()];
        for (int rank = 0; rank < controls.length; rank++)
        {
            controls[rank] = sections.view(layout.controlBlockOffset(rank), ControlBlockDescriptor.OWNER_LENGTH);
        }
        this.ranks = new RankRegistry(path.toString(), controls);
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
     * Checks what {@link #create} would check before it writes anything: the layout and the free space.
     *
     * @throws Sm4jException if the segment cannot be created.
     */
    public static void checkCreatable(final LayoutParams params, final Path dir)
    {
        try
        {
            SegmentFiles.requireSpace(dir, SegmentLayout.compute(params).totalBytes(), SEGMENT);
        }
        catch (final IOException ex)
        {
            throw new Sm4jException("cannot read the free space of " + dir + ": " + ex.getMessage(), ex);
        }
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
        JvmAccess.require(); // before the first byte of a file
        final SegmentLayout layout = SegmentLayout.compute(params);
        final Path path = SegmentFiles.path(dir, jobId);
        final Path creating = SegmentFiles.creatingPath(dir, jobId);
        FileChannel channel = null;
        boolean linked = false;
        try
        {
            if (Files.exists(path, LinkOption.NOFOLLOW_LINKS))
            {
                throw new FileAlreadyExistsException(path.toString());
            }
            channel = SegmentFiles.createAllocated(creating, layout.totalBytes(), SEGMENT);
            final Segment segment = new Segment(path, layout, channel, ownsFile);
            try
            {
                segment.format(jobId, ownsFile ? SegmentHeaderDescriptor.OWNER_CREATOR : SegmentHeaderDescriptor.OWNER_RANKS);
                // a hard link never replaces an existing file (a rename would): the final name appears
                // atomically, READY, or not at all
                Files.createLink(path, creating);
                linked = true;
                Files.delete(creating);
            }
            catch (final IOException | RuntimeException ex)
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
                SegmentFiles.deleteQuietly(creating);
                if (linked)
                {
                    SegmentFiles.deleteQuietly(path);
                }
            }
            if (ex instanceof Sm4jException sm4j)
            {
                throw sm4j;
            }
            throw new Sm4jException("cannot create segment " + path + ": " + ex, ex);
        }
    }

    /**
     * {@link #attach(Path, Duration, ProcessIdentity)} without watching the creator.
     */
    public static Segment attach(final Path path, final Duration timeout)
    {
        return attach(path, timeout, null);
    }

    /**
     * Waits for the segment at {@code path} to exist, validates it and maps it.
     *
     * @param creator the process that creates the file (the launcher), or null: if it dies first, the wait
     *                ends at once.
     * @throws Sm4jException if it is not an sm4j segment, is incompatible or truncated, is aborted, or does
     *                       not appear within {@code timeout}.
     */
    public static Segment attach(final Path path, final Duration timeout, final ProcessIdentity creator)
    {
        JvmAccess.require();
        final Path dir = path.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir))
        {
            throw new Sm4jException("segment " + path + " cannot appear: its directory " + dir + " does not exist");
        }
        final long started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        boolean told = false;
        while (true)
        {
            try
            {
                final FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
                try
                {
                    return new Segment(path, validate(path, channel), channel, false);
                }
                catch (final IOException | RuntimeException ex)
                {
                    closeQuietly(channel);
                    if (ex instanceof JobAbortedException)
                    {
                        StaleSegments.reclaimJob(path); // this rank may be the last of the job to look at it
                    }
                    throw ex;
                }
            }
            catch (final NoSuchFileException ex)
            {
                if (creator != null && !creator.isAlive())
                {
                    StaleSegments.reclaimJob(path); // the file the creator was allocating when it died
                    throw new Sm4jException("segment " + path + " will not appear: its creator (" + creator + ") has died");
                }
            }
            catch (final IOException ex)
            {
                throw new Sm4jException("cannot open segment " + path + ": " + ex, ex);
            }
            final long now = System.nanoTime();
            if (!told && now - started > ATTACH_NOTICE_NANOS)
            {
                told = true;
                System.err.println("sm4j: waiting for segment " + path + " to appear (" + (creator == null ?
                    "made by sm4j create or Communicator.createSegment; if it never comes, check " + SEGMENT_VARIABLE :
                    "its launcher, " + creator + ", is creating it") + "); giving up after " + timeout.toMillis() + " ms");
            }
            if (now - deadline > 0)
            {
                if (!StaleSegments.beingCreated(path))
                {
                    throw new Sm4jException("segment " + path + " not ready after " + timeout.toMillis() +
                        " ms (waiting for the file to exist)");
                }
                deadline = now + timeout.toNanos(); // a live creator still allocating a large file: not its ranks' time
            }
            java.util.concurrent.locks.LockSupport.parkNanos(ATTACH_POLL_NANOS);
        }
    }

    /**
     * Marks the job of the segment at {@code path} ABORTED with {@code reason} (the first reason wins), through
     * a mapping of its header only: for a rank's exception handler, which runs after the rank has closed its
     * endpoint. Does nothing if the file is gone or is not a READY sm4j segment.
     */
    public static void recordFailure(final Path path, final int rank, final String reason)
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS))
        {
            if (channel.size() < SegmentHeaderDescriptor.LENGTH)
            {
                return;
            }
            final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, SegmentHeaderDescriptor.LENGTH);
            try
            {
                final SegmentHeader header = new SegmentHeader(new UnsafeBuffer(mapped));
                if (header.hasMagic(path.toString()) && header.isReady())
                {
                    header.abort(rank, reason);
                }
            }
            finally
            {
                IoUtil.unmap(mapped);
            }
        }
        catch (final IOException | RuntimeException ignore)
        {
            // no segment left to tell: the launcher reports the rank's exit code instead
        }
    }

    /**
     * @return the layout the header of the file open as {@code channel} describes, validated.
     */
    private static SegmentLayout validate(final Path path, final FileChannel channel) throws IOException
    {
        final long size = channel.size();
        if (size < SegmentHeaderDescriptor.LENGTH)
        {
            throw new Sm4jException("truncated segment " + path + ": length=" + size + " (expected at least " +
                SegmentHeaderDescriptor.LENGTH + ")");
        }
        final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, SegmentHeaderDescriptor.LENGTH);
        try
        {
            final SegmentHeader header = new SegmentHeader(new UnsafeBuffer(mapped));
            // NOTE: magic first (a foreign file fails fast), then the state's acquire, then the rest of the header
            if (!header.hasMagic(path.toString()))
            {
                throw new Sm4jException("not an sm4j segment: " + path + " (no magic: never formatted)");
            }
            if (header.state() == SegmentHeaderDescriptor.STATE_CREATING)
            {
                throw new Sm4jException("segment " + path + " was never published READY");
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

    private void format(final long jobId, final int owner)
    {
        header.format(layout, jobId, owner);
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
     * @return a direct view of {@code [offset, offset + length)} of the segment; the transport uses
     *         {@link #views()}, each exactly one component of the layout.
     */
    UnsafeBuffer view(final long offset, final int length)
    {
        return sections.view(offset, length);
    }

    /**
     * @return typed views of the layout's components (queues, indexes, boxes, pools).
     */
    public SegmentViews views()
    {
        return views;
    }

    int mappingCount()
    {
        return sections.mappingCount();
    }

    /**
     * Explains a fault of an access to this mapping. A mapped page whose file offset no longer exists (the
     * file was truncated under the job) raises SIGBUS, which the JVM turns into an {@link InternalError}
     * ("a fault occurred in an unsafe memory access") in the thread that touched it.
     *
     * The JVM raises a fault of compiled code a little after the access, and a truncated file faults every
     * access: a later access's fault may surface while this one is explained. It is explained instead. A later
     * fault can also surface in a caller's handler before it calls this (an access in a {@code finally} run
     * because of the first): a layer whose {@code finally} touches the mapping translates in a frame around
     * its handler too ({@code ProgressEngine.waitFor}, docs/reliability.md).
     *
     * @return an exception naming the file and its length, if the file is now shorter than its layout.
     * @throws InternalError {@code error} itself if the file still has its length (not a fault of ours).
     */
    public Sm4jException fault(final InternalError error)
    {
        InternalError current = error;
        while (true)
        {
            try
            {
                final long length = fileLength();
                if (length >= layout.totalBytes())
                {
                    throw current;
                }
                return truncated(length, current);
            }
            catch (final InternalError late)
            {
                if (late == current)
                {
                    throw late; // the file has its length: not a fault of ours
                }
                current = late;
            }
        }
    }

    /**
     * Checks the file's length before an atomic read-modify-write of the mapping: HotSpot turns a fault of a
     * plain or volatile access into an {@link InternalError}, but a compare-and-set run by the interpreter
     * faults inside the VM and kills the JVM (JDK 17). The rare ones (abort, detach) are guarded by this, and
     * so are the launcher's occasional reads, so that a truncated file is reported instead of faulted on.
     *
     * @throws Sm4jException naming the file and its length if it is shorter than its layout.
     */
    public void checkIntact()
    {
        final long length = fileLength();
        if (length < layout.totalBytes())
        {
            throw truncated(length, null);
        }
    }

    /**
     * @return the mapped file's length (even if its path now names another file), -1 if unreadable.
     */
    private long fileLength()
    {
        // NOTE: FileChannel.size is interruptible: with the calling thread's interrupt status set it would close the
        // channel for good (and every later check would call the file unreadable); put aside, and set again
        final boolean interrupted = Thread.interrupted();
        try
        {
            return channel.size();
        }
        catch (final IOException ex)
        {
            return -1;
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Sm4jException truncated(final long length, final InternalError cause)
    {
        return new Sm4jException("segment file " + path + " is " + (length < 0 ? "unreadable" : length + " bytes") +
            ", shorter than the " + layout.totalBytes() + " bytes of its layout: it was truncated while the job ran", cause);
    }

    /**
     * Marks the job ABORTED; the first reason wins.
     */
    public void abort(final int rank, final String reason)
    {
        abort(rank, reason, 0);
    }

    /**
     * Marks the job ABORTED; the first reason wins, with its exit code (a rank's {@code abort(code, reason)}: what
     * the job's launcher exits with; 0 for none).
     */
    public void abort(final int rank, final String reason, final int exitCode)
    {
        checkIntact();
        header.abort(rank, reason, exitCode);
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
     * @return the job's ranks: registration, liveness, detachment.
     */
    public RankRegistry ranks()
    {
        return ranks;
    }

    /**
     * Waits until every rank has registered (a rank that already detached counts), watching the ranks and
     * the creator as the health check does: a death ends the wait at once, as an abort naming it.
     *
     * @throws Sm4jException naming the missing ranks after {@code timeout}; the job is then aborted.
     */
    public void awaitAll(final int rank, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final int n = layout.params().peers();
        // written before READY and never again: read once
        final ProcessIdentity creator = header.owner() == SegmentHeaderDescriptor.OWNER_CREATOR ? header.creator() : null;
        for (int poll = 0; ; poll++)
        {
            checkNotAborted();
            final List<Integer> missing = ranks.missing();
            if (missing.isEmpty())
            {
                return;
            }
            if (poll % POLLS_PER_LIVENESS_CHECK == 0)
            {
                checkAttachingAlive(rank, creator);
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
     * Aborts the job if a rank that {@code rank} watches, or the creator, has died while the ranks attach.
     */
    private void checkAttachingAlive(final int rank, final ProcessIdentity creator)
    {
        final int dead = ranks.findDeadPeer(rank);
        if (dead >= 0)
        {
            abort(rank, "rank " + dead + " (pid " + ranks.pidOf(dead) + ") died while the ranks were attaching");
        }
        else if (creator != null && !creator.isAlive())
        {
            abort(rank, "the creator of the segment (" + creator + ") died while the ranks were attaching");
        }
        checkNotAborted();
    }

    /**
     * Marks {@code rank} detached; the last rank out removes the file. A rank leaving an aborted job removes it
     * too if no process of the job is left (ranks that never registered do not count: a launcher killed
     * before they all attached leaves no file).
     */
    public void detach(final int rank)
    {
        checkIntact();
        ranks.detach(rank);
        if (header.incrementDetached() == layout.params().peers())
        {
            SegmentFiles.deleteSegment(path);
        }
        else if (!header.isReady())
        {
            StaleSegments.reclaimJob(path);
        }
    }

    /**
     * Unmaps; the creator also removes the file.
     */
    @Override
    public void close()
    {
        close(true);
    }

    /**
     * @param unmap false to leave the file mapped (and its ranks' /proc files open): a thread of the closing rank
     *              is still inside a call that writes into it (a close from another thread gave up waiting); both
     *              go with their buffers, once unreachable.
     */
    public void close(final boolean unmap)
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (unmap)
        {
            ranks.close();
            sections.close();
        }
        closeQuietly(channel);
        if (creator)
        {
            SegmentFiles.deleteSegment(path);
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

}
