package io.sm4j.message;

import io.sm4j.segment.Sm4jException;

/**
 * The progress engine as the message layer's waiting objects see it (requests, the barrier): they start
 * and wait through it and never progress, idle or check the job themselves ({@link ProgressEngine}).
 */
interface Progress
{
    /**
     * One progress pass.
     *
     * @return work done: messages sent, received and streamed.
     */
    int progress();

    /**
     * Progresses, idling after empty passes by the wait policy, until {@code condition} holds.
     */
    void await(Awaitable condition);

    /**
     * As {@link #await(Awaitable)}, until {@code deadlineNanos} (System.nanoTime()) at the latest.
     *
     * @return false if the deadline passed first.
     */
    boolean await(Awaitable condition, long deadlineNanos);

    /**
     * As {@link #await(Awaitable)}, for a wait in lockstep: every rank of the communicator waits for the
     * slowest (a collective's step, a barrier's round), so a rank that sleeps delays them all.
     */
    void awaitInLockstep(Awaitable condition);

    /**
     * As {@link #awaitInLockstep(Awaitable)}, for a condition that another rank makes true by a store into shared
     * memory, which a look sees without a progress pass (a collective's step in its region): where every rank
     * has a core of its own ({@link io.sm4j.transport.Endpoint#spinsFirst}), the wait looks at it alone for a
     * moment after its first empty pass, before it idles.
     */
    void awaitStored(Awaitable condition);

    /**
     * Runs a send request, set up and reset: a new isend, a persistent send's start, a blocking large send.
     */
    void start(SendRequest request);

    /**
     * Posts a receive request, set up and reset.
     */
    void post(RecvRequest request);

    /**
     * Withdraws a posted receive that no message has matched yet.
     *
     * @return true if it was withdrawn.
     */
    boolean withdraw(RecvRequest request);

    /**
     * @return true if {@code source} has detached; what it published before is then received.
     */
    boolean departed(int source);

    /**
     * @return the error for a wait on a peer that has detached (the job's abort instead, if it was aborted).
     */
    Sm4jException detached(String what);

    /**
     * @return the error to report for a fault of an access to the mapping (the file was truncated).
     */
    Sm4jException fault(InternalError error);
}
