package io.sm4j.message;

import io.sm4j.segment.Sm4jException;

import java.time.Duration;

/**
 * A nonblocking send or receive. Completion is driven by calls into the {@link Communicator} ({@link #test},
 * {@link #await}, or any other call that progresses).
 */
public abstract class Request
{
    private final Communicator communicator;
    private boolean complete;
    private Sm4jException error;
    private Status status;

    Request(final Communicator communicator)
    {
        this.communicator = communicator;
    }

    /**
     * Progresses once.
     *
     * @return true if the request has completed.
     * @throws Sm4jException if it completed with an error (e.g. {@link TruncationException}).
     */
    public boolean test()
    {
        if (!complete)
        {
            communicator.progress();
        }
        return completed();
    }

    /**
     * Waits, progressing, until the request completes.
     *
     * @return the status (for a send: destination, tag and length).
     */
    public Status await()
    {
        while (!completed())
        {
            communicator.progressOrIdle();
        }
        return status;
    }

    /**
     * @return the status, or null if {@code timeout} passed first.
     */
    public Status await(final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!completed())
        {
            if (System.nanoTime() - deadline > 0)
            {
                return null;
            }
            communicator.progressOrIdle();
        }
        return status;
    }

    /**
     * @return the status once complete, else null.
     */
    public Status status()
    {
        return complete ? status : null;
    }

    void complete(final Status status)
    {
        this.status = status;
        this.complete = true;
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
        request.fail(new Sm4jException("the " + what + " cannot complete: the peer has detached"));
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
