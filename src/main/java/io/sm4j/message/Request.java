package io.sm4j.message;

import io.sm4j.segment.Sm4jException;

import java.time.Duration;

/**
 * A nonblocking send or receive. Its completion is driven by the rank's one progress engine, which the
 * request reaches through a small interface of the message layer: in its own {@link #test} and
 * {@link #await}, or in any other call of the communicator that progresses.
 * <p>
 * A persistent request ({@link Communicator#sendInit}, {@link Communicator#recvInit}, as MPI_Send_init and
 * MPI_Recv_init) is created inactive and is run with {@link #start()} as often as needed: the same object,
 * its buffer and its {@link Status} serve every run, so a loop of them allocates nothing.
 */
public abstract class Request implements Awaitable
{
    private final Progress progress;
    private final boolean persistent;
    private final Status status = new Status();
    private boolean complete;
    /**
     * True until the completion of the current run has been reported (by {@link #await}, a {@link #test} that
     * returned true, or a wait or test over several requests): those skip a request that is not active, as
     * MPI skips inactive persistent requests and MPI_REQUEST_NULL.
     */
    private boolean active;
    private boolean cancelled;
    private Sm4jException error;
    /** How the communicator that made this request names ranks and tags; null: as on the wire (the world's). */
    private Naming naming;

    /**
     * @param persistent created inactive (complete, with an empty status) and restartable with {@link #start()}.
     */
    Request(final Progress progress, final boolean persistent)
    {
        this.progress = progress;
        this.persistent = persistent;
        this.complete = persistent;
        this.active = !persistent;
    }

    /**
     * Starts a persistent request again (MPI_Start): the send or receive it was created for, with the buffer
     * as it is now. Its status is overwritten when the run completes.
     *
     * @return this request.
     * @throws IllegalStateException if it is not persistent, or its previous run has not completed.
     */
    public Request start()
    {
        if (!persistent)
        {
            throw new IllegalStateException("only a persistent request (sendInit, recvInit) can be started");
        }
        if (!complete)
        {
            throw new IllegalStateException("the request is still active: await or test it to completion first");
        }
        if (naming != null)
        {
            naming.checkOpen(); // made by a split or dup since closed
        }
        reset();
        active = true;
        try
        {
            startIn(progress);
        }
        catch (final RuntimeException ex)
        {
            // not started (a closed communicator, a peer gone, a call from a handler): in no queue, nothing would
            // ever complete it; it stays inactive and may be started again
            active = false;
            complete = true;
            throw ex;
        }
        return this;
    }

    /**
     * Hands this request, reset, to the progress engine to run.
     */
    abstract void startIn(Progress progress);

    /**
     * Progresses once.
     *
     * @return true if the request has completed.
     * @throws Sm4jException if it completed with an error (e.g. {@link TruncationException}).
     */
    public boolean test()
    {
        try
        {
            if (!complete)
            {
                progress.progress();
            }
            return reported();
        }
        catch (final InternalError error)
        {
            throw progress.fault(error);
        }
    }

    /**
     * Waits, progressing, until the request completes.
     *
     * @return the status (for a send: destination, tag and length).
     */
    public Status await()
    {
        if (!complete)
        {
            progress.await(this);
        }
        reported();
        return status;
    }

    /**
     * @return the status, or null if {@code timeout} passed first (as the progress loop's clock tells, read
     * every few dozen passes: the answer may come those passes late, never early).
     */
    public Status await(final Duration timeout)
    {
        if (!complete && !progress.await(this, deadline(timeout)))
        {
            return null;
        }
        reported();
        return status;
    }

    /**
     * @return System.nanoTime() when {@code timeout} from now has passed; {@link Long#MAX_VALUE} (no deadline) for a
     *         timeout past what a long of nanoseconds holds (a plain sum wrapped round to the past: no wait at all).
     */
    private static long deadline(final Duration timeout)
    {
        final long now = System.nanoTime();
        if (timeout.isNegative())
        {
            return now;
        }
        try
        {
            return Math.addExact(now, timeout.toNanos());
        }
        catch (final ArithmeticException beyond)
        {
            return Long.MAX_VALUE;
        }
    }

    /**
     * @return the status once complete, else null.
     */
    public Status status()
    {
        return complete ? status : null;
    }

    /**
     * @return true once complete (with or without an error): no progress, no throw ({@link #test()}
     * progresses and reports an error).
     */
    @Override
    public boolean isDone()
    {
        return complete;
    }

    /**
     * Waits until every request completes (MPI_Waitall), then sets each non-persistent one's entry to null
     * (MPI_REQUEST_NULL) and makes each persistent one inactive. Null entries and inactive persistent requests
     * are skipped.
     *
     * @return each request's status, null for an entry that was null or inactive.
     * @throws Sm4jException the first error among them, in array order, once all have completed; then only the request
     *                       that failed with it is released: the others that completed, failed or not, stay active, and the next
     *                       waitAll (or waitSome, testAll) returns them (MPI reports every status with
     *                       MPI_ERR_IN_STATUS; a thrown error has room for one).
     * @throws IllegalArgumentException if the requests belong to more than one communicator.
     */
    public static Status[] waitAll(final Request... requests)
    {
        final Progress progress = progressOf(requests);
        if (progress != null)
        {
            progress.await(() -> firstActive(requests, false) < 0);
        }
        final Status[] statuses = new Status[requests.length];
        final Sm4jException first = firstError(requests);
        for (int i = 0; i < requests.length; i++)
        {
            if (isActive(requests[i]))
            {
                statuses[i] = requests[i].status;
                releaseUnlessKept(requests, i, first);
            }
        }
        if (first != null)
        {
            throw first;
        }
        return statuses;
    }

    /**
     * Waits until one active request completes (MPI_Waitany); its entry is then set to null if it is not
     * persistent, and a persistent one becomes inactive, so that a loop of waitAny handles each request once.
     *
     * @return the index of a completed request (the lowest), or -1 if no entry is active.
     * @throws Sm4jException if that request completed with an error.
     */
    public static int waitAny(final Request... requests)
    {
        final Progress progress = progressOf(requests);
        if (progress == null || firstActive(requests, true) < 0 && firstActive(requests, false) < 0)
        {
            return -1;
        }
        progress.await(() -> firstActive(requests, true) >= 0);
        return take(requests, firstActive(requests, true));
    }

    /**
     * Waits until at least one active request completes (MPI_Waitsome), then takes every completed one as
     * {@link #waitAny} takes one.
     *
     * @return the indexes of every completed request, ascending; empty if no entry is active.
     * @throws Sm4jException the first error among the completed ones; then only the one that failed with it is released (as
     *                       {@link #waitAll}).
     */
    public static int[] waitSome(final Request... requests)
    {
        final Progress progress = progressOf(requests);
        if (progress == null || firstActive(requests, true) < 0 && firstActive(requests, false) < 0)
        {
            return new int[0];
        }
        progress.await(() -> firstActive(requests, true) >= 0);
        return takeCompleted(requests);
    }

    /**
     * Progresses once (MPI_Testall); when every active request has completed, takes them as {@link #waitAll}.
     *
     * @return true if every active request has completed (or none is active).
     * @throws Sm4jException the first error among them, in array order, once all have completed.
     */
    public static boolean testAll(final Request... requests)
    {
        final Progress progress = progressOf(requests);
        if (progress != null && firstActive(requests, false) >= 0)
        {
            progress.progress();
            if (firstActive(requests, false) >= 0)
            {
                return false;
            }
        }
        waitAll(requests); // every active one has completed: takes them, reports the first error
        return true;
    }

    /**
     * Progresses once (MPI_Testany); takes a completed request as {@link #waitAny} does.
     *
     * @return the index of a completed request (the lowest), or -1 if none has completed (or none is active).
     * @throws Sm4jException if that request completed with an error.
     */
    public static int testAny(final Request... requests)
    {
        final Progress progress = progressOf(requests);
        if (progress == null)
        {
            return -1;
        }
        int index = firstActive(requests, true);
        if (index < 0 && firstActive(requests, false) >= 0)
        {
            progress.progress();
            index = firstActive(requests, true);
        }
        return index < 0 ? -1 : take(requests, index);
    }

    /**
     * @return the progress engine every non-null request runs in, null if all are null.
     */
    private static Progress progressOf(final Request[] requests)
    {
        if (requests == null)
        {
            throw new NullPointerException("requests is null");
        }
        Progress progress = null;
        for (final Request request : requests)
        {
            if (request != null)
            {
                if (progress != null && request.progress != progress)
                {
                    throw new IllegalArgumentException("the requests belong to more than one communicator: wait for each one's apart");
                }
                progress = request.progress;
            }
        }
        return progress;
    }

    private static boolean isActive(final Request request)
    {
        return request != null && request.active;
    }

    /**
     * @param complete find an active request that has completed (true) or one still running (false).
     * @return its index, or -1.
     */
    private static int firstActive(final Request[] requests, final boolean complete)
    {
        for (int i = 0; i < requests.length; i++)
        {
            if (isActive(requests[i]) && requests[i].complete == complete)
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * Reports the completed request at {@code index}: releases its entry, then throws its error if it failed.
     */
    private static int take(final Request[] requests, final int index)
    {
        final Request request = requests[index];
        release(requests, index);
        request.completed();
        return index;
    }

    private static int[] takeCompleted(final Request[] requests)
    {
        int count = 0;
        for (final Request request : requests)
        {
            count += isActive(request) && request.complete ? 1 : 0;
        }
        final int[] indexes = new int[count];
        int n = 0;
        final Sm4jException first = firstError(requests);
        for (int i = 0; i < requests.length; i++)
        {
            if (isActive(requests[i]) && requests[i].complete)
            {
                indexes[n++] = i;
                releaseUnlessKept(requests, i, first);
            }
        }
        if (first != null)
        {
            throw first;
        }
        return indexes;
    }

    /**
     * @return the first error among the active requests that completed, in array order, or null.
     */
    private static Sm4jException firstError(final Request[] requests)
    {
        for (final Request request : requests)
        {
            if (isActive(request) && request.complete && request.error != null)
            {
                return request.error;
            }
        }
        return null;
    }

    /**
     * Releases the completed request at {@code index}, unless the call throws {@code error} and this request is not
     * the one that failed with it: it stays active, for the next call to report (its status, or its own error).
     */
    private static void releaseUnlessKept(final Request[] requests, final int index, final Sm4jException error)
    {
        if (error == null || requests[index].error == error)
        {
            release(requests, index); // the others, failed too or not, are the next call's to report
        }
    }

    /**
     * Marks the request at {@code index} reported: inactive, and its entry null unless it is persistent.
     */
    private static void release(final Request[] requests, final int index)
    {
        requests[index].active = false;
        if (!requests[index].persistent)
        {
            requests[index] = null;
        }
    }

    /**
     * Cancels a receive that no message has matched yet (MPI_Cancel): it is withdrawn and completes at once,
     * {@link #isCancelled()} true, with an empty status (source and tag -1, length 0). A receive already
     * matched, and any send, completes as usual.
     *
     * @return true if it was cancelled.
     */
    public boolean cancel()
    {
        return false; // sends complete on their own; RecvRequest cancels
    }

    /**
     * Completes as cancelled, with an empty status.
     */
    void completeCancelled()
    {
        cancelled = true;
        status.set(-1, -1, 0);
        complete = true;
    }

    Progress progress()
    {
        return progress;
    }

    /**
     * @return true if this request's last run was cancelled (MPI_Test_cancelled).
     */
    public boolean isCancelled()
    {
        return cancelled;
    }

    /**
     * Makes a completed request ready to run again.
     */
    void reset()
    {
        complete = false;
        cancelled = false;
        error = null;
    }

    void complete(final int source, final int tag, final int length)
    {
        fill(source, tag, length);
        this.complete = true;
    }

    /**
     * @return this request's status, filled but not yet complete (a handler sees it before the request completes).
     */
    Status fill(final int source, final int tag, final int length)
    {
        return status.setFromWire(naming, source, tag, length);
    }

    /**
     * @return {@code worldRank} as this request's communicator numbers it (-1: not one of its ranks).
     */
    int localRank(final int worldRank)
    {
        return naming == null ? worldRank : naming.localRank(worldRank);
    }

    /**
     * @return {@code wireTag} as this request's communicator's user sees it.
     */
    int userTag(final int wireTag)
    {
        return naming == null ? wireTag : naming.userTag(wireTag);
    }

    /**
     * @return this request, whose statuses now name ranks and tags as {@code naming} does.
     */
    Request named(final Naming naming)
    {
        this.naming = naming;
        return this;
    }

    /**
     * Completes with the status already {@link #fill filled}.
     */
    void completeFilled()
    {
        this.complete = true;
    }

    /**
     * @return true if it completed with an error.
     */
    boolean failed()
    {
        return complete && error != null;
    }

    void fail(final Sm4jException error)
    {
        this.error = error;
        this.complete = true;
    }

    /**
     * Fails {@code request}: its peer has detached and can never answer.
     *
     * @return true, for use in removeIf.
     */
    static boolean orphan(final Request request, final String what)
    {
        request.fail(request.progress.detached(what)); // throws instead if the job was aborted
        return true;
    }

    private boolean completed()
    {
        if (complete && error != null)
        {
            throw error;
        }
        return complete;
    }

    /**
     * {@link #completed()}, marking the run's completion reported when it is complete.
     */
    private boolean reported()
    {
        if (complete)
        {
            active = false;
        }
        return completed();
    }
}
