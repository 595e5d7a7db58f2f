package io.sm4j.message;

import io.sm4j.segment.Sm4jException;

import java.time.Duration;

/**
 * A nonblocking send or receive. Completion is driven by calls into the {@link Communicator} ({@link #test},
 * {@link #await}, or any other call that progresses), all through the rank's one progress engine.
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
    private Sm4jException error;

    /**
     * @param persistent created inactive (complete, with an empty status) and restartable with {@link #start()}.
     */
    Request(final Progress progress, final boolean persistent)
    {
        this.progress = progress;
        this.persistent = persistent;
        this.complete = persistent;
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
        reset();
        startIn(progress);
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
            return completed();
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
        completed();
        return status;
    }

    /**
     * @return the status, or null if {@code timeout} passed first (as the progress loop's clock tells, read
     * every few dozen passes: the answer may come those passes late, never early).
     */
    public Status await(final Duration timeout)
    {
        if (!complete && !progress.await(this, System.nanoTime() + timeout.toNanos()))
        {
            return null;
        }
        completed();
        return status;
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
     * Waits until every request completes (MPI_Waitall). Null entries are skipped, as MPI_REQUEST_NULL; an
     * inactive persistent request counts as complete.
     *
     * @return each request's status, null for a null entry.
     * @throws Sm4jException the first error among them, in array order, once all have completed.
     * @throws IllegalArgumentException if the requests belong to more than one communicator.
     */
    public static Status[] waitAll(final Request... requests)
    {
        final Progress progress = progressOf(requests);
        if (progress != null)
        {
            progress.await(() -> doneCount(requests) == live(requests));
        }
        final Status[] statuses = new Status[requests.length];
        for (int i = 0; i < requests.length; i++)
        {
            if (requests[i] != null)
            {
                requests[i].completed();
                statuses[i] = requests[i].status;
            }
        }
        return statuses;
    }

    /**
     * Waits until one request completes (MPI_Waitany).
     *
     * @return the index of a completed request (the lowest), or -1 if every entry is null.
     * @throws Sm4jException if that request completed with an error.
     */
    public static int waitAny(final Request... requests)
    {
        final Progress progress = progressOf(requests);
        if (progress == null)
        {
            return -1;
        }
        progress.await(() -> firstDone(requests) >= 0);
        final int index = firstDone(requests);
        requests[index].completed();
        return index;
    }

    /**
     * Waits until at least one request completes (MPI_Waitsome).
     *
     * @return the indexes of every completed request, ascending; empty if every entry is null.
     * @throws Sm4jException the first error among the completed ones.
     */
    public static int[] waitSome(final Request... requests)
    {
        final Progress progress = progressOf(requests);
        if (progress == null)
        {
            return new int[0];
        }
        progress.await(() -> firstDone(requests) >= 0);
        return completedIndexes(requests);
    }

    /**
     * Progresses once (MPI_Testall).
     *
     * @return true if every request has completed.
     * @throws Sm4jException the first error among them, in array order, once all have completed.
     */
    public static boolean testAll(final Request... requests)
    {
        final Progress progress = progressOf(requests);
        if (progress == null)
        {
            return true;
        }
        if (doneCount(requests) < live(requests))
        {
            progress.progress();
            if (doneCount(requests) < live(requests))
            {
                return false;
            }
        }
        waitAll(requests); // all complete: reports the first error
        return true;
    }

    /**
     * Progresses once (MPI_Testany).
     *
     * @return the index of a completed request (the lowest), or -1 if none has completed (or all are null).
     * @throws Sm4jException if that request completed with an error.
     */
    public static int testAny(final Request... requests)
    {
        final Progress progress = progressOf(requests);
        if (progress == null)
        {
            return -1;
        }
        int index = firstDone(requests);
        if (index < 0)
        {
            progress.progress();
            index = firstDone(requests);
        }
        if (index >= 0)
        {
            requests[index].completed();
        }
        return index;
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

    private static int live(final Request[] requests)
    {
        int live = 0;
        for (final Request request : requests)
        {
            live += request == null ? 0 : 1;
        }
        return live;
    }

    private static int doneCount(final Request[] requests)
    {
        int done = 0;
        for (final Request request : requests)
        {
            done += request != null && request.complete ? 1 : 0;
        }
        return done;
    }

    private static int firstDone(final Request[] requests)
    {
        for (int i = 0; i < requests.length; i++)
        {
            if (requests[i] != null && requests[i].complete)
            {
                return i;
            }
        }
        return -1;
    }

    private static int[] completedIndexes(final Request[] requests)
    {
        final int[] indexes = new int[doneCount(requests)];
        int n = 0;
        for (int i = 0; i < requests.length; i++)
        {
            if (requests[i] != null && requests[i].complete)
            {
                indexes[n++] = i;
            }
        }
        for (final int index : indexes)
        {
            requests[index].completed();
        }
        return indexes;
    }

    /**
     * Makes a completed request ready to run again.
     */
    void reset()
    {
        complete = false;
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
        return status.set(source, tag, length);
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
}
