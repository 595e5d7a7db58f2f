package io.sm4j.message;

import io.sm4j.collective.Collectives;
import io.sm4j.collective.SharedRegion;
import io.sm4j.job.CpuBudget;
import io.sm4j.layout.CollectiveSlotDescriptor;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.Sm4jException;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.PeerMemory;
import io.sm4j.window.LocalWindows;
import io.sm4j.window.PeerWindows;
import io.sm4j.window.SharedBuffer;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A communicator's collective region ({@link SharedRegion}): the slots of its ranks in the region of its
 * context, waits in the rank's one progress engine (which fail, as every other wait, once the awaited rank
 * has detached or the job is aborted), wakes through the peers' doorbells, and reads the ranks' shared buffers
 * through the rank's kept mappings of them, and their off-heap data out of their processes ({@link PeerMemory}).
 */
final class CollectiveRegion implements SharedRegion
{
    private final Endpoint endpoint;
    private final Progress progress;
    /** This rank's matching queues, where a peer's message shows it took the point-to-point path of a call. */
    private final MatchQueues queues;
    private final int context;
    /** The world rank of each of the communicator's ranks. */
    private final int[] world;
    private final AtomicBuffer[] slots;
    private final int cacheline;
    private final int bufferSize;
    private final LocalWindows ownWindows;
    private final PeerWindows peerWindows;
    /** More ranks in the job than the node's cores (not this process's affinity, which binding narrows): they share cores. */
    private final boolean sharingCores;
    /** Every rank of the communicator has found it can read the others ({@link Endpoint#readEachOther}). */
    private boolean readersChecked;
    /**
     * Per call's kind (its tag), whether this rank's off-heap data is left in place (the first way) or copied into
     * its half; empty if it is always left in place ({@code SM4J_PEER_READS=on}).
     */
    private final Int2ObjectHashMap<FasterOfTwo> inPlaceOrCopied = new Int2ObjectHashMap<>();
    private final boolean chooses;
    /** The choice of the call in progress, to be measured when it ends ({@link #callEnded}), or null. */
    private FasterOfTwo choosing;
    private boolean choseInPlace;
    private int choseFor;
    private long choseAt;
    /** The wait in progress (one at a time: the communicator is single-threaded), reused: a wait allocates nothing. */
    private int awaitedRank;
    private long awaitedStep;
    private final Awaitable posted = this::posted;

    private CollectiveRegion(
        final Endpoint endpoint, final Progress progress, final MatchQueues queues, final int context, final int[] world,
        final AtomicBuffer[] slots, final LocalWindows ownWindows, final PeerWindows peerWindows)
    {
        final LayoutParams params = endpoint.layout().params();
        this.endpoint = endpoint;
        this.progress = progress;
        this.queues = queues;
        this.context = context;
        this.world = world;
        this.slots = slots;
        this.cacheline = params.cacheline();
        this.bufferSize = params.collectiveBufferSize();
        this.ownWindows = ownWindows;
        this.peerWindows = peerWindows;
        this.sharingCores = endpoint.size() > CpuBudget.cores();
        this.chooses = endpoint.choosesPeerReads();
    }

    /**
     * @param group       the world rank of each of the communicator's ranks, or null for the world's.
     * @param ownWindows  this rank's shared buffers.
     * @param peerWindows this rank's mappings of its peers' shared buffers.
     * @return the region of communicator context {@code context}, or null if the layout gives it none.
     */
    static CollectiveRegion of(
        final Endpoint endpoint, final Progress progress, final MatchQueues queues, final int context, final int[] group,
        final LocalWindows ownWindows, final PeerWindows peerWindows)
    {
        final int size = group == null ? endpoint.size() : group.length;
        final int[] world = new int[size];
        final AtomicBuffer[] slots = new AtomicBuffer[size];
        for (int r = 0; r < size; r++)
        {
            world[r] = group == null ? r : group[r];
            slots[r] = endpoint.collectiveSlot(world[r], context);
            if (slots[r] == null)
            {
                return null;
            }
        }
        return new CollectiveRegion(endpoint, progress, queues, context, world, slots, ownWindows, peerWindows);
    }

    @Override
    public AtomicBuffer slot(final int rank)
    {
        return slots[rank];
    }

    @Override
    public int cacheline()
    {
        return cacheline;
    }

    @Override
    public int bufferSize()
    {
        return bufferSize;
    }

    @Override
    public void awaitStep(final int rank, final long step, final String collective)
    {
        awaitedRank = rank;
        awaitedStep = step;
        progress.awaitStored(posted);
        if (!hasPosted())
        {
            final Unexpected crossing = queues.queuedCollective(world[rank], context);
            if (crossing != null)
            {
                throw Collectives.crossedPaths(rank, Contexts.fromCollectiveWire(context, crossing.tag()), collective);
            }
            throw progress.detached(collective + " (step " + step + ", waiting for rank " + rank + ")");
        }
    }

    /**
     * @return true once the awaited rank has posted the awaited step, or has detached without posting it, or has
     *         sent this rank a message of a collective call that this rank made through the region: it took the
     *         call point to point (its step, posted before any later call's messages, is looked at again first).
     */
    private boolean posted()
    {
        return hasPosted() || progress.departed(world[awaitedRank]) ||
            queues.queuedCollective(world[awaitedRank], context) != null;
    }

    private boolean hasPosted()
    {
        // acquire: what the rank wrote before its post
        return slots[awaitedRank].getLongAcquire(CollectiveSlotDescriptor.STEP_OFFSET) >= awaitedStep;
    }

    @Override
    public void wake(final int rank)
    {
        endpoint.wake(world[rank]);
    }

    @Override
    public long sourcePosition(
        final DirectBuffer buffer, final int offset, final int length, final int blockLength, final int call)
    {
        choosing = null;
        if (buffer instanceof SharedBuffer shared)
        {
            return shared.sharedPosition(ownWindows, offset, length);
        }
        // off-heap memory stays where it is while the call lasts (a heap array may move): its readers read it
        // out of this process, as Open MPI's vader does with CMA, if they all have found they can (asked per
        // call: a rank may still be checking when the first call starts; each record says what it offers)
        final boolean large = blockLength >= READ_MIN_BLOCK && (!sharingCores || length >= READ_MIN_SHARING_CORES);
        if (!large || buffer.byteArray() != null || buffer.addressOffset() <= 0)
        {
            return -1;
        }
        readersChecked = readersChecked || endpoint.readEachOther(world); // once true, true for good
        if (!readersChecked)
        {
            return -1;
        }
        if (chooses && call != ALWAYS_IN_PLACE)
        {
            // what is faster, the readers' reads or this rank's copy into its half and theirs out of it, depends on the
            // machine's mode and on the scheduler's turns: measured, per kind of call and size (FasterOfTwo)
            choosing = inPlaceOrCopied.computeIfAbsent(call, c -> new FasterOfTwo(1)); // calls follow each other
            choseFor = length;
            choseInPlace = choosing.first(length);
            choseAt = System.nanoTime();
            if (!choseInPlace)
            {
                return -1;
            }
        }
        return buffer.addressOffset() + offset;
    }

    @Override
    public void callEnded()
    {
        if (choosing != null)
        {
            choosing.ended(choseInPlace, choseFor, 0, choseAt, System.nanoTime(), 0, 0);
            choosing = null;
        }
    }

    @Override
    public long sourceChunk(final DirectBuffer buffer)
    {
        return buffer instanceof SharedBuffer shared ? shared.chunkId() : CollectiveSlotDescriptor.PROCESS_MEMORY;
    }

    @Override
    public void copySource(
        final int rank, final long chunkId, final long position, final MutableDirectBuffer into, final int offset,
        final int length)
    {
        if (chunkId != CollectiveSlotDescriptor.PROCESS_MEMORY)
        {
            peerWindows.copy(world[rank], chunkId, position, into, offset, length);
            return;
        }
        // offered only once this rank found it can read every rank that reads (Endpoint.readEachOther)
        final PeerMemory reader = endpoint.peerMemory();
        if (reader == null || !reader.read(world[rank], position, into, offset, length))
        {
            throw new Sm4jException("reading " + length + " bytes at address 0x" + Long.toHexString(position) +
                " out of the process of world rank " + world[rank] +
                " failed: it exited, the address is not mapped there, or reading it is no longer permitted");
        }
    }

    @Override
    public void abort(final String reason)
    {
        endpoint.job().abort(reason);
    }

    @Override
    public void enter()
    {
        endpoint.enterMapping();
    }

    @Override
    public void exit()
    {
        endpoint.exitMapping();
    }

    @Override
    public Sm4jException fault(final InternalError error)
    {
        return progress.fault(error);
    }
}
