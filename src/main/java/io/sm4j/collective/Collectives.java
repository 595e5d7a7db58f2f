package io.sm4j.collective;

import io.sm4j.segment.Sm4jException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Objects;


/**
 * The collectives of one communicator, over its {@link Channel}. Every rank must call the same collectives
 * in the same order with matching roots and counts, as MPI requires; a count that differs is reported by
 * the rank that receives it ({@link Channel#recv}), one that reaches no rank of a different collective
 * (each collective has a tag of its own) is not mixed up with it.
 * <p>
 * Algorithms: through the communicator's region of the segment when it has one and the length suits it
 * ({@link SharedCollectives}: barrier always, bcast up to four halves of the region's buffer (eight of 128
 * KiB or more), gather, allGather, allGatherv and gatherv up to eight per rank, scatter, scatterv and
 * allToAll up to sixteen pieces per rank, allToAllv up to eight (gatherv, scatterv and allToAllv learn their longest block in the
 * region's first step), scan, exScan and a user's reduction in one step (128 KiB at 2 and 4 ranks with the
 * default buffer), and reduce and allReduce of a predefined {@link Op} at any length, sliced above 16 KiB at
 * 2 and 4 ranks),
 * else point to point:
 * <ul>
 * <li>{@link #bcast}: binomial tree from the root, ceil(log2 n) rounds;</li>
 * <li>{@link #reduce}: binomial tree to rank 0, combining a rank's partial result with the next higher
 *     ranks' ({@code left} = lower ranks), then rank 0 sends to the root: the combining order is fixed by n
 *     alone, so results are bit-identical on every run, and a non-commutative operator is applied in rank
 *     order;</li>
 * <li>{@link #allReduce}: with a predefined {@link Op}, recursive doubling ({@code allReduceDoubling}); with a
 *     user's {@link ByteOperator}, which may not commute, {@link #reduce} to rank 0, then {@link #bcast}; either
 *     way every rank gets the same bits;</li>
 * <li>{@link #gather}, {@link #scatter}, {@link #gatherv}, {@link #scatterv}: linear, the root receiving
 *     (sending) rank by rank;</li>
 * <li>{@link #allGather}, {@link #allGatherv}: a ring of n - 1 steps;</li>
 * <li>{@link #allToAll}, {@link #allToAllv}: n - 1 pairwise exchanges, rank r sending to r + s while
 *     receiving from r - s.</li>
 * </ul>
 * Not thread-safe: one thread calls a communicator's collectives at a time.
 */
public final class Collectives
{
    /**
     * Tags of the collectives, all below {@code ANY_TAG} (-1): no user receive matches them. Each collective
     * has its own, so ranks that call different collectives wait for each other instead of mixing them up;
     * the steps of a composite one (allReduce's reduce and bcast, reduceScatter's reduce and scatter) share its tag,
     * since between any two ranks they send in opposite directions.
     */
    static final int BCAST_TAG = -2;
    static final int REDUCE_TAG = -3;
    static final int ROOT_TAG = -4;
    static final int GATHER_TAG = -5;
    static final int SCATTER_TAG = -6;
    static final int ALL_TO_ALL_TAG = -7;
    static final int ALL_REDUCE_TAG = -8;
    static final int ALL_GATHER_TAG = -9;
    static final int SCAN_TAG = -10;
    static final int EX_SCAN_TAG = -11;
    static final int REDUCE_SCATTER_TAG = -12;
    static final int GATHERV_TAG = -13;
    static final int SCATTERV_TAG = -14;
    static final int ALL_GATHERV_TAG = -15;
    static final int ALL_TO_ALLV_TAG = -16;
    static final int BARRIER_TAG = -17;

    /** What a typed reduction computes. */
    private enum Kind
    {
        REDUCE, ALL_REDUCE, SCAN, EX_SCAN
    }

    private static final UnsafeBuffer EMPTY = new UnsafeBuffer(new byte[0]);

    private final Channel channel;
    /** The communicator's region of the segment, or null: every collective goes point to point. */
    private final SharedCollectives shared;
    private final int rank;
    private final int size;
    /** Partial results and received contributions of a reduction; grown as needed, never shrunk. */
    private UnsafeBuffer scratch = new UnsafeBuffer(new byte[64]);
    /** A typed reduction's operands and result as bytes; grown as needed, never shrunk. */
    private UnsafeBuffer packed = new UnsafeBuffer(new byte[64]);
    private UnsafeBuffer result = new UnsafeBuffer(new byte[64]);
    /** Rank 0's whole reduced vector of a reduceScatter; grown as needed, never shrunk. */
    private UnsafeBuffer whole = new UnsafeBuffer(new byte[64]);
    private final ByteOperator[] operators = new ByteOperator[Op.values().length * ElementType.values().length];

    /**
     * @param region the communicator's region of the segment, or null if it has none.
     */
    public Collectives(final Channel channel, final SharedRegion region)
    {
        this.channel = channel;
        this.rank = channel.rank();
        this.size = channel.size();
        this.shared = region == null ? null : new SharedCollectives(region, rank, size);
    }

    /**
     * Returns once every rank has entered (MPI_Barrier): a dissemination barrier of empty messages,
     * ceil(log2 n) rounds, for communicators whose transport-level barrier has no context of its own.
     */
    public void barrier()
    {
        if (shared != null)
        {
            shared.barrier(BARRIER_TAG);
            return;
        }
        for (int distance = 1; distance < size; distance <<= 1)
        {
            final int received = channel.sendRecv((rank + distance) % size, BARRIER_TAG, EMPTY, 0, 0,
                (rank - distance + size) % size, EMPTY, 0, 0);
            if (received != 0)
            {
                throw mismatch((rank - distance + size) % size, BARRIER_TAG, received, 0);
            }
        }
    }

    /**
     * Copies the root's {@code length} bytes at {@code offset} into every rank's buffer at {@code offset}.
     */
    public void bcast(final MutableDirectBuffer buffer, final int offset, final int length, final int root)
    {
        bcast(buffer, offset, length, root, BCAST_TAG);
    }

    private void bcast(final MutableDirectBuffer buffer, final int offset, final int length, final int root, final int tag)
    {
        checkRoot(root);
        checkRange("buffer", buffer, offset, length);
        if (shared != null && shared.bcasts(length))
        {
            shared.bcast(buffer, offset, length, root, tag);
            return;
        }
        final int relative = (rank - root + size) % size;
        int mask = 1;
        while (mask < size)
        {
            if ((relative & mask) != 0)
            {
                receive((relative - mask + root) % size, tag, buffer, offset, length);
                break;
            }
            mask <<= 1;
        }
        for (mask >>= 1; mask > 0; mask >>= 1)
        {
            if (relative + mask < size)
            {
                channel.send((relative + mask + root) % size, tag, buffer, offset, length);
            }
        }
    }

    /**
     * Combines every rank's {@code length} bytes at {@code sendOffset} with {@code op}, in rank order, into
     * the root's {@code recv} at {@code recvOffset} ({@code recv} is not used on other ranks and may be null
     * there). {@code send} and {@code recv} may be the same buffer.
     */
    public void reduce(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int length, final ByteOperator op, final int root)
    {
        reduce(send, sendOffset, recv, recvOffset, length, op, root, REDUCE_TAG);
    }

    private void reduce(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int length, final ByteOperator op, final int root, final int tag)
    {
        checkRoot(root);
        checkRange("send", send, sendOffset, length);
        if (rank == root)
        {
            checkRange("recv", recv, recvOffset, length);
        }
        Objects.requireNonNull(op, "op is null");
        if (shared != null && shared.reduces(length, op))
        {
            shared.reduce(send, sendOffset, recv, recvOffset, length, op, root, false, tag);
            return;
        }
        final UnsafeBuffer partial = scratch(2L * length);
        partial.putBytes(0, send, sendOffset, length);
        for (int mask = 1; mask < size; mask <<= 1)
        {
            if ((rank & mask) != 0)
            {
                channel.send(rank - mask, tag, partial, 0, length);
                break;
            }
            if (rank + mask < size)
            {
                receive(rank + mask, tag, partial, length, length);
                op.apply(partial, 0, partial, length, length);
            }
        }
        if (rank == 0 && root == 0)
        {
            recv.putBytes(recvOffset, partial, 0, length);
        }
        else if (rank == 0)
        {
            channel.send(root, ROOT_TAG, partial, 0, length);
        }
        else if (rank == root)
        {
            receive(0, ROOT_TAG, recv, recvOffset, length);
        }
    }

    /**
     * {@link #reduce} whose result every rank receives in {@code recv}: the same bits on every rank.
     */
    public void allReduce(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int length, final ByteOperator op)
    {
        checkRange("recv", recv, recvOffset, length);
        checkRange("send", send, sendOffset, length);
        Objects.requireNonNull(op, "op is null");
        if (!allReducedInRegion(send, sendOffset, recv, recvOffset, length, op))
        {
            reduce(send, sendOffset, recv, recvOffset, length, op, 0, ALL_REDUCE_TAG);
            bcast(recv, recvOffset, length, 0, ALL_REDUCE_TAG);
        }
    }

    /**
     * An allReduce through the region, if the communicator has one and the length suits it.
     *
     * @return false if it must go point to point.
     */
    private boolean allReducedInRegion(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int length, final ByteOperator op)
    {
        if (shared == null || !shared.reduces(length, op))
        {
            return false;
        }
        shared.reduce(send, sendOffset, recv, recvOffset, length, op, 0, true, ALL_REDUCE_TAG);
        return true;
    }

    public void reduce(final int[] send, final int[] recv, final Op op, final int root)
    {
        reduceTyped(send, recv, ElementType.INT, op, root, Kind.REDUCE);
    }

    public void allReduce(final int[] send, final int[] recv, final Op op)
    {
        reduceTyped(send, recv, ElementType.INT, op, rank, Kind.ALL_REDUCE);
    }

    /**
     * Inclusive prefix reduction (MPI_Scan): rank r receives the combination of ranks 0..r's {@code send}.
     */
    public void scan(final int[] send, final int[] recv, final Op op)
    {
        reduceTyped(send, recv, ElementType.INT, op, rank, Kind.SCAN);
    }

    /**
     * Exclusive prefix reduction (MPI_Exscan): rank r receives the combination of ranks 0..r-1's
     * {@code send}; rank 0's {@code recv} is left as it is.
     */
    public void exScan(final int[] send, final int[] recv, final Op op)
    {
        reduceTyped(send, recv, ElementType.INT, op, rank, Kind.EX_SCAN);
    }

    public void reduce(final long[] send, final long[] recv, final Op op, final int root)
    {
        reduceTyped(send, recv, ElementType.LONG, op, root, Kind.REDUCE);
    }

    public void allReduce(final long[] send, final long[] recv, final Op op)
    {
        reduceTyped(send, recv, ElementType.LONG, op, rank, Kind.ALL_REDUCE);
    }

    /**
     * Inclusive prefix reduction (MPI_Scan): rank r receives the combination of ranks 0..r's {@code send}.
     */
    public void scan(final long[] send, final long[] recv, final Op op)
    {
        reduceTyped(send, recv, ElementType.LONG, op, rank, Kind.SCAN);
    }

    /**
     * Exclusive prefix reduction (MPI_Exscan): rank r receives the combination of ranks 0..r-1's
     * {@code send}; rank 0's {@code recv} is left as it is.
     */
    public void exScan(final long[] send, final long[] recv, final Op op)
    {
        reduceTyped(send, recv, ElementType.LONG, op, rank, Kind.EX_SCAN);
    }

    public void reduce(final float[] send, final float[] recv, final Op op, final int root)
    {
        reduceTyped(send, recv, ElementType.FLOAT, op, root, Kind.REDUCE);
    }

    public void allReduce(final float[] send, final float[] recv, final Op op)
    {
        reduceTyped(send, recv, ElementType.FLOAT, op, rank, Kind.ALL_REDUCE);
    }

    /**
     * Inclusive prefix reduction (MPI_Scan): rank r receives the combination of ranks 0..r's {@code send}.
     */
    public void scan(final float[] send, final float[] recv, final Op op)
    {
        reduceTyped(send, recv, ElementType.FLOAT, op, rank, Kind.SCAN);
    }

    /**
     * Exclusive prefix reduction (MPI_Exscan): rank r receives the combination of ranks 0..r-1's
     * {@code send}; rank 0's {@code recv} is left as it is.
     */
    public void exScan(final float[] send, final float[] recv, final Op op)
    {
        reduceTyped(send, recv, ElementType.FLOAT, op, rank, Kind.EX_SCAN);
    }

    public void reduce(final double[] send, final double[] recv, final Op op, final int root)
    {
        reduceTyped(send, recv, ElementType.DOUBLE, op, root, Kind.REDUCE);
    }

    public void allReduce(final double[] send, final double[] recv, final Op op)
    {
        reduceTyped(send, recv, ElementType.DOUBLE, op, rank, Kind.ALL_REDUCE);
    }

    /**
     * Inclusive prefix reduction (MPI_Scan): rank r receives the combination of ranks 0..r's {@code send}.
     */
    public void scan(final double[] send, final double[] recv, final Op op)
    {
        reduceTyped(send, recv, ElementType.DOUBLE, op, rank, Kind.SCAN);
    }

    /**
     * Exclusive prefix reduction (MPI_Exscan): rank r receives the combination of ranks 0..r-1's
     * {@code send}; rank 0's {@code recv} is left as it is.
     */
    public void exScan(final double[] send, final double[] recv, final Op op)
    {
        reduceTyped(send, recv, ElementType.DOUBLE, op, rank, Kind.EX_SCAN);
    }

    /**
     * Inclusive prefix reduction over bytes (MPI_Scan): rank r's {@code recv} gets ranks 0..r's
     * {@code send} combined in rank order.
     */
    public void scan(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int length, final ByteOperator op)
    {
        scan(send, sendOffset, recv, recvOffset, length, op, false);
    }

    /**
     * Exclusive prefix reduction over bytes (MPI_Exscan): rank r's {@code recv} gets ranks 0..r-1's
     * {@code send} combined in rank order; rank 0's is left as it is.
     */
    public void exScan(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int length, final ByteOperator op)
    {
        scan(send, sendOffset, recv, recvOffset, length, op, true);
    }

    /**
     * Through the region where it {@link SharedCollectives#reduces}, combining in the same order; else
     * recursive doubling (MPICH's scan): in round k rank r exchanges with r XOR 2^k the combination of its
     * aligned block of 2^k ranks; the lower block's is always the {@code left} operand, so the prefix is
     * combined in rank order and the same inputs give the same bits on every run.
     */
    private void scan(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int length, final ByteOperator op, final boolean exclusive)
    {
        checkRange("send", send, sendOffset, length);
        checkRange("recv", recv, recvOffset, length);
        Objects.requireNonNull(op, "op is null");
        final int tag = exclusive ? EX_SCAN_TAG : SCAN_TAG;
        if (shared != null && shared.scans(length))
        {
            shared.scan(send, sendOffset, recv, recvOffset, length, op, exclusive, tag);
            return;
        }
        final UnsafeBuffer work = scratch(4L * length);
        int partial = 0;
        int received = length;
        int copy = 2 * length;
        int prefix = 3 * length;
        boolean hasPrefix = !exclusive;
        work.putBytes(partial, send, sendOffset, length);
        if (!exclusive)
        {
            work.putBytes(prefix, send, sendOffset, length);
        }
        for (int mask = 1; mask < size; mask <<= 1)
        {
            final int partner = rank ^ mask;
            if (partner >= size)
            {
                continue;
            }
            final int got = channel.sendRecv(partner, tag, work, partial, length, partner, work, received, length);
            if (got != length)
            {
                throw mismatch(partner, tag, got, length);
            }
            if (partner < rank)
            {
                // the partner's block is below this rank's: it comes first in the prefix and in the partial
                if (hasPrefix)
                {
                    work.putBytes(copy, work, received, length);
                    op.apply(work, copy, work, prefix, length);
                    final int swap = prefix;
                    prefix = copy;
                    copy = swap;
                }
                else
                {
                    work.putBytes(prefix, work, received, length);
                    hasPrefix = true;
                }
                op.apply(work, received, work, partial, length);
                final int swap = partial;
                partial = received;
                received = swap;
            }
            else
            {
                op.apply(work, partial, work, received, length);
            }
        }
        if (hasPrefix)
        {
            recv.putBytes(recvOffset, work, prefix, length);
        }
    }

    /**
     * Reduces every rank's {@code size * blockLength} bytes with {@code op} and hands rank r block r of the
     * result (MPI_Reduce_scatter_block): a {@link #reduce} to rank 0, then a scatter (a user's operator sees
     * whole vectors); the typed forms, through a region, in one pass in which each rank combines its block.
     */
    public void reduceScatter(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int blockLength, final ByteOperator op)
    {
        checkRange("send", send, sendOffset, (long)blockLength * size);
        checkRange("recv", recv, recvOffset, blockLength);
        final int length = Math.multiplyExact(blockLength, size);
        Objects.requireNonNull(op, "op is null");
        if (blockLength == 0)
        {
            return; // nothing to combine on any rank (MPI requires every rank to pass the same count), as Open MPI does
        }
        if (shared != null && shared.reduceScatters(op))
        {
            shared.reduceScatter(send, sendOffset, recv, recvOffset, blockLength, op, REDUCE_SCATTER_TAG);
            return;
        }
        if (rank == 0 && whole.capacity() < length)
        {
            whole = new UnsafeBuffer(new byte[length]);
        }
        reduce(send, sendOffset, rank == 0 ? whole : null, 0, length, op, 0, REDUCE_SCATTER_TAG);
        scatterOn(rank == 0 ? whole : null, 0, recv, recvOffset, blockLength, 0, REDUCE_SCATTER_TAG);
    }

    public void reduceScatter(final int[] send, final int[] recv, final Op op)
    {
        reduceScatterTyped(send, recv, ElementType.INT, op);
    }

    public void reduceScatter(final long[] send, final long[] recv, final Op op)
    {
        reduceScatterTyped(send, recv, ElementType.LONG, op);
    }

    public void reduceScatter(final float[] send, final float[] recv, final Op op)
    {
        reduceScatterTyped(send, recv, ElementType.FLOAT, op);
    }

    public void reduceScatter(final double[] send, final double[] recv, final Op op)
    {
        reduceScatterTyped(send, recv, ElementType.DOUBLE, op);
    }

    /**
     * The root receives rank r's {@code counts[r]} bytes at {@code recvOffset + displacements[r]}
     * (MPI_Gatherv; {@code recv}, {@code counts} and {@code displacements} are used on the root only).
     */
    public void gatherv(
        final DirectBuffer send, final int sendOffset, final int sendLength, final MutableDirectBuffer recv,
        final int recvOffset, final int[] counts, final int[] displacements, final int root)
    {
        checkRoot(root);
        checkRange("send", send, sendOffset, sendLength);
        if (rank == root)
        {
            checkBlocks("recv", recv, recvOffset, counts, displacements);
            checkOwnCount("sendLength", sendLength, counts);
        }
        // the region's first step tells every rank the root's largest count, and so which path the call takes
        if (shared != null && shared.gatherv(send, sendOffset, sendLength, recv, recvOffset, counts, displacements, root,
            GATHERV_TAG))
        {
            return;
        }
        if (rank != root)
        {
            channel.send(root, GATHERV_TAG, send, sendOffset, sendLength);
            return;
        }
        for (int r = 0; r < size; r++)
        {
            if (r == root)
            {
                recv.putBytes(recvOffset + displacements[r], send, sendOffset, sendLength);
            }
            else
            {
                receive(r, GATHERV_TAG, recv, recvOffset + displacements[r], counts[r]);
            }
        }
    }

    /**
     * Rank r receives the root's {@code counts[r]} bytes at {@code sendOffset + displacements[r]} into its
     * {@code recv} (MPI_Scatterv; {@code send}, {@code counts} and {@code displacements} are used on the root
     * only).
     */
    public void scatterv(
        final DirectBuffer send, final int sendOffset, final int[] counts, final int[] displacements,
        final MutableDirectBuffer recv, final int recvOffset, final int recvLength, final int root)
    {
        checkRoot(root);
        checkRange("recv", recv, recvOffset, recvLength);
        if (rank == root)
        {
            checkBlocks("send", send, sendOffset, counts, displacements);
            checkOwnCount("recvLength", recvLength, counts);
        }
        // the region's first step tells every rank the root's largest count, and so which path the call takes
        if (shared != null &&
            shared.scatterv(send, sendOffset, counts, displacements, recv, recvOffset, recvLength, root, SCATTERV_TAG))
        {
            return;
        }
        if (rank != root)
        {
            receive(root, SCATTERV_TAG, recv, recvOffset, recvLength);
            return;
        }
        for (int r = 0; r < size; r++)
        {
            if (r == root)
            {
                recv.putBytes(recvOffset, send, sendOffset + displacements[r], recvLength);
            }
            else
            {
                channel.send(r, SCATTERV_TAG, send, sendOffset + displacements[r], counts[r]);
            }
        }
    }

    /**
     * Every rank receives rank r's {@code counts[r]} bytes at {@code recvOffset + displacements[r]}
     * (MPI_Allgatherv): through the region as allGather, where it {@link SharedCollectives#gathers} the largest
     * block; else a ring of n - 1 steps, each rank passing on the block it received last.
     */
    public void allGatherv(
        final DirectBuffer send, final int sendOffset, final int sendLength, final MutableDirectBuffer recv,
        final int recvOffset, final int[] counts, final int[] displacements)
    {
        checkRange("send", send, sendOffset, sendLength);
        checkBlocks("recv", recv, recvOffset, counts, displacements);
        checkOwnCount("sendLength", sendLength, counts);
        if (shared != null)
        {
            final int largest = largest(counts);
            if (shared.gathers(largest))
            {
                shared.allGatherv(send, sendOffset, recv, recvOffset, counts, displacements, largest, ALL_GATHERV_TAG);
                return;
            }
        }
        recv.putBytes(recvOffset + displacements[rank], send, sendOffset, sendLength);
        ring(recv, recvOffset, counts, displacements, 0, ALL_GATHERV_TAG);
    }

    /**
     * @throws IllegalArgumentException if this rank's own block, {@code length} bytes, is not {@code counts[rank]}.
     */
    private void checkOwnCount(final String name, final int length, final int[] counts)
    {
        if (length != counts[rank])
        {
            throw new IllegalArgumentException(name + "=" + length + " but counts[" + rank + "]=" + counts[rank]);
        }
    }

    /**
     * @return the largest of {@code counts} (0 if none is positive).
     */
    static int largest(final int[] counts)
    {
        int largest = 0;
        for (final int count : counts)
        {
            largest = Math.max(largest, count);
        }
        return largest;
    }

    /**
     * The ring of the all-gathers: in step s each rank sends block (r - s) to its right neighbour and
     * receives block (r - s - 1) from its left, so after n - 1 steps every rank has every block.
     *
     * @param counts        the blocks' lengths, or null: every block {@code length} bytes.
     * @param displacements where the blocks are from {@code recvOffset}, or null: in rank order, back to back.
     */
    private void ring(
        final MutableDirectBuffer recv, final int recvOffset, final int[] counts, final int[] displacements, final int length,
        final int tag)
    {
        final int right = (rank + 1) % size;
        final int left = (rank - 1 + size) % size;
        for (int step = 0; step < size - 1; step++)
        {
            final int out = (rank - step + size) % size;
            final int in = (rank - step - 1 + size) % size;
            final int outLength = counts == null ? length : counts[out];
            final int inLength = counts == null ? length : counts[in];
            final int outAt = displacements == null ? out * length : displacements[out];
            final int inAt = displacements == null ? in * length : displacements[in];
            final int got = channel.sendRecv(right, tag, recv, recvOffset + outAt, outLength, left, recv, recvOffset + inAt, inLength);
            if (got != inLength)
            {
                throw mismatch(left, tag, got, inLength);
            }
        }
    }

    /**
     * Rank r sends {@code sendCounts[d]} bytes at {@code sendOffset + sendDisplacements[d]} to rank d, which
     * receives them at {@code recvOffset + recvDisplacements[r]}, {@code recvCounts[r]} bytes
     * (MPI_Alltoallv): through the region when it has one and the longest block of any rank suits it (the
     * ranks learn it in the region's first step), else n - 1 pairwise exchanges.
     */
    public void allToAllv(
        final DirectBuffer send, final int sendOffset, final int[] sendCounts, final int[] sendDisplacements,
        final MutableDirectBuffer recv, final int recvOffset, final int[] recvCounts, final int[] recvDisplacements)
    {
        checkBlocks("send", send, sendOffset, sendCounts, sendDisplacements);
        checkBlocks("recv", recv, recvOffset, recvCounts, recvDisplacements);
        if (sendCounts[rank] != recvCounts[rank])
        {
            throw new IllegalArgumentException("sendCounts[" + rank + "]=" + sendCounts[rank] + " but recvCounts[" + rank + "]=" +
                recvCounts[rank]);
        }
        // the region's first step tells every rank the longest block, and so which path the call takes
        if (shared != null && shared.allToAllv(send, sendOffset, sendCounts, sendDisplacements, recv, recvOffset,
            recvCounts, recvDisplacements, ALL_TO_ALLV_TAG))
        {
            return;
        }
        recv.putBytes(recvOffset + recvDisplacements[rank], send, sendOffset + sendDisplacements[rank], sendCounts[rank]);
        for (int step = 1; step < size; step++)
        {
            final int dest = (rank + step) % size;
            final int source = (rank - step + size) % size;
            final int got = channel.sendRecv(dest, ALL_TO_ALLV_TAG, send, sendOffset + sendDisplacements[dest], sendCounts[dest],
                source, recv, recvOffset + recvDisplacements[source], recvCounts[source]);
            if (got != recvCounts[source])
            {
                throw mismatch(source, ALL_TO_ALLV_TAG, got, recvCounts[source]);
            }
        }
    }

    /**
     * Collects every rank's {@code length} bytes at {@code sendOffset} into the root's {@code recv}, rank r's
     * at {@code recvOffset + r * length} ({@code recv} is not used on other ranks and may be null there).
     */
    public void gather(
        final DirectBuffer send, final int sendOffset, final int length, final MutableDirectBuffer recv, final int recvOffset,
        final int root)
    {
        gather(send, sendOffset, length, recv, recvOffset, root, GATHER_TAG);
    }

    private void gather(
        final DirectBuffer send, final int sendOffset, final int length, final MutableDirectBuffer recv, final int recvOffset,
        final int root, final int tag)
    {
        checkRoot(root);
        checkRange("send", send, sendOffset, length);
        if (rank == root)
        {
            checkRange("recv", recv, recvOffset, (long)length * size);
        }
        if (shared != null && shared.gathers(length))
        {
            shared.gather(send, sendOffset, length, recv, recvOffset, root, false, tag);
            return;
        }
        if (rank != root)
        {
            channel.send(root, tag, send, sendOffset, length);
            return;
        }
        for (int r = 0; r < size; r++)
        {
            if (r == root)
            {
                recv.putBytes(recvOffset + r * length, send, sendOffset, length);
            }
            else
            {
                receive(r, tag, recv, recvOffset + r * length, length);
            }
        }
    }

    /**
     * Hands rank r the root's {@code length} bytes at {@code sendOffset + r * length}, into its {@code recv}
     * at {@code recvOffset} ({@code send} is not used on other ranks and may be null there).
     */
    public void scatter(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset, final int length,
        final int root)
    {
        scatterOn(send, sendOffset, recv, recvOffset, length, root, SCATTER_TAG);
    }

    private void scatterOn(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset, final int length,
        final int root, final int tag)
    {
        checkRoot(root);
        checkRange("recv", recv, recvOffset, length);
        if (rank == root)
        {
            checkRange("send", send, sendOffset, (long)length * size);
        }
        if (shared != null && shared.scatters(length))
        {
            shared.scatter(send, sendOffset, recv, recvOffset, length, root, tag);
            return;
        }
        if (rank != root)
        {
            receive(root, tag, recv, recvOffset, length);
            return;
        }
        for (int r = 0; r < size; r++)
        {
            if (r == root)
            {
                recv.putBytes(recvOffset, send, sendOffset + r * length, length);
            }
            else
            {
                channel.send(r, tag, send, sendOffset + r * length, length);
            }
        }
    }

    /**
     * {@link #gather} whose result every rank receives: rank r's bytes at {@code recvOffset + r * length}. A
     * ring of n - 1 steps, each rank passing on the block it received last (2 ranks: one exchange).
     */
    public void allGather(
        final DirectBuffer send, final int sendOffset, final int length, final MutableDirectBuffer recv, final int recvOffset)
    {
        checkRange("send", send, sendOffset, length);
        checkRange("recv", recv, recvOffset, (long)length * size);
        if (shared != null && shared.gathers(length))
        {
            shared.gather(send, sendOffset, length, recv, recvOffset, 0, true, ALL_GATHER_TAG);
            return;
        }
        recv.putBytes(recvOffset + rank * length, send, sendOffset, length);
        ring(recv, recvOffset, null, null, length, ALL_GATHER_TAG);
    }

    /**
     * Rank r sends its block {@code d} ({@code blockLength} bytes at {@code sendOffset + d * blockLength}) to
     * rank d, which receives it as its block r in {@code recv}. {@code send} and {@code recv} must not overlap
     * (MPI's rule): the other ranks may still read a shared {@code send} in place while this rank fills
     * {@code recv}.
     */
    public void allToAll(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset, final int blockLength)
    {
        checkRange("send", send, sendOffset, (long)blockLength * size);
        checkRange("recv", recv, recvOffset, (long)blockLength * size);
        if (shared != null && shared.scatters(blockLength))
        {
            shared.allToAll(send, sendOffset, recv, recvOffset, blockLength, ALL_TO_ALL_TAG);
            return;
        }
        recv.putBytes(recvOffset + rank * blockLength, send, sendOffset + rank * blockLength, blockLength);
        for (int step = 1; step < size; step++)
        {
            final int dest = (rank + step) % size;
            final int source = (rank - step + size) % size;
            final int received = channel.sendRecv(dest, ALL_TO_ALL_TAG, send, sendOffset + dest * blockLength, blockLength,
                source, recv, recvOffset + source * blockLength, blockLength);
            if (received != blockLength)
            {
                throw mismatch(source, ALL_TO_ALL_TAG, received, blockLength);
            }
        }
    }

    /**
     * Receives exactly {@code length} bytes from {@code source}.
     */
    private void receive(final int source, final int tag, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        final int received = channel.recv(source, tag, buffer, offset, length);
        if (received != length)
        {
            throw mismatch(source, tag, received, length);
        }
    }

    /**
     * An all-reduce by recursive doubling, for the predefined operators (commutative): ranks from the largest
     * power of two p up first fold their data into rank r - p, then the p ranks exchange partial results in
     * log2(p) rounds (rank r with r XOR 2^k), each combining the lower-ranked block's partial result as
     * {@code left}, so every rank evaluates the same expression tree and gets the same bits; the folded ranks
     * get the result back. Two ranks: one exchange instead of reduce and bcast's two messages in turn.
     */
    private void allReduceDoubling(
        final DirectBuffer send, final int sendOffset, final MutableDirectBuffer recv, final int recvOffset,
        final int length, final ByteOperator op)
    {
        final UnsafeBuffer work = scratch(2L * length);
        int mine = 0;
        int theirs = length;
        work.putBytes(mine, send, sendOffset, length);
        final int pof2 = Integer.highestOneBit(size);
        if (rank >= pof2)
        {
            channel.send(rank - pof2, ALL_REDUCE_TAG, work, mine, length);
            receive(rank - pof2, ALL_REDUCE_TAG, recv, recvOffset, length);
            return;
        }
        if (rank + pof2 < size)
        {
            receive(rank + pof2, ALL_REDUCE_TAG, work, theirs, length);
            op.apply(work, mine, work, theirs, length);
        }
        for (int mask = 1; mask < pof2; mask <<= 1)
        {
            final int partner = rank ^ mask;
            final int received = channel.sendRecv(partner, ALL_REDUCE_TAG, work, mine, length, partner, work, theirs, length);
            if (received != length)
            {
                throw mismatch(partner, ALL_REDUCE_TAG, received, length);
            }
            if (partner < rank)
            {
                op.apply(work, theirs, work, mine, length); // the lower block's result is the left operand
                final int swap = mine;
                mine = theirs;
                theirs = swap;
            }
            else
            {
                op.apply(work, mine, work, theirs, length);
            }
        }
        recv.putBytes(recvOffset, work, mine, length);
        if (rank + pof2 < size)
        {
            channel.send(rank + pof2, ALL_REDUCE_TAG, recv, recvOffset, length);
        }
    }

    /**
     * A reduction of a typed array: its elements packed into bytes in the platform's order, reduced by
     * {@code op} over {@code type}, and the result unpacked into {@code recv} on the rank that has one.
     *
     * @param resultRank the root, or this rank for an all-reduce.
     */
    private void reduceTyped(
        final Object send, final Object recv, final ElementType type, final Op op, final int resultRank, final Kind kind)
    {
        checkTyped(send, recv, resultRank);
        Objects.requireNonNull(op, "op is null");
        final ByteOperator operator = operator(op, type);
        final int count = java.lang.reflect.Array.getLength(send);
        if (count > (Integer.MAX_VALUE - 8) / 2 / type.bytes)
        {
            throw new IllegalArgumentException("send has " + count + " elements: at most " + (Integer.MAX_VALUE - 8) / 2 / type.bytes +
                " of " + type.name().toLowerCase() + " in one reduction");
        }
        final int length = count * type.bytes;
        pack(send, type, count);
        switch (kind)
        {
            case ALL_REDUCE ->
            {
                if (!allReducedInRegion(packed, 0, result, 0, length, operator))
                {
                    allReduceDoubling(packed, 0, result, 0, length, operator);
                }
            }
            case SCAN -> scan(packed, 0, result, 0, length, operator, false);
            case EX_SCAN -> scan(packed, 0, result, 0, length, operator, true);
            default -> reduce(packed, 0, result, 0, length, operator, resultRank);
        }
        if (rank == resultRank && !(kind == Kind.EX_SCAN && rank == 0))
        {
            unpack(recv, type, count);
        }
    }

    /**
     * Copies {@code count} elements of the typed array {@code values} into {@link #packed}, growing it (and
     * {@link #result}) to fit.
     */
    private void pack(final Object values, final ElementType type, final int count)
    {
        final int length = count * type.bytes;
        if (packed.capacity() < length)
        {
            packed = new UnsafeBuffer(new byte[length]);
            result = new UnsafeBuffer(new byte[length]);
        }
        type.pack(values, count, packed);
    }

    /**
     * Copies {@code count} elements of {@link #result} into the typed array {@code values}.
     */
    private void unpack(final Object values, final ElementType type, final int count)
    {
        type.unpack(result, values, count);
    }

    /**
     * Checks a typed reduction's arrays before anything is sent: {@code recv} must match {@code send} on
     * {@code resultRank} (the root; every rank for an all-reduce).
     */
    private void checkTyped(final Object send, final Object recv, final int resultRank)
    {
        checkRoot(resultRank);
        if (send == null)
        {
            throw new NullPointerException("send is null");
        }
        if (rank != resultRank)
        {
            return;
        }
        if (recv == null)
        {
            throw new NullPointerException("recv is null");
        }
        final int length = java.lang.reflect.Array.getLength(recv);
        final int expected = java.lang.reflect.Array.getLength(send);
        if (length != expected)
        {
            throw new IllegalArgumentException("recv has " + length + " elements, send " + expected + ": they must match");
        }
    }

    private UnsafeBuffer scratch(final long length)
    {
        if (length > Integer.MAX_VALUE - 8)
        {
            throw new IllegalArgumentException("length=" + length / 2 + " is too large for one reduction (at most 1 GiB)");
        }
        if (scratch.capacity() < length)
        {
            scratch = new UnsafeBuffer(new byte[(int)Math.min(Integer.MAX_VALUE - 8, Math.max(length, 2L * scratch.capacity()))]);
        }
        return scratch;
    }

    /**
     * Checks a "v" collective's counts and displacements: one per rank, none negative, every block inside
     * {@code buffer}.
     */
    private void checkBlocks(
        final String name, final DirectBuffer buffer, final int offset, final int[] counts, final int[] displacements)
    {
        if (counts == null || displacements == null)
        {
            throw new NullPointerException(name + "'s counts or displacements are null");
        }
        if (counts.length != size || displacements.length != size)
        {
            throw new IllegalArgumentException(name + ": " + counts.length + " counts and " + displacements.length +
                " displacements for " + size + " ranks");
        }
        for (int r = 0; r < size; r++)
        {
            if (counts[r] < 0 || displacements[r] < 0)
            {
                throw new IllegalArgumentException(name + ": counts[" + r + "]=" + counts[r] + ", displacements[" + r + "]=" +
                    displacements[r] + " (expected: >= 0)");
            }
            checkRange(name, buffer, offset + displacements[r], counts[r]);
        }
    }

    /**
     * A typed {@link #reduceScatter}: {@code send} holds {@code size} blocks of {@code recv.length} elements.
     */
    private void reduceScatterTyped(final Object send, final Object recv, final ElementType type, final Op op)
    {
        if (send == null || recv == null)
        {
            throw new NullPointerException(send == null ? "send is null" : "recv is null");
        }
        final int block = java.lang.reflect.Array.getLength(recv);
        final int count = java.lang.reflect.Array.getLength(send);
        if ((long)block * size != count)
        {
            throw new IllegalArgumentException("send has " + count + " elements, recv " + block + ": send must hold " + size +
                " blocks of recv's length");
        }
        Objects.requireNonNull(op, "op is null");
        final ByteOperator operator = operator(op, type);
        final int length = Math.multiplyExact(count, type.bytes);
        pack(send, type, count);
        reduceScatter(packed, 0, result, 0, block * type.bytes, operator);
        unpack(recv, type, block);
    }

    /**
     * @return {@code op} over {@code type}, made once per pair.
     */
    private ByteOperator operator(final Op op, final ElementType type)
    {
        final int index = op.ordinal() * ElementType.values().length + type.ordinal();
        if (operators[index] == null)
        {
            operators[index] = op.over(type);
        }
        return operators[index];
    }

    private void checkRoot(final int root)
    {
        if (root < 0 || root >= size)
        {
            throw new IllegalArgumentException("root=" + root + " (expected: 0.." + (size - 1) + ")");
        }
    }

    private static void checkRange(final String name, final DirectBuffer buffer, final int offset, final long length)
    {
        if (buffer == null)
        {
            throw new NullPointerException(name + " is null");
        }
        if (offset < 0 || length < 0 || offset + length > buffer.capacity())
        {
            throw new IndexOutOfBoundsException(name + ": offset=" + offset + " length=" + length + " capacity=" + buffer.capacity());
        }
    }

    /**
     * @param received the bytes {@code source} sent, or -1 for more than {@code expected}.
     * @return the error of a collective whose ranks disagree on counts or roots, naming the collective.
     */
    public static Sm4jException mismatch(final int source, final int tag, final int received, final int expected)
    {
        return new Sm4jException("rank " + source + " sent " + (received < 0 ? "more than " + expected : String.valueOf(received)) +
            " bytes to this " + name(tag) + ", which expects " + expected + ": the ranks called it with different counts or roots");
    }

    /**
     * @return the error of a step through the region that rank {@code source} did not post: it sent a message of
     *         {@code theirTag}'s collective point to point instead, where this rank called {@code collective}.
     */
    public static Sm4jException crossedPaths(final int source, final int theirTag, final String collective)
    {
        return new Sm4jException("rank " + source + " called " + name(theirTag) + " point to point where this rank called " +
            collective + " through the collective region: the ranks called different collectives, or one with lengths " +
            "or roots that take different paths");
    }

    /**
     * @return the error of a collective step where rank {@code source} called another collective.
     */
    public static Sm4jException crossed(final int source, final int theirTag, final int tag)
    {
        return new Sm4jException("rank " + source + " called " + name(theirTag) + " where this rank called " + name(tag) +
            ": every rank must call a communicator's collectives in the same order");
    }

    /**
     * @return the error of a "v" collective whose ranks pass different counts.
     */
    static Sm4jException countsDiffer(final int source, final int tag)
    {
        return new Sm4jException("rank " + source + " called this " + name(tag) + " with other counts than this rank: " +
            "every rank must pass the same counts");
    }

    /**
     * @return the error of a gatherv or scatterv whose rank {@code source} passed {@code theirs} bytes where the
     *         root's count for it is {@code count}.
     */
    static Sm4jException countDiffers(final int source, final int tag, final int theirs, final int count)
    {
        return new Sm4jException("rank " + source + " called this " + name(tag) + " with " + theirs + " bytes, where the root's counts[" +
            source + "] is " + count + ": the ranks called it with different counts");
    }

    /**
     * @return the error of a collective whose ranks name different roots.
     */
    static Sm4jException rootsDiffer(final int source, final int tag, final int theirRoot, final int root)
    {
        return new Sm4jException("rank " + source + " called this " + name(tag) + " with root " + theirRoot +
            ", this rank with root " + root + ": the ranks called it with different counts or roots");
    }

    /**
     * @return the collective's name, for errors.
     */
    static String name(final int tag)
    {
        return switch (tag)
        {
            case BCAST_TAG -> "bcast";
            case REDUCE_TAG, ROOT_TAG -> "reduce";
            case GATHER_TAG -> "gather";
            case SCATTER_TAG -> "scatter";
            case ALL_TO_ALL_TAG -> "allToAll";
            case ALL_REDUCE_TAG -> "allReduce";
            case ALL_GATHER_TAG -> "allGather";
            case SCAN_TAG -> "scan";
            case EX_SCAN_TAG -> "exScan";
            case REDUCE_SCATTER_TAG -> "reduceScatter";
            case GATHERV_TAG -> "gatherv";
            case SCATTERV_TAG -> "scatterv";
            case ALL_GATHERV_TAG -> "allGatherv";
            case ALL_TO_ALLV_TAG -> "allToAllv";
            case BARRIER_TAG -> "barrier";
            default -> "collective";
        };
    }
}
