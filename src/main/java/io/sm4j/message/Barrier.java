package io.sm4j.message;

/**
 * A dissemination barrier through the segment: in round k each rank sends one empty BARRIER fragment to
 * rank + 2^k and waits for one from rank - 2^k, ceil(log2 n) rounds. Counting per source suffices: within
 * an epoch the distances are distinct, so a rank receives at most one BARRIER per source per epoch, and
 * the pair's FIFO keeps epochs in order. A round fails, instead of waiting forever, once the rank it waits
 * for has detached without sending its BARRIER.
 */
final class Barrier
{
    private final MessageSender sender;
    private final int rank;
    private final int size;
    private final long[] received;
    private final long[] expected;
    private long epoch;
    /** This round's peers and the engine it waits through (set per round: a barrier allocates nothing). */
    private int to;
    private int from;
    private Progress progress;
    private final Awaitable sent = this::trySend;
    private final Awaitable heard = this::heard;

    Barrier(final MessageSender sender, final int rank, final int size)
    {
        this.sender = sender;
        this.rank = rank;
        this.size = size;
        this.received = new long[size];
        this.expected = new long[size];
    }

    /**
     * @param progress drives the protocol while a round waits, and tells whether a peer has left.
     */
    void await(final Progress progress)
    {
        this.progress = progress;
        for (int distance = 1; distance < size; distance <<= 1)
        {
            to = (rank + distance) % size;
            from = (rank - distance + size) % size;
            if (!sender.trySendBarrier(to, epoch))
            {
                progress.awaitInLockstep(sent);
            }
            expected[from]++;
            if (received[from] < expected[from])
            {
                progress.awaitInLockstep(heard);
                if (received[from] < expected[from])
                {
                    throw progress.detached("barrier (epoch " + epoch + ", waiting for rank " + from + ")");
                }
            }
        }
        epoch++;
    }

    /**
     * @return true once this round's BARRIER has left.
     */
    private boolean trySend()
    {
        return sender.trySendBarrier(to, epoch);
    }

    /**
     * @return true once this round's BARRIER has come, or the rank it comes from has left (and what it sent
     * before leaving is received).
     */
    private boolean heard()
    {
        return received[from] >= expected[from] || progress.departed(from);
    }

    void onMessage(final int source)
    {
        received[source]++;
    }
}
