package io.sm4j.bench;

import io.sm4j.transport.Endpoint;
import io.sm4j.transport.FragmentHandler;
import io.sm4j.transport.Endpoints;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Ping-pong over the bare transport: one fragment each way, no matching.
 */
final class TransportRoundTrip implements RoundTrip
{
    private final Endpoint endpoint = Endpoints.attachFromEnvironment();
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[endpoint.maxPayload()]);
    private final int peer = endpoint.rank() ^ 1;
    private int received;
    private final FragmentHandler onReply = fragment -> received++;

    @Override
    public int rank()
    {
        return endpoint.rank();
    }

    @Override
    public int[] defaultSizes()
    {
        return new int[]{ 0, 8, 64, 1024, endpoint.maxPayload() };
    }

    @Override
    public void send(final int size)
    {
        endpoint.send(peer, payload, 0, size);
    }

    @Override
    public void await()
    {
        received = 0;
        while (received == 0)
        {
            if (endpoint.poll(onReply, 1) == 0)
            {
                endpoint.idle();
            }
        }
    }

    @Override
    public void close()
    {
        endpoint.close();
    }
}
