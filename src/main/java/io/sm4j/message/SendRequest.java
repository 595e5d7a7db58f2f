package io.sm4j.message;

import org.agrona.DirectBuffer;

/**
 * A send of {@code length} bytes; a large one waits for the receiver's ACK, then streams.
 */
final class SendRequest extends Request
{
    final int dest;
    final int tag;
    final long sequence;
    final DirectBuffer buffer;
    final int offset;
    final int length;
    long remoteId;
    int sent;

    SendRequest(
        final Communicator communicator, final int dest, final int tag, final long sequence,
        final DirectBuffer buffer, final int offset, final int length)
    {
        super(communicator);
        this.dest = dest;
        this.tag = tag;
        this.sequence = sequence;
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
    }

    void complete()
    {
        complete(new Status(dest, tag, length));
    }
}
