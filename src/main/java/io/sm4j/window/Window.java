package io.sm4j.window;

import io.sm4j.collective.Op;
import io.sm4j.layout.WindowChunkDescriptor;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.file.Path;
import java.util.Locale;

/**
 * A window (MPI-3 RMA over shared memory, as Open MPI's osc/sm): every rank of a communicator exposes a part
 * of shared memory of its own, and any rank reads and writes any part directly: {@link #put} and
 * {@link #get} are copies straight into and out of the target's part, {@link #accumulate} updates its
 * elements atomically, and {@link #shared} hands out a peer's part for loads and stores in place
 * (MPI_Win_shared_query). Made by {@code Communicator.allocateWindow}, a collective call.
 * <p>
 * Synchronisation, as MPI's: {@link #fence} (a barrier: every rank's puts before it are visible to every
 * rank's gets after it), or passive target {@link #lock}/{@link #unlock} of one target (shared or exclusive;
 * the target takes no part) and {@link #flush} within a lock. The memory-ordering rules: a put is complete
 * when it returns (a copy into the target's memory); the unlock's atomic adds publish it to the next holder
 * of that target's lock, whose grant is an acquire load, and the fence's barrier publishes it to every rank
 * after the fence. Outside any lock or fence, loads and stores of a part race as plain memory does.
 * <p>
 * Where it differs from osc/sm: accumulate updates each element with one atomic instruction instead of taking
 * a per-target accumulate lock, so accumulates to different elements never wait for each other; a part of
 * a rank is a file of its own beside the segment ({@link LocalWindows}), mapped by every rank once, at the
 * window's making. One thread at a time per window (its lock state is this rank's).
 */
public final class Window implements AutoCloseable
{
    private static final byte[] NO_BYTES = new byte[0];
    /** How long a split copy yields for the target's last chunk before it waits in the engine. */
    private static final long YIELD_NANOS = 1_000_000;

    private final WindowChannel channel;
    private final SharedBuffer own;
    /** Each rank's part: its header (with the lock) and its payload, as this rank maps them. */
    private final UnsafeBuffer[] headers;
    private final UnsafeBuffer[] parts;
    private final ChunkFile[] mapped;
    /** This rank's buffers: a put from (or get into) one of them can be split with the target. */
    private final LocalWindows windows;
    /** Per target: 0 unlocked, else the lock this rank holds on it. */
    private final byte[] held;
    private boolean closed;

    private static final byte SHARED = 1;
    private static final byte EXCLUSIVE = 2;

    private Window(final WindowChannel channel, final SharedBuffer own, final UnsafeBuffer[] headers, final UnsafeBuffer[] parts,
        final ChunkFile[] mapped, final LocalWindows windows)
    {
        this.channel = channel;
        this.windows = windows;
        this.own = own;
        this.headers = headers;
        this.parts = parts;
        this.mapped = mapped;
        this.held = new byte[parts.length];
    }

    /**
     * The collective making of a window: this rank's part of {@code bytes} (0 for none), then every rank maps
     * every other's. Every rank learns of a rank that could not allocate its part and fails alike.
     */
    public static Window allocate(final WindowChannel channel, final LocalWindows windows, final Path segment, final int bytes)
    {
        channel.checkUsable();
        SharedBuffer own = null;
        RuntimeException failure = null;
        try
        {
            if (bytes < 0 || bytes > WindowChunkDescriptor.MAX_PAYLOAD)
            {
                // not thrown before the collective: the other ranks would wait for this one for good
                throw new IllegalArgumentException(String.format(Locale.ROOT, "bytes=%d (expected: 0..%,d)", bytes,
                    WindowChunkDescriptor.MAX_PAYLOAD));
            }
            own = bytes == 0 ? null : windows.allocate(bytes);
        }
        catch (final RuntimeException ex)
        {
            failure = ex;
        }
        final int size = channel.size();
        final UnsafeBuffer[] headers = new UnsafeBuffer[size];
        final UnsafeBuffer[] parts = new UnsafeBuffer[size];
        final ChunkFile[] mapped = new ChunkFile[size];
        try
        {
            final long[] all = new long[3 * size];
            channel.allGather(new long[]{ channel.worldRank(), own != null ? own.chunkId() : failure == null ? 0 : -1, bytes }, all);
            failure = failure != null ? failure : failed(all, "allocate its part of the window");
            for (int r = 0; r < size && failure == null; r++)
            {
                try
                {
                    mapPart(r, all, own, channel.rank(), segment, headers, parts, mapped);
                }
                catch (final RuntimeException ex)
                {
                    failure = ex;
                }
            }
            // every rank has mapped every part, or knows who could not, before any part is used
            final long[] mappedAll = new long[3 * size];
            channel.allGather(new long[]{ 0, failure == null ? 0 : -1, bytes }, mappedAll);
            failure = failure != null ? failure : failed(mappedAll, "map every part of the window");
        }
        catch (final RuntimeException collectiveFailed)
        {
            // a peer died, the job was aborted, a rank called another collective: this rank's own failure, if any, first
            if (failure != null)
            {
                failure.addSuppressed(collectiveFailed);
            }
            else
            {
                failure = collectiveFailed;
            }
        }
        if (failure != null)
        {
            // this rank's part and its mappings go with the failure: the caller has no window to free them through
            for (final ChunkFile chunk : mapped)
            {
                if (chunk != null)
                {
                    chunk.unmap();
                }
            }
            if (own != null)
            {
                own.free();
            }
            throw failure;
        }
        return new Window(channel, own, headers, parts, mapped, windows);
    }

    /**
     * @return a failure naming the first rank whose triple in {@code all} says it could not {@code what}, or null.
     */
    private static RuntimeException failed(final long[] all, final String what)
    {
        for (int r = 0; r < all.length / 3; r++)
        {
            if (all[3 * r + 1] < 0)
            {
                return new IllegalStateException("rank " + r + " could not " + what + " (" + all[3 * r + 2] +
                    " bytes): see its own error");
            }
        }
        return null;
    }

    private static void mapPart(
        final int r, final long[] all, final SharedBuffer own, final int self, final Path segment,
        final UnsafeBuffer[] headers, final UnsafeBuffer[] parts, final ChunkFile[] mapped)
    {
        final long chunkId = all[3 * r + 1];
        if (r == self)
        {
            headers[r] = own == null ? null : own.header();
            parts[r] = own == null ? new UnsafeBuffer(NO_BYTES) : own;
        }
        else if (chunkId == 0)
        {
            parts[r] = new UnsafeBuffer(NO_BYTES);
        }
        else
        {
            mapped[r] = ChunkFile.map(segment, (int)all[3 * r], chunkId);
            headers[r] = new UnsafeBuffer(mapped[r].view(), 0, WindowChunkDescriptor.PAYLOAD_OFFSET);
            parts[r] = new UnsafeBuffer(mapped[r].view(), WindowChunkDescriptor.PAYLOAD_OFFSET, (int)mapped[r].payload());
        }
    }

    /**
     * @return this rank's part, for loads and stores in place.
     */
    public MutableDirectBuffer local()
    {
        return part(channel.rank());
    }

    /**
     * @return {@code rank}'s part, for loads and stores in place (MPI_Win_shared_query): valid until
     *         {@link #close()}, after which it has no bytes.
     */
    public MutableDirectBuffer shared(final int rank)
    {
        return part(rank);
    }

    /**
     * @return the bytes of {@code rank}'s part.
     */
    public int size(final int rank)
    {
        return part(rank).capacity();
    }

    /**
     * Copies {@code length} bytes of {@code from} into {@code target}'s part at {@code targetOffset}: complete
     * when it returns, visible to others after this rank's unlock or the next fence. From a shared buffer of
     * this rank's own ({@code Communicator.allocate}), {@value SplitCopy#MIN} bytes and more, the target helps
     * with the copy if it can run meanwhile and polls ({@link SplitCopy}).
     */
    public void put(final int target, final int targetOffset, final DirectBuffer from, final int offset, final int length)
    {
        final UnsafeBuffer part = part(target, targetOffset, length);
        if (!split(target, targetOffset, from, offset, length, false, part))
        {
            part.putBytes(targetOffset, from, offset, length);
        }
    }

    /**
     * Copies {@code length} bytes of {@code target}'s part at {@code targetOffset} into {@code into}: into a
     * shared buffer of this rank's own, the target helps as with {@link #put}.
     */
    public void get(final int target, final int targetOffset, final MutableDirectBuffer into, final int offset, final int length)
    {
        final UnsafeBuffer part = part(target, targetOffset, length);
        if (!split(target, targetOffset, into, offset, length, true, part))
        {
            part.getBytes(targetOffset, into, offset, length);
        }
    }

    /**
     * A put or get of many bytes between this rank's own shared buffer {@code mine} and another rank's part,
     * copied by both ranks at once if the target is asked and polls ({@link SplitCopy}); the target may take
     * none of it, and never makes this rank wait for a chunk it is not copying.
     *
     * @return false if it was not split: the caller copies it.
     */
    private boolean split(
        final int target, final int targetOffset, final DirectBuffer mine, final int offset, final int length,
        final boolean get, final UnsafeBuffer part)
    {
        if (length < SplitCopy.MIN || target == channel.rank() || !(mine instanceof SharedBuffer shared))
        {
            return false;
        }
        shared.boundsCheck(offset, length); // before any request: a helper must never copy outside this view
        final long position = shared.sharedPosition(windows, offset, length);
        if (position < 0)
        {
            return false;
        }
        final UnsafeBuffer header = shared.header();
        final long sequence = SplitCopy.open(header);
        final long targetChunk = headers[target].getLong(WindowChunkDescriptor.CHUNK_ID_OFFSET); // a part of bytes: mapped
        if (!channel.askHelp(target, sequence, get, length, shared.chunkId(), position, targetChunk, targetOffset))
        {
            return false; // opened, but no request names it: nobody else claims a chunk of it
        }
        final int chunkBytes = SplitCopy.chunkBytes(length);
        final int chunks = SplitCopy.chunks(length, chunkBytes);
        final int own = get ? SplitCopy.copyOwn(header, sequence, shared, offset, part, targetOffset, length, chunkBytes) :
            SplitCopy.copyOwn(header, sequence, part, targetOffset, shared, offset, length, chunkBytes);
        // the target's last chunk is a few us of copying away, unless the target is queued behind this rank on
        // its core: yield (not spin) so that it runs, then wait as every other wait does (a dead target fails it)
        final long yieldUntil = System.nanoTime() + YIELD_NANOS;
        while (!SplitCopy.helped(header, sequence, chunks, own))
        {
            if (System.nanoTime() - yieldUntil > 0)
            {
                channel.await(() -> SplitCopy.helped(header, sequence, chunks, own));
                break;
            }
            Thread.yield();
        }
        return true;
    }

    /**
     * Combines {@code values} into {@code count} longs of {@code target}'s part from {@code targetOffset}, one
     * atomic update per element (MPI's accumulate: element-wise atomic against other accumulates).
     *
     * @param op SUM, MIN or MAX.
     */
    public void accumulate(final int target, final int targetOffset, final long[] values, final int offset, final int count, final Op op)
    {
        final UnsafeBuffer part = elements(target, targetOffset, values.length, offset, count, op);
        for (int i = 0; i < count; i++)
        {
            ElementAtomics.combine(part, targetOffset + i * Long.BYTES, values[offset + i], op);
        }
    }

    /**
     * As {@link #accumulate(int, int, long[], int, int, Op)}, for doubles (MIN and MAX as Math.min and
     * Math.max: a NaN wins, -0.0 is below 0.0).
     */
    public void accumulate(final int target, final int targetOffset, final double[] values, final int offset, final int count, final Op op)
    {
        final UnsafeBuffer part = elements(target, targetOffset, values.length, offset, count, op);
        for (int i = 0; i < count; i++)
        {
            ElementAtomics.combine(part, targetOffset + i * Long.BYTES, values[offset + i], op);
        }
    }

    /**
     * Locks {@code target}'s part (MPI_Win_lock): exclusive, or shared with other shared holders. Waits in the
     * progress engine; fails, as every wait, if the job aborts (a holder died).
     */
    public void lock(final int target, final boolean exclusive)
    {
        final UnsafeBuffer header = header(target);
        if (held[target] != 0)
        {
            throw new IllegalStateException("rank " + target + "'s part is locked by this rank already");
        }
        final long ticket = WindowLock.takeTicket(header);
        try
        {
            if (exclusive)
            {
                channel.await(() -> WindowLock.exclusiveGranted(header, ticket));
            }
            else
            {
                channel.await(() -> WindowLock.sharedGranted(header, ticket));
                if (WindowLock.admitNext(header, ticket))
                {
                    channel.wakeAll(); // the next shared ticket may sleep: it enters now
                }
            }
        }
        catch (final RuntimeException ex)
        {
            // the ticket is taken and will never be released: every later locker of this part would wait for good
            channel.abortJob("a wait for rank " + target + "'s window lock failed, its ticket taken: " + ex.getMessage());
            throw ex;
        }
        held[target] = exclusive ? EXCLUSIVE : SHARED;
    }

    /**
     * Unlocks {@code target}'s part: this rank's puts and accumulates to it are visible to its next holder.
     */
    public void unlock(final int target)
    {
        final UnsafeBuffer header = header(target);
        if (held[target] == 0)
        {
            throw new IllegalStateException("rank " + target + "'s part is not locked by this rank");
        }
        if (held[target] == EXCLUSIVE)
        {
            WindowLock.unlockExclusive(header);
        }
        else
        {
            WindowLock.unlockShared(header);
        }
        held[target] = 0;
        channel.wakeAll(); // a rank waiting for this lock may sleep (its grant check follows its arming: no lost wake-up)
    }

    /**
     * Completes this rank's operations on {@code target} within a lock (MPI_Win_flush): they are complete when
     * they return, and a full fence orders them before whatever this rank does next.
     */
    public void flush(final int target)
    {
        part(target);
        java.lang.invoke.VarHandle.fullFence();
    }

    /**
     * Ends an access epoch and starts the next (MPI_Win_fence), a collective call: every rank's operations
     * before it are visible to every rank after it.
     */
    public void fence()
    {
        checkOpen();
        channel.barrier(); // its flags' release stores and acquire loads order the epoch's copies
    }

    /**
     * Frees the window, a collective call: every rank's part is gone after it, and every view of one has no
     * bytes.
     *
     * @throws IllegalStateException if this rank still holds a lock of it.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        for (int r = 0; r < held.length; r++)
        {
            if (held[r] != 0)
            {
                throw new IllegalStateException("rank " + r + "'s part is still locked by this rank: unlock it first");
            }
        }
        channel.barrier(); // nobody uses a part once its owner frees it
        closed = true;
        for (int r = 0; r < parts.length; r++)
        {
            if (mapped[r] != null)
            {
                // the views go empty; the mapping goes with its last reference, at a GC: never under a reader
                parts[r].wrap(NO_BYTES);
                headers[r].wrap(NO_BYTES);
            }
        }
        if (own != null)
        {
            own.free();
        }
    }

    private UnsafeBuffer part(final int rank)
    {
        checkOpen();
        channel.checkUsable(); // a closed communicator's segment is unmapped: an unlock's ring would fault
        if (rank < 0 || rank >= parts.length)
        {
            throw new IllegalArgumentException("rank=" + rank + " (expected: 0.." + (parts.length - 1) + ")");
        }
        return parts[rank];
    }

    private UnsafeBuffer part(final int rank, final int targetOffset, final int length)
    {
        final UnsafeBuffer part = part(rank);
        if (targetOffset < 0 || length < 0 || (long)targetOffset + length > part.capacity())
        {
            throw new IndexOutOfBoundsException("targetOffset=" + targetOffset + ", length=" + length + " outside rank " +
                rank + "'s part of " + part.capacity() + " bytes");
        }
        return part;
    }

    private UnsafeBuffer elements(
        final int target, final int targetOffset, final int arrayLength, final int offset, final int count, final Op op)
    {
        if (op != Op.SUM && op != Op.MIN && op != Op.MAX)
        {
            throw new IllegalArgumentException("op=" + op + " (expected: SUM, MIN or MAX for accumulate)");
        }
        if (offset < 0 || count < 0 || (long)offset + count > arrayLength)
        {
            throw new IndexOutOfBoundsException("offset=" + offset + ", count=" + count + " outside an array of " + arrayLength);
        }
        if (targetOffset % Long.BYTES != 0)
        {
            throw new IllegalArgumentException("targetOffset=" + targetOffset + " (expected: a multiple of 8 for accumulate)");
        }
        return part(target, targetOffset, (int)Math.min(Integer.MAX_VALUE, (long)count * Long.BYTES));
    }

    private UnsafeBuffer header(final int target)
    {
        part(target);
        final UnsafeBuffer header = headers[target];
        if (header == null)
        {
            throw new IllegalArgumentException("rank " + target + " has no part in this window (0 bytes): nothing to lock");
        }
        return header;
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("this window is closed");
        }
    }
}
