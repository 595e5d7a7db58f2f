package io.sm4j.message;

/**
 * A condition a wait in the message layer waits for ({@link Progress#await}): a request's completion, a
 * barrier round, room for an eager send. Checked after every progress pass; it may act (try a send).
 */
@FunctionalInterface
interface Awaitable
{
    boolean isDone();
}
