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
     * The least bytes a reader reads of a rank's off-heap data (a block) out of its process, and with ranks sharing
     * cores the least bytes a rank leaves there ({@link #sourcePosition}): reading saves the writer's copy into the
     * region, and costs a system call per reader and one more step of the call, which is cheap with a core per rank
     * and a round of the scheduler without (docs/benchmarks.md, "Collectives read out of the writer's process": with
     * 2 ranks reading gains from 32 KiB blocks; with 4 ranks on 2 cores bcast and allToAll gain from 256 KiB left in
     * place, allGather is about even there).
     */
    int READ_MIN_BLOCK = 32 << 10;
    /** {@link #READ_MIN_BLOCK}: with ranks sharing cores, the least bytes a rank leaves in its process. */
    int READ_MIN_SHARING_CORES = 256 << 10;

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
     * @param length      the bytes of {@code buffer} the call reads.
     * @param blockLength the most any one reader reads of them (a bcast's or allGather's {@code length}, an
     *                    allToAll's block).
     * @return where the peers can {@link #copySource copy} {@code length} bytes at {@code offset} of
     *         {@code buffer} from, in place ({@link #sourceChunk} names the place): their payload position if they
     *         lie in a shared buffer of this rank's, or their address if they lie in off-heap memory and every
     *         rank of the communicator has found it can read its peers' processes (a large enough call, and a
     *         way that has cost less lately than the copy into the region for calls of this kind and size); else -1
     *         (a heap array, a shared buffer re-wrapped or freed, or off-heap memory that is not read this time).
     * @param call        the collective's tag (negative): its kind, whose costs are measured apart; or
     *                    {@link #ALWAYS_IN_PLACE} for a call whose duration on this rank says nothing of the
     *                    choice.
     */
    long sourcePosition(DirectBuffer buffer, int offset, int length, int blockLength, int call);

    /**
     * {@link #sourcePosition}'s {@code call} for a bcast: its root, the only rank whose data it moves, returns
     * once its last chunk is in its half (its readers copy it out after) but only once they have read it when it
     * is left in place, so its durations would favour the region; a bcast's data is left in place.
     */
    int ALWAYS_IN_PLACE = 0;

    /**
     * The call that last asked {@link #sourcePosition} has ended on this rank, normally: its duration counts
     * towards the next calls' choice between leaving data in place and copying it into the region.
     */
    void callEnded();

    /**
     * @return the chunk id of {@code buffer}, for which {@link #sourcePosition} was not -1: its shared buffer's,
     *         or {@link io.sm4j.layout.CollectiveSlotDescriptor#PROCESS_MEMORY}.
     */
    long sourceChunk(DirectBuffer buffer);

    /**
     * Copies {@code length} bytes at payload {@code position} of rank {@code rank}'s shared buffer {@code chunkId}
     * (or at address {@code position} of its process, for
     * {@link io.sm4j.layout.CollectiveSlotDescriptor#PROCESS_MEMORY}) into {@code into} at {@code offset}.
     *
     * @throws Sm4jException if the buffer is gone or does not hold those bytes, or the process could not be read.
     */
    void copySource(int rank, long chunkId, long position, MutableDirectBuffer into, int offset, int length);

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
