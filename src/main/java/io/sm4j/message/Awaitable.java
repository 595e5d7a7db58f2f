package io.sm4j.message;

/**
 * A condition a wait in the message layer waits for ({@link Progress#await}): a request's completion, a
 * barrier round, room for an eager send. Checked once before the first progress pass and once after each
 * (in a wait for a stored condition, {@link Progress#awaitStored}, also between the first empty pass and the
 * next), and never again once it returned true: it may act (an eager send that finds room has sent).
 */
@FunctionalInterface
interface Awaitable
{
    /** {@link #awaitedSource()} of a wait that messages from several ranks, or none, can complete. */
    int ANY = -1;

    boolean isDone();

    /**
     * @return the one rank whose matched messages alone can complete this wait (a receive naming its source, not
     *         yet matched), or {@link #ANY}: the engine fails a wait for a rank whose messages the
     *         unexpected-message budget holds back, since nothing can free it meanwhile. A wait for a protocol
     *         message (a large send's ACK, a matched receive's FRAGs, a barrier round's message) is never held
     *         back so: its receiver takes what stands ahead of it ({@code Matcher.acceptsAhead}).
     */
    default int awaitedSource()
    {
        return ANY;
    }
}
