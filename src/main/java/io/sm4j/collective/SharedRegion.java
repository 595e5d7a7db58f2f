package io.sm4j.collective;

import io.sm4j.segment.Sm4jException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A communicator's collective region in the segment, as {@link SharedCollectives} needs it from the layers
 * below: each of its ranks' slots ({@link io.sm4j.layout.CollectiveSlotDescriptor}), waiting and waking
 * through the rank's progress engine, the mapping kept alive while a collective touches it, and the ranks'
 * shared buffers ({@code Communicator.allocate}), which a collective may read in place.
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
     * @return the payload position of {@code length} bytes at {@code offset} of {@code buffer} if they lie in a
     *         shared buffer of this rank's that its peers can {@link #copyShared} from ({@link #sharedChunk}
     *         names it), else -1 (any other buffer, or a shared one re-wrapped or freed).
     */
    long sharedPosition(DirectBuffer buffer, int offset, int length);

    /**
     * @return the chunk id of {@code buffer}, for which {@link #sharedPosition} was not -1.
     */
    long sharedChunk(DirectBuffer buffer);

    /**
     * Copies {@code length} bytes at payload {@code position} of rank {@code rank}'s shared buffer {@code chunkId}
     * into {@code into} at {@code offset}.
     *
     * @throws Sm4jException if the buffer is gone or does not hold those bytes.
     */
    void copyShared(int rank, long chunkId, long position, MutableDirectBuffer into, int offset, int length);

    /**
     * Aborts the job with {@code reason}: for a rank that cannot finish a collective's step, whose peers would
     * otherwise wait for its posts until it left.
     */
    void abort(String reason);

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
