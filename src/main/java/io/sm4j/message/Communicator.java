package io.sm4j.message;

import io.sm4j.collective.ArrayCollectives;
import io.sm4j.collective.ByteOperator;
import io.sm4j.collective.Collectives;
import io.sm4j.collective.ElementType;
import io.sm4j.collective.Op;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.ThreadMode;
import io.sm4j.segment.Buffers;
import io.sm4j.segment.Segment;
import io.sm4j.segment.SegmentFiles;
import io.sm4j.segment.Sm4jException;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.Endpoints;
import io.sm4j.transport.TransportOptions;
import io.sm4j.window.LocalWindows;
import io.sm4j.window.PeerWindows;
import io.sm4j.window.SharedBuffer;
import io.sm4j.window.Window;
import io.sm4j.window.WindowChannel;
import io.sm4j.window.WindowStats;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * MPI-style point-to-point messaging between the ranks of a job: what applications program against.
 * <p>
 * Semantics: a receive matches on source ({@link #ANY_SOURCE} allowed) and tag ({@link #ANY_TAG} allowed);
 * an arriving message matches the earliest posted receive that accepts it, a posted receive the earliest
 * unexpected message; two messages from one sender that both match a receive are received in send order
 * (non-overtaking), eager and large alike, because each pair's FIFO is ordered and matching happens in
 * arrival order. Messages up to the eager payload go in one fragment; larger ones use rendezvous: the
 * first fragment announces the length and carries the first chunk, the receiver answers once matched, and
 * the sender streams the rest in max-size fragments, pipelined, copied straight into the posted buffer.
 * <p>
 * Not thread-safe: one thread at a time (a second thread calling while the first waits is refused; only
 * {@link #close()} may come from another thread, docs/api.md "Threads"). {@link #close()} completes
 * outstanding sends (not when called from another thread); receives still posted are dropped. Every call that waits, waits through the rank's one {@link ProgressEngine}: it spins,
 * yields or sleeps on the rank's doorbell by the endpoint's wait policy ({@code SM4J_IDLE}).
 */
public final class Communicator implements AutoCloseable
{
    public static final int ANY_SOURCE = -1;
    public static final int ANY_TAG = -1;
    /** The color of a rank that {@link #split} leaves out (MPI_UNDEFINED): it gets null. */
    public static final int UNDEFINED = -32766;
    /** Says so (System.Logger "io.sm4j", WARNING) when no /dev/shm makes a segment land on disk. */
    private static final java.util.function.Consumer<String> FALLBACK_WARNING =
        text -> System.getLogger("io.sm4j").log(System.Logger.Level.WARNING, text);
    private static final byte[] NO_BYTES = new byte[0];
    /** The handler of a receive that failed after it matched (its caller was told): the rest is dropped. */
    private static final MessageHandler IGNORED = (status, buffer, offset) -> { };

    private final int rank;
    private final int size;
    private final int eagerPayload;
    private final Endpoint endpoint;
    /** The world's barrier by messages when the layout has no collective regions, else null (the region's). */
    private final Barrier barrier;
    private final Matcher matcher;
    private final PendingSends sends;
    private final ProgressEngine engine;
    private final UnsafeBuffer eagerScratch = new UnsafeBuffer(NO_BYTES);
    /** Reused by every blocking receive and blocking large send (one at a time: one thread, no re-entry). */
    private RecvRequest blockingRecv;
    private SendRequest blockingSend;
    /** Created at the first collective call. */
    private Collectives collectives;
    /** Created at the first collective call over typed arrays. */
    private ArrayCollectives arrays;
    /** Reused by every exchange of a collective (one at a time: one thread, no re-entry). */
    private RecvRequest exchange;
    /** The matching context: 0 for the world's communicator, else the one that split or dup agreed on. */
    private final int context;
    /** The world rank of each of this communicator's ranks; null for the world's communicator. */
    private final int[] group;
    /** This communicator's rank of each world rank, -1 for ranks not in it; null for the world's. */
    private final int[] local;
    /** Statuses in this communicator's ranks and tags; null for the world's (as on the wire). */
    private final Naming naming;
    /** The contexts this rank holds, shared with every communicator derived from the same world. */
    private final ContextIds contextIds;
    /** This rank's shared buffers, and the peers' it has mapped: shared with every derived communicator. */
    private final LocalWindows ownWindows;
    private final PeerWindows peerWindows;
    /** Set when a communicator made by split or dup is closed (the world's closes its engine). */
    private boolean closed;

    /**
     * @param endpoint the transport endpoint, this communicator's alone (dup and split make others over it); closed
     *                 with this communicator.
     * @throws IllegalStateException if another communicator was made over {@code endpoint}.
     */
    public Communicator(final Endpoint endpoint)
    {
        endpoint.adopt("Communicator");
        this.rank = endpoint.rank();
        this.size = endpoint.size();
        final MessageSender sender = new MessageSender(endpoint);
        this.eagerPayload = sender.eagerPayload();
        final Rendezvous rendezvous = new Rendezvous(sender, endpoint.counters(), size);
        ownWindows = new LocalWindows(endpoint.segmentPath(), rank);
        sends = new PendingSends(endpoint, sender, rendezvous, ownWindows);
        final Barrier messages = new Barrier(sender, rank, size);
        peerWindows = new PeerWindows(endpoint.segmentPath(), size);
        final CallingThread thread = new CallingThread(rank);
        matcher = new Matcher(endpoint, eagerPayload, sends, rendezvous, messages, peerWindows, ownWindows, thread);
        this.endpoint = endpoint;
        barrier = endpoint.layout().params().collectiveContexts() > 0 ? null : messages;
        engine = new ProgressEngine(endpoint, matcher, sends, rendezvous, thread);
        blockingRecv = new RecvRequest(engine, false);
        blockingSend = new SendRequest(engine, false);
        exchange = new RecvRequest(engine, false);
        context = 0;
        group = null;
        local = null;
        naming = null;
        contextIds = new ContextIds();
    }

    /**
     * A communicator of {@code group} (world ranks, in this communicator's rank order) in {@code context},
     * sharing {@code parent}'s progress engine and matching.
     */
    private Communicator(final Communicator parent, final int context, final int[] group, final int rank)
    {
        this.rank = rank;
        this.size = group.length;
        this.eagerPayload = parent.eagerPayload;
        this.endpoint = parent.endpoint;
        this.barrier = null; // the world's BARRIER messages have no context: a derived one uses its collectives
        this.matcher = parent.matcher;
        this.ownWindows = parent.ownWindows;
        this.peerWindows = parent.peerWindows;
        this.sends = parent.sends;
        this.engine = parent.engine;
        this.context = context;
        this.group = group;
        this.local = new int[parent.group == null ? parent.size : parent.local.length];
        java.util.Arrays.fill(local, -1);
        for (int r = 0; r < group.length; r++)
        {
            local[group[r]] = r;
        }
        this.naming = new Naming()
        {
            @Override
            public int localRank(final int worldRank)
            {
                return worldRank < 0 ? worldRank : local[worldRank];
            }

            @Override
            public int userTag(final int wireTag)
            {
                return Contexts.fromWire(context, wireTag);
            }

            @Override
            public void checkOpen()
            {
                checkUsable();
            }
        };
        this.contextIds = parent.contextIds;
        blockingRecv = named(new RecvRequest(engine, false));
        blockingSend = named(new SendRequest(engine, false));
        exchange = named(new RecvRequest(engine, false));
    }

    /**
     * @return {@code request}, reporting statuses in this communicator's ranks and tags.
     */
    private <R extends Request> R named(final R request)
    {
        if (naming != null)
        {
            request.named(naming);
        }
        return request;
    }

    /**
     * @return {@code status} (a probe's, in world ranks and wire tags) in this communicator's ranks and tags.
     */
    private Status named(final Status status)
    {
        return naming == null || status == null ? status :
            new Status(naming.localRank(status.source()), naming.userTag(status.tag()), status.length());
    }

    /**
     * @return true if world rank {@code from} has left, or for {@link #ANY_SOURCE}, every other rank of this
     *         communicator (what any of them sent before leaving is received by then).
     */
    private boolean departed(final int from)
    {
        return from != ANY_SOURCE || group == null ? engine.departed(from) : engine.departedAll(group);
    }

    /**
     * @return the world rank of this communicator's {@code rank} ({@link #ANY_SOURCE} stays).
     */
    private int toWorld(final int rank)
    {
        return group == null || rank == ANY_SOURCE ? rank : group[rank];
    }

    /**
     * @return the tag on the wire for the user's {@code tag} ({@link #ANY_TAG} allowed) in this context.
     */
    private int wire(final int tag)
    {
        return context == 0 ? tag : Contexts.userTag(context, tag); // the world's tags are the wire's: no call
    }

    /**
     * {@link CallChecks#lengthOf}, which the hot paths of a send and a receive enter only to throw.
     */
    private static int lengthOf(final byte[] buffer)
    {
        return buffer != null ? buffer.length : CallChecks.lengthOf(null);
    }

    private void checkTagBound(final int tag)
    {
        if (context != 0 && tag > Contexts.MAX_TAG)
        {
            throw new IllegalArgumentException("tag=" + tag + " (expected: 0.." + Contexts.MAX_TAG +
                " in a communicator made by split or dup)");
        }
    }

    private void checkUsable()
    {
        checkOpen();
        engine.checkUsable();
    }

    /**
     * For a call whose engine checks itself next (its own {@code checkUsable}): only this communicator's state.
     */
    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("this communicator (made by split or dup) is closed");
        }
    }

    /**
     * @return the communicator of a rank started by {@code sm4j run} (segment, rank and size from the
     * environment: {@code SM4J_SEGMENT}, {@code SM4J_RANK}, {@code SM4J_SIZE}).
     */
    public static Communicator attachFromEnvironment()
    {
        return new Communicator(Endpoints.attachFromEnvironment());
    }

    /**
     * Joins a job without {@code sm4j run}: maps the segment, registers {@code rank} and waits (up to 30 s)
     * until all {@code size} ranks have attached. Every rank of the job calls this once, from its own process
     * or its own thread.
     *
     * @param segment path returned by {@link #createSegment(Path, int)} (or printed by {@code sm4j create}).
     * @param rank    this rank, 0..size-1.
     * @param size    ranks in the job, as the segment was created for.
     * @return the communicator; closing it detaches, and the last rank to close removes the file.
     * @throws IllegalArgumentException if rank or size disagree with the segment.
     * @throws Sm4jException            if the segment is missing, invalid, aborted, or the job is not complete in time.
     */
    public static Communicator attach(final Path segment, final int rank, final int size)
    {
        return attach(segment, rank, size, TransportOptions.defaults());
    }

    /**
     * As {@link #attach(Path, int, int)}, with per-rank settings (attach timeout, idle strategy, lazy free).
     */
    public static Communicator attach(final Path segment, final int rank, final int size, final TransportOptions options)
    {
        return new Communicator(Endpoints.attach(segment, rank, size, options));
    }

    /**
     * As {@link #createSegment(Path, int)} in the default directory: {@code $SM4J_DIR}, else /dev/shm, else
     * java.io.tmpdir.
     */
    public static Path createSegment(final int ranks)
    {
        return createSegment(null, ranks);
    }

    /**
     * Creates a segment for {@code ranks} ranks with the default layout in {@code dir} (null: {@code $SM4J_DIR},
     * else /dev/shm, else java.io.tmpdir) and publishes it READY. The file stays until the last rank that attached closes; a job that never
     * completes (a rank that never attaches, or dies) leaves it: its creator deletes it
     * ({@code Files.deleteIfExists(path)}) once the job is over.
     *
     * @return the path to hand to every rank's {@link #attach(Path, int, int)}.
     * @throws IllegalArgumentException if {@code ranks} is out of range or {@code dir} is not a writable directory.
     * @throws Sm4jException            if the file cannot be created (e.g. not enough space in {@code dir}).
     */
    public static Path createSegment(final Path dir, final int ranks)
    {
        return createSegment(dir, LayoutParams.defaults(ranks));
    }

    /**
     * As {@link #createSegment(Path, int)}, with explicit layout parameters ({@code params.peers()} ranks).
     */
    public static Path createSegment(final Path dir, final LayoutParams params)
    {
        return Segment.createForRanks(params, SegmentFiles.directory(dir, FALLBACK_WARNING), SegmentFiles.newJobId());
    }

    public int rank()
    {
        return rank;
    }

    public int size()
    {
        return size;
    }

    /**
     * @return heap bytes held by messages that arrived before any receive matched them: at most the rank's
     * budget ({@link TransportOptions#unexpectedBytes()}) plus one eager payload. Beyond it, arriving messages
     * stay in shared memory and their senders wait.
     */
    public long unexpectedBytes()
    {
        return matcher.queues().unexpectedBytes();
    }

    /**
     * @return the largest message sent eagerly, in one fragment; larger ones go by rendezvous.
     */
    public int eagerPayload()
    {
        return eagerPayload;
    }

    /**
     * Allocates {@code bytes} of shared memory owned by this rank (MPI_Alloc_mem): a buffer like any other to
     * this process, that peers can read in place. Messages above {@link #eagerPayload()} sent from it go
     * single-copy: the receiver copies them straight out of it, with no fragments between. Free it with
     * {@link SharedBuffer#free()}; whatever is left is freed when this rank's world communicator closes. Each
     * buffer is a file of its own beside the segment (rounded up to whole pages), allocated to its last page
     * now, so a full directory fails here rather than later. Shared with communicators made by split or dup:
     * a buffer sent by another communicator (another rank's, or another job's) is an ordinary buffer there.
     *
     * @throws IllegalArgumentException if {@code bytes} is not 1 to 2,147,479,296.
     * @throws Sm4jException            if the segment's directory has no room for it.
     */
    public SharedBuffer allocate(final int bytes)
    {
        checkUsable();
        return ownWindows.allocate(bytes);
    }

    /**
     * Makes a window of this communicator (MPI_Win_allocate over shared memory), a collective call: this
     * rank exposes {@code bytes} of shared memory of its own (0: none), and every rank can put, get and
     * accumulate into every part, or load and store it in place. See {@link Window} for its synchronisation
     * and memory-ordering rules. Close it, collectively, when done; the world communicator's close frees
     * whatever is left.
     *
     * @throws IllegalArgumentException if {@code bytes} is not 0 to 2,147,479,296.
     * @throws IllegalStateException    on every rank, if a rank could not allocate its part (that rank throws
     *                                  its own reason).
     */
    public Window allocateWindow(final int bytes)
    {
        checkUsable();
        return Window.allocate(new WindowChannel()
        {
            @Override
            public int rank()
            {
                return rank;
            }

            @Override
            public int size()
            {
                return size;
            }

            @Override
            public int worldRank()
            {
                return toWorld(rank);
            }

            @Override
            public void allGather(final long[] send, final long[] recv)
            {
                Communicator.this.allGather(send, recv);
            }

            @Override
            public void barrier()
            {
                Communicator.this.barrier();
            }

            @Override
            public void await(final java.util.function.BooleanSupplier condition)
            {
                engine.await(condition::getAsBoolean);
            }

            @Override
            public void checkUsable()
            {
                Communicator.this.checkUsable();
            }

            @Override
            public void abortJob(final String reason)
            {
                engine.abortJob("rank " + rank + ": " + reason);
            }

            @Override
            public boolean askHelp(
                final int target, final long sequence, final boolean get, final int length, final long chunkId,
                final long position, final long targetChunkId, final long targetOffset)
            {
                // both can run at once, and no other thread of this rank uses the buffer's claim word (SINGLE);
                // a target that sleeps is rung: the copy lasts longer than its wake-up
                final int dest = toWorld(target);
                return endpoint.ownCores() && endpoint.layout().params().threadMode() == ThreadMode.SINGLE &&
                    endpoint.job().isAttached(dest) &&
                    sends.trySendHelp(dest, sequence, get, length, chunkId, position, targetChunkId, targetOffset);
            }

            @Override
            public void wakeAll()
            {
                endpoint.wakeAll();
            }
        }, ownWindows, endpoint.segmentPath(), bytes);
    }

    /**
     * @return what the cache of peers' shared buffers did: each peer buffer is mapped on its first message
     *         and kept mapped (hits), until its owner frees it (invalidations).
     */
    public WindowStats windowStats()
    {
        return peerWindows.stats();
    }

    public void send(final int dest, final int tag, final byte[] buffer)
    {
        send(dest, tag, buffer, 0, lengthOf(buffer));
    }

    public void send(final int dest, final int tag, final byte[] buffer, final int offset, final int length)
    {
        checkSend(dest, tag, lengthOf(buffer), offset, length);
        if (goesEager(dest, length))
        {
            // the hot path: no request, no status, no wrapper per call (the bytes are copied before it returns)
            eagerScratch.wrap(buffer);
            try
            {
                sendWire(dest, wire(tag), eagerScratch, offset, length);
            }
            finally
            {
                eagerScratch.wrap(NO_BYTES); // do not keep the caller's array alive
            }
            return;
        }
        sendBlocking(dest, wire(tag), new UnsafeBuffer(buffer), offset, length);
    }

    public void send(final int dest, final int tag, final ByteBuffer buffer)
    {
        send(dest, tag, CallChecks.wrap(buffer), buffer.position(), buffer.remaining());
    }

    /**
     * Sends and returns when the buffer may be reused (a large message: once the receiver has matched it and
     * the last fragment has left).
     *
     * @throws IllegalArgumentException for a large message to this rank itself with no receive posted for it,
     *                                  which could never complete (post the receive first, or use isend).
     */
    public void send(final int dest, final int tag, final DirectBuffer buffer, final int offset, final int length)
    {
        checkSend(dest, tag, CallChecks.capacityOf(buffer), offset, length);
        sendWire(dest, wire(tag), buffer, offset, length);
    }

    /**
     * A checked send on a tag as the wire carries it: eager to a peer without a request (the hot path), else
     * blocking.
     */
    private void sendWire(final int dest, final int wireTag, final DirectBuffer buffer, final int offset, final int length)
    {
        if (!trySendEager(dest, wireTag, buffer, offset, length))
        {
            sendBlocking(dest, wireTag, buffer, offset, length);
        }
    }

    /**
     * @return a view of what the eager scratch wraps now (the caller's array), for a request that outlives the call
     *         that lent it the scratch.
     */
    private UnsafeBuffer scratchView()
    {
        return new UnsafeBuffer(eagerScratch, 0, eagerScratch.capacity());
    }

    /**
     * @return true if a message of {@code length} bytes to {@code dest} goes eager: to a peer, in one fragment.
     */
    private boolean goesEager(final int dest, final int length)
    {
        return dest != rank && length <= eagerPayload;
    }

    /**
     * A checked send, sent now if it goes eager, nothing waits for that peer and it has room: it then waits for
     * nothing. Else nothing is sent, and a blocking send queues it behind what waits, to be started by the
     * progress passes it waits through.
     *
     * @return true if it was sent.
     */
    private boolean trySendEager(final int dest, final int tag, final DirectBuffer buffer, final int offset, final int length)
    {
        return goesEager(dest, length) && sends.trySendEager(toWorld(dest), tag, buffer, offset, length); // tag: on the wire
    }

    /**
     * A checked send that needs a request: to this rank, large, or eager to a peer without room now.
     */
    private void sendBlocking(final int dest, final int tag, final DirectBuffer buffer, final int offset, final int length)
    {
        if (dest == rank && length > eagerPayload && !matcher.queues().hasPosted(toWorld(rank), tag))
        {
            throw new IllegalArgumentException("a blocking send of " + length + " bytes to this rank itself (tag " +
                Contexts.fromWire(context, tag) + ") would never complete: post the receive first, or use isend");
        }
        final SendRequest request = blockingSend.set(toWorld(dest), tag, buffer, offset, length); // tag: on the wire
        request.reset();
        engine.start(request);
        try
        {
            request.await();
        }
        catch (final RuntimeException ex)
        {
            if (!request.isDone())
            {
                blockingSend = named(new SendRequest(engine, false)); // the protocol may still hold the old one
                if (request.buffer == eagerScratch)
                {
                    request.buffer = scratchView(); // and send from it later: the caller's array, not the scratch's next use
                }
            }
            throw ex;
        }
        finally
        {
            if (request.isDone())
            {
                request.buffer = null; // do not keep the caller's buffer alive
            }
        }
    }

    /**
     * As {@link #isend(int, int, DirectBuffer, int, int)}: the whole array.
     */
    public Request isend(final int dest, final int tag, final byte[] buffer)
    {
        return isend(dest, tag, buffer, 0, lengthOf(buffer));
    }

    public Request isend(final int dest, final int tag, final byte[] buffer, final int offset, final int length)
    {
        return isend(dest, tag, CallChecks.wrap(buffer), offset, length);
    }

    public Request isend(final int dest, final int tag, final ByteBuffer buffer)
    {
        return isend(dest, tag, CallChecks.wrap(buffer), buffer.position(), buffer.remaining());
    }

    /**
     * Starts a send. The buffer must not change until the request completes.
     */
    public Request isend(final int dest, final int tag, final DirectBuffer buffer, final int offset, final int length)
    {
        checkSend(dest, tag, CallChecks.capacityOf(buffer), offset, length);
        final SendRequest request = named(new SendRequest(engine, false)).set(toWorld(dest), wire(tag), buffer, offset, length);
        engine.start(request);
        return request;
    }

    /**
     * As {@link #sendInit(int, int, DirectBuffer, int, int)}: the whole array.
     */
    public Request sendInit(final int dest, final int tag, final byte[] buffer)
    {
        return sendInit(dest, tag, buffer, 0, lengthOf(buffer));
    }

    /**
     * As {@link #sendInit(int, int, DirectBuffer, int, int)}: the bytes between the buffer's position and
     * limit as they are now; every start sends those bytes as they are then.
     */
    public Request sendInit(final int dest, final int tag, final ByteBuffer buffer)
    {
        return sendInit(dest, tag, CallChecks.wrap(buffer), buffer.position(), buffer.remaining());
    }

    public Request sendInit(final int dest, final int tag, final byte[] buffer, final int offset, final int length)
    {
        return sendInit(dest, tag, CallChecks.wrap(buffer), offset, length);
    }

    /**
     * Creates a persistent send (MPI_Send_init): inactive until {@link Request#start()}, which sends the
     * buffer's bytes as they are then; the same request serves every start, so a loop of them allocates
     * nothing.
     */
    public Request sendInit(final int dest, final int tag, final DirectBuffer buffer, final int offset, final int length)
    {
        checkSend(dest, tag, CallChecks.capacityOf(buffer), offset, length);
        return named(new SendRequest(engine, true)).set(toWorld(dest), wire(tag), buffer, offset, length);
    }

    private void checkSend(final int dest, final int tag, final int capacity, final int offset, final int length)
    {
        checkUsable();
        // NOTE: compared here; CallChecks and Buffers are entered only to throw, with a message naming the value
        if (dest < 0 || dest >= size || tag < 0 || context != 0 && tag > Contexts.MAX_TAG ||
            offset < 0 || length < 0 || (long)offset + length > capacity)
        {
            CallChecks.checkRank("dest", dest, size, false);
            CallChecks.checkTag(tag, false);
            checkTagBound(tag);
            Buffers.checkBounds(offset, length, capacity);
        }
    }

    /**
     * As {@link #recv(int, int, MutableDirectBuffer, int, int)}: the whole array.
     */
    public Status recv(final int source, final int tag, final byte[] buffer)
    {
        return recv(source, tag, buffer, 0, lengthOf(buffer), new Status());
    }

    public Status recv(final int source, final int tag, final byte[] buffer, final int offset, final int length)
    {
        return recv(source, tag, buffer, offset, length, new Status());
    }

    /**
     * Receives one message into {@code buffer} from its position to its limit (neither moves), as the
     * other blocking receives: no request allocated, and nothing kept of the buffer after the call.
     *
     * @throws NullPointerException     if {@code buffer} is null.
     * @throws IllegalArgumentException if {@code buffer} is read-only.
     */
    public Status recv(final int source, final int tag, final ByteBuffer buffer)
    {
        CallChecks.checkWritable(buffer, "buffer");
        checkRecv(source, tag);
        eagerScratch.wrap(buffer);
        return awaitIntoScratch(source, tag, buffer.position(), buffer.remaining(), new Status());
    }

    /**
     * Receives one message of at most {@code length} bytes into {@code buffer} at {@code offset}.
     *
     * @return a new status (see {@link #recv(int, int, MutableDirectBuffer, int, int, Status)} for one that
     * allocates nothing).
     */
    public Status recv(final int source, final int tag, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        return recv(source, tag, buffer, offset, length, new Status());
    }

    /**
     * As {@link #recv(int, int, MutableDirectBuffer, int, int, Status)}, into a byte array.
     */
    public Status recv(
        final int source, final int tag, final byte[] buffer, final int offset, final int length, final Status status)
    {
        checkRecv(source, tag);
        final int capacity = lengthOf(buffer);
        if (offset < 0 || length < 0 || (long)offset + length > capacity)
        {
            Buffers.checkBounds(offset, length, capacity); // entered only to throw
        }
        eagerScratch.wrap(buffer);
        return awaitIntoScratch(source, tag, offset, length, status);
    }

    /**
     * A checked blocking receive into {@link #eagerScratch}, which the caller has wrapped around its memory: no
     * wrapper per call, and the memory let go of after it.
     */
    private Status awaitIntoScratch(final int source, final int tag, final int offset, final int length, final Status status)
    {
        try
        {
            return awaitReceive(toWorld(source), wire(tag), eagerScratch, offset, length, status);
        }
        finally
        {
            eagerScratch.wrap(NO_BYTES); // do not keep the caller's array or buffer alive
        }
    }

    /**
     * Receives one message and fills {@code status} (null: not wanted) with its envelope. Nothing is allocated
     * per call: the same internal request serves every blocking receive.
     *
     * @return {@code status}.
     */
    public Status recv(
        final int source, final int tag, final MutableDirectBuffer buffer, final int offset, final int length,
        final Status status)
    {
        checkRecv(source, tag);
        Buffers.checkRange("buffer", buffer, offset, length);
        return awaitReceive(toWorld(source), wire(tag), buffer, offset, length, status);
    }

    private Status awaitReceive(
        final int source, final int tag, final MutableDirectBuffer buffer, final int offset, final int length,
        final Status status)
    {
        if (source != ANY_SOURCE && source != endpoint.rank()) // a named peer
        {
            final int received = engine.receiveDirect(source, tag, buffer, offset, length);
            if (received >= 0)
            {
                return status == null ? null : status.setFromWire(naming, source, engine.receivedTag(), received);
            }
        }
        final RecvRequest request = blockingRecv.set(source, tag, buffer, offset, length, null);
        request.reset();
        matcher.post(request);
        matcher.awaiting(request);
        try
        {
            final Status matched = request.await();
            return status == null ? null : status.set(matched.source(), matched.tag(), matched.length());
        }
        catch (final RuntimeException ex)
        {
            if (!request.isDone())
            {
                matcher.queues().withdraw(request);
                blockingRecv = named(new RecvRequest(engine, false)); // the protocol may still hold the old one
                if (request.buffer == eagerScratch)
                {
                    request.buffer = scratchView(); // and write into it: the caller's memory, not the scratch's next use
                }
            }
            throw ex;
        }
        finally
        {
            matcher.awaiting(null);
            if (request.isDone())
            {
                request.buffer = null; // do not keep the caller's buffer alive
            }
        }
    }

    /**
     * Receives one message in place: an eager message that arrives after this call is handed to
     * {@code handler} straight from shared memory (zero copy); one that was already queued, or a large one,
     * from a heap copy.
     */
    public Status recv(final int source, final int tag, final MessageHandler handler)
    {
        checkRecv(source, tag);
        if (handler == null)
        {
            throw new NullPointerException("handler is null");
        }
        final RecvRequest request = named(new RecvRequest(engine, false)).set(toWorld(source), wire(tag), null, 0, 0, handler);
        matcher.post(request);
        try
        {
            return request.await();
        }
        catch (final RuntimeException ex)
        {
            // else its handler would run inside a later call: withdrawn if still posted; matched to a large message
            // whose rest is still to come, it completes with a handler that does nothing
            if (!request.isDone() && !matcher.queues().withdraw(request))
            {
                request.handler = IGNORED;
            }
            throw ex;
        }
    }

    /**
     * As {@link #irecv(int, int, MutableDirectBuffer, int, int)}: into the whole array.
     */
    public Request irecv(final int source, final int tag, final byte[] buffer)
    {
        return irecv(source, tag, buffer, 0, lengthOf(buffer));
    }

    public Request irecv(final int source, final int tag, final byte[] buffer, final int offset, final int length)
    {
        return irecv(source, tag, CallChecks.wrap(buffer), offset, length);
    }

    public Request irecv(final int source, final int tag, final ByteBuffer buffer)
    {
        return irecv(source, tag, CallChecks.wrapWritable(buffer, "buffer"), buffer.position(), buffer.remaining());
    }

    /**
     * Posts a receive of at most {@code length} bytes into {@code buffer} at {@code offset}.
     */
    public Request irecv(final int source, final int tag, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        checkRecv(source, tag);
        Buffers.checkRange("buffer", buffer, offset, length);
        final RecvRequest request = named(new RecvRequest(engine, false)).set(toWorld(source), wire(tag), buffer, offset, length, null);
        matcher.post(request);
        return request;
    }

    /**
     * As {@link #recvInit(int, int, MutableDirectBuffer, int, int)}: into the whole array.
     */
    public Request recvInit(final int source, final int tag, final byte[] buffer)
    {
        return recvInit(source, tag, buffer, 0, lengthOf(buffer));
    }

    /**
     * As {@link #recvInit(int, int, MutableDirectBuffer, int, int)}: between the buffer's position and limit
     * as they are now.
     *
     * @throws IllegalArgumentException if the buffer is read-only.
     */
    public Request recvInit(final int source, final int tag, final ByteBuffer buffer)
    {
        return recvInit(source, tag, CallChecks.wrapWritable(buffer, "buffer"), buffer.position(), buffer.remaining());
    }

    public Request recvInit(final int source, final int tag, final byte[] buffer, final int offset, final int length)
    {
        return recvInit(source, tag, CallChecks.wrap(buffer), offset, length);
    }

    /**
     * Creates a persistent receive (MPI_Recv_init): inactive until {@link Request#start()}, which posts it; the
     * same request and status serve every start.
     */
    public Request recvInit(final int source, final int tag, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        checkRecv(source, tag);
        Buffers.checkRange("buffer", buffer, offset, length);
        return named(new RecvRequest(engine, true)).set(toWorld(source), wire(tag), buffer, offset, length, null);
    }

    private void checkRecv(final int source, final int tag)
    {
        checkUsable();
        // NOTE: compared here; CallChecks is entered only to throw, with a message naming the value
        if ((source < 0 || source >= size) && source != ANY_SOURCE || tag < 0 && tag != ANY_TAG ||
            context != 0 && tag > Contexts.MAX_TAG)
        {
            CallChecks.checkRank("source", source, size, true);
            CallChecks.checkTag(tag, true);
            checkTagBound(tag);
        }
    }

    /**
     * @return the status of the earliest queued message that a receive for ({@code source}, {@code tag})
     * would match, or null; progresses once. A message left in shared memory because the unexpected-message
     * budget is full counts as arrived.
     */
    public Status iprobe(final int source, final int tag)
    {
        checkRecv(source, tag);
        final int from = toWorld(source);
        final int wireTag = wire(tag);
        matcher.probing(from, wireTag);
        try
        {
            engine.progress();
            return named(matcher.probed(from, wireTag));
        }
        finally
        {
            matcher.endProbe();
        }
    }

    /**
     * Waits until a message that a receive for ({@code source}, {@code tag}) would match has arrived.
     */
    public Status probe(final int source, final int tag)
    {
        checkRecv(source, tag);
        final int from = toWorld(source);
        final int wireTag = wire(tag);
        matcher.probing(from, wireTag);
        try
        {
            engine.await(() -> matcher.probed(from, wireTag) != null || departed(from));
            final Status status = named(matcher.probed(from, wireTag)); // after departed's drain: what it sent before leaving
            if (status == null)
            {
                throw engine.detached("probe for a message from " + (source == ANY_SOURCE ? "any rank" : "rank " + source));
            }
            return status;
        }
        finally
        {
            matcher.endProbe();
        }
    }

    /**
     * Sends to {@code dest} and receives from {@code source} at once (MPI_Sendrecv): the receive is posted
     * first, so two ranks that exchange with each other cannot deadlock; an eager message that goes out at
     * once (it waits for nothing) is sent first, and the receive is then a blocking one. If the receive fails
     * (a message longer than the buffer, a source that left), the send has gone out if it went first, and not
     * otherwise when the receive failed as it was posted (MPI leaves a failed call's effects undefined).
     *
     * @return the received message's status.
     */
    public Status sendRecv(
        final int dest, final int sendTag, final byte[] sendBuffer,
        final int source, final int recvTag, final byte[] recvBuffer)
    {
        return sendRecv(dest, sendTag, sendBuffer, 0, lengthOf(sendBuffer),
            source, recvTag, recvBuffer, 0, lengthOf(recvBuffer));
    }

    /**
     * As {@link #sendRecv(int, int, byte[], int, int, byte[])}, with offsets and lengths in the arrays.
     */
    public Status sendRecv(
        final int dest, final int sendTag, final byte[] sendBuffer, final int sendOffset, final int sendLength,
        final int source, final int recvTag, final byte[] recvBuffer, final int recvOffset, final int recvLength)
    {
        return sendRecv(dest, sendTag, CallChecks.wrap(sendBuffer), sendOffset, sendLength,
            source, recvTag, CallChecks.wrap(recvBuffer), recvOffset, recvLength);
    }

    /**
     * As {@link #sendRecv(int, int, byte[], int, int, byte[])}, with offsets and lengths.
     */
    public Status sendRecv(
        final int dest, final int sendTag, final DirectBuffer sendBuffer, final int sendOffset, final int sendLength,
        final int source, final int recvTag, final MutableDirectBuffer recvBuffer, final int recvOffset, final int recvLength)
    {
        checkSend(dest, sendTag, CallChecks.capacityOf(sendBuffer), sendOffset, sendLength);
        checkRecv(source, recvTag);
        Buffers.checkRange("buffer", recvBuffer, recvOffset, recvLength);
        if (trySendEager(dest, wire(sendTag), sendBuffer, sendOffset, sendLength))
        {
            // sent at once, so it cannot wait for the peer's receive: receiving now matches what posting first
            // would (a receive posted before this call still comes first), and takes the blocking receive's looks
            return awaitReceive(toWorld(source), wire(recvTag), recvBuffer, recvOffset, recvLength, new Status());
        }
        final Status received = exchange(dest, wire(sendTag), sendBuffer, sendOffset, sendLength,
            source, wire(recvTag), recvBuffer, recvOffset, recvLength);
        return new Status(received.source(), received.tag(), received.length());
    }

    /**
     * As {@link #sendRecv(int, int, byte[], int, int, byte[])}, with the bytes from each buffer's position to
     * its limit; neither position moves.
     *
     * @throws IllegalArgumentException if {@code recvBuffer} is read-only.
     */
    public Status sendRecv(
        final int dest, final int sendTag, final ByteBuffer sendBuffer, final int source, final int recvTag,
        final ByteBuffer recvBuffer)
    {
        final UnsafeBuffer into = CallChecks.wrapWritable(recvBuffer, "recvBuffer");
        return sendRecv(dest, sendTag, CallChecks.wrap(sendBuffer), sendBuffer.position(), sendBuffer.remaining(),
            source, recvTag, into, recvBuffer.position(), recvBuffer.remaining());
    }

    /**
     * @return seconds since an arbitrary origin fixed for this JVM (MPI_Wtime), for timing intervals.
     */
    public static double wtime()
    {
        return System.nanoTime() / 1e9;
    }

    /**
     * @return the resolution of {@link #wtime()} in seconds (MPI_Wtick).
     */
    public static double wtick()
    {
        return 1e-9;
    }

    /**
     * A send on a collective's tag (below {@link #ANY_TAG}): its destination and range are the collective's
     * to check.
     */
    void sendOnCollectiveTag(final int dest, final int tag, final DirectBuffer buffer, final int offset, final int length)
    {
        checkUsable();
        sendWire(dest, Contexts.collectiveTag(context, tag), buffer, offset, length);
    }

    Status recvOnCollectiveTag(
        final int source, final int tag, final MutableDirectBuffer buffer, final int offset, final int length, final Status status)
    {
        checkUsable();
        return awaitReceive(toWorld(source), Contexts.collectiveTag(context, tag), buffer, offset, length, status);
    }

    /**
     * A collective's exchange: posts the receive, sends, waits for the receive. One request, reused, serves
     * every exchange (a collective allocates nothing per call in the steady state).
     *
     * @return the received message's status.
     */
    Status sendRecvOnCollectiveTag(
        final int dest, final int tag, final DirectBuffer sendBuffer, final int sendOffset, final int sendLength,
        final int source, final MutableDirectBuffer recvBuffer, final int recvOffset, final int recvLength)
    {
        checkUsable();
        final int wireTag = Contexts.collectiveTag(context, tag);
        return exchange(dest, wireTag, sendBuffer, sendOffset, sendLength, source, wireTag, recvBuffer, recvOffset, recvLength);
    }

    /**
     * Posts the receive, sends, waits for the receive: the receive first, so two ranks that exchange with each
     * other cannot deadlock (a send that fails withdraws it, else it would take a later message). Ranks are
     * this communicator's, tags as the wire carries them; one request, reused, serves every exchange.
     *
     * @return the reused request's status: valid until the next exchange.
     */
    private Status exchange(
        final int dest, final int sendTag, final DirectBuffer sendBuffer, final int sendOffset, final int sendLength,
        final int source, final int recvTag, final MutableDirectBuffer recvBuffer, final int recvOffset, final int recvLength)
    {
        final RecvRequest request = exchange.set(toWorld(source), recvTag, recvBuffer, recvOffset, recvLength, null);
        request.reset();
        matcher.post(request);
        try
        {
            if (!request.failed()) // a collective's receive fails at its post if its source called another collective
            {
                sendWire(dest, sendTag, sendBuffer, sendOffset, sendLength);
            }
            return request.await();
        }
        catch (final RuntimeException ex)
        {
            if (!request.isDone())
            {
                matcher.queues().withdraw(request);
                exchange = named(new RecvRequest(engine, false)); // the protocol may still hold the old one
            }
            throw ex;
        }
        finally
        {
            if (request.isDone())
            {
                request.buffer = null; // do not keep the caller's buffer alive
            }
        }
    }

    private Collectives collectives()
    {
        if (collectives == null)
        {
            collectives = new Collectives(new CollectiveChannel(this), CollectiveRegion.of(endpoint, engine, matcher.queues(), context, group, ownWindows, peerWindows));
        }
        return collectives;
    }

    /**
     * Copies the root's {@code length} bytes at {@code offset} into every rank's {@code buffer} (MPI_Bcast).
     * Every rank calls the collectives of a communicator in the same order, with the same root and length.
     */
    public void bcast(final byte[] buffer, final int offset, final int length, final int root)
    {
        bcast(CallChecks.wrap(buffer), offset, length, root);
    }

    public void bcast(final MutableDirectBuffer buffer, final int offset, final int length, final int root)
    {
        checkUsable();
        collectives().bcast(buffer, offset, length, root);
    }

    /**
     * Reduces every rank's {@code send} element by element with {@code op} into the root's {@code recv}
     * (MPI_Reduce; {@code recv} may be null on the other ranks). The combining order is fixed: the same inputs
     * give the same bits on every run (docs/api.md).
     */
    public void reduce(final int[] send, final int[] recv, final Op op, final int root)
    {
        checkUsable();
        collectives().reduce(send, recv, op, root);
    }

    public void reduce(final long[] send, final long[] recv, final Op op, final int root)
    {
        checkUsable();
        collectives().reduce(send, recv, op, root);
    }

    public void reduce(final float[] send, final float[] recv, final Op op, final int root)
    {
        checkUsable();
        collectives().reduce(send, recv, op, root);
    }

    public void reduce(final double[] send, final double[] recv, final Op op, final int root)
    {
        checkUsable();
        collectives().reduce(send, recv, op, root);
    }

    /**
     * Reduces {@code length} bytes of every rank with a user's operator, applied in rank order, into the
     * root's {@code recv} (MPI_Reduce with MPI_Op_create).
     */
    public void reduce(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset, final int length,
        final ByteOperator op, final int root)
    {
        checkUsable();
        collectives().reduce(send, sendOffset, recv, recvOffset, length, op, root);
    }

    /**
     * As {@link #reduce(DirectBuffer, int, MutableDirectBuffer, int, int, ByteOperator, int)}, of the whole
     * of {@code send} ({@code recv} as long; it may be null on the other ranks).
     */
    public void reduce(final byte[] send, final byte[] recv, final ByteOperator op, final int root)
    {
        reduce(send, 0, recv, 0, lengthOf(send), op, root);
    }

    /**
     * As {@link #reduce(DirectBuffer, int, MutableDirectBuffer, int, int, ByteOperator, int)}, in arrays
     * ({@code recv} may be null on the other ranks).
     */
    public void reduce(
        final byte[] send, final int sendOffset, final byte[] recv, final int recvOffset, final int length,
        final ByteOperator op, final int root)
    {
        reduce(CallChecks.wrap(send), sendOffset, recv == null ? null : CallChecks.wrap(recv), recvOffset, length, op, root);
    }

    /**
     * As {@link #reduce(byte[], byte[], ByteOperator, int)}, of {@code send}'s bytes from its position to its
     * limit into {@code recv} from its position; neither position moves.
     */
    public void reduce(final ByteBuffer send, final ByteBuffer recv, final ByteOperator op, final int root)
    {
        reduce(CallChecks.wrap(send), send.position(), recv == null ? null : CallChecks.wrapWritable(recv, "recv"),
            recv == null ? 0 : recv.position(), send.remaining(), op, root);
    }

    /**
     * {@link #reduce(int[], int[], Op, int)} whose result every rank receives (MPI_Allreduce): the same bits
     * on every rank.
     */
    public void allReduce(final int[] send, final int[] recv, final Op op)
    {
        checkUsable();
        collectives().allReduce(send, recv, op);
    }

    public void allReduce(final long[] send, final long[] recv, final Op op)
    {
        checkUsable();
        collectives().allReduce(send, recv, op);
    }

    public void allReduce(final float[] send, final float[] recv, final Op op)
    {
        checkUsable();
        collectives().allReduce(send, recv, op);
    }

    public void allReduce(final double[] send, final double[] recv, final Op op)
    {
        checkUsable();
        collectives().allReduce(send, recv, op);
    }

    public void allReduce(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset, final int length,
        final ByteOperator op)
    {
        checkUsable();
        collectives().allReduce(send, sendOffset, recv, recvOffset, length, op);
    }

    public void allReduce(final byte[] send, final byte[] recv, final ByteOperator op)
    {
        allReduce(send, 0, recv, 0, lengthOf(send), op);
    }

    public void allReduce(
        final byte[] send, final int sendOffset, final byte[] recv, final int recvOffset, final int length,
        final ByteOperator op)
    {
        allReduce(CallChecks.wrap(send), sendOffset, CallChecks.wrap(recv), recvOffset, length, op);
    }

    public void allReduce(final ByteBuffer send, final ByteBuffer recv, final ByteOperator op)
    {
        allReduce(CallChecks.wrap(send), send.position(), CallChecks.wrapWritable(recv, "recv"), recv.position(), send.remaining(), op);
    }

    private ArrayCollectives arrays()
    {
        if (arrays == null)
        {
            arrays = new ArrayCollectives(collectives(), rank, size);
        }
        return arrays;
    }

    /**
     * The data movers over typed arrays: the root's {@code values} into every rank's (bcast); every rank's
     * {@code send} into the root's (gather) or every rank's (allGather) {@code recv}, rank r's at element
     * {@code r * send.length}; the root's {@code send}, block r into rank r's {@code recv} (scatter); rank r's
     * block d into rank d's block r (allToAll). The n-block array holds n times the other's elements (allToAll:
     * both are n blocks); {@code recv} may be null on the ranks other than gather's root, {@code send} on the
     * ranks other than scatter's. Each array is moved as its bytes, packed and unpacked with one bulk copy.
     */
    public void bcast(final int[] values, final int root)
    {
        checkUsable();
        arrays().bcast(values, ElementType.INT, root);
    }

    public void bcast(final long[] values, final int root)
    {
        checkUsable();
        arrays().bcast(values, ElementType.LONG, root);
    }

    public void bcast(final float[] values, final int root)
    {
        checkUsable();
        arrays().bcast(values, ElementType.FLOAT, root);
    }

    public void bcast(final double[] values, final int root)
    {
        checkUsable();
        arrays().bcast(values, ElementType.DOUBLE, root);
    }

    public void gather(final int[] send, final int[] recv, final int root)
    {
        checkUsable();
        arrays().gather(send, recv, ElementType.INT, root);
    }

    public void gather(final long[] send, final long[] recv, final int root)
    {
        checkUsable();
        arrays().gather(send, recv, ElementType.LONG, root);
    }

    public void gather(final float[] send, final float[] recv, final int root)
    {
        checkUsable();
        arrays().gather(send, recv, ElementType.FLOAT, root);
    }

    public void gather(final double[] send, final double[] recv, final int root)
    {
        checkUsable();
        arrays().gather(send, recv, ElementType.DOUBLE, root);
    }

    public void scatter(final int[] send, final int[] recv, final int root)
    {
        checkUsable();
        arrays().scatter(send, recv, ElementType.INT, root);
    }

    public void scatter(final long[] send, final long[] recv, final int root)
    {
        checkUsable();
        arrays().scatter(send, recv, ElementType.LONG, root);
    }

    public void scatter(final float[] send, final float[] recv, final int root)
    {
        checkUsable();
        arrays().scatter(send, recv, ElementType.FLOAT, root);
    }

    public void scatter(final double[] send, final double[] recv, final int root)
    {
        checkUsable();
        arrays().scatter(send, recv, ElementType.DOUBLE, root);
    }

    public void allGather(final int[] send, final int[] recv)
    {
        checkUsable();
        arrays().allGather(send, recv, ElementType.INT);
    }

    public void allGather(final long[] send, final long[] recv)
    {
        checkUsable();
        arrays().allGather(send, recv, ElementType.LONG);
    }

    public void allGather(final float[] send, final float[] recv)
    {
        checkUsable();
        arrays().allGather(send, recv, ElementType.FLOAT);
    }

    public void allGather(final double[] send, final double[] recv)
    {
        checkUsable();
        arrays().allGather(send, recv, ElementType.DOUBLE);
    }

    public void allToAll(final int[] send, final int[] recv)
    {
        checkUsable();
        arrays().allToAll(send, recv, ElementType.INT);
    }

    public void allToAll(final long[] send, final long[] recv)
    {
        checkUsable();
        arrays().allToAll(send, recv, ElementType.LONG);
    }

    public void allToAll(final float[] send, final float[] recv)
    {
        checkUsable();
        arrays().allToAll(send, recv, ElementType.FLOAT);
    }

    public void allToAll(final double[] send, final double[] recv)
    {
        checkUsable();
        arrays().allToAll(send, recv, ElementType.DOUBLE);
    }

    /**
     * The data movers over {@link ByteBuffer}s: the bytes between each buffer's position and limit (neither
     * is moved); a receiving buffer must be writable. For gather, scatter, allGather and allToAll the
     * n-block buffer's length is n times the one-block buffer's.
     */
    public void bcast(final ByteBuffer buffer, final int root)
    {
        bcast(CallChecks.wrapWritable(buffer, "buffer"), buffer.position(), buffer.remaining(), root);
    }

    public void gather(final ByteBuffer send, final ByteBuffer recv, final int root)
    {
        gather(CallChecks.wrap(send), send.position(), send.remaining(), recv == null ? null : CallChecks.wrapWritable(recv, "recv"),
            recv == null ? 0 : recv.position(), root);
    }

    public void scatter(final ByteBuffer send, final ByteBuffer recv, final int root)
    {
        scatter(send == null ? null : CallChecks.wrap(send), send == null ? 0 : send.position(), CallChecks.wrapWritable(recv, "recv"),
            recv.position(), recv.remaining(), root);
    }

    public void allGather(final ByteBuffer send, final ByteBuffer recv)
    {
        allGather(CallChecks.wrap(send), send.position(), send.remaining(), CallChecks.wrapWritable(recv, "recv"), recv.position());
    }

    public void allToAll(final ByteBuffer send, final ByteBuffer recv)
    {
        if (send.remaining() % size != 0)
        {
            throw new IllegalArgumentException("send has " + send.remaining() + " bytes, not a multiple of " + size + " ranks");
        }
        allToAll(CallChecks.wrap(send), send.position(), CallChecks.wrapWritable(recv, "recv"), recv.position(), send.remaining() / size);
    }

    /**
     * Prefix reductions (MPI_Scan, MPI_Exscan): rank r receives ranks 0..r's (scan) or 0..r-1's (exScan;
     * rank 0's {@code recv} is left as it is) {@code send} combined element by element in rank order.
     * {@code reduceScatter} (MPI_Reduce_scatter_block): {@code send} holds size blocks of {@code recv}'s
     * length; rank r receives block r of their reduction.
     */
    public void scan(final int[] send, final int[] recv, final Op op)
    {
        checkUsable();
        collectives().scan(send, recv, op);
    }

    public void exScan(final int[] send, final int[] recv, final Op op)
    {
        checkUsable();
        collectives().exScan(send, recv, op);
    }

    public void reduceScatter(final int[] send, final int[] recv, final Op op)
    {
        checkUsable();
        collectives().reduceScatter(send, recv, op);
    }

    public void scan(final long[] send, final long[] recv, final Op op)
    {
        checkUsable();
        collectives().scan(send, recv, op);
    }

    public void exScan(final long[] send, final long[] recv, final Op op)
    {
        checkUsable();
        collectives().exScan(send, recv, op);
    }

    public void reduceScatter(final long[] send, final long[] recv, final Op op)
    {
        checkUsable();
        collectives().reduceScatter(send, recv, op);
    }

    public void scan(final float[] send, final float[] recv, final Op op)
    {
        checkUsable();
        collectives().scan(send, recv, op);
    }

    public void exScan(final float[] send, final float[] recv, final Op op)
    {
        checkUsable();
        collectives().exScan(send, recv, op);
    }

    public void reduceScatter(final float[] send, final float[] recv, final Op op)
    {
        checkUsable();
        collectives().reduceScatter(send, recv, op);
    }

    public void scan(final double[] send, final double[] recv, final Op op)
    {
        checkUsable();
        collectives().scan(send, recv, op);
    }

    public void exScan(final double[] send, final double[] recv, final Op op)
    {
        checkUsable();
        collectives().exScan(send, recv, op);
    }

    public void reduceScatter(final double[] send, final double[] recv, final Op op)
    {
        checkUsable();
        collectives().reduceScatter(send, recv, op);
    }

    public void scan(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset, final int length,
        final ByteOperator op)
    {
        checkUsable();
        collectives().scan(send, sendOffset, recv, recvOffset, length, op);
    }

    public void scan(final byte[] send, final byte[] recv, final ByteOperator op)
    {
        scan(send, 0, recv, 0, lengthOf(send), op);
    }

    public void scan(
        final byte[] send, final int sendOffset, final byte[] recv, final int recvOffset, final int length,
        final ByteOperator op)
    {
        scan(CallChecks.wrap(send), sendOffset, CallChecks.wrap(recv), recvOffset, length, op);
    }

    public void scan(final ByteBuffer send, final ByteBuffer recv, final ByteOperator op)
    {
        scan(CallChecks.wrap(send), send.position(), CallChecks.wrapWritable(recv, "recv"), recv.position(), send.remaining(), op);
    }

    public void exScan(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset, final int length,
        final ByteOperator op)
    {
        checkUsable();
        collectives().exScan(send, sendOffset, recv, recvOffset, length, op);
    }

    public void exScan(final byte[] send, final byte[] recv, final ByteOperator op)
    {
        exScan(send, 0, recv, 0, lengthOf(send), op);
    }

    public void exScan(
        final byte[] send, final int sendOffset, final byte[] recv, final int recvOffset, final int length,
        final ByteOperator op)
    {
        exScan(CallChecks.wrap(send), sendOffset, CallChecks.wrap(recv), recvOffset, length, op);
    }

    public void exScan(final ByteBuffer send, final ByteBuffer recv, final ByteOperator op)
    {
        exScan(CallChecks.wrap(send), send.position(), CallChecks.wrapWritable(recv, "recv"), recv.position(), send.remaining(), op);
    }

    public void reduceScatter(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int blockLength, final ByteOperator op)
    {
        checkUsable();
        collectives().reduceScatter(send, sendOffset, recv, recvOffset, blockLength, op);
    }

    /**
     * As the form above, of the whole of {@code send} (n blocks of {@code recv.length} bytes).
     */
    public void reduceScatter(final byte[] send, final byte[] recv, final ByteOperator op)
    {
        reduceScatter(send, 0, recv, 0, lengthOf(recv), op);
    }

    /**
     * As the form above, of n blocks of {@code blockLength} bytes from {@code sendOffset} into {@code recv} at
     * {@code recvOffset}.
     */
    public void reduceScatter(
        final byte[] send, final int sendOffset, final byte[] recv, final int recvOffset, final int blockLength,
        final ByteOperator op)
    {
        reduceScatter(CallChecks.wrap(send), sendOffset, CallChecks.wrap(recv), recvOffset, blockLength, op);
    }

    /**
     * As the form above, of {@code send}'s n blocks of {@code recv.remaining()} bytes from its position.
     */
    public void reduceScatter(final ByteBuffer send, final ByteBuffer recv, final ByteOperator op)
    {
        reduceScatter(CallChecks.wrap(send), send.position(), CallChecks.wrapWritable(recv, "recv"), recv.position(), recv.remaining(), op);
    }

    /**
     * The "v" collectives (MPI_Gatherv, MPI_Scatterv, MPI_Allgatherv, MPI_Alltoallv): a count and a
     * displacement (in bytes) per rank instead of one length.
     */
    public void gatherv(
        final byte[] send, final int offset, final int length, final byte[] recv, final int[] counts,
        final int[] displacements, final int root)
    {
        gatherv(CallChecks.wrap(send), offset, length, recv == null ? null : CallChecks.wrap(recv), 0, counts, displacements, root);
    }

    public void gatherv(
        final DirectBuffer send, final int sendOffset, final int sendLength, final MutableDirectBuffer recv,
        final int recvOffset, final int[] counts, final int[] displacements, final int root)
    {
        checkUsable();
        collectives().gatherv(send, sendOffset, sendLength, recv, recvOffset, counts, displacements, root);
    }

    /**
     * {@code send}'s bytes from its position to its limit; the displacements count from {@code recv}'s
     * position (null on the other ranks); neither position moves. The other v forms of ByteBuffers likewise.
     */
    public void gatherv(final ByteBuffer send, final ByteBuffer recv, final int[] counts, final int[] displacements, final int root)
    {
        gatherv(CallChecks.wrap(send), send.position(), send.remaining(), recv == null ? null : CallChecks.wrapWritable(recv, "recv"),
            recv == null ? 0 : recv.position(), counts, displacements, root);
    }

    public void scatterv(
        final byte[] send, final int[] counts, final int[] displacements, final byte[] recv, final int offset,
        final int length, final int root)
    {
        scatterv(send == null ? null : CallChecks.wrap(send), 0, counts, displacements, CallChecks.wrap(recv), offset, length, root);
    }

    public void scatterv(
        final DirectBuffer send, final int sendOffset, final int[] counts, final int[] displacements,
        final MutableDirectBuffer recv, final int recvOffset, final int recvLength, final int root)
    {
        checkUsable();
        collectives().scatterv(send, sendOffset, counts, displacements, recv, recvOffset, recvLength, root);
    }

    public void scatterv(final ByteBuffer send, final int[] counts, final int[] displacements, final ByteBuffer recv, final int root)
    {
        scatterv(send == null ? null : CallChecks.wrap(send), send == null ? 0 : send.position(), counts, displacements,
            CallChecks.wrapWritable(recv, "recv"), recv.position(), recv.remaining(), root);
    }

    public void allGatherv(
        final byte[] send, final int offset, final int length, final byte[] recv, final int[] counts, final int[] displacements)
    {
        allGatherv(CallChecks.wrap(send), offset, length, CallChecks.wrap(recv), 0, counts, displacements);
    }

    public void allGatherv(
        final DirectBuffer send, final int sendOffset, final int sendLength, final MutableDirectBuffer recv,
        final int recvOffset, final int[] counts, final int[] displacements)
    {
        checkUsable();
        collectives().allGatherv(send, sendOffset, sendLength, recv, recvOffset, counts, displacements);
    }

    public void allGatherv(final ByteBuffer send, final ByteBuffer recv, final int[] counts, final int[] displacements)
    {
        allGatherv(CallChecks.wrap(send), send.position(), send.remaining(), CallChecks.wrapWritable(recv, "recv"), recv.position(),
            counts, displacements);
    }

    public void allToAllv(
        final byte[] send, final int[] sendCounts, final int[] sendDisplacements, final byte[] recv, final int[] recvCounts,
        final int[] recvDisplacements)
    {
        allToAllv(CallChecks.wrap(send), 0, sendCounts, sendDisplacements, CallChecks.wrap(recv), 0, recvCounts, recvDisplacements);
    }

    public void allToAllv(
        final DirectBuffer send, final int sendOffset, final int[] sendCounts, final int[] sendDisplacements,
        final MutableDirectBuffer recv, final int recvOffset, final int[] recvCounts, final int[] recvDisplacements)
    {
        checkUsable();
        collectives().allToAllv(send, sendOffset, sendCounts, sendDisplacements, recv, recvOffset, recvCounts, recvDisplacements);
    }

    public void allToAllv(
        final ByteBuffer send, final int[] sendCounts, final int[] sendDisplacements, final ByteBuffer recv, final int[] recvCounts,
        final int[] recvDisplacements)
    {
        allToAllv(CallChecks.wrap(send), send.position(), sendCounts, sendDisplacements, CallChecks.wrapWritable(recv, "recv"),
            recv.position(), recvCounts, recvDisplacements);
    }

    /**
     * Collects every rank's {@code length} bytes into the root's {@code recv}, rank r's at
     * {@code r * length} (MPI_Gather; {@code recv} may be null on the other ranks).
     */
    public void gather(final byte[] send, final int offset, final int length, final byte[] recv, final int root)
    {
        gather(CallChecks.wrap(send), offset, length, recv == null ? null : CallChecks.wrap(recv), 0, root);
    }

    public void gather(
        final DirectBuffer send, final int sendOffset, final int length, final MutableDirectBuffer recv, final int recvOffset,
        final int root)
    {
        checkUsable();
        collectives().gather(send, sendOffset, length, recv, recvOffset, root);
    }

    /**
     * Hands rank r the root's {@code length} bytes at {@code r * length} of {@code send}, into its
     * {@code recv} at {@code offset} (MPI_Scatter; {@code send} may be null on the other ranks).
     */
    public void scatter(final byte[] send, final byte[] recv, final int offset, final int length, final int root)
    {
        scatter(send == null ? null : CallChecks.wrap(send), 0, CallChecks.wrap(recv), offset, length, root);
    }

    public void scatter(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset, final int length,
        final int root)
    {
        checkUsable();
        collectives().scatter(send, sendOffset, recv, recvOffset, length, root);
    }

    /**
     * {@link #gather(byte[], int, int, byte[], int)} whose result every rank receives (MPI_Allgather).
     */
    public void allGather(final byte[] send, final int offset, final int length, final byte[] recv)
    {
        allGather(CallChecks.wrap(send), offset, length, CallChecks.wrap(recv), 0);
    }

    public void allGather(
        final DirectBuffer send, final int sendOffset, final int length, final MutableDirectBuffer recv, final int recvOffset)
    {
        checkUsable();
        collectives().allGather(send, sendOffset, length, recv, recvOffset);
    }

    /**
     * Rank r sends its block d ({@code blockLength} bytes at {@code d * blockLength}) to rank d, which
     * receives it as its block r (MPI_Alltoall).
     */
    public void allToAll(final byte[] send, final byte[] recv, final int blockLength)
    {
        allToAll(send, 0, recv, 0, blockLength);
    }

    /**
     * As the form above, rank r's block d at {@code sendOffset + d * blockLength}, received as block r at
     * {@code recvOffset + r * blockLength}.
     */
    public void allToAll(final byte[] send, final int sendOffset, final byte[] recv, final int recvOffset, final int blockLength)
    {
        allToAll(CallChecks.wrap(send), sendOffset, CallChecks.wrap(recv), recvOffset, blockLength);
    }

    public void allToAll(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset, final int blockLength)
    {
        checkUsable();
        collectives().allToAll(send, sendOffset, recv, recvOffset, blockLength);
    }

    /**
     * Aborts the job (MPI_Abort): records "rank R called abort(CODE): REASON" as its cause and wakes every
     * rank, whose current or next wait ends with a {@link io.sm4j.segment.JobAbortedException} naming it.
     * Never returns: the calling thread gets that exception too. Under {@code sm4j run}, a rank that lets it
     * escape exits with code 1, the launcher prints the cause and exits with {@code code} (as mpirun does after
     * MPI_Abort) if it is 1..255, else with the ranks' code.
     *
     * @throws io.sm4j.segment.JobAbortedException always.
     */
    public void abort(final int code, final String reason)
    {
        checkUsable();
        engine.abortJob("rank " + rank + " called abort(" + code + "): " + reason, code);
        engine.checkNotAborted();
        throw new IllegalStateException("the job's abort was not recorded"); // checkNotAborted threw
    }

    /**
     * Aborts the job because this rank failed with {@code failure}: the others' waits end with that cause
     * instead of "the peer has detached" (for {@link ThreadJob}).
     */
    void abortFor(final Throwable failure)
    {
        engine.abortJob(io.sm4j.segment.JobAbortedException.ownFailure(rank, failure));
    }

    /**
     * Aborts the job for a reason outside its ranks (for {@link ThreadJob}: its caller was interrupted). Safe from
     * a thread other than the rank's: the job's state is a CAS, the rings are locked.
     */
    void abortJob(final String reason)
    {
        engine.abortJob(reason);
    }

    /**
     * Returns once every rank has entered the barrier: a dissemination barrier, ceil(log2 n) rounds of one
     * message through the segment each.
     */
    public void barrier()
    {
        checkUsable();
        if (barrier == null)
        {
            collectives().barrier();
            return;
        }
        try
        {
            barrier.await(engine);
        }
        catch (final InternalError error)
        {
            throw engine.fault(error);
        }
    }

    /**
     * Drives the protocol once: receives, acknowledges, streams.
     *
     * @return work done.
     */
    public int progress()
    {
        checkOpen(); // a closed split or dup: its engine, the world's, is still open (and checks itself)
        return engine.progress();
    }

    /**
     * Completes outstanding sends (progressing; a send to a rank that has detached fails instead of
     * waiting), then closes the endpoint, which delivers fragments still waiting for a full FIFO to every
     * rank that is still attached. Receives still posted are dropped. Idempotent. Called from a thread other
     * than the one that called last (a shutdown hook), it ends that thread's wait and closes the endpoint
     * without completing outstanding sends (docs/api.md, "Threads").
     */
    @Override
    public void close()
    {
        if (group == null)
        {
            try
            {
                engine.close(); // waits for the sends still pending: a receiver may still copy from their buffers
            }
            finally
            {
                ownWindows.close();
                peerWindows.close();
            }
        }
        else
        {
            // the context stays taken: a receive still posted in it, or a message still queued for it, must never
            // meet a later communicator's traffic (MPICH keeps a context until its requests complete)
            closed = true;
        }
    }

    /**
     * Splits this communicator (MPI_Comm_split): a collective call of every rank of it. The ranks that pass
     * the same {@code color} (>= 0) form a new communicator, ranked by {@code key} then by their rank here;
     * a rank that passes {@link #UNDEFINED} gets null. The new communicators share this rank's progress engine
     * but have a matching context of their own: no receive of one matches a message of another, nor of this
     * one. Close them when done (this one's close does not); a context is not reused after a close, since a
     * receive or a message may still be left in it, so a job makes at most 1,022 of them.
     *
     * @throws IllegalArgumentException for a negative color other than {@link #UNDEFINED}.
     * @throws Sm4jException            if every context has been used (at most 1,022 in a job).
     */
    public Communicator split(final int color, final int key)
    {
        checkUsable();
        if (color < 0 && color != UNDEFINED)
        {
            throw new IllegalArgumentException("color=" + color + " (expected: >= 0 or UNDEFINED)");
        }
        final long[] free = contextIds.freeMask();
        final long[] common = new long[free.length];
        allReduce(free, common, Op.BAND);
        final int newContext = contextIds.take(common);
        if (newContext < 0)
        {
            throw new Sm4jException("no communicator context is free on every rank: at most " + Contexts.MAX_CONTEXT +
                " communicators can be made by split or dup in one job");
        }
        final UnsafeBuffer mine = new UnsafeBuffer(new byte[2 * Integer.BYTES]);
        mine.putInt(0, color);
        mine.putInt(Integer.BYTES, key);
        final UnsafeBuffer all = new UnsafeBuffer(new byte[2 * Integer.BYTES * size]);
        try
        {
            allGather(mine, 0, mine.capacity(), all, 0);
        }
        catch (final RuntimeException ex)
        {
            contextIds.release(newContext);
            throw ex;
        }
        if (color == UNDEFINED)
        {
            contextIds.release(newContext); // in no communicator of that context
            return null;
        }
        final java.util.List<int[]> members = new java.util.ArrayList<>(); // { key, rank here }
        for (int r = 0; r < size; r++)
        {
            if (all.getInt(2 * Integer.BYTES * r) == color)
            {
                members.add(new int[]{ all.getInt(2 * Integer.BYTES * r + Integer.BYTES), r });
            }
        }
        members.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
        final int[] newGroup = new int[members.size()];
        int newRank = -1;
        for (int i = 0; i < newGroup.length; i++)
        {
            newGroup[i] = toWorld(members.get(i)[1]);
            newRank = members.get(i)[1] == rank ? i : newRank;
        }
        return new Communicator(this, newContext, newGroup, newRank);
    }

    /**
     * A communicator of the same ranks with a matching context of its own (MPI_Comm_dup): a collective call.
     */
    public Communicator dup()
    {
        return split(0, rank);
    }
}
