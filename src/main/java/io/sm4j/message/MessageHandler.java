package io.sm4j.message;

import org.agrona.DirectBuffer;

/**
 * Zero-copy receive: sees the message where it lies.
 */
@FunctionalInterface
public interface MessageHandler
{
    /**
     * @param status  source, tag and length.
     * @param buffer  holds the message at {@code offset}; for an eager message that arrived after the receive
     *                was posted this is the fragment in shared memory. Valid only until this method returns:
     *                do not keep it or write to it. Do not call the communicator from here (that throws
     *                IllegalStateException); an exception thrown here fails the receive and propagates.
     * @param offset  index of the first byte.
     */
    void onMessage(Status status, DirectBuffer buffer, int offset);
}
