package io.sm4j.bench;

import io.sm4j.message.Communicator;
import io.sm4j.message.Request;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The exchange through sm4j's public message API: tagged {@code send}/{@code recv}, and for windows
 * {@code isend}/{@code irecv} requests completed with {@code await}, as an application would write it.
 */
final class Sm4jPair implements PairTransport
{
    private static final int TAG = 1;

    private final Communicator communicator;
    private final int peer;
    private final UnsafeBuffer out = new UnsafeBuffer(new byte[MAX_MESSAGE]);
    private final UnsafeBuffer in = new UnsafeBuffer(new byte[MAX_MESSAGE]);
    private final Request[] window = new Request[BenchRank.MAX_WINDOW];
    private final Request[] sends = new Request[BenchRank.MAX_WINDOW];

    Sm4jPair(final Communicator communicator, final int peer)
    {
        this.communicator = communicator;
        this.peer = peer;
    }

    @Override
    public String name()
    {
        return "sm4j";
    }

    @Override
    public void send(final int length)
    {
        communicator.send(peer, TAG, out, 0, length);
    }

    @Override
    public void receive(final int length)
    {
        communicator.recv(peer, TAG, in, 0, length);
    }

    @Override
    public void sendWindow(final int length, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            window[i] = communicator.isend(peer, TAG, out, 0, length);
        }
        awaitAll(window, count);
    }

    @Override
    public void receiveWindow(final int length, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            window[i] = communicator.irecv(peer, TAG, in, 0, length);
        }
        awaitAll(window, count);
    }

    /**
     * bibw: both directions at once.
     */
    void exchangeWindow(final int length, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            window[i] = communicator.irecv(peer, TAG, in, 0, length);
        }
        for (int i = 0; i < count; i++)
        {
            sends[i] = communicator.isend(peer, TAG, out, 0, length);
        }
        awaitAll(window, count);
        awaitAll(sends, count);
    }

    private static void awaitAll(final Request[] requests, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            requests[i].await();
            requests[i] = null;
        }
    }

    @Override
    public void close()
    {
        // the communicator belongs to the rank
    }
}
