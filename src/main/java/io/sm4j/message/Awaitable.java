package io.sm4j.message;

/**
 * A condition a wait in the message layer waits for ({@link Progress#await}): a request's completion, a
 * barrier round, room for an eager send. Checked once before the first progress pass and once after each,
 * and never again once it returned true: it may act (an eager send that finds room has sent).
 */
@FunctionalInterface
interface Awaitable
{
    boolean isDone();
}
