package io.sm4j.collective;

import io.sm4j.layout.CollectiveSlotDescriptor;
import io.sm4j.segment.Buffers;
import io.sm4j.segment.NativeCopy;
import io.sm4j.segment.Sm4jException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;
import java.util.function.LongPredicate;

/**
 * Collectives through a communicator's region of the segment, as Open MPI's coll/sm: one writer per slot,
 * every rank a reader, a step word per rank on a line of its own. A collective is a series of steps
 * (numbered per communicator); in each, a rank that contributes copies its part into its slot's half of the
 * step and posts the step, and the ranks that need it wait for that post and copy out:
 * <ul>
 * <li>{@link #barrier}: one step, nothing copied, every rank waits for every other's post (one cache-line
 *     transfer per pair instead of ceil(log2 n) rounds of messages);</li>
 * <li>{@link #bcast}: the root's data in chunks of a half, one step each: the readers copy chunk k while the
 *     root fills chunk k + 1 (two halves, a pipeline of depth two);</li>
 * <li>{@link #reduce} ({@link #reduces}): every rank posts its vector, then the root (every rank)
 *     combines the n vectors in the order of the point-to-point binomial tree, so the bits are those of
 *     {@link Collectives#reduce} and the same on every rank; a longer vector of a predefined operator is
 *     sliced ({@link SlicedReduceSteps}): posted a part per step, rank r combining slice r of every part in
 *     the same order;</li>
 * <li>{@link #reduceScatter} ({@link #reduceScatters}, a predefined operator): every rank posts a piece of
 *     each block per step, rank r combines piece r of every rank in the same order into its result;</li>
 * <li>{@link #gather}, {@link #allGather}: every rank posts a chunk of its block per step, the root (every
 *     rank) copies all n;</li>
 * <li>{@link #scatter}, {@link #allToAll} (a half holding {@link #MIN_PIECE} bytes per rank or more): the
 *     writer puts one piece per destination in its half, each rank copies its own;</li>
 * <li>a bcast's, allGather's or allToAll's data of {@link #SINGLE_COPY_MIN} bytes or more per rank in a shared
 *     buffer of its rank's, or in off-heap memory where every rank reads its peers' processes and has found it
 *     can ({@link #inPlace}):
 *     not copied into the half; each reader copies it straight out of the buffer or the process, named in the
 *     step's source record, whole in the first step if every rank's data (a bcast's
 *     root's) is in place, and one more step tells the writers that they may return;</li>
 * <li>{@link #gatherv}, {@link #scatterv}, {@link #allToAllv}: as gather, scatter and allToAll, once the ranks
 *     have agreed in the first step on how long the call is ({@link Agreement}: only the root knows a
 *     gatherv's or scatterv's counts, each rank only its own pairs' of an allToAllv); scatterv and allToAllv
 *     start each half with the writer's n counts, which each receiver checks against its own.</li>
 * </ul>
 * Which lengths go through the region is decided per collective ({@link #bcasts}, {@link #gathers},
 * {@link #scatters}, {@link #reduces}, {@link #reduceScatters}), from measurements of both paths; the rest goes
 * point to point.
 * Every rank must make the same steps: the chunk counts follow from the lengths, which MPI requires to
 * match. Each post carries the call (collective, length, root) and a reader checks it, so ranks that
 * disagree fail with a line naming the difference at the first step instead of reading wrong data; the
 * lengths of gatherv, scatterv and allToAllv differ by design and are checked against the counts instead,
 * after the call's last step.
 * <p>
 * Memory ordering: a rank writes its half, call record and inline data or source record with plain stores,
 * then release-stores the step; a reader acquire-loads the step, then reads. A rank starts step s only once
 * every rank has posted s - 1 ({@link #begin}; an acquire of that post in its own reads of s - 1 counts), which
 * each does after it finished reading step s - 2's halves:
 * so a half and a call record (used by every second step) are never rewritten under a reader. A rank whose
 * data was read in place returns only once every rank has posted the step after its reads
 * ({@link #readersDone}) (jcstress: CollectiveSlotStress).
 * Not thread-safe: one thread calls a communicator's collectives at a time.
 */
final class SharedCollectives
{
    /** Least bytes per rank in a half for scatter and allToAll, which split a half into one piece per rank. */
    static final int MIN_PIECE = 64;
    /**
     * The half whose reduction step a predefined {@link Op}'s vector keeps to before it is sliced
     * ({@link #wholeStep}): 16 KiB, the default half until 2026-11-27, where the whole-vector step was measured
     * level with slicing. With 128 KiB halves a whole 128 KiB vector at 4 ranks on 2 cores took 229 µs at the
     * median against 152 sliced in 16 KiB halves (docs/benchmarks.md, "Collective buffers sized by the ranks"): every rank
     * then combines n whole vectors, a slice of each is combined once.
     */
    private static final int WHOLE_VECTOR_HALF = 16 * 1024;
    /**
     * The least bytes (bcast), bytes per rank (allGather) or per block (allToAll) that a rank's shared buffer
     * ({@code Communicator.allocate}) leaves in place, its readers copying them straight out of it (off-heap memory
     * read out of the rank's process needs more: {@link SharedRegion#sourcePosition})
     * ({@link #inPlace}): below it the half's copy costs less than the step that tells the writer its readers are
     * done.
     */
    static final int SINGLE_COPY_MIN = 8 * 1024;
    /** The least half with which a bcast goes through the region for eight halves instead of four ({@link #bcasts}). */
    private static final int LONG_BCAST_HALF = 128 * 1024;

    private final SharedRegion region;
    private final int rank;
    private final int size;
    private final AtomicBuffer[] slots;
    private final AtomicBuffer mine;
    private final int cacheline;
    private final int bufferSize;
    private final int half;
    /**
     * Bytes of a slice of a long reduction ({@link SlicedReduceSteps}, {@link ReduceScatterSteps}): n slices and
     * one more fill a half; a multiple of the longest element ({@link ElementType}), so that every rank cuts the same steps whatever
     * element type it was given (ranks that disagree take as many steps, and fail on their next call rather
     * than waiting forever); 0 if a half is too short.
     */
    private final int slice;
    /** Bytes per rank of a scattered half ({@link #scatters}), or 0 below {@link #MIN_PIECE}. */
    private final int piece;
    /** Bytes of a scatterv's or allToAllv's header in each half: a count per rank ({@link ScatterSteps}, {@link AllToAllvSteps}). */
    private final int countsHeader;
    /**
     * Bytes per rank of a scatterv's or allToAllv's half after its header, or 0 below {@link #MIN_PIECE}: then
     * neither starts in the region.
     */
    private final int vPiece;
    /** The last step this rank posted; 0 before the first (the slot's word starts at 0). */
    private long step;
    /**
     * Per rank of the communicator, the last step whose post this rank acquired and whose call record it checked
     * in its own reads ({@link #awaitCall}); 0 before the first. This rank's own entry is written, never read.
     */
    private final long[] checked;
    /**
     * Set while a collective runs, cleared when it returns: still set at the next call, an earlier one failed
     * midway and this rank's steps no longer line up with its peers' (a retry would post one call's chunk as
     * another's step), so every later call is refused.
     */
    private boolean unfinished;
    /**
     * Set in a bcast, allGather or allToAll once some rank's data of it, this rank's included, was read in place
     * ({@link #inPlace}): as every rank reads every rank's source record, it is set on all of them alike, and
     * the call takes one more step, whose posts tell the writers that their buffers are read.
     */
    private boolean readInPlace;
    /** Set in a bcast, allGather or allToAll whose data of this rank's stays in place ({@link #inPlace}). */
    private boolean ownInPlace;
    /**
     * Set in the first step once every rank's data, this rank's included, is found in place (a bcast's root's;
     * {@link #everyoneInPlace}): each reader then copies the whole call in that step, its last.
     */
    private boolean wholeInPlace;
    private final BarrierSteps barrierSteps = new BarrierSteps();
    private final BcastSteps bcastSteps = new BcastSteps();
    private final ReduceSteps reduceSteps = new ReduceSteps();
    private final SlicedReduceSteps slicedSteps = new SlicedReduceSteps();
    private final ReduceScatterSteps reduceScatterSteps = new ReduceScatterSteps();
    private final ScanSteps scanSteps = new ScanSteps();
    private final GatherSteps gatherSteps = new GatherSteps();
    private final ScatterSteps scatterSteps = new ScatterSteps();
    private final RootedSteps gathervSteps = new RootedSteps(gatherSteps, this::gathers);
    private final RootedSteps scattervSteps = new RootedSteps(scatterSteps, this::scatters);
    private final AllToAllvSteps allToAllvSteps = new AllToAllvSteps();
    /** A reduction's subtrees, one vector per tree level; grown as needed, never shrunk. */
    private UnsafeBuffer levels = new UnsafeBuffer(new byte[64]);

    SharedCollectives(final SharedRegion region, final int rank, final int size)
    {
        this.region = region;
        this.rank = rank;
        this.size = size;
        this.slots = new AtomicBuffer[size];
        for (int r = 0; r < size; r++)
        {
            slots[r] = region.slot(r);
        }
        this.mine = slots[rank];
        this.checked = new long[size];
        this.cacheline = region.cacheline();
        this.bufferSize = region.bufferSize();
        this.half = bufferSize / 2;
        this.piece = half / size < MIN_PIECE ? 0 : half / size;
        this.countsHeader = (size * Integer.BYTES + Long.BYTES - 1) / Long.BYTES * Long.BYTES;
        this.vPiece = (half - countsHeader) / size < MIN_PIECE ? 0 : (half - countsHeader) / size;
        this.slice = half / (size + 1) / Long.BYTES * Long.BYTES;
    }

    /**
     * @return true if a bcast of {@code length} bytes goes through the region: up to four halves, and up to
     *         eight once a half is {@link #LONG_BCAST_HALF} or more (1 MiB with the default buffer up to 4 ranks,
     *         256 KiB at 5-8, 64 KiB from 17 ranks on). With 16 KiB halves longer ones went faster point to
     *         point, whose rendezvous keeps 8 fragments of 32 KiB in flight where the region keeps two halves
     *         (docs/benchmarks.md, 2026-11-26); with 128 KiB halves the region was the faster up to eight of
     *         them: a 1 MiB bcast took 120 against 330 µs on the mean at 2 ranks, 229 against 529 at 4 on 2
     *         cores (2026-11-27).
     */
    boolean bcasts(final long length)
    {
        return length <= (half >= LONG_BCAST_HALF ? 8L : 4L) * half;
    }

    /**
     * @return true if a gather or allGather of {@code length} bytes per rank goes through the region: up to
     *         eight halves (1 MiB per rank with the default buffer up to 4 ranks, 128 KiB from 17 ranks on;
     *         above, point to point was faster with ranks <= cores).
     */
    boolean gathers(final long length)
    {
        return length <= 8L * half;
    }

    /**
     * @return true if a scatter or allToAll of {@code length} bytes per rank goes through the region: while a
     *         half holds {@link #MIN_PIECE} bytes per rank, and up to sixteen steps (with the default buffer,
     *         2 ranks: 1 MiB per block, 4 ranks: 512 KiB). With 16 KiB halves point to point was level or a
     *         little faster on the median from about a quarter of that, but its exchanges of large messages stall for 1-3 ms in a few calls
     *         per thousand (docs/ExchangeStallProbe.java), which made its mean 5-10 times the region's at
     *         64 KiB.
     */
    boolean scatters(final long length)
    {
        return piece > 0 && length <= 16L * piece;
    }

    /**
     * @return true if a reduce or allReduce of {@code length} bytes goes through the region: in one step up to
     *         {@link #reduceStep()} for a user's operator (128 KiB at 2 and 4 ranks with the default buffer, 32
     *         KiB at 8), up to {@link #wholeStep()} for a predefined {@link Op} (16 KiB at 2 and 4 ranks, 8 KiB
     *         at 8), where this path was level
     *         with the point-to-point trees or faster (2-3x at 4 ranks on 2 cores); longer, sliced, if
     *         {@code op} combines element by element (a predefined {@link Op}: {@link ElementOperator}) and a half
     *         holds slices: at 2 and 4 ranks level with the trees' medians or faster from 32 KiB to 4 MiB,
     *         without their millisecond stalls (docs/benchmarks.md, 2026-11-27).
     */
    boolean reduces(final long length, final ByteOperator op)
    {
        return scans(length) || sliceable(op);
    }

    /**
     * @return true if a scan or exScan of {@code length} bytes goes through the region: in one step of up to
     *         {@link #reduceStep()}, whatever the operator (a scan has no sliced path).
     */
    boolean scans(final long length)
    {
        return length <= reduceStep();
    }

    /**
     * @return the longest vector a reduction posts in one step: a half, and at most four halves over all n
     *         vectors, which every receiving rank combines while the others wait.
     */
    private int reduceStep()
    {
        return step(half);
    }

    /**
     * @return the longest vector of a predefined {@link Op} that a reduction posts whole: as long as a step of
     *         {@link #WHOLE_VECTOR_HALF} would be, at most a step of this region; longer ones are sliced.
     */
    private int wholeStep()
    {
        return Math.min(reduceStep(), step(WHOLE_VECTOR_HALF));
    }

    private int step(final int halfBytes)
    {
        return (int)Math.min(halfBytes, 4L * halfBytes / size);
    }

    /**
     * @return true if a reduceScatter goes through the region ({@link ReduceScatterSteps}): when it can be
     *         sliced.
     */
    boolean reduceScatters(final ByteOperator op)
    {
        return sliceable(op);
    }

    /**
     * @return true if {@code op}'s vectors may be cut into slices ({@link ElementOperator}) and a half holds them.
     */
    private boolean sliceable(final ByteOperator op)
    {
        return op instanceof ElementOperator && slice > 0;
    }

    void barrier(final int tag)
    {
        run(barrierSteps, tag, 0, 0, 1);
    }

    void bcast(final MutableDirectBuffer buffer, final int offset, final int length, final int root, final int tag)
    {
        inPlace(bcastSteps.with(buffer, offset, buffer, offset), length, rank == root ? length : 0, SharedRegion.ALWAYS_IN_PLACE);
        run(bcastSteps, tag, length, root, half);
    }

    /**
     * A reduction that {@link #reduces}: every rank posts its vector, sliced if it is longer than a step; the
     * root, or with {@code everyone} every rank, combines them.
     */
    void reduce(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int length, final ByteOperator op, final int root, final boolean everyone, final int tag)
    {
        if (length <= (sliceable(op) ? wholeStep() : reduceStep()))
        {
            reduceSteps.op = op;
            reduceSteps.reads = everyone || rank == root;
            run(reduceSteps.with(send, sendOffset, recv, recvOffset), tag, length, root, Math.max(1, length));
            return;
        }
        slicedSteps.op = op;
        slicedSteps.reads = everyone || rank == root;
        slicedSteps.grain = ((ElementOperator)op).elementBytes();
        slicedSteps.partBytes = slice * size;
        slicedSteps.previousBytes = 0;
        if (slicedSteps.combined.capacity() < slice)
        {
            slicedSteps.combined = new UnsafeBuffer(new byte[slice]);
        }
        run(slicedSteps.with(send, sendOffset, recv, recvOffset), tag, length, root, slicedSteps.partBytes);
    }

    /**
     * A reduceScatter that {@link #reduceScatters}: rank r gets block r ({@code blockLength} bytes at
     * {@code sendOffset + r * blockLength} on every rank) combined over the ranks, in {@code recv}.
     */
    void reduceScatter(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int blockLength, final ByteOperator op, final int tag)
    {
        reduceScatterSteps.op = op;
        run(reduceScatterSteps.with(send, sendOffset, recv, recvOffset), tag, blockLength, 0, slice);
    }

    /**
     * A prefix reduction that {@link #reduces}: every rank posts its vector; rank r combines ranks 0..r's
     * (with {@code exclusive}, 0..r-1's: rank 0's {@code recv} is left as it is).
     */
    void scan(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int length, final ByteOperator op, final boolean exclusive, final int tag)
    {
        scanSteps.op = op;
        scanSteps.exclusive = exclusive;
        run(scanSteps.with(send, sendOffset, recv, recvOffset), tag, length, 0, Math.max(1, length));
    }

    /**
     * Every rank's {@code length} bytes into the root's (with {@code everyone}, every rank's) {@code recv},
     * rank r's at {@code recvOffset + r * length}.
     */
    void gather(
        final DirectBuffer send, final int sendOffset, final int length, final MutableDirectBuffer recv,
        final int recvOffset, final int root, final boolean everyone, final int tag)
    {
        gatherSteps.reads = everyone || rank == root;
        gatherSteps.blocks(null, null, length);
        gatherSteps.with(send, sendOffset, recv, recvOffset);
        if (everyone)
        {
            inPlace(gatherSteps, length, length, tag);
        }
        run(gatherSteps, tag, length, root, half);
        if (everyone)
        {
            region.callEnded();
        }
    }

    /**
     * Rank r's {@code counts[r]} bytes into the root's {@code recv} at {@code recvOffset + displacements[r]};
     * {@code counts} and {@code displacements} are the root's only (null elsewhere), so the other ranks learn
     * how many steps the call takes from the root's first post ({@link RootedSteps}), and whether it
     * {@link #gathers} the largest count.
     *
     * @return true if the call went through the region, false if it is to be made point to point.
     */
    boolean gatherv(
        final DirectBuffer send, final int sendOffset, final int sendLength, final MutableDirectBuffer recv,
        final int recvOffset, final int[] counts, final int[] displacements, final int root, final int tag)
    {
        gatherSteps.reads = rank == root;
        final int length = gatherSteps.rooted(gathervSteps, rank == root ? counts : null, displacements, sendLength);
        return run(gatherSteps.with(send, sendOffset, recv, recvOffset), tag, length, root, half);
    }

    /**
     * Every rank's {@code counts[r]} bytes into every rank's {@code recv} at {@code recvOffset +
     * displacements[r]} (every rank passes the same counts); needs {@link #gathers} true of the largest count.
     */
    void allGatherv(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int[] counts, final int[] displacements, final int largest, final int tag)
    {
        gatherSteps.reads = true;
        gatherSteps.blocks(counts, displacements, counts[rank]);
        // the counts' hash in the call record's root: ranks that passed different counts fail instead of
        // reading short or stale blocks (the steps would still line up)
        run(gatherSteps.with(send, sendOffset, recv, recvOffset), tag, largest, Arrays.hashCode(counts), half);
    }

    /**
     * Rank r receives the root's {@code length} bytes at {@code sendOffset + r * length}; needs
     * {@link #scatters} true.
     */
    void scatter(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int length, final int root, final int tag)
    {
        scatterSteps.everyone = false;
        scatterSteps.blocks(null, null, length);
        run(scatterSteps.with(send, sendOffset, recv, recvOffset), tag, length, root, piece);
    }

    /**
     * Rank r receives the root's {@code counts[r]} bytes at {@code sendOffset + displacements[r]}, {@code
     * recvLength} of them; {@code send}, {@code counts} and {@code displacements} are the root's only (null
     * elsewhere), so the other ranks learn how many steps the call takes from the root's first post
     * ({@link RootedSteps}), and whether it {@link #scatters} the largest count.
     *
     * @return true if the call went through the region, false if it is to be made point to point (also, with
     *         no step in the region, when a half cannot hold the counts and {@link #MIN_PIECE} bytes per rank).
     */
    boolean scatterv(
        final DirectBuffer send, final int sendOffset, final int[] counts, final int[] displacements,
        final MutableDirectBuffer recv, final int recvOffset, final int recvLength, final int root, final int tag)
    {
        if (vPiece == 0)
        {
            return false; // on every rank alike: the layout decides
        }
        scatterSteps.everyone = false;
        final int length = scatterSteps.rooted(scattervSteps, rank == root ? counts : null, displacements, recvLength);
        return run(scatterSteps.with(send, sendOffset, recv, recvOffset), tag, length, root, vPiece);
    }

    /**
     * Rank r's block d ({@code blockLength} bytes at {@code sendOffset + d * blockLength}) becomes rank d's
     * block r in {@code recv}; needs {@link #scatters} true.
     */
    void allToAll(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int blockLength, final int tag)
    {
        scatterSteps.everyone = true;
        scatterSteps.blocks(null, null, blockLength);
        scatterSteps.with(send, sendOffset, recv, recvOffset);
        inPlace(scatterSteps, blockLength, blockLength * size, tag);
        run(scatterSteps, tag, blockLength, 0, piece);
        region.callEnded();
    }

    /**
     * Rank r's {@code sendCounts[d]} bytes at {@code sendDisplacements[d]} become rank d's {@code
     * recvCounts[r]} bytes at {@code recvDisplacements[r]} ({@link AllToAllvSteps}): through the region up to
     * eight of allToAll's pieces per block.
     *
     * @return true if the call went through the region, false if it is to be made point to point (also, with
     *         no step in the region, when a half cannot hold the counts and {@link #MIN_PIECE} bytes per rank).
     */
    boolean allToAllv(
        final DirectBuffer send, final int sendOffset, final int[] sendCounts, final int[] sendDisplacements,
        final MutableDirectBuffer recv, final int recvOffset, final int[] recvCounts, final int[] recvDisplacements,
        final int tag)
    {
        if (vPiece == 0)
        {
            return false; // on every rank alike: the layout decides
        }
        final AllToAllvSteps steps = allToAllvSteps;
        steps.sendCounts = sendCounts;
        steps.sendDisplacements = sendDisplacements;
        steps.recvCounts = recvCounts;
        steps.recvDisplacements = recvDisplacements;
        steps.differs = -1;
        steps.longest = Collectives.largest(sendCounts);
        // every rank starts as if the longest block went on for ever: the first step tells the call's length
        return run(steps.with(send, sendOffset, recv, recvOffset), tag, Integer.MAX_VALUE, 0, vPiece);
    }

    /**
     * Runs one collective: its {@code length} bytes (per rank, per block) in steps of {@code chunk} bytes, at
     * least one; in each step this rank writes its part, posts the step, then reads what it needs. A call that
     * does not {@link Steps#fits} the region takes one step only, which tells the ranks so.
     *
     * @return true if the call went through the region, false if it is still to be made point to point.
     */
    private boolean run(final Steps steps, final int tag, final int length, final int root, final int chunk)
    {
        steps.tag = tag;
        steps.length = length;
        steps.root = root;
        start();
        try
        {
            boolean fits = steps.fits();
            long count = fits ? stepsOf(length, chunk, steps) : 1;
            // the same on every rank: the call's length and kind
            final boolean inline = steps.inlines() && length <= CollectiveSlotDescriptor.INLINE_BYTES;
            int done = 0;
            for (long i = 0; i < count; i++)
            {
                final int bytes = Math.min(chunk, steps.length - done);
                final int at = begin(tag, inline);
                steps.write(at, done, bytes);
                post(tag, steps.posted(), root);
                if (i == 0 && steps.agree())
                {
                    // the first post told the length
                    fits = steps.fits();
                    count = fits ? stepsOf(steps.length, chunk, steps) : 1;
                }
                if (fits)
                {
                    steps.read(at, done, bytes);
                }
                done += bytes;
                if (wholeInPlace)
                {
                    break; // every rank read the whole call in place in this step
                }
            }
            if (readInPlace)
            {
                readersDone(steps);
            }
            unfinished = false; // every rank took the same steps: a count the root finds wrong leaves them in line
            steps.finish();
            return fits;
        }
        catch (final InternalError error)
        {
            throw region.fault(error);
        }
        finally
        {
            region.exit();
        }
    }

    /**
     * For a bcast, allGather or allToAll of {@link #SINGLE_COPY_MIN} bytes or more per rank or block (the same on
     * every rank: MPI's lengths match, and a reader checks them before it reads; never inline, where a record's
     * place holds data): each step's source record says where this rank's data of the step is, and it stays in
     * place, in the shared buffer {@code send} lies in, if it is one of this rank's, or in this rank's off-heap
     * memory, if every rank reads its peers' processes and has found it can ({@link SharedRegion#sourcePosition}),
     * for large enough calls: the one copy is then
     * each reader's, out of it (as Open MPI's single-copy mechanisms, CMA or XPMEM, for any buffer).
     *
     * @param sendLength the bytes of {@code send} the call reads (0: none, as a bcast's reader).
     * @param tag        the call's tag (its kind), or {@link SharedRegion#ALWAYS_IN_PLACE}.
     */
    private void inPlace(final Steps steps, final int blockLength, final int sendLength, final int tag)
    {
        if (blockLength < SINGLE_COPY_MIN)
        {
            return; // the half's copy costs less than the step that tells a writer its readers are done
        }
        steps.sources = true;
        steps.sourcePosition = sendLength > 0 ? region.sourcePosition(steps.send, steps.sendOffset, sendLength, blockLength, tag) : -1;
        steps.sourceChunk = steps.sourcePosition < 0 ? 0 : region.sourceChunk(steps.send);
    }

    /**
     * Writes this step's source record from {@code steps} ({@link #inPlace}).
     *
     * @return true if this rank's data stays in place: nothing is to be copied into the half.
     */
    private boolean writeSource(final Steps steps)
    {
        final int record = CollectiveSlotDescriptor.inlineOffset(step + 1); // posted next, after the write
        // NOTE: plain stores, published by post's release store of the step (read after the readers' acquire)
        mine.putLong(record + CollectiveSlotDescriptor.SOURCE_CHUNK, steps.sourceChunk);
        mine.putLong(record + CollectiveSlotDescriptor.SOURCE_POSITION, steps.sourcePosition);
        if (steps.sourcePosition < 0)
        {
            return false;
        }
        readInPlace = true;
        ownInPlace = true;
        return true;
    }

    /**
     * Copies {@code bytes} from {@code from} (from the start of its data of the call) of rank {@code p}'s data
     * of this step into {@code recv} at {@code into}, straight out of {@code p}'s shared buffer if its source
     * record names one ({@link #inPlace}; {@code p} has posted the step).
     *
     * @return false if {@code p}'s data is in its half: nothing was copied.
     */
    private boolean copyInPlace(final int p, final long from, final MutableDirectBuffer recv, final int into, final int bytes)
    {
        final AtomicBuffer slot = slots[p];
        final int record = CollectiveSlotDescriptor.inlineOffset(step);
        final long position = slot.getLong(record + CollectiveSlotDescriptor.SOURCE_POSITION);
        if (position < 0)
        {
            if (wholeInPlace)
            {
                // read in place a moment ago (everyoneInPlace): the record was rewritten under this step
                throw fail("rank " + rank + " found rank " + p + "'s source record of step " + step + " changed during the step");
            }
            return false;
        }
        readInPlace = true;
        try
        {
            // untrusted: the peer's windows check the chunk and the bytes against the buffer's file
            region.copySource(p, slot.getLong(record + CollectiveSlotDescriptor.SOURCE_CHUNK), position + from, recv, into, bytes);
        }
        catch (final Sm4jException ex)
        {
            // a writer waits for this rank's post of the next step, every rank for its steps: end the job instead
            throw fail("rank " + rank + " could not read rank " + p + "'s data in place: " + ex.getMessage());
        }
        return true;
    }

    /**
     * Aborts the job with {@code reason} (a step this rank cannot finish would leave its peers waiting).
     *
     * @return the error to throw.
     */
    private Sm4jException fail(final String reason)
    {
        region.abort(reason);
        return new Sm4jException(reason);
    }

    /**
     * In the first step of an allGather or allToAll whose data of this rank's stays in place: waits for every
     * rank's post of it and sets {@link #wholeInPlace} if all their data stays in place too (so it is set on
     * every rank alike, or on none: a rank whose data is in its half says so in its record).
     *
     * @return the bytes of each rank's data (each block) to read in this step: the call's whole length if
     *         {@link #wholeInPlace}, else {@code bytes}.
     */
    private int everyoneInPlace(final Steps steps, final int done, final int bytes)
    {
        if (done > 0 || !ownInPlace)
        {
            return bytes;
        }
        final int record = CollectiveSlotDescriptor.inlineOffset(step);
        for (int p = 0; p < size; p++)
        {
            if (p != rank)
            {
                awaitCall(p, steps.tag, steps.length, steps.root);
                if (slots[p].getLong(record + CollectiveSlotDescriptor.SOURCE_POSITION) < 0)
                {
                    return bytes;
                }
            }
        }
        wholeInPlace = true;
        return steps.length;
    }

    /**
     * The step after an allGather's or allToAll's last, taken by every rank once some rank's data was read in
     * place ({@link #readInPlace}): each posts it after its reads, and a rank whose own data stayed in place
     * waits for every post, so that its buffer is read before the call returns (MPI's send buffer may be
     * changed then).
     */
    private void readersDone(final Steps steps)
    {
        begin(steps.tag, false);
        // NOTE: the release store of this post orders this rank's loads from the writers' buffers before it; a
        // writer's acquire of it (awaitCall) lets it return and its caller change the buffer
        post(steps.tag, steps.posted(), steps.root);
        if (ownInPlace)
        {
            for (int p = 0; p < size; p++)
            {
                if (p != rank)
                {
                    awaitCall(p, steps.tag, steps.length, steps.root);
                }
            }
        }
    }

    private static long stepsOf(final int length, final int chunk, final Steps steps)
    {
        return Math.max(1, ((long)length + chunk - 1) / chunk) + (steps.trailing() ? 1 : 0);
    }

    /**
     * What one collective writes into this rank's half and reads from the others' in a step: {@code bytes}
     * bytes from {@code done} of each rank's (each block's) data, at {@code at} in a slot. One per collective,
     * reused: its fields are the current call's (a collective allocates nothing).
     */
    private abstract static class Steps
    {
        /** How the ranks of a gatherv, scatterv or allToAllv agree on its length; null for other calls. */
        Agreement agreement;
        int tag;
        int length;
        int root;
        DirectBuffer send;
        int sendOffset;
        MutableDirectBuffer recv;
        int recvOffset;
        /**
         * bcast, allGather and allToAll of {@link #SINGLE_COPY_MIN} bytes or more per rank or block: the steps write
         * and read source records ({@link #inPlace}); cleared by {@link #with} for every call.
         */
        boolean sources;
        /**
         * With {@link #sources}: where this rank's data of the call stays ({@link SharedRegion#sourceChunk}: its
         * shared buffer, or its process) and the data's position there (its address in the process), or -1.
         */
        long sourceChunk;
        long sourcePosition = -1;

        /**
         * @return these steps, moving from {@code send} and into {@code recv} in the call to come.
         */
        Steps with(final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset)
        {
            this.send = send;
            this.sendOffset = sendOffset;
            this.recv = recv;
            this.recvOffset = recvOffset;
            this.sources = false; // until inPlace says otherwise
            this.sourcePosition = -1;
            return this;
        }

        abstract void write(int at, int done, int bytes);

        abstract void read(int at, int done, int bytes);

        /**
         * @return true if each step writes at most the call's length, from the start of its half: then a call of
         *         at most {@link CollectiveSlotDescriptor#INLINE_BYTES} writes its data in the slot's line.
         */
        boolean inlines()
        {
            return false;
        }

        /**
         * @return true if the call takes one more step after its last part, with {@code done} = length and
         *         {@code bytes} = 0.
         */
        boolean trailing()
        {
            return false;
        }

        /**
         * @return the length this rank posts in its call records: the call's, or its own (gatherv, scatterv,
         *         allToAllv).
         */
        final int posted()
        {
            return agreement == null ? length : agreement.posted();
        }

        /**
         * After the first step's post, before its reads: sets {@link #length} to the one every rank's step count
         * follows, if this rank did not know it (gatherv, scatterv and allToAllv: {@link Agreement}).
         *
         * @return true if it changed.
         */
        final boolean agree()
        {
            return agreement != null && agreement.agree();
        }

        /**
         * After the last step: reports counts of a gatherv, scatterv or allToAllv that differ between ranks.
         */
        final void finish()
        {
            if (agreement != null)
            {
                agreement.finish();
            }
        }

        /**
         * @return true if the call goes through the region (a gatherv, scatterv or allToAllv that does not
         *         takes one step there, in which the ranks learn so and read nothing, and is then made point
         *         to point).
         */
        final boolean fits()
        {
            return agreement == null || agreement.fits();
        }
    }

    /**
     * How the ranks of a call whose length not every rank knows before it agree on it in its first step: each
     * posts a length of its own, and after the post each learns the call's (the most steps anyone needs).
     */
    private interface Agreement
    {
        /**
         * @return the length this rank posts in its call records.
         */
        int posted();

        /**
         * After the first step's post, before its reads: sets the steps' length to the call's.
         *
         * @return true if it changed.
         */
        boolean agree();

        /**
         * @return true if the call, as long as the steps' length now says, goes through the region.
         */
        boolean fits();

        /**
         * After the last step: reports counts that differ between ranks, once every rank took its steps.
         */
        void finish();
    }

    /**
     * The part of gatherv and scatterv that their counts, which only the root has, decide: the root posts the
     * largest count as the call's length and every other rank its own; an other rank starts as if its block
     * went on for ever (its first step a whole chunk, clipped to its block by the steps), then takes the
     * root's length from its first post, so every rank takes as many steps, or, if that length does not
     * {@link #fits fit} the region, stops after the first with every other rank (which then carried nothing
     * read: the call is made point to point). The root compares each rank's posted length with its count, and a
     * scatterv's receiver the count in the root's header with its own ({@link ScatterSteps}); either fails
     * only after the last step, so that no rank is left waiting for a step nobody posts.
     */
    private final class RootedSteps implements Agreement
    {
        /** The call's steps: their counts (the root's; null elsewhere) and this rank's own length. */
        private final BlockSteps steps;
        /** Whether a length fits the region whole: above it, ranks move the rest point to point. */
        private final LongPredicate fits;
        /**
         * At the root, a rank whose posted length is not its count, or -1, and what it posted; at a scatterv's
         * receiver, the root if its count for this rank is not this rank's length, and that count.
         */
        private int differs = -1;
        private int theirs;

        RootedSteps(final BlockSteps steps, final LongPredicate fits)
        {
            this.steps = steps;
            this.fits = fits;
        }

        @Override
        public boolean fits()
        {
            return fits.test(steps.length);
        }

        /**
         * @return these steps, for a call whose {@link BlockSteps} are set.
         */
        RootedSteps start()
        {
            this.differs = -1;
            return this;
        }

        /**
         * @return the length to start the call with: the largest count at the root, unknown (the longest) elsewhere.
         */
        int length()
        {
            return steps.counts == null ? Integer.MAX_VALUE : Collectives.largest(steps.counts);
        }

        @Override
        public int posted()
        {
            return steps.counts == null ? steps.own : steps.length;
        }

        @Override
        public boolean agree()
        {
            final int[] counts = steps.counts;
            if (counts == null)
            {
                awaitCall(steps.root, steps.tag, 0, steps.root);
                steps.length = postedLength(steps.root);
                return true;
            }
            if (!fits())
            {
                return false; // the region does not make the call: point to point, each receive checks its own
            }
            // the root checks the posted lengths of a call the region makes
            for (int p = 0; p < size && differs < 0; p++)
            {
                if (p != rank)
                {
                    awaitCall(p, steps.tag, 0, steps.root);
                    theirs = postedLength(p);
                    differs = theirs == counts[p] ? -1 : p;
                }
            }
            return false;
        }

        /**
         * At a scatterv's receiver: the root's count for this rank, from the header of its first step.
         */
        void received(final int count)
        {
            if (count != steps.own)
            {
                differs = steps.root;
                theirs = count;
            }
        }

        @Override
        public void finish()
        {
            if (differs < 0)
            {
                return;
            }
            throw steps.counts == null ? Collectives.mismatch(differs, steps.tag, theirs, steps.own) :
                Collectives.countDiffers(differs, steps.tag, theirs, steps.counts[differs]);
        }
    }

    /** Nothing written; every rank's post awaited. */
    private final class BarrierSteps extends Steps
    {
        @Override
        void write(final int at, final int done, final int bytes)
        {
        }

        @Override
        void read(final int at, final int done, final int bytes)
        {
            for (int p = 0; p < size; p++)
            {
                awaitCall(p, tag, 0, 0);
            }
        }
    }

    /** The root writes a chunk; the others copy it out (send and recv are the one buffer). */
    private final class BcastSteps extends Steps
    {
        @Override
        boolean inlines()
        {
            return true;
        }

        @Override
        void write(final int at, final int done, final int bytes)
        {
            if (rank == root && !(sources && writeSource(this)))
            {
                NativeCopy.putBytes(mine, at, send, sendOffset + done, bytes);
            }
        }

        /**
         * A root whose data stays in place is read whole in the first step, which is then the last on every rank
         * ({@link #wholeInPlace}: the root knows it of itself, the readers from its record).
         */
        @Override
        void read(final int at, final int done, final int bytes)
        {
            if (rank == root)
            {
                wholeInPlace = ownInPlace;
                return;
            }
            awaitCall(root, tag, length, root);
            if (sources && copyInPlace(root, done, recv, recvOffset + done, length - done))
            {
                wholeInPlace = true;
                return;
            }
            Buffers.putBytes(recv, recvOffset + done, slots[root], at, bytes);
        }
    }

    /** Every rank writes its vector (or a step's part of it), for the readers to combine with {@link #op}. */
    private abstract class VectorSteps extends Steps
    {
        ByteOperator op;

        @Override
        void write(final int at, final int done, final int bytes)
        {
            NativeCopy.putBytes(mine, at, send, sendOffset + done, bytes);
        }
    }

    /** Every rank writes its vector (one step); the readers combine all n. */
    private final class ReduceSteps extends VectorSteps
    {
        boolean reads;

        @Override
        boolean inlines()
        {
            return true;
        }

        @Override
        void read(final int at, final int done, final int bytes)
        {
            if (reads)
            {
                for (int p = 0; p < size; p++)
                {
                    awaitCall(p, tag, length, root);
                }
                combine(recv, recvOffset, length, op, at);
            }
        }
    }

    /**
     * A reduceScatter of a predefined operator: in each step every rank writes the step's piece of each of its
     * n blocks ({@code length} bytes each; block p's piece at {@code p * slice} in its half), and rank r
     * combines piece r of every rank, in the binomial tree's order (so the bits are those of a reduce, then
     * a scatter), straight into {@code recv}. Each rank combines only its own block, in one pass.
     */
    private final class ReduceScatterSteps extends VectorSteps
    {
        @Override
        void write(final int at, final int done, final int bytes)
        {
            for (int p = 0; p < size; p++)
            {
                NativeCopy.putBytes(mine, at + p * slice, send, sendOffset + p * length + done, bytes);
            }
        }

        @Override
        void read(final int at, final int done, final int bytes)
        {
            for (int p = 0; p < size; p++)
            {
                awaitCall(p, tag, length, root);
            }
            combine(recv, recvOffset + done, bytes, op, at + rank * slice);
        }
    }

    /**
     * A long vector of a predefined operator (reduce-scatter, then gather, in the region): in each step every
     * rank writes the step's part of its vector (n slices), and rank r combines slice r of the n parts in the
     * binomial tree's order (element by element the same order as {@link ReduceSteps}, so the same bits)
     * into {@link #combined}; it writes that slice beside its next part, and the readers copy the n combined
     * slices of the part before into {@code recv}. So each rank combines a 1/n of the data instead of all of
     * it, and one step more than there are parts carries the last slices.
     */
    private final class SlicedReduceSteps extends VectorSteps
    {
        boolean reads;
        int grain;
        /** Bytes of each vector a full step carries: n slices. */
        int partBytes;
        /** This rank's slice of the part before, combined; grown as needed, never shrunk. */
        UnsafeBuffer combined = new UnsafeBuffer(new byte[64]);
        int previousDone;
        int previousBytes;

        @Override
        void write(final int at, final int done, final int bytes)
        {
            super.write(at, done, bytes);
            if (previousBytes > 0)
            {
                final int from = sliceStart(rank, previousBytes);
                NativeCopy.putBytes(mine, at + partBytes, combined, 0, sliceStart(rank + 1, previousBytes) - from);
            }
        }

        @Override
        void read(final int at, final int done, final int bytes)
        {
            for (int p = 0; p < size; p++)
            {
                awaitCall(p, tag, length, root);
            }
            if (reads && previousBytes > 0)
            {
                for (int p = 0; p < size; p++)
                {
                    final int from = sliceStart(p, previousBytes);
                    recv.putBytes(recvOffset + previousDone + from, slots[p], at + partBytes,
                        sliceStart(p + 1, previousBytes) - from);
                }
            }
            final int from = sliceStart(rank, bytes);
            final int to = sliceStart(rank + 1, bytes);
            if (to > from)
            {
                combine(combined, 0, to - from, op, at + from);
            }
            previousDone = done;
            previousBytes = bytes;
        }

        @Override
        boolean trailing()
        {
            return true;
        }

        /**
         * @return where rank {@code p}'s slice of a part of {@code bytes} starts (rank n's: the part's end):
         *         whole grains, as evenly as they go, the last slices shorter or empty.
         */
        private int sliceStart(final int p, final int bytes)
        {
            final int grains = bytes / grain;
            final int each = (grains + size - 1) / size;
            return Math.min(p * each, grains) * grain;
        }
    }

    /**
     * Every rank writes its vector (one step); rank r combines ranks 0..r's (0..r-1's) in the order of the
     * point-to-point recursive doubling ({@link Collectives}' scan), so the bits are the same on either path:
     * the prefix starts as r's vector (or empty), and for each bit k set in r, from the lowest, the aligned
     * block of 2^k ranks just below r's block of 2^k is combined in as the left operand; a block is its lower
     * half combined with its upper half, down to single vectors.
     */
    private final class ScanSteps extends VectorSteps
    {
        boolean exclusive;

        @Override
        void read(final int at, final int done, final int bytes)
        {
            final int last = exclusive ? rank - 1 : rank;
            for (int p = 0; p <= last; p++)
            {
                awaitCall(p, tag, length, root);
            }
            final int top = 32 - Integer.numberOfLeadingZeros(Math.max(1, rank));
            ensureLevels(top + 2, length);
            int prefix = top * length; // the prefix so far, and the block being combined in: swapped
            int block = (top + 1) * length;
            boolean have = !exclusive;
            if (have)
            {
                Buffers.putBytes(levels, prefix, slots[rank], at, length);
            }
            for (int k = 0; 1 << k <= rank; k++)
            {
                if ((rank >> k & 1) == 0)
                {
                    continue;
                }
                blockOf((rank >> k << k) - (1 << k), k, block, length, op, at);
                if (have)
                {
                    op.apply(levels, block, levels, prefix, length);
                }
                final int swap = prefix;
                prefix = block;
                block = swap;
                have = true;
            }
            if (have)
            {
                recv.putBytes(recvOffset, levels, prefix, length);
            }
        }
    }

    /**
     * The block of 2^{@code level} ranks from {@code first} combined into {@link #levels} at {@code target}:
     * its lower half, then its upper half as the right operand (levels below {@code level} hold the halves).
     */
    private void blockOf(
        final int first, final int level, final int target, final int length, final ByteOperator op, final int at)
    {
        if (level == 0)
        {
            Buffers.putBytes(levels, target, slots[first], at, length);
            return;
        }
        blockOf(first, level - 1, target, length, op, at);
        final int upper = (level - 1) * length;
        blockOf(first + (1 << (level - 1)), level - 1, upper, length, op, at);
        op.apply(levels, target, levels, upper, length);
    }

    /**
     * Steps that move one block per rank: of {@code own} bytes here, and ({@code counts} not null, a "v" call)
     * rank p's of {@code counts[p]} bytes at {@code displacements[p]}.
     */
    private abstract static class BlockSteps extends Steps
    {
        int[] counts;
        int[] displacements;
        /** This rank's block's length. */
        int own;

        /**
         * For a call whose every rank knows the length.
         */
        void blocks(final int[] counts, final int[] displacements, final int own)
        {
            this.counts = counts;
            this.displacements = displacements;
            this.own = own;
            this.agreement = null;
        }

        /**
         * For a gatherv or scatterv, whose {@code counts} only the root has (null elsewhere).
         *
         * @return the length to start the call with ({@link RootedSteps#length}).
         */
        int rooted(final RootedSteps rooted, final int[] counts, final int[] displacements, final int own)
        {
            blocks(counts, displacements, own);
            agreement = rooted.start();
            return rooted.length();
        }
    }

    /**
     * Every rank writes a chunk of its block (or, allGather, a source record: {@link #inPlace}); the readers copy
     * all n, their own block from where it is. Blocks of {@code length} bytes each, in
     * rank order; or ({@code counts} not null, the "v" form) rank r's of {@code counts[r]} bytes at
     * {@code displacements[r]}, {@code length} being the largest, so a step may carry less of a block, or none.
     */
    private final class GatherSteps extends BlockSteps
    {
        boolean reads;

        @Override
        void write(final int at, final int done, final int bytes)
        {
            if (sources && writeSource(this))
            {
                return;
            }
            final int chunk = clip(own, done, bytes);
            if (chunk > 0) // a block already sent whole: its offset may lie past the end of the buffer
            {
                NativeCopy.putBytes(mine, at, send, sendOffset + done, chunk);
            }
        }

        @Override
        void read(final int at, final int done, final int stepBytes)
        {
            if (reads)
            {
                final int bytes = sources ? everyoneInPlace(this, done, stepBytes) : stepBytes;
                for (int p = 0; p < size; p++)
                {
                    awaitCall(p, tag, length, root);
                    final int chunk = chunkOf(p, done, bytes);
                    if (chunk > 0)
                    {
                        final int into = recvOffset + (counts == null ? p * length : displacements[p]) + done;
                        if (p == rank)
                        {
                            recv.putBytes(into, send, sendOffset + done, chunk); // its own block: from where it is
                        }
                        else if (!sources || !copyInPlace(p, done, recv, into, chunk))
                        {
                            recv.putBytes(into, slots[p], at, chunk);
                        }
                    }
                }
            }
        }

        /**
         * @return the bytes of rank {@code p}'s block in the step from {@code done} that carries up to {@code bytes}.
         */
        private int chunkOf(final int p, final int done, final int bytes)
        {
            return counts == null ? bytes : clip(counts[p], done, bytes);
        }
    }

    /**
     * Writes a "v" half (scatterv's root, allToAllv): in the first step a header of the n {@code counts}, which
     * each receiver checks against its own, then in every step the next piece of each block, of at most
     * {@code bytes} ({@link #vPiece}) from {@code done}.
     */
    private void writePieces(
        final int at, final int done, final int bytes, final DirectBuffer send, final int sendOffset,
        final int[] counts, final int[] displacements)
    {
        for (int p = 0; p < size; p++)
        {
            if (done == 0)
            {
                mine.putInt(at + p * Integer.BYTES, counts[p]);
            }
            final int chunk = clip(counts[p], done, bytes);
            if (chunk > 0) // a block already sent whole: its offset may lie past the end of the buffer
            {
                NativeCopy.putBytes(mine, vPieceAt(at, p), send, sendOffset + displacements[p] + done, chunk);
            }
        }
    }

    /**
     * @return where rank {@code p}'s piece is in a "v" half at {@code at}: after the header of counts.
     */
    private int vPieceAt(final int at, final int p)
    {
        return at + countsHeader + p * vPiece;
    }

    /**
     * @return the count for this rank in the header of {@code p}'s "v" half at {@code at} ({@link #awaitCall}
     *         {@code p} in this step first).
     */
    private int headerCount(final int p, final int at)
    {
        return slots[p].getInt(at + rank * Integer.BYTES);
    }

    /**
     * @return the bytes of a block of {@code length} in the step from {@code done} that carries up to {@code bytes}.
     */
    private static int clip(final int length, final int done, final int bytes)
    {
        return Math.max(0, Math.min(bytes, length - done));
    }

    /**
     * Scatter (the root writes a piece per rank) and allToAll ({@code everyone} writes a piece per rank, or a
     * source record: {@link #inPlace}): each rank copies its own piece from every writer (allToAll: its own
     * block from where it is).
     */
    private final class ScatterSteps extends BlockSteps
    {
        boolean everyone;

        @Override
        void write(final int at, final int done, final int bytes)
        {
            if (!everyone && (rank != root || !fits()))
            {
                return;
            }
            if (counts != null)
            {
                writePieces(at, done, bytes, send, sendOffset, counts, displacements); // scatterv
                return;
            }
            if (sources && writeSource(this))
            {
                return;
            }
            for (int p = 0; p < size && bytes > 0; p++)
            {
                NativeCopy.putBytes(mine, pieceAt(at, p), send, sendOffset + p * length + done, bytes);
            }
        }

        @Override
        void read(final int at, final int done, final int bytes)
        {
            if (!everyone)
            {
                if (agreement != null && done == 0)
                {
                    scattervSteps.received(headerCount(root, at)); // the root's post was awaited by the agreement
                }
                copyPiece(root, recvOffset + done, at, clip(own, done, bytes));
                return;
            }
            final int pieceBytes = sources ? everyoneInPlace(this, done, bytes) : bytes;
            for (int p = 0; p < size; p++)
            {
                final int recvAt = recvOffset + p * length + done;
                if (p == rank)
                {
                    recv.putBytes(recvAt, send, sendOffset + rank * length + done, pieceBytes); // its own piece: from where it is
                    continue;
                }
                awaitCall(p, tag, length, root);
                if (!sources || !copyInPlace(p, (long)rank * length + done, recv, recvAt, pieceBytes))
                {
                    recv.putBytes(recvAt, slots[p], pieceAt(at, rank), pieceBytes);
                }
            }
        }

        /**
         * Copies this rank's piece of {@code p}'s half, once {@code p} has posted it, into {@code recv}.
         */
        private void copyPiece(final int p, final int recvAt, final int at, final int bytes)
        {
            awaitCall(p, tag, length, root);
            if (bytes > 0)
            {
                recv.putBytes(recvAt, slots[p], pieceAt(at, rank), bytes);
            }
        }

        /**
         * @return where rank {@code p}'s piece is in a half at {@code at}: a scatterv's after the header of
         *         counts, in pieces of {@link #vPiece} bytes (its steps' chunk), others' in pieces of {@link #piece}.
         */
        private int pieceAt(final int at, final int p)
        {
            return agreement == null ? at + p * piece : vPieceAt(at, p);
        }
    }

    /**
     * allToAllv: in each step every rank writes its n send counts (a header, so that each receiver can check
     * the count sent to it) and a piece of each of its n blocks; each rank copies its piece from every writer.
     * No rank knows every pair's count, so the ranks agree in the first step: each posts its longest block,
     * and the call is as long as the longest posted ({@link Agreement}); over eight of allToAll's pieces it is
     * made point to point after that step. A count that differs from the receiver's is reported by the receiver after the
     * last step.
     */
    private final class AllToAllvSteps extends Steps
    {
        int[] sendCounts;
        int[] sendDisplacements;
        int[] recvCounts;
        int[] recvDisplacements;
        /** A rank whose count for this rank differs from this rank's, or -1; and its count. */
        int differs = -1;
        private int theirs;
        /** This rank's longest block, which it posts. */
        int longest;

        AllToAllvSteps()
        {
            agreement = new LongestBlock(); // every allToAllv agrees on its length
        }

        @Override
        void write(final int at, final int done, final int bytes)
        {
            writePieces(at, done, bytes, send, sendOffset, sendCounts, sendDisplacements);
        }

        @Override
        void read(final int at, final int done, final int bytes)
        {
            for (int p = 0; p < size; p++)
            {
                awaitCall(p, tag, length, root);
                if (done == 0 && differs < 0)
                {
                    theirs = headerCount(p, at);
                    differs = theirs == recvCounts[p] ? -1 : p;
                }
                final int chunk = clip(recvCounts[p], done, bytes);
                if (chunk > 0)
                {
                    recv.putBytes(recvOffset + recvDisplacements[p] + done, slots[p], vPieceAt(at, rank), chunk);
                }
            }
        }

        /** Each rank posts its longest block; the call is as long as the longest posted. */
        private final class LongestBlock implements Agreement
        {
            @Override
            public int posted()
            {
                return longest;
            }

            @Override
            public boolean agree()
            {
                int longest = 0;
                for (int p = 0; p < size; p++)
                {
                    awaitCall(p, tag, 0, root);
                    longest = Math.max(longest, postedLength(p));
                }
                length = longest;
                return true;
            }

            @Override
            public boolean fits()
            {
                // half allToAll's limit: at 4 ranks on 2 cores 64 KiB blocks (17 steps in lockstep) took 1.7x point to
                // point's time, 32 KiB (9) and 16 KiB (5) 0.8-0.9x and 0.6x (docs/benchmarks.md, 2026-11-27)
                return length <= 8L * piece;
            }

            @Override
            public void finish()
            {
                if (differs >= 0)
                {
                    throw Collectives.mismatch(differs, tag, theirs, recvCounts[differs]);
                }
            }
        }
    }

    /**
     * Refuses a call after one that failed midway ({@link #unfinished}), then keeps the mapping alive until
     * the call's {@code finally} exits it.
     */
    private void start()
    {
        if (unfinished)
        {
            throw new Sm4jException("this communicator's collectives cannot be used: an earlier collective failed " +
                "midway, and this rank's steps no longer line up with the other ranks'");
        }
        region.enter();
        unfinished = true;
        readInPlace = false;
        ownInPlace = false;
        wholeInPlace = false;
    }

    /**
     * Starts the next step once every rank has posted the one before (so none is more than one step ahead),
     * and checks that they all posted it for the same call as this rank: so a rank that reads nothing in a
     * step (a bcast's root) still finds a disagreement, one step late; a rank that this rank's own reads of
     * the step before found posted, with the same call, is not looked at again ({@link #checked}). The step is
     * this rank's only once
     * {@link #post}ed: a wait that fails leaves it to be posted by nobody.
     *
     * @return the offset of this step's half in a slot.
     */
    private int begin(final int tag, final boolean inline)
    {
        final long previous = step;
        for (int p = 0; p < size; p++)
        {
            // a rank whose post of the step before this rank acquired, and whose record of it this rank checked, in
            // its own reads of that step (awaitCall) is not looked at again, nor any rank before the first step
            // (checked starts at 0): a load of its line here, which it is about to rewrite with its next post, held
            // 2 ranks' 8-byte allReduce at 1.13-1.29x Open MPI's time, 0.96-1.11x without (docs/benchmarks.md,
            // eighteenth session)
            if (p != rank && checked[p] < previous)
            {
                // acquire: the rank's reads of step - 2's halves came before its post of step - 1
                if (slots[p].getLongAcquire(CollectiveSlotDescriptor.STEP_OFFSET) < previous)
                {
                    region.awaitStep(p, previous, Collectives.name(tag));
                }
                // the previous step's records are not rewritten before this rank posts this step
                final int call = CollectiveSlotDescriptor.callOffset(previous); // this rank's record of it
                checkCall(p, previous, mine.getInt(call + CollectiveSlotDescriptor.CALL_COLLECTIVE),
                    mine.getInt(call + CollectiveSlotDescriptor.CALL_LENGTH), mine.getInt(call + CollectiveSlotDescriptor.CALL_ROOT));
            }
        }
        return inline ? CollectiveSlotDescriptor.inlineOffset(previous + 1) :
            CollectiveSlotDescriptor.halfOffset(cacheline, bufferSize, previous + 1);
    }

    /**
     * Describes the call in this step's record, posts the step and wakes the ranks that may sleep on it.
     */
    private void post(final int tag, final int length, final int root)
    {
        step++;
        final int call = CollectiveSlotDescriptor.callOffset(step);
        mine.putInt(call + CollectiveSlotDescriptor.CALL_COLLECTIVE, tag);
        mine.putInt(call + CollectiveSlotDescriptor.CALL_LENGTH, length);
        mine.putInt(call + CollectiveSlotDescriptor.CALL_ROOT, root);
        // release: the half and the call record before the step that publishes them
        mine.putLongRelease(CollectiveSlotDescriptor.STEP_OFFSET, step);
        for (int p = 0; p < size; p++)
        {
            if (p != rank)
            {
                region.wake(p);
            }
        }
    }

    /**
     * Waits for {@code p}'s post of this step and checks that it is part of the same call.
     */
    private void awaitCall(final int p, final int tag, final int length, final int root)
    {
        // acquire: the half and the call record written before the post
        if (slots[p].getLongAcquire(CollectiveSlotDescriptor.STEP_OFFSET) < step)
        {
            region.awaitStep(p, step, Collectives.name(tag));
        }
        checkCall(p, step, tag, length, root);
        checked[p] = step;
    }

    /**
     * @throws Sm4jException if {@code p}'s record of step {@code of} describes another call than this one.
     */
    private void checkCall(final int p, final long of, final int tag, final int length, final int root)
    {
        final AtomicBuffer slot = slots[p];
        final int call = CollectiveSlotDescriptor.callOffset(of);
        final int theirTag = slot.getInt(call + CollectiveSlotDescriptor.CALL_COLLECTIVE);
        final int theirLength = slot.getInt(call + CollectiveSlotDescriptor.CALL_LENGTH);
        final int theirRoot = slot.getInt(call + CollectiveSlotDescriptor.CALL_ROOT);
        if (theirTag != tag)
        {
            throw Collectives.crossed(p, theirTag, tag);
        }
        if (theirRoot != root)
        {
            throw tag == Collectives.ALL_GATHERV_TAG ? Collectives.countsDiffer(p, tag) :
                Collectives.rootsDiffer(p, tag, theirRoot, root);
        }
        if (theirLength != length && !postsOwnLength(tag))
        {
            throw Collectives.mismatch(p, tag, theirLength > length ? -1 : theirLength, length);
        }
    }

    /**
     * @return true for the collectives whose ranks post lengths of their own ({@link Agreement}: gatherv, scatterv,
     *         allToAllv), compared with the counts instead of with each other. By tag, not by the current call's
     *         steps: {@link #begin} checks the records of the step before, which may be the previous call's.
     */
    private static boolean postsOwnLength(final int tag)
    {
        return tag == Collectives.GATHERV_TAG || tag == Collectives.SCATTERV_TAG || tag == Collectives.ALL_TO_ALLV_TAG;
    }

    /**
     * @return the length {@code p} posted in this step's call record ({@link #awaitCall} it first).
     */
    private int postedLength(final int p)
    {
        return slots[p].getInt(CollectiveSlotDescriptor.callOffset(step) + CollectiveSlotDescriptor.CALL_LENGTH);
    }

    /**
     * Combines the n posted vectors of this step into {@code recv} in the binomial tree's order: rank r's
     * subtree of level l is r's vector, combined with the subtree of level k of rank r + 2^k for k = 0..l-1
     * (each the right operand), as {@link Collectives#reduce} combines by messages.
     */
    private void combine(
        final MutableDirectBuffer recv, final int recvOffset, final int length, final ByteOperator op, final int at)
    {
        final int top = 32 - Integer.numberOfLeadingZeros(size - 1);
        ensureLevels(top, length);
        subtree(0, top, recv, recvOffset, length, op, at);
    }

    /**
     * Grows {@link #levels} to hold {@code vectors} vectors of {@code length} bytes.
     */
    private void ensureLevels(final int vectors, final int length)
    {
        final long need = (long)vectors * Math.max(length, 8);
        if (levels.capacity() < need)
        {
            levels = new UnsafeBuffer(new byte[Math.toIntExact(need)]);
        }
    }

    /**
     * Rank {@code r}'s subtree of level {@code level} into {@code target}; lower levels use {@link #levels},
     * level k at {@code k * length}. Every vector is first copied out of its slot in one bulk copy: an
     * operator that read another rank's slot element by element waited on each of its cachelines in turn
     * (a 4 KiB float allReduce took 1.5 times as long as point to point, which combines local copies).
     */
    private void subtree(
        final int r, final int level, final MutableDirectBuffer target, final int targetOffset, final int length,
        final ByteOperator op, final int at)
    {
        Buffers.putBytes(target, targetOffset, slots[r], at, length);
        for (int k = 0; k < level && r + (1 << k) < size; k++)
        {
            final int childOffset = k * length;
            subtree(r + (1 << k), k, levels, childOffset, length, op, at);
            op.apply(target, targetOffset, levels, childOffset, length);
        }
    }
}
