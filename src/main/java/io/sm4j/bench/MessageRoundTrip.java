package io.sm4j.bench;

import io.sm4j.message.Communicator;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Ping-pong through the message layer: tagged blocking send and receive (matching, and rendezvous above
 * the eager limit).
 */
final class MessageRoundTrip implements RoundTrip
{
    private static final int TAG = 1;
    private static final int LARGEST = 4 << 20;
    private final Communicator communicator = Communicator.attachFromEnvironment();
    private final UnsafeBuffer out = new UnsafeBuffer(new byte[LARGEST]);
    private final UnsafeBuffer in = new UnsafeBuffer(new byte[LARGEST]);
    private final int peer = communicator.rank() ^ 1;

    @Override
    public int rank()
    {
        return communicator.rank();
    }

    @Override
    public int[] defaultSizes()
    {
        final int eager = communicator.eagerPayload();
        return new int[]{ 0, 8, 64, 1024, eager, eager + 1, 65536, 1 << 20, LARGEST };
    }

    @Override
    public void send(final int size)
    {
        communicator.send(peer, TAG, out, 0, size);
    }

    @Override
    public void await()
    {
        communicator.recv(peer, TAG, in, 0, LARGEST);
    }

    @Override
    public void close()
    {
        communicator.close();
    }
}
