package io.sm4j.jmh;

import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.Segment;
import io.sm4j.segment.SegmentFiles;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.SendClaim;
import io.sm4j.transport.TransportOptions;
import org.agrona.DirectBuffer;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * Both ranks of a real two-rank segment in /dev/shm with the default layout, attached in this JVM (rank 1
 * from another thread: attaching waits for every rank).
 */
final class TwoEndpoints
{
    final Segment segment;
    final Endpoint rank0;
    final Endpoint rank1;
    /** Rank 0's claim, for the thread that drives rank 0. */
    final SendClaim claim0 = new SendClaim();
    /** Rank 1's claim, for the thread that drives rank 1. */
    final SendClaim claim1 = new SendClaim();

    TwoEndpoints()
    {
        segment = Segment.create(LayoutParams.defaults(2), Path.of("/dev/shm"), SegmentFiles.newJobId());
        final CompletableFuture<Endpoint> other =
            CompletableFuture.supplyAsync(() -> Endpoint.open(segment, 1, TransportOptions.defaults(), false));
        rank0 = Endpoint.open(segment, 0, TransportOptions.defaults(), false);
        rank1 = other.join();
    }

    /**
     * Claims room, copies {@code length} bytes of {@code payload} into it and commits: a send of the raw
     * transport, as the message layer makes one with its header in front.
     *
     * @return false without room.
     * @throws IllegalStateException if the receiver has left.
     */
    static boolean trySend(final Endpoint from, final SendClaim claim, final int to, final DirectBuffer payload, final int length)
    {
        final int result = from.tryClaim(to, length, claim);
        if (result == Endpoint.PEER_GONE)
        {
            throw new IllegalStateException("rank " + to + ": " + Endpoint.describeClaim(result));
        }
        if (result != Endpoint.CLAIMED)
        {
            return false;
        }
        claim.buffer().putBytes(0, payload, 0, length);
        claim.commit();
        return true;
    }

    /**
     * Closes both ranks at once (a close may wait for the other rank to take what it sent), then removes the
     * segment.
     *
     * @param closeRank0 closes rank 0 (its endpoint, or a communicator over it).
     * @param closeRank1 closes rank 1.
     */
    void close(final Runnable closeRank0, final Runnable closeRank1)
    {
        final CompletableFuture<Void> other = CompletableFuture.runAsync(closeRank1);
        closeRank0.run();
        other.join();
        segment.close();
    }
}
