package io.sm4j.collective;

import io.sm4j.segment.Sm4jException;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A communicator's collective region in the segment, as {@link SharedCollectives} needs it from the layers
 * below: each of its ranks' slots ({@link io.sm4j.layout.CollectiveSlotDescriptor}), waiting and waking
 * through the rank's progress engine, and the mapping kept alive while a collective touches it.
 */
public interface SharedRegion
{
    /**
     * @return the slot of the communicator's rank {@code rank}.
     */
    AtomicBuffer slot(int rank);

    int cacheline();

    /**
     * @return bytes of each rank's buffer, both halves.
     */
    int bufferSize();

    /**
     * Progresses, idling by the wait policy, until {@code rank} has posted {@code step} or more.
     *
     * @param collective the waiting collective's name, for the error.
     * @throws Sm4jException if {@code rank} detached before posting it (the job's abort if it was aborted).
     */
    void awaitStep(int rank, long step, String collective);

    /**
     * Rings {@code rank} if it sleeps: this rank has posted a step it may wait for.
     */
    void wake(int rank);

    /**
     * Keeps the mapping alive until {@link #exit} (a close from another thread waits for it).
     */
    void enter();

    void exit();

    /**
     * @return the error to report for a fault of an access to the mapping (the file was truncated).
     */
    Sm4jException fault(InternalError error);
}
