package io.sm4j.bench;

/**
 * One side of a ping-pong exchange at some layer of the stack.
 */
interface RoundTrip extends AutoCloseable
{
    int rank();

    /** Payload sizes measured when none are given. */
    int[] defaultSizes();

    /** Sends {@code size} bytes to the peer. */
    void send(int size);

    /** Waits for the peer's message. */
    void await();

    @Override
    void close();
}
