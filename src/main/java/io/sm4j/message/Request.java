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
