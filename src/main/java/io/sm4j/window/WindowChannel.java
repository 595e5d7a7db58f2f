package io.sm4j.window;

import java.util.function.BooleanSupplier;

/**
 * What a {@link Window} needs of its communicator: its ranks, two collectives, and a wait that makes
 * progress and fails, as every other wait, when the job aborts (a rank holding a lock died).
 */
public interface WindowChannel
{
    /**
     * @return this rank in the communicator.
     */
    int rank();

    int size();

    /**
     * @return the world rank of this rank: it names this rank's files.
     */
    int worldRank();

    /**
     * Every rank's {@code send} (the same length on every rank), concatenated in rank order, into {@code recv}.
     */
    void allGather(long[] send, long[] recv);

    void barrier();

    /**
     * Waits until {@code condition} holds, progressing this rank's messages meanwhile; a wait that lasts may
     * sleep on the rank's doorbell, which {@link #wakeAll} rings.
     */
    void await(BooleanSupplier condition);

    /**
     * @throws IllegalStateException if the communicator cannot be used now (closed, or another thread's).
     */
    void checkUsable();

    /**
     * Aborts the job with {@code reason}: for a wait that gave up holding a lock ticket, which would
     * otherwise leave every later locker of that part waiting for good.
     */
    void abortJob(String reason);

    /**
     * Asks {@code target} to take chunks of a put ({@code get} false) or get of {@code length} bytes between
     * this rank's shared buffer {@code chunkId} at {@code position} and {@code target}'s part
     * {@code targetChunkId} at {@code targetOffset} ({@link SplitCopy}), if it would help: both ranks can
     * run at once (a target that sleeps is rung) and no other thread of this rank uses the buffer.
     *
     * @return false if it was not asked: the caller copies everything.
     */
    boolean askHelp(
        int target, long sequence, boolean get, int length, long chunkId, long position, long targetChunkId,
        long targetOffset);

    /**
     * Wakes every other rank that sleeps: this rank has just changed something in shared memory that one of
     * them may wait for (a lock it released).
     */
    void wakeAll();
}
