package io.sm4j.transport;

import io.sm4j.job.CpuContention;
import io.sm4j.job.HealthMonitor;
import io.sm4j.job.RankCounters;
import io.sm4j.job.RankJob;
import io.sm4j.layout.CbWrapperDescriptor;
import io.sm4j.layout.CountersDescriptor;
import io.sm4j.layout.FragmentDescriptor;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentLayout;
import io.sm4j.layout.ThreadMode;
import io.sm4j.segment.JobAbortedException;
import io.sm4j.segment.MappingGuard;
import io.sm4j.segment.NativeCopy;
import io.sm4j.segment.RankRegistry;
import io.sm4j.segment.Segment;
import io.sm4j.segment.SegmentFiles;
import io.sm4j.segment.Sm4jException;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One rank's transport endpoint: sends messages to peers and polls its in-bound FIFOs and fast boxes. The
 * transport knows a message's sender and length only: a sender claims room ({@link #tryClaim}), writes its
 * bytes in place, whatever header its layer wants first, and commits ({@link SendClaim}).
 * <p>
 * Implementation notes: after {@link Publication#FAST_BOX_THRESHOLD} messages to a receiver, a sender sends by a
 * fast box (Open MPI vader's idea): small messages inline, larger ones as references to fragments. Before
 * that, and for pairs that found no free box, each message takes a fragment and a FIFO slot (the RFC's sm
 * BTL). Eager fragments are per receiver and paid for with credits that the receiver returns in runs
 * ({@link io.sm4j.fifo.EagerCredits}); max-size fragments go back through the reverse FIFO with
 * {@link io.sm4j.layout.CbIndexDescriptor#RETURN_FLAG}. A word that finds its FIFO full waits on a
 * process-local pending list ({@link Publication}). A claim without credit or room fails with its reason
 * ({@link #NO_CREDIT}, {@link #BOX_FULL}, {@link #POOL_EMPTY}, {@link #QUEUE_FULL}) and consumes nothing (no re-entrant drain, no
 * heap copy): the caller polls and retries, so memory stays bounded and back-pressure reaches senders.
 * <p>
 * Thread safety: in {@link ThreadMode#SINGLE} one thread must drive the endpoint. In
 * {@link ThreadMode#MULTIPLE} every public method is thread-safe: each out-bound FIFO has its own lock,
 * polling takes the poll lock, the max-size pool its own; the lock order is poll, then one destination's
 * FIFO (held across a whole send, so a pair's fragments, credits and fast box records stay in one order),
 * then the pool.
 * All locks are process-local: heads and tails are written only by their own process.
 */
public final class Endpoint implements AutoCloseable, MappingGuard
{
    /** What close does with data that arrives while it waits: nobody will read it. */
    private static final FragmentHandler DISCARD = fragment -> { };
    /** {@link #poll}'s source: every sender. */
    private static final int ALL_SOURCES = -1;

    private final Segment segment;
    /** {@link #ownCores()}. */
    private final boolean ownCores;
    /** {@link #spinsFirst()}. */
    private final boolean spinsFirst;
    /** The segment's registry, read on every claim (is the receiver attached?). */
    private final RankRegistry ranks;
    /** MULTIPLE thread mode: a poll wakes a sleeping thread of this rank. */
    private final boolean multiple;
    private final boolean ownsSegment;
    private final SegmentLayout layout;
    private final int rank;
    private final int size;
    private final int maxPayload;
    private final int maxFragmentPayload;
    /** This rank's publication to each peer; null at its own rank. */
    private final Publication[] publications;
    private final FragmentPoller poller;
    private final Doorbell bell;
    private final PeerBells peerBells;
    private final WaitPolicy wait;
    private final ThreadLocal<WaitPolicy> threadWait;
    /** Serialises polls in MULTIPLE thread mode; null in SINGLE mode. */
    private final ReentrantLock pollLock;
    private final HealthMonitor health;
    private final RankCounters counters;
    /** Null if this rank neither sends large messages by reference nor reads them ({@link TransportOptions.PeerReads}). */
    private final PeerMemory peerMemory;
    private final long unexpectedBytes;
    private final CallGate gate;
    private final RankJob job;
    /** Set once an access faulted (the file was truncated): close then only unmaps. */
    private volatile boolean faulted;
    /** Whether a layer above polls this endpoint for its own ({@link #adopt}). */
    private final AtomicBoolean adopted = new AtomicBoolean();

    private Endpoint(
        final Segment segment, final int rank, final TransportOptions options, final Futex futex, final boolean reads,
        final boolean ownsSegment)
    {
        this.segment = segment;
        this.ownsSegment = ownsSegment;
        this.layout = segment.layout();
        final LayoutParams params = layout.params();
        this.rank = rank;
        this.size = params.peers();
        this.maxPayload = params.eagerLimit() - FragmentDescriptor.HEADER_LENGTH;
        this.maxFragmentPayload = params.maxFragSize() - FragmentDescriptor.HEADER_LENGTH;
        this.multiple = params.threadMode() == ThreadMode.MULTIPLE;
        this.ranks = segment.ranks();
        for (int peer = 0; peer < size; peer++)
        {
            if (peer != rank)
            {
                checkWrapper(rank, peer);
                checkWrapper(peer, rank);
            }
        }
        peerBells = new PeerBells(segment, rank, futex, !multiple);
        final FragmentAccess fragments = new FragmentAccess(segment, rank, multiple, peerBells::ringAll);
        gate = new CallGate(multiple);
        unexpectedBytes = options.unexpectedBytes();
        counters = new RankCounters(segment.views().counters(rank), unexpectedBytes);
        final AtomicInteger pendingWords = new AtomicInteger();
        publications = new Publication[size];
        for (int peer = 0; peer < size; peer++)
        {
            if (peer != rank)
            {
                publications[peer] = new Publication(segment, rank, peer, multiple, pendingWords, peerBells, fragments, gate, counters);
            }
        }
        poller = new FragmentPoller(segment, rank, options.lazyFreeBatch(params.queueEntries()), publications, pendingWords, fragments);
        pollLock = multiple ? new ReentrantLock() : null;
        job = new RankJob(segment, rank, options.launcherPid() != 0, this, peerBells::ringAll); // only keeps this
        health = new HealthMonitor(segment, rank, options.launcherPid(), peerBells::ringAll, counters);
        peerMemory = reads ? new PeerMemory(ranks, size, options.peerReads() == TransportOptions.PeerReads.AUTO) : null;
        bell = Doorbell.open(segment.views().bell(rank), futex, peerBells, SegmentFiles.bellPath(segment.path(), rank), multiple); // a file: late
        final boolean contended = options.startsContended(size);
        this.ownCores = !contended;
        this.spinsFirst = ownCores && options.idle() != TransportOptions.Idle.YIELD;
        wait = multiple ? null : newWaitPolicy(options.idle(), contended);
        threadWait = multiple ? ThreadLocal.withInitial(() -> newWaitPolicy(options.idle(), contended)) : null;
    }

    /**
     * @return a waiting thread's policy; in AUTO where every rank was given a core but not bound to it, with a
     *         {@link CpuContention} of its own (the run delay it samples is the thread's).
     */
    private WaitPolicy newWaitPolicy(final TransportOptions.Idle idle, final boolean contended)
    {
        // NOTE: a rank the launcher bound to a core of its own spins, then sleeps, beside other processes too: woken,
        // it can only run on its core, and preempts them there (one busy process beside 2 bound ranks: 8 B one-way
        // 0.10 us, where yielding took 1.5 and an unbound rank's spin-then-sleep 520; docs/benchmarks.md)
        final boolean askNode = idle == TransportOptions.Idle.AUTO && !contended && !Endpoints.onOwnCore();
        return new WaitPolicy(idle, bell, peerBells, contended, askNode ? CpuContention.ofNode()::oversubscribed : null);
    }

    /**
     * Registers {@code rank} in {@code segment} and waits for all ranks to attach.
     *
     * @param ownsSegment close (unmap) the segment when the endpoint closes.
     */
    public static Endpoint open(final Segment segment, final int rank, final TransportOptions options, final boolean ownsSegment)
    {
        final int peers = segment.layout().params().peers();
        if (rank < 0 || rank >= peers)
        {
            throw new IllegalArgumentException("rank=" + rank + " (expected: 0.." + (peers - 1) + ")");
        }
        options.lazyFreeBatch(segment.layout().params().queueEntries()); // a bad setting fails before registering
        NativeCopy.check(System.getenv(NativeCopy.ENV));
        final Futex futex = Futex.forSetting(options.bell());
        final boolean reads = PeerMemory.whyNot(options.peerReads()) == null;
        // once the rank is ours (a stray process refused it must not overwrite a live rank's abilities), before the
        // ATTACHED that releases them
        segment.ranks().register(rank, () -> BellWord.declareAbilities(segment.views().bell(rank), futex != null, reads));
        Endpoint endpoint = null;
        try
        {
            // registered first: a rank that finds the job aborted leaves through detach, which removes the file if
            // it is the last process of the job
            segment.checkNotAborted();
            endpoint = new Endpoint(segment, rank, options, futex, reads, ownsSegment);
            segment.awaitAll(rank, options.attachTimeout());
            endpoint.peerBells.decideFutex(); // every rank has said, before it registered
            endpoint.checkPeerReads();
            return endpoint;
        }
        catch (final RuntimeException ex)
        {
            if (endpoint != null)
            {
                endpoint.closeResources(); // the doorbell's socket file goes too
            }
            segment.abort(rank, "rank " + rank + " failed to attach: " + ex.getMessage());
            segment.detach(rank);
            throw ex;
        }
    }

    /**
     * @return this rank's counters in the segment, which {@code sm4j stat} reads: the message layer adds its
     *         own to the transport's.
     */
    public RankCounters counters()
    {
        return counters;
    }

    /**
     * @return what reads large messages sent from off-heap memory straight out of their sender's process, or
     *         null if this rank sends and receives them through the fragment pipeline only.
     */
    public PeerMemory peerMemory()
    {
        return peerMemory;
    }

    /**
     * @return true if this rank reads its peers' processes and chooses, by what each costs it, whether to
     *         ({@link PeerMemory#isChosen}: {@code SM4J_PEER_READS=auto}).
     */
    public boolean choosesPeerReads()
    {
        return peerMemory != null && peerMemory.isChosen();
    }

    /**
     * @param world ranks of the job (a communicator's).
     * @return true if this rank and every one of {@code world} read their peers' processes ({@link PeerMemory}) and
     *         each has found it can read every one that does ({@link #checkPeerReads}): then each may leave its
     *         off-heap data for the others to read. False while one has not checked yet.
     */
    public boolean readEachOther(final int[] world)
    {
        boolean all = peerMemory != null;
        for (int i = 0; i < world.length && all; i++)
        {
            all = peerBells.readsEveryone(world[i]);
        }
        return all;
    }

    /**
     * Once every rank has attached: reads, out of each peer's process that reads too, the address word of its
     * doorbell line, which holds its own address there, and says whether every read found it. A
     * rank that declared it reads may still be refused a peer (another user, a process made non-dumpable, a
     * security module, another PID namespace): a collective, which cannot fall back as point to point does
     * ({@code Matcher}), leaves data to be read only where every rank has found it can.
     */
    private void checkPeerReads()
    {
        if (peerMemory == null)
        {
            return;
        }
        boolean readable = true;
        for (int peer = 0; peer < size && readable; peer++)
        {
            if (peer != rank && peerBells.reads(peer))
            {
                readable = peerMemory.holdsItsAddress(peer, peerBells.addressWord(peer));
            }
        }
        peerBells.declareChecked(readable);
    }

    /**
     * @return the job as this rank acts on it: peers attached, abort (the job's concerns, below the transport).
     */
    public RankJob job()
    {
        return job;
    }

    /**
     * Gives this endpoint to the one layer above that takes what its polls deliver (a communicator): a second
     * would take, and match as its own, messages meant for the first.
     *
     * @param adopter what takes it, for the error.
     * @throws IllegalStateException if another has taken it.
     */
    public void adopt(final String adopter)
    {
        if (!adopted.compareAndSet(false, true))
        {
            throw new IllegalStateException("rank " + rank + "'s endpoint already has its " + adopter + ": a second " +
                adopter + " over it would take the first one's messages (dup() or split() give separate matching contexts)");
        }
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
     * @return the largest payload of one fragment: the eager limit less the fragment header.
     */
    public int maxPayload()
    {
        return maxPayload;
    }

    /**
     * @return bytes of unmatched messages the message layer may keep for this rank ({@link TransportOptions}).
     */
    public long unexpectedBytes()
    {
        return unexpectedBytes;
    }

    public SegmentLayout layout()
    {
        return layout;
    }

    /**
     * @return the job's segment file: files that go with it (shared buffers) are named after it.
     */
    public java.nio.file.Path segmentPath()
    {
        return segment.path();
    }

    /**
     * @return true if every rank of the job can have a core of its own (ranks no more than the cores this
     *         process may use): two ranks then run at once, and work split between them takes half the time.
     */
    public boolean ownCores()
    {
        return ownCores;
    }

    /**
     * @return true if a wait for a condition a peer's store makes true may look at it alone for a moment after its
     *         first empty pass, before it idles: every rank has a core of its own ({@link #ownCores()}) and waits
     *         are not told to yield ({@code SM4J_IDLE=yield}).
     */
    public boolean spinsFirst()
    {
        return spinsFirst;
    }

    /**
     * @return {@code rank}'s slot in the collective region of communicator context {@code context}
     *         ({@link io.sm4j.layout.CollectiveSlotDescriptor}), or null if the layout gives that context no
     *         region. Touch it only between {@link #enterMapping} and {@link #exitMapping}.
     */
    public UnsafeBuffer collectiveSlot(final int rank, final int context)
    {
        return context < layout.params().collectiveContexts() ? segment.views().collectiveSlot(rank, context) : null;
    }

    /**
     * Keeps the mapping alive for a layer above that reads or writes it between calls (a collective slot):
     * a {@link #close} from another thread waits until {@link #exitMapping}. Calls nest.
     *
     * @throws IllegalStateException if the endpoint is closed.
     */
    @Override
    public void enterMapping()
    {
        boolean entered = false;
        try
        {
            enter();
            entered = true;
        }
        catch (final InternalError error)
        {
            throw fault(error); // a fault of an earlier access surfaced here
        }
        finally
        {
            if (!entered)
            {
                gate.exit(); // the gate counted this thread in before it refused or faulted
            }
        }
    }

    @Override
    public void exitMapping()
    {
        gate.exit();
    }

    /**
     * Rings {@code peer}'s doorbell if it sleeps: this rank has just release-stored something in the mapping
     * that {@code peer} may be waiting for (a collective slot's step).
     */
    public void wake(final int peer)
    {
        publications[peer].ringIfArmed();
    }

    /**
     * Rings every sleeping peer, inside the endpoint's gate: this rank has just changed something in shared
     * memory outside the segment that any of them may wait for (a window lock it released).
     *
     * @throws IllegalStateException if the endpoint is closed.
     */
    public void wakeAll()
    {
        enterMapping();
        try
        {
            peerBells.ringAll();
        }
        finally
        {
            exitMapping();
        }
    }

    /** {@link #tryClaim}: the room is claimed; write the payload, then commit or abort the claim. */
    public static final int CLAIMED = 0;
    /** {@link #tryClaim}: every eager fragment to the destination is in flight: it returns them as it polls. */
    public static final int NO_CREDIT = -1;
    /** {@link #tryClaim}: the destination's fast box has no room for the record until it polls. */
    public static final int BOX_FULL = -2;
    /** {@link #tryClaimMax}: every max-size fragment of this rank is in flight: receivers return them. */
    public static final int POOL_EMPTY = -3;
    /**
     * {@link #tryClaimDeclinable}: the destination's FIFO (a pair without a fast box) has one free slot or none,
     * or words already wait for it on the pending list: a message that must not wait may need the last slot. The
     * destination frees slots as it polls.
     */
    public static final int QUEUE_FULL = -5;
    /** {@link #tryClaim}: the destination has detached; nothing will be delivered to it again. */
    public static final int PEER_GONE = -4;
    /**
     * The longest message {@link #tryClaimUrgent} is sure to find fast box room for behind messages the receiver
     * declined (the room {@link #tryClaimDeclinable} leaves free): a caller's urgent messages must not be longer
     * (the message layer's longest is 56 bytes, header included).
     */
    public static final int MAX_URGENT_LENGTH = 56;

    /**
     * Claims room for a message of {@code length} bytes (at most {@link #maxPayload()}) to {@code dest}, to be
     * written in place and committed ({@link SendClaim}). A full FIFO never fails a claim (the word waits on
     * the pending list and reaches the FIFO on a later {@link #poll}, {@link #idle}, claim or {@link #close}).
     * Never waits and never consumes anything.
     *
     * @return {@link #CLAIMED}, or why not: {@link #NO_CREDIT} or {@link #BOX_FULL} (retry after the
     *         destination polls), {@link #PEER_GONE}.
     * @throws IllegalArgumentException for a bad destination or length.
     */
    public int tryClaim(final int dest, final int length, final SendClaim claim)
    {
        return claim(dest, length, Publication.EAGER, claim);
    }

    /**
     * As {@link #tryClaim}, for a message the receiver's handler may decline ({@link FragmentHandler#accepts}):
     * it leaves free a little fast box room, or on a pair without a box one FIFO slot, which
     * {@link #tryClaimUrgent} may take; so it also fails while the FIFO has no slot to spare ({@link #QUEUE_FULL}).
     */
    public int tryClaimDeclinable(final int dest, final int length, final SendClaim claim)
    {
        return claim(dest, length, Publication.DECLINABLE, claim);
    }

    /**
     * As {@link #tryClaim}, for a message the receiver's handler never declines and another rank may wait for
     * (an acknowledgement): it may take the room {@link #tryClaimDeclinable} leaves, and a max-size fragment
     * when the eager credits are spent (messages the receiver declined may hold them all), so that it reaches
     * the receiver, which takes what stands ahead of it ({@link FragmentHandler#acceptsAhead}).
     */
    public int tryClaimUrgent(final int dest, final int length, final SendClaim claim)
    {
        return claim(dest, length, Publication.URGENT, claim);
    }

    /**
     * Claims a max-size fragment for up to {@link #maxFragmentPayload()} bytes; the message layer streams
     * large messages with these.
     *
     * @return as {@link #tryClaim}, and {@link #POOL_EMPTY} instead of {@link #NO_CREDIT}.
     */
    public int tryClaimMax(final int dest, final int length, final SendClaim claim)
    {
        return claim(dest, length, Publication.MAX, claim);
    }

    /**
     * @return what a {@link #tryClaim} result means, for a message.
     */
    public static String describeClaim(final int result)
    {
        return switch (result)
        {
            case CLAIMED -> "claimed";
            case NO_CREDIT -> "no eager credit";
            case BOX_FULL -> "fast box full";
            case POOL_EMPTY -> "max-size pool empty";
            case QUEUE_FULL -> "FIFO full";
            case PEER_GONE -> "peer gone";
            default -> "unknown claim result " + result;
        };
    }

    private int claim(final int dest, final int length, final int kind, final SendClaim claim)
    {
        int result = PEER_GONE;
        try
        {
            enter();
            checkSend(dest, length, kind == Publication.MAX ? maxFragmentPayload : maxPayload);
            if (ranks.isAttached(dest))
            {
                // a successful claim holds dest's lock, and in SINGLE mode stays inside the gate (the caller writes
                // into the mapping), until its commit or abort: a close waits for it, from any thread
                result = publications[dest].tryClaim(length, kind, claim);
            }
            return result;
        }
        catch (final InternalError error)
        {
            throw fault(error);
        }
        finally
        {
            if (result == CLAIMED)
            {
                gate.exitAfterClaim();
            }
            else
            {
                gate.exit();
            }
        }
    }

    /**
     * @return the largest payload of one max-size fragment.
     */
    public int maxFragmentPayload()
    {
        return maxFragmentPayload;
    }

    /**
     * One pass of the transport's progress: delivers up to {@code limit} received messages to
     * {@code handler}, returns consumed fragments to their owners (ringing those that sleep), retries pending
     * words, and ticks the health check (rate-limited: see {@link #clock()}). A poll that delivers ends the
     * calling thread's wait ({@link #endWait()}).
     *
     * @return messages delivered to {@code handler} (fragment returns taken back are not counted).
     * @throws JobAbortedException if the job was aborted or a peer died.
     */
    public int poll(final FragmentHandler handler, final int limit)
    {
        return poll(ALL_SOURCES, handler, limit);
    }

    /**
     * {@link #poll}, looking at the in-bound paths of {@code source} alone (its FIFO and fast box): for a
     * caller that waits for one message from it and looks often, as a blocking receive's first looks do. Not
     * a full look: it does not count as the look after arming the doorbell, which only {@link #poll} is.
     *
     * @return messages delivered to {@code handler}.
     * @throws JobAbortedException if the job was aborted or a peer died.
     */
    public int pollSource(final int source, final FragmentHandler handler, final int limit)
    {
        if (source < 0 || source >= size || source == rank)
        {
            throw new IllegalArgumentException("source=" + source + " (expected: a peer of rank " + rank + ", 0.." + (size - 1) + ")");
        }
        return poll(source, handler, limit);
    }

    /**
     * Starts the calling thread's looks at one path (a caller that polls one source with {@link #pollSource}
     * before it waits): {@link #pauseLook} paces them by this endpoint's wait policy.
     */
    public void startLooks()
    {
        policy().startLooks(health.now());
    }

    /**
     * Between two of the calling thread's looks ({@link #startLooks}): a spin hint where its waits spin, else a
     * yield.
     *
     * @return false once the looks are over: the caller should wait the general way (its passes poll every
     *         path, and its waits yield, arm the doorbell and sleep as they need to).
     */
    public boolean pauseLook()
    {
        return policy().pauseLook();
    }

    /**
     * @param source a sender whose paths alone are drained, or {@link #ALL_SOURCES}.
     */
    private int poll(final int source, final FragmentHandler handler, final int limit)
    {
        try
        {
            enter();
            final int delivered = drain(source, handler, limit);
            if (delivered > 0)
            {
                health.checkBusy(); // what it delivered goes to the caller first: the check waits for a quiet pass
                policy().reset(); // the caller's wait, if any, got something: its next one starts spinning
                if (multiple)
                {
                    bell.wakeSleeper(); // another thread may sleep waiting for what was delivered
                }
            }
            else
            {
                health.check();
            }
            return delivered;
        }
        catch (final InternalError error)
        {
            throw fault(error);
        }
        finally
        {
            gate.exit();
        }
    }

    /**
     * {@link #drainOnce}, serialised in MULTIPLE thread mode.
     */
    private int drain(final int source, final FragmentHandler handler, final int limit)
    {
        if (pollLock == null)
        {
            return drainOnce(source, handler, limit);
        }
        pollLock.lock();
        try
        {
            return drainOnce(source, handler, limit);
        }
        finally
        {
            pollLock.unlock();
        }
    }

    private int drainOnce(final int source, final FragmentHandler handler, final int limit)
    {
        return source == ALL_SOURCES ? poller.poll(handler, limit) : poller.pollSource(source, handler, limit);
    }

    /**
     * @return System.nanoTime() as the progress loop last read it (every few dozen {@link #poll}s and
     * {@link #idle}s): a layer above measures its timeouts with it instead of reading the clock again.
     */
    public long clock()
    {
        return health.now();
    }

    /**
     * @return a count that moves each time the periodic health check runs (about every 100 ms while this
     * endpoint is polled): a layer above runs its own periodic checks when it moves, on the same clock read.
     */
    public long ticks()
    {
        return health.ticks();
    }

    /**
     * Waits once after a pass that found nothing, by the calling thread's wait policy (spin, yield, or sleep
     * on this rank's doorbell until a peer publishes to it), checking the job's health periodically. It first
     * retries words still waiting for FIFO room, so a caller that only sends (retrying a failed
     * {@link #tryClaim}) needs no {@link #poll}. A caller's next pass after an idle is a full look at its
     * in-bound paths: the policy arms the doorbell on one idle, naps on the next and sleeps on the third,
     * each only if the pass between found nothing. End every wait with {@link #endWait()}.
     */
    public void idle()
    {
        idle(HealthMonitor.INTERVAL_NANOS);
    }

    /**
     * As {@link #idle()}, sleeping at most {@code timeoutNanos} (a caller's deadline; at most the health
     * check's interval either way).
     */
    public void idle(final long timeoutNanos)
    {
        idle(timeoutNanos, false);
    }

    /**
     * As {@link #idle(long)}; with {@code lockstep}, for a wait in which every rank waits for the slowest (a
     * collective's step, a barrier), so ranks that may share cores yield longer before they sleep
     * ({@link WaitPolicy}).
     */
    public void idle(final long timeoutNanos, final boolean lockstep)
    {
        try
        {
            enter();
            poller.flushPending(); // a caller that only sends waits for FIFO room here, not in a poll
            if (wait != null)
            {
                // SINGLE mode: one thread, one mark (MULTIPLE: threads wait and work side by side)
                counters.waiting(wait.yields() ? CountersDescriptor.YIELDING : CountersDescriptor.SPINNING);
            }
            if (!waitOnce(Math.max(0, Math.min(timeoutNanos, HealthMonitor.INTERVAL_NANOS)), lockstep))
            {
                health.check();
            }
        }
        catch (final InternalError error)
        {
            throw fault(error);
        }
        finally
        {
            gate.exit();
        }
    }

    /**
     * Ends the current or the next sleep on this rank's doorbell at once, whichever thread sleeps: for a
     * layer above that must make a waiting thread look again (another thread is closing it).
     */
    public void interruptWait()
    {
        bell.interrupt();
    }

    /**
     * Ends the calling thread's wait: its condition holds, or a pass did work. A thread that armed its
     * doorbell disarms it, and its next wait starts with spinning again.
     */
    public void endWait()
    {
        try
        {
            if (gate.enter()) // closed: the doorbell is gone, and this thread's wait with it
            {
                policy().reset();
                counters.doneWaiting(); // set only in SINGLE mode
            }
        }
        catch (final InternalError error)
        {
            throw fault(error);
        }
        finally
        {
            gate.exit();
        }
    }

    /**
     * @return how this rank's waits have gone so far: sleeps on the doorbell, and those that ended by their
     *         timeout instead of a peer's ring.
     */
    public WaitCounters waitCounters()
    {
        return new WaitCounters(bell.sleeps(), bell.timedOut(), bell.onFutex());
    }

    /**
     * What {@link #waitCounters()} reports.
     *
     * @param sleeps   blocks on the doorbell (naps and sleeps).
     * @param timedOut sleeps that ended by their timeout (health checks of a quiet rank, or a ring lost).
     * @param onFutex  blocks that were futex waits (JDK 22+, every rank able), not socket selects.
     */
    public record WaitCounters(long sleeps, long timedOut, long onFutex)
    {
    }

    private WaitPolicy policy()
    {
        return threadWait == null ? wait : threadWait.get();
    }

    /**
     * For a layer above that touched a claim's or a fragment's memory itself (copying a payload): turns a
     * fault of that access into the error to report ({@link Segment#fault}).
     */
    @Override
    public Sm4jException fault(final InternalError error)
    {
        final Sm4jException explained = segment.fault(error);
        faulted = true;
        return explained;
    }

    private void checkSend(final int dest, final int length, final int limit)
    {
        if (dest < 0 || dest >= size || dest == rank)
        {
            throw new IllegalArgumentException("dest=" + dest + " (expected: 0.." + (size - 1) + ", not this rank " + rank + ")");
        }
        if (length < 0)
        {
            throw new IllegalArgumentException("length=" + length + " is negative");
        }
        if (length > limit)
        {
            throw new IllegalArgumentException("length=" + length + " exceeds maxPayload=" + limit + " (" +
                (limit == maxPayload ? "eagerLimit=" + layout.params().eagerLimit() : "maxFragSize=" + layout.params().maxFragSize()) +
                " less the " + FragmentDescriptor.HEADER_LENGTH + "-byte header)");
        }
    }

    /**
     * After {@link #close} the segment may be unmapped: every public call that touches it enters the gate
     * first, and leaves it ({@link CallGate#exit}) when done.
     */
    private void enter()
    {
        if (!gate.enter())
        {
            throw new IllegalStateException("endpoint of rank " + rank + " is closed");
        }
    }

    private void checkWrapper(final int sender, final int receiver)
    {
        final UnsafeBuffer wrapper = segment.views().wrapper(sender, receiver);
        if (wrapper.getLong(CbWrapperDescriptor.QUEUE_OFFSET) != layout.queueOffset(sender, receiver) ||
            wrapper.getInt(CbWrapperDescriptor.SENDER_OFFSET) != sender ||
            wrapper.getInt(CbWrapperDescriptor.RECEIVER_OFFSET) != receiver)
        {
            throw new Sm4jException("corrupt CB wrapper " + sender + " -> " + receiver + " in " + segment.path());
        }
    }

    /**
     * Delivers the fragments still on the pending list to every peer that is still attached (waiting, as
     * long as it takes, for them to make room: a send that returned is never dropped while its receiver
     * lives), stops early if the job is aborted, then detaches and unmaps the segment if this endpoint owns
     * it.
     */
    @Override
    public void close()
    {
        if (!gate.close(faulted, bell::interrupt))
        {
            return;
        }
        // a call still inside after the gate's bounded wait (SINGLE mode from another thread, or a fault) may still
        // write into the mapping, and hold a publication's lock: no lock, no drain beside it, no unmap under it (its
        // collector unmaps the mapping once unreachable)
        final boolean abandoned = gate.abandoned();
        try
        {
            if (!abandoned)
            {
                // every call that entered has left; a claim still held keeps its destination's lock until committed,
                // also after a fault (MULTIPLE mode: the claim left the gate, and its thread may still write its payload)
                for (final Publication publication : publications)
                {
                    if (publication != null)
                    {
                        publication.lockForClose();
                    }
                }
                // a truncated file leaves nothing to deliver or to mark detached, only the mapping to release
                if (!faulted)
                {
                    deliverPendingAndDetach();
                }
            }
        }
        catch (final InternalError error)
        {
            throw fault(error);
        }
        finally
        {
            closeResources();
            if (ownsSegment)
            {
                segment.close(!abandoned);
            }
        }
    }

    /**
     * Closes what the endpoint holds besides the mapping: its doorbell (and the socket's file), the
     * connections to the peers' doorbells, and the /proc files of the processes it watches.
     */
    private void closeResources()
    {
        if (peerMemory != null)
        {
            peerMemory.close();
        }
        bell.close();
        peerBells.close();
        health.close();
    }

    /**
     * One wait of the calling thread's policy. After a sleep the health clock is read at once, and the job's
     * check waits for the next quiet pass: the pass that follows first takes whatever woke the rank.
     *
     * @return true if the thread slept (or followed a sleeper).
     */
    private boolean waitOnce(final long timeoutNanos, final boolean lockstep)
    {
        final boolean slept = policy().idle(timeoutNanos, lockstep);
        if (slept)
        {
            health.afterSleep();
        }
        return slept;
    }

    private void deliverPendingAndDetach()
    {
        try
        {
            while (pendingToAttached() && !aborted())
            {
                drain(ALL_SOURCES, DISCARD, Integer.MAX_VALUE);
                waitOnce(HealthMonitor.INTERVAL_NANOS, false);
            }
            // once more, just before detaching: a max-size fragment published to this rank since goes back to its
            // owner, whose pool would otherwise lose it for good (one that comes after this drain still would)
            try
            {
                drain(ALL_SOURCES, DISCARD, Integer.MAX_VALUE);
            }
            catch (final Sm4jException corrupt)
            {
                // a forged or corrupt fragment: recorded as the job's abort already; this close goes on to detach
            }
        }
        finally
        {
            policy().reset();
            counters.doneWaiting(); // a close from another thread may have ended a wait whose endWait found the gate shut
            counters.publish();
            segment.detach(rank);
            peerBells.ringAll(); // a peer asleep waiting for this rank sees it gone now
        }
    }

    /**
     * @return true if a word is still pending for a peer that is attached.
     */
    private boolean pendingToAttached()
    {
        for (final Publication publication : publications)
        {
            if (publication != null && publication.hasPending() && ranks.isAttached(publication.dest()))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @return true if the job is aborted, or has just been because a peer or the launcher died.
     */
    private boolean aborted()
    {
        try
        {
            health.check();
            return false;
        }
        catch (final JobAbortedException ex)
        {
            return true;
        }
    }
}
