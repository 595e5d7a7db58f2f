package io.sm4j.collective;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * What a collective needs of the message layer: blocking point-to-point between the ranks of one
 * communicator, on a tag of the collectives' own that no user receive (not even one for any tag) matches.
 * Sends and receives of one pair stay in order, as MPI's do.
 */
public interface Channel
{
    int rank();

    int size();

    /**
     * Sends {@code length} bytes to {@code dest} and returns once the buffer may be reused.
     */
    void send(int dest, int tag, DirectBuffer buffer, int offset, int length);

    /**
     * Receives a message of at most {@code length} bytes from {@code source}.
     *
     * @return its length.
     * @throws io.sm4j.segment.Sm4jException if it is longer ({@link Collectives#mismatch}).
     */
    int recv(int source, int tag, MutableDirectBuffer buffer, int offset, int length);

    /**
     * Sends to {@code dest} and receives at most {@code recvLength} bytes from {@code source} at once (the
     * receive is posted first, so two ranks that exchange with each other cannot deadlock).
     *
     * @return the received message's length.
     */
    int sendRecv(
        int dest, int tag, DirectBuffer sendBuffer, int sendOffset, int sendLength,
        int source, MutableDirectBuffer recvBuffer, int recvOffset, int recvLength);
}
