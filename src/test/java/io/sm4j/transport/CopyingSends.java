package io.sm4j.transport;

import io.sm4j.segment.Buffers;
import io.sm4j.segment.Sm4jException;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Sends by copy over the raw transport, for tests that drive an {@link Endpoint} without the message layer:
 * a claim, a copy of the payload into it, and a commit. The library sends through the message layer, which
 * writes its header and payload straight into the claim.
 */
public final class CopyingSends
{
    private static final ThreadLocal<SendClaim> CLAIM = ThreadLocal.withInitial(SendClaim::new);

    private CopyingSends()
    {
    }

    /**
     * @return true if the bytes are in shared memory, false without room ({@link Endpoint#NO_CREDIT},
     *         {@link Endpoint#BOX_FULL}): retry after {@code dest} polls.
     * @throws Sm4jException if {@code dest} has detached.
     */
    public static boolean trySend(
        final Endpoint endpoint, final int dest, final DirectBuffer payload, final int offset, final int length)
    {
        Buffers.checkRange("payload", payload, offset, length);
        final SendClaim claim = CLAIM.get();
        final int result = endpoint.tryClaim(dest, length, claim);
        if (result == Endpoint.PEER_GONE)
        {
            throw endpoint.job().peerGone(dest); // the job's abort, if any, is the cause to report
        }
        if (result != Endpoint.CLAIMED)
        {
            return false;
        }
        try
        {
            claim.buffer().putBytes(0, payload, offset, length);
            claim.commit();
        }
        catch (final InternalError error)
        {
            throw endpoint.fault(error);
        }
        finally
        {
            if (claim.isClaimed())
            {
                claim.abort(); // the copy threw: give the room, the lock and the gate back
            }
        }
        return true;
    }

    public static void send(final Endpoint endpoint, final int dest, final byte[] payload)
    {
        send(endpoint, dest, new UnsafeBuffer(payload), 0, payload.length);
    }

    public static void send(final Endpoint endpoint, final int dest, final ByteBuffer payload)
    {
        send(endpoint, dest, new UnsafeBuffer(payload), payload.position(), payload.remaining());
    }

    /**
     * {@link #trySend}, idling while {@code dest} has no room. It consumes nothing while it waits, so it
     * completes only if {@code dest} polls.
     */
    public static void send(
        final Endpoint endpoint, final int dest, final DirectBuffer payload, final int offset, final int length)
    {
        if (trySend(endpoint, dest, payload, offset, length))
        {
            return;
        }
        try
        {
            do
            {
                endpoint.idle();
            }
            while (!trySend(endpoint, dest, payload, offset, length));
        }
        finally
        {
            endpoint.endWait();
        }
    }
}
