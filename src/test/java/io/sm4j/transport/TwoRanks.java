package io.sm4j.transport;

import io.sm4j.it.ScratchDir;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.Segment;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * Test fixture: a real segment in a fresh /dev/shm directory with both ranks of a two-rank job attached in
 * this JVM. Closing detaches both, unmaps and removes the file and the directory.
 */
public final class TwoRanks implements AutoCloseable
{
    public final Segment segment;
    public final Endpoint rank0;
    public final Endpoint rank1;
    private final ScratchDir dir;

    public TwoRanks(final LayoutParams params) throws IOException
    {
        this(params, TransportOptions.defaults());
    }

    /**
     * @param options1 rank 1's settings (rank 0 has the defaults).
     */
    public TwoRanks(final LayoutParams params, final TransportOptions options1) throws IOException
    {
        dir = ScratchDir.create("sm4j-two-ranks-");
        segment = Segment.create(params, dir.path, 11);
        final CompletableFuture<Endpoint> other =
            CompletableFuture.supplyAsync(() -> Endpoint.open(segment, 1, options1, false));
        rank0 = Endpoint.open(segment, 0, TransportOptions.defaults(), false);
        rank1 = other.join();
    }

    /**
     * Closes both ranks at once (each close may wait for the other to take fragments still pending for
     * it), then removes the segment.
     */
    @Override
    public void close() throws IOException
    {
        try
        {
            final CompletableFuture<Void> other = CompletableFuture.runAsync(rank1::close);
            try
            {
                rank0.close();
            }
            finally
            {
                other.join();
            }
        }
        finally
        {
            segment.close();
            dir.close();
        }
    }
}
