package io.sm4j.message;

import io.sm4j.layout.ThreadMode;
import io.sm4j.segment.Sm4jException;
import io.sm4j.transport.Endpoint;
import org.agrona.MutableDirectBuffer;

import java.util.ArrayList;
import java.util.List;

/**
 * The one place a rank makes progress: it alone polls the transport, idles, checks the job's health (through
 * the endpoint's poll and idle) and fails requests orphaned by a peer that left. Requests and the barrier
 * wait through it ({@link Progress}); the {@link Communicator} is only the API in front of it.
 * <p>
 * One pass ({@link #progress}) starts the sends and ACKs that wait for room, polls the transport (fast
 * boxes, FIFOs, returns, pending words, and its rate-limited health check, the loop's one clock read),
 * streams acknowledged large sends, and on each health tick fails the requests of peers that have
 * detached. A wait ({@link #await}) runs passes until its condition holds and, after every pass that found
 * nothing, idles by the endpoint's wait policy: spin, yield, or sleep on the rank's doorbell until a peer
 * publishes to it. A pass after an idle is always a full look at every in-bound path, which is what makes
 * the doorbell's arm-then-look protocol safe. The transport is polled through {@link Endpoint#poll}, the
 * interface a second transport (ranks on other nodes) would also offer: its poll joins the same pass. A blocking
 * receive from a named source first looks at that source's path alone ({@link #receiveDirect}), before any pass.
 * Not thread-safe, as the communicator.
 */
final class ProgressEngine implements Progress
{
    private static final int POLL_LIMIT = 64;
    /** Passes a close makes at most to take in what has arrived: 64 fragments each. */
    private static final int CLOSING_PASSES = 1024;
    /** A wait without a deadline of its own: the endpoint bounds a sleep by its health interval. */
    private static final long NO_DEADLINE = Long.MAX_VALUE;
    /**
     * Looks at a stored condition alone after a wait's first empty pass ({@link #awaitStored}): 64 spin hints, 0.2-3 us
     * by the CPU's pause instruction (about 2 us here).
     */
    private static final int LOOKS = 64;

    private final Endpoint endpoint;
    private final Matcher matcher;
    /** The matcher's queues: a blocking receive looks at its source directly only while they are empty. */
    private final MatchQueues queues;
    private final PendingSends sends;
    private final Rendezvous rendezvous;
    private final int rank;
    private final int size;
    /** The endpoint's health tick at the last orphan check. */
    private long orphanCheckTick;
    /** Peers found detached by the orphan check, reused. */
    private final boolean[] gone;
    /** Per rank: gone, with nothing of its held back in shared memory (failOrphans). */
    private final boolean[] silent;
    /** Volatile: a close from another thread ({@link CallingThread}) sets it. */
    private volatile boolean closed;
    /** The wait without a deadline in progress, or null (one at a time: the communicator is single-threaded). */
    private Awaitable blocking;
    /** The endpoint's health tick when {@link #blocking} began. */
    private long blockingSince;
    private final CallingThread thread;
    /** A blocking receive's looks at its source alone; null in MULTIPLE thread mode, where other threads poll. */
    private final DirectReceive direct;

    ProgressEngine(
        final Endpoint endpoint, final Matcher matcher, final PendingSends sends, final Rendezvous rendezvous,
        final CallingThread thread)
    {
        this.endpoint = endpoint;
        this.matcher = matcher;
        this.sends = sends;
        this.rendezvous = rendezvous;
        this.rank = endpoint.rank();
        this.size = endpoint.size();
        this.gone = new boolean[size];
        this.silent = new boolean[size];
        this.thread = thread;
        this.queues = matcher.queues();
        this.direct = endpoint.layout().params().threadMode() == ThreadMode.SINGLE ? new DirectReceive(endpoint.counters()) : null;
    }

    /**
     * A blocking receive's shortcut ({@link DirectReceive}): while no receive is posted, no message is queued
     * and nothing waits to be sent, looks at {@code source}'s path alone for an eager message with wire tag
     * {@code tag} (or one its wildcard accepts), as often as the endpoint's wait policy paces it
     * ({@link Endpoint#pauseLook}: about 5 us of spinning, or about 50 us of yielding where the processor may be
     * wanted). The looks are a wait: the thread is announced as the waiter, so another thread that calls meanwhile
     * is refused ({@link CallingThread}).
     *
     * @param source a peer's world rank, not this rank's.
     * @return the payload bytes received into {@code capacity} bytes at {@code offset} of {@code buffer} (the
     *         message's wire tag is then {@link #receivedTag()}), or -1: the caller posts the receive and waits.
     */
    int receiveDirect(final int source, final int tag, final MutableDirectBuffer buffer, final int offset, final int capacity)
    {
        if (direct == null || !queues.isEmpty() || sends.hasWaiting() || rendezvous.hasSends())
        {
            return -1;
        }
        final DirectReceive look = direct.aim(tag, buffer, offset, capacity);
        thread.startWaiting(); // a release store, as a general wait's
        try
        {
            thread.checkWaiting(); // a thread that took over before the announcement: refuse before any look
            endpoint.startLooks();
            do
            {
                if (endpoint.pollSource(source, look, 1) > 0)
                {
                    return look.received();
                }
                thread.checkWaiting(); // another thread closed the communicator, or called it, meanwhile
            }
            while (!look.declined() && endpoint.pauseLook());
            return -1;
        }
        catch (final InternalError error)
        {
            throw fault(error); // a fault surfaces a little after its access (a safepoint poll): maybe after the poll
        }
        finally
        {
            look.release();
            thread.endWaiting();
        }
    }

    /**
     * @return the wire tag of the message {@link #receiveDirect} took last: the one asked for, or one its wildcard
     *         accepts.
     */
    int receivedTag()
    {
        return direct.receivedTag();
    }

    @Override
    public int progress()
    {
        checkUsable();
        return pass();
    }

    @Override
    public void await(final Awaitable condition)
    {
        waitFor(condition, NO_DEADLINE, false, false);
    }

    @Override
    public boolean await(final Awaitable condition, final long deadlineNanos)
    {
        return waitFor(condition, deadlineNanos, false, false);
    }

    @Override
    public void awaitInLockstep(final Awaitable condition)
    {
        waitFor(condition, NO_DEADLINE, true, false);
    }

    @Override
    public void awaitStored(final Awaitable condition)
    {
        waitFor(condition, NO_DEADLINE, true, endpoint.spinsFirst());
    }

    /**
     * @param deadlineNanos {@link #NO_DEADLINE}: no clock read per pass.
     * @param lockstep      every rank waits for the slowest ({@link Endpoint#idle(long, boolean)}).
     * @param looks         after the wait's first empty pass, look at {@code condition} alone for a moment
     *                      ({@link #looksAlone}) before idling: a peer's store makes it true, visible without a pass.
     * @return false if the deadline passed first.
     */
    private boolean waitFor(final Awaitable condition, final long deadlineNanos, final boolean lockstep, final boolean looks)
    {
        try
        {
            return passUntil(condition, deadlineNanos, lockstep, looks);
        }
        catch (final InternalError late)
        {
            // a fault is thrown at a safepoint poll a little after its access, so a second one (an access in
            // passUntil's finally, run because of the first) can surface inside passUntil's handler, escaping it:
            // seen once in CI, a truncated segment's bare InternalError reaching the application
            throw fault(late);
        }
    }

    /**
     * {@link #waitFor}'s passes, idling between them.
     */
    private boolean passUntil(final Awaitable condition, final long deadlineNanos, final boolean lockstep, final boolean looks)
    {
        boolean looking = looks;
        checkUsable();
        boolean announced = false; // this thread is the communicator's announced waiter (from its first pass)
        boolean idling = false; // idled since the last endWait: the wait policy is inside a wait
        if (deadlineNanos == NO_DEADLINE)
        {
            blocking = condition; // judged on the health ticks for a message the budget holds back (checkStarved)
            blockingSince = endpoint.ticks();
        }
        try
        {
            try
            {
                // isDone once per pass, and never again once true: a condition may act (an eager send that finds room)
                boolean done = condition.isDone();
                if (!done)
                {
                    thread.startWaiting(); // a release store: another thread taking over waits out its grace
                    announced = true;
                    thread.checkWaiting(); // a thread that took over before the announcement: refuse before any pass
                }
                while (!done)
                {
                    final long left = deadlineNanos == NO_DEADLINE ? NO_DEADLINE : deadlineNanos - endpoint.clock();
                    if (left < 0)
                    {
                        return false;
                    }
                    final int work = pass();
                    thread.checkWaiting(); // another thread closed the communicator, or called it, meanwhile
                    done = condition.isDone(); // before idling: the pass may have completed it without work (an orphan)
                    if (done)
                    {
                        break;
                    }
                    if (work > 0)
                    {
                        if (idling)
                        {
                            endpoint.endWait(); // waits are short while there is work: the next empty pass spins again
                            idling = false;
                        }
                    }
                    else if (looking)
                    {
                        looking = false;
                        done = looksAlone(condition);
                    }
                    else
                    {
                        endpoint.idle(left, lockstep);
                        idling = true;
                    }
                }
                return true;
            }
            finally
            {
                blocking = null;
                endWait(idling, announced);
            }
        }
        catch (final InternalError error)
        {
            // a fault of compiled code surfaces on a return a little after the access: the finally's too
            throw fault(error);
        }
    }

    /**
     * Looks at {@code condition} up to {@link #LOOKS} times, with a spin hint between: where every rank has a core
     * of its own, a collective's step mostly comes within a microsecond, and a look at its word alone sees it
     * tens of nanoseconds sooner than the next pass would (a pass polls every in-bound path first). Only after a
     * pass: a rank that waits always makes progress once, for the peers that wait for its credits, ACKs and sends.
     *
     * @return true if the condition holds.
     */
    private static boolean looksAlone(final Awaitable condition)
    {
        for (int i = 0; i < LOOKS; i++)
        {
            if (condition.isDone())
            {
                return true;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    /**
     * Ends a wait: its policy's, if it idled since the last end (a disarm writes to the mapping), then the
     * announcement, last (a close from another thread goes on from there).
     */
    private void endWait(final boolean idling, final boolean announced)
    {
        try
        {
            if (idling)
            {
                endpoint.endWait();
            }
        }
        finally
        {
            if (announced)
            {
                thread.endWaiting();
            }
        }
    }

    @Override
    public void start(final SendRequest request)
    {
        checkUsable();
        if (request.dest == rank)
        {
            matcher.sendToSelf(request);
        }
        else
        {
            sends.send(request);
        }
    }

    @Override
    public void post(final RecvRequest request)
    {
        checkUsable();
        matcher.post(request);
    }

    @Override
    public boolean withdraw(final RecvRequest request)
    {
        checkUsable();
        return queues.withdraw(request);
    }

    @Override
    public boolean departed(final int source)
    {
        if (!sourceGone(source))
        {
            return false;
        }
        drainAll(); // detachment read first (acquire), then drained: what it sent before leaving is here now
        return true;
    }

    /**
     * @return the error for a wait on a peer that has detached; the job's abort if it was aborted (ranks
     *         detach when it is, so that is the cause to report).
     */
    @Override
    public Sm4jException detached(final String what)
    {
        endpoint.job().checkNotAbortedAfterDetach();
        return new Sm4jException("the " + what + " cannot complete: the peer has detached");
    }

    /**
     * Aborts the job with {@code reason} ({@link io.sm4j.job.RankJob#abort}).
     */
    void abortJob(final String reason)
    {
        abortJob(reason, 0);
    }

    /**
     * @param exitCode what the job's launcher exits with ({@link Communicator#abort}), 0 for none.
     */
    void abortJob(final String reason, final int exitCode)
    {
        endpoint.job().abort(reason, exitCode);
    }

    /**
     * @throws io.sm4j.segment.JobAbortedException if the job was aborted.
     */
    void checkNotAborted()
    {
        endpoint.job().checkNotAborted();
    }

    /**
     * A fault of an access to the mapping (the file was truncated) surfaces as an {@link InternalError} on a
     * return shortly after the access, so each loop that waits catches it: this names the file instead.
     */
    @Override
    public Sm4jException fault(final InternalError error)
    {
        return endpoint.fault(error);
    }

    /**
     * @param members world ranks (a derived communicator's), this rank among them.
     * @return true if every member but this rank has detached; what they sent before leaving is received then
     *         (one drain for all).
     */
    boolean departedAll(final int[] members)
    {
        if (!othersGone(members))
        {
            return false;
        }
        drainAll();
        return true;
    }

    /**
     * @return true if {@code source} ({@link Communicator#ANY_SOURCE}: every peer) has detached.
     */
    private boolean sourceGone(final int source)
    {
        return source != Communicator.ANY_SOURCE ? source != rank && !endpoint.job().isAttached(source) : othersGone(null);
    }

    /**
     * @param members world ranks, or null for every rank.
     * @return true if every one of them but this rank has detached, and there was another.
     */
    private boolean othersGone(final int[] members)
    {
        final int count = members == null ? size : members.length;
        for (int i = 0; i < count; i++)
        {
            final int peer = members == null ? i : members[i];
            if (peer != rank && endpoint.job().isAttached(peer))
            {
                return false;
            }
        }
        return count > 1;
    }

    /**
     * Passes until one finds nothing: the in-bound FIFOs and fast boxes are empty (or hold only declined
     * messages).
     */
    private void drainAll()
    {
        while (pass() > 0)
        {
            // until nothing is left to receive
        }
    }

    /**
     * Completes outstanding sends (a send to a rank that has detached fails instead of waiting), then closes
     * the endpoint. Idempotent. From a thread other than the latest caller, closes the endpoint only
     * ({@link CallingThread#closeFrom}).
     */
    void close()
    {
        if (closed || thread.isClosedByAnother())
        {
            return;
        }
        if (thread.closeFrom(endpoint::interruptWait))
        {
            closed = true;
            endpoint.close(); // its gate waits for the other thread's call; outstanding sends are dropped
            return;
        }
        thread.checkNotInHandler(); // before the finally below closes the endpoint under the handler's poll
        try
        {
            final List<SendRequest> outstanding = new ArrayList<>();
            rendezvous.addSends(outstanding);
            sends.addSends(outstanding);
            await(() -> !rendezvous.hasSends() && !sends.hasWaiting());
            // a send whose receiver left without taking it failed: named, not dropped in silence
            final String unsent = LeftOver.unsent(rank, outstanding.stream().filter(Request::failed)
                .map(send -> new LeftOver.Message(send.dest, send.tag, send.length)).toList());
            if (unsent != null)
            {
                System.err.println(unsent);
            }
            matcher.closing();
            // what arrived and no receive took is named, not dropped in silence (bounded: a peer may still send)
            for (int passes = 0; passes < CLOSING_PASSES && pass() > 0; passes++)
            {
                // until the in-bound paths are empty
            }
            final String lost = matcher.leftOver();
            if (lost != null)
            {
                System.err.println(lost);
            }
        }
        finally
        {
            closed = true;
            endpoint.close();
        }
    }

    /**
     * @throws IllegalStateException if called from a message handler, after {@link #close()}, or while another
     *                               thread waits in the communicator.
     */
    void checkUsable()
    {
        thread.check(); // refuses a call from a MessageHandler too
        if (closed)
        {
            thread.checkNotClosedByAnother(); // a close from another thread may have come after the check above
            throw new IllegalStateException("communicator of rank " + rank + " is closed");
        }
    }

    private int pass()
    {
        try
        {
            final int work = sends.flush() + endpoint.poll(matcher, POLL_LIMIT) + rendezvous.advance();
            final long tick = endpoint.ticks();
            if (tick != orphanCheckTick)
            {
                orphanCheckTick = tick; // first: the drain in failOrphans runs this pass again
                failOrphans();
                checkStarved(tick);
                matcher.checkStalls(endpoint.clock());
            }
            return work;
        }
        catch (final InternalError error)
        {
            throw fault(error);
        }
    }

    /**
     * On each health tick, before the budget's ticks are counted: fails a wait without a deadline that has
     * spanned a whole tick and needs a message that the unexpected-message budget holds back, which nothing
     * can free (only this thread's later receives could). The whole tick makes the holds it reads this wait's
     * own: a hold that ended just before the wait began is still marked until the tick after it.
     */
    private void checkStarved(final long tick)
    {
        if (blocking != null && tick - blockingSince >= 2)
        {
            final int source = blocking.awaitedSource();
            final Sm4jException starved = source < 0 ? null : matcher.starved(source, endpoint.clock());
            if (starved != null)
            {
                throw starved;
            }
        }
    }

    /**
     * On each health tick: fails the requests that wait for a rank that has detached (closed its endpoint)
     * and so can never answer. Detachment is read first (acquire), then the in-bound FIFOs are drained, so
     * everything such a rank published before detaching has been received.
     */
    private void failOrphans()
    {
        int goneCount = 0;
        for (int peer = 0; peer < size; peer++)
        {
            gone[peer] = peer != rank && !endpoint.job().isAttached(peer);
            goneCount += gone[peer] ? 1 : 0;
        }
        if (goneCount == 0)
        {
            return;
        }
        endpoint.job().checkNotAborted(); // they may have left because the job was aborted: that is the cause
        // the drain takes what the detached ranks sent before leaving: also what a poll left in shared memory after the
        // blocking receive it waited for completed (awaiting's optimisation), else a receive posted for a message
        // still there would be failed as "detached"
        matcher.awaiting(null);
        drainAll();
        for (int peer = 0; peer < size; peer++)
        {
            // a rank whose messages the budget holds back in shared memory has not sent its last word: a receive may
            // yet match what waits behind them, until the budget has held them back for the starvation check's second
            // (then no receive taken meanwhile made room: a wait for them, ANY_SOURCE or over several requests too,
            // fails as before instead of waiting for good); sends to it fail at once
            silent[peer] = gone[peer] && (!matcher.holdsBack(peer) || matcher.heldTooLong(peer, endpoint.clock()));
        }
        rendezvous.failOrphans(gone, silent);
        sends.failOrphans(gone);
        queues.failOrphans(silent, rank);
    }
}
