package io.sm4j.message;

import org.agrona.DirectBuffer;

/**
 * A send of {@code length} bytes; a large one waits for the receiver's ACK, then streams. Reusable: a
 * persistent request, or the communicator's own request for blocking large sends, is set again per run.
 */
final class SendRequest extends Request
{
    int dest;
    int tag;
    /** The pair's number of this large send, set when its RNDV leaves: the key its ACK names. */
    long sequence;
    DirectBuffer buffer;
    int offset;
    int length;
    long remoteId;
    int sent;
    /** A large send by RGET: the receiver copies it from this rank's shared buffer and answers COPIED. */
    boolean shared;
    /**
     * A RGET of off-heap memory ({@link MessageType#PROCESS_MEMORY}): its receiver reads it from this process,
     * or, if it cannot, has it streamed as a RNDV's whole message.
     */
    boolean fromProcess;
    /**
     * System.nanoTime() since which it waits for room (queued, or a large message's fragments refused), 0 when it
     * does not: counted as a wait once it goes on.
     */
    long queuedAt;

    SendRequest(final Progress progress, final boolean persistent)
    {
        super(progress, persistent);
    }

    SendRequest set(final int dest, final int tag, final DirectBuffer buffer, final int offset, final int length)
    {
        this.dest = dest;
        this.tag = tag;
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        return this;
    }

    @Override
    void reset()
    {
        super.reset();
        remoteId = 0;
        sent = 0;
        shared = false;
        fromProcess = false;
        queuedAt = 0; // a run that failed while it waited for room must not date the next one's wait
    }

    @Override
    void startIn(final Progress progress)
    {
        progress.start(this);
    }

    void complete()
    {
        complete(dest, tag, length);
    }
}
