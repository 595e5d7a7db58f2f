package io.sm4j.it;

import io.sm4j.collective.ByteOperator;
import io.sm4j.collective.Op;
import io.sm4j.collective.OpReference;
import io.sm4j.message.Communicator;
import io.sm4j.message.Request;
import io.sm4j.message.Status;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.Endpoints;
import io.sm4j.transport.PeerMemory;
import io.sm4j.transport.TransportOptions;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;

/**
 * Every collective against a sequential reference, over random lengths (eager and rendezvous) and roots
 * that every rank draws from the same seed. Modes:
 * <ul>
 * <li>{@code check SEED ROUNDS}: bcast, gather, scatter, allGather, allToAll, reduce and allReduce of every
 *     type and operator, scan, exScan and reduceScatter, the "v" variants with random counts and gaps, a non-commutative user operator (2x2 integer matrices, multiplied in rank order),
 *     floating-point allReduce results compared bit for bit across ranks, and the MPI basics (sendRecv,
 *     waitAll, waitAny, testAll); prints "collectives ok R";</li>
 * <li>{@code isolation}: a user receive for any source and any tag, posted before a bcast, is not taken by
 *     the bcast's message; prints "isolated R";</li>
 * <li>{@code mismatch}: rank 0 broadcasts 16 bytes, the others expect 8 (fails with one line);</li>
 * <li>{@code crossed}: rank 0 calls barrier, the others bcast (fails with one line);</li>
 * <li>{@code counts}: a gatherv whose root counts 8 bytes for every rank, and the last rank passes 20,000
 *     (more than a step of the default region holds: fails at the root with one line, nobody waits);</li>
 * <li>{@code scattered}: a scatterv whose root counts 8 bytes for every rank, and the last rank expects 16
 *     (fails at that rank with one line);</li>
 * <li>{@code pairs}: an allToAllv in which rank 0 sends 8 bytes to rank 1, which expects 16 (fails at
 *     rank 1 with one line);</li>
 * <li>{@code die}: an allReduce whose user operator kills rank 0 (halt, as kill -9) in its first combine
 *     (through a region, after every rank posted its vector: the others finish the allReduce and fail in the
 *     barrier that follows; point to point, inside the reduce: the others fail waiting for its bcast);</li>
 * <li>{@code split}: split, dup and UNDEFINED, with traffic on the same tags in the world and in them at
 *     once; prints "split ok R";</li>
 * <li>{@code inplace ROUNDS [refuse]}: bcast, allGather and allToAll read in place, out of shared buffers and out
 *     of the ranks' processes ({@link #inPlace(int, boolean)}).</li>
 * <li>{@code unmapped}: rank 0 bcasts from an address not mapped in its process, which the others read out of
 *     it ({@link #unmapped()}: fails with one line).</li>
 * </ul>
 */
public final class CollectiveApp
{
    /** Lengths on both sides of each path's limits, for the default region and the 1 KiB one (CollectiveTest). */
    private static final int[] LENGTHS = { 0, 1, 8, 100, 1_000, 1_500, 4_000, 5_000, 40_000, 70_000, 300_000 };
    /** 2^62: beyond the user address space of every 64-bit Linux (at most 2^56), and not negative (in the half). */
    private static final long UNMAPPED = 1L << 62;
    /** A bcast between four and eight halves of the default buffer at 2-4 ranks: eight steps of 128 KiB. */
    private static final int LONG_BCAST = 1_000_000;

    private CollectiveApp()
    {
    }

    public static void main(final String[] args)
    {
        if (args[0].equals("inplace"))
        {
            inPlace(Integer.parseInt(args[1]), args.length > 2 && args[2].equals("refuse"));
            return;
        }
        if (args[0].equals("unmapped"))
        {
            unmapped();
            return;
        }
        if (args[0].equals("choose"))
        {
            choose();
            return;
        }
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            switch (args[0])
            {
                case "check" -> check(comm, new Random(Long.parseLong(args[1])), Integer.parseInt(args[2]));
                case "isolation" -> isolation(comm);
                case "split" -> split(comm);
                case "mismatch" -> comm.bcast(new byte[32], 0, comm.rank() == 0 ? 32 : 8, 0); // the root's data in a half, the other's in the line
                case "crossed" -> crossed(comm);
                case "crossedPoint" -> crossedPoint(comm);
                case "crossedQueued" -> crossedQueued(comm);
                case "abort" -> abortInBarrier(comm);
                case "paths" -> comm.allGather(new byte[lengthForPath(comm)], 0, lengthForPath(comm), new byte[2 * lengthForPath(comm)]);
                case "counts" -> countsDiffer(comm);
                case "pairs" -> pairsDiffer(comm);
                case "scattered" -> scatteredDiffer(comm);
                case "die" -> die(comm);
                default -> throw new IllegalArgumentException(args[0]);
            }
        }
    }

    private static void countsDiffer(final Communicator comm)
    {
        final int size = comm.size();
        final int[] counts = new int[size];
        Arrays.fill(counts, 8);
        final int[] displacements = backToBack(counts);
        final int length = comm.rank() == size - 1 ? 20_000 : 8;
        comm.gatherv(new byte[length], 0, length, new byte[8 * size], counts, displacements, 0);
    }

    private static void scatteredDiffer(final Communicator comm)
    {
        final int size = comm.size();
        final int[] counts = new int[size];
        Arrays.fill(counts, 8);
        final int length = comm.rank() == size - 1 ? 16 : 8;
        comm.scatterv(new byte[8 * size], counts, backToBack(counts), new byte[length], 0, length, 0);
    }

    private static void pairsDiffer(final Communicator comm)
    {
        final int size = comm.size();
        final int[] counts = new int[size];
        Arrays.fill(counts, 16);
        final int[] displacements = backToBack(counts);
        final int[] sendCounts = counts.clone();
        if (comm.rank() == 0)
        {
            sendCounts[1] = 8;
        }
        comm.allToAllv(new byte[16 * size], sendCounts, displacements, new byte[16 * size], counts, displacements);
    }

    /**
     * @return the displacements of blocks of {@code counts} laid one after the other.
     */
    private static int[] backToBack(final int[] counts)
    {
        final int[] displacements = new int[counts.length];
        for (int r = 1; r < counts.length; r++)
        {
            displacements[r] = displacements[r - 1] + counts[r - 1];
        }
        return displacements;
    }

    private static void crossed(final Communicator comm)
    {
        if (comm.rank() == 0)
        {
            comm.barrier();
        }
        else
        {
            comm.bcast(new byte[8], 0, 8, 0);
        }
    }

    /**
     * Point to point (no collective region): rank 0 calls allGather, rank 1 bcast; rank 1's receive sees rank
     * 0's allGather message, whether it arrives before or after the receive is posted.
     */
    private static void crossedPoint(final Communicator comm)
    {
        if (comm.rank() == 0)
        {
            comm.allGather(new byte[8], 0, 8, new byte[16]);
        }
        else
        {
            comm.bcast(new byte[8], 0, 8, 0);
        }
    }

    /**
     * Point to point: rank 0's bcast message is queued at rank 1 (a later message of the pair has been received)
     * when rank 1 calls allGather, whose receive sees it as it is posted. Rank 0 then waits in a barrier that
     * fails once rank 1 has gone.
     */
    private static void crossedQueued(final Communicator comm)
    {
        if (comm.rank() == 0)
        {
            comm.bcast(new byte[8], 0, 8, 0);
            comm.send(1, 7, new byte[1]);
            comm.barrier();
        }
        else
        {
            comm.recv(0, 7, new byte[1]);
            comm.allGather(new byte[8], 0, 8, new byte[16]);
        }
    }

    /**
     * With a collective region of 1 KiB per rank, an allGather of 8 bytes goes through it and one of 5,000 bytes
     * point to point: rank 0 passes the one, rank 1 the other.
     */
    private static int lengthForPath(final Communicator comm)
    {
        return comm.rank() == 0 ? 8 : 5_000;
    }

    /**
     * Rank 1 aborts the job while the others wait in a barrier, whose waits end with its reason.
     */
    private static void abortInBarrier(final Communicator comm)
    {
        if (comm.rank() == 1)
        {
            comm.abort(3, "the input file is empty");
        }
        comm.barrier();
        System.out.println("barrier passed " + comm.rank());
    }

    private static void die(final Communicator comm)
    {
        final boolean dies = comm.rank() == 0;
        final ByteOperator op = (left, leftOffset, right, rightOffset, length) ->
        {
            if (dies)
            {
                Runtime.getRuntime().halt(137);
            }
            left.putLong(leftOffset, left.getLong(leftOffset) + right.getLong(rightOffset));
        };
        final UnsafeBuffer sum = new UnsafeBuffer(new byte[8]);
        final UnsafeBuffer mine = new UnsafeBuffer(new byte[8]);
        mine.putLong(0, comm.rank());
        comm.allReduce(mine, 0, sum, 0, 8, op);
        System.out.println("allReduce done " + comm.rank());
        comm.barrier();
        System.out.println("barrier passed " + comm.rank());
    }

    private static void check(final Communicator comm, final Random random, final int rounds)
    {
        final int rank = comm.rank();
        final int size = comm.size();
        for (int round = 0; round < rounds; round++)
        {
            final int length = LENGTHS[random.nextInt(LENGTHS.length)];
            final int root = random.nextInt(size);
            final long salt = random.nextLong();

            final byte[] data = new byte[length];
            if (rank == root)
            {
                fill(data, root, salt);
            }
            comm.bcast(data, 0, length, root);
            expect(Arrays.equals(data, filled(length, root, salt)), "bcast", round);
            final byte[] longer = rank == root ? filled(LONG_BCAST, root, salt) : new byte[LONG_BCAST];
            comm.bcast(longer, 0, LONG_BCAST, root);
            expect(Arrays.equals(longer, filled(LONG_BCAST, root, salt)), "long bcast", round);

            final byte[] gathered = rank == root ? new byte[length * size] : null;
            comm.gather(filled(length, rank, salt), 0, length, gathered, root);
            if (rank == root)
            {
                expect(Arrays.equals(gathered, concatenation(length, size, salt)), "gather", round);
            }

            final byte[] part = new byte[length];
            comm.scatter(rank == root ? concatenation(length, size, salt) : null, part, 0, length, root);
            expect(Arrays.equals(part, filled(length, rank, salt)), "scatter", round);

            final byte[] all = new byte[length * size];
            comm.allGather(filled(length, rank, salt), 0, length, all);
            expect(Arrays.equals(all, concatenation(length, size, salt)), "allGather", round);

            final int block = Math.min(length, 20_000);
            final byte[] blocks = new byte[block * size];
            for (int dest = 0; dest < size; dest++)
            {
                fill(blocks, dest * block, block, rank * 1000 + dest, salt);
            }
            final byte[] received = new byte[block * size];
            comm.allToAll(blocks, received, block);
            for (int source = 0; source < size; source++)
            {
                final byte[] expected = new byte[block];
                fill(expected, 0, block, source * 1000 + rank, salt);
                expect(Arrays.equals(Arrays.copyOfRange(received, source * block, (source + 1) * block), expected), "allToAll", round);
            }

            reductions(comm, length / 8, root, salt, round);
            everyTypeAndOperator(comm, Math.min(length / 8, 1_000), root, salt, round);
            otherForms(comm, Math.min(length / 8, 1_000), root, salt, round);
            prefixes(comm, Math.min(length / 8, 2_000), salt, round);
            vectors(comm, random, root, salt, round);
        }
        basics(comm);
        System.out.println("collectives ok " + rank);
    }

    /**
     * Integer-valued operands: every combining order gives the same exact result, so a sequential reference
     * holds for floating point too; random doubles then check that allReduce gives every rank the same bits.
     */
    private static void reductions(final Communicator comm, final int count, final int root, final long salt, final int round)
    {
        final int rank = comm.rank();
        final int size = comm.size();
        for (final Op op : Op.values())
        {
            final long[] longs = new long[count];
            final long[] expectedLongs = new long[count];
            for (int i = 0; i < count; i++)
            {
                longs[i] = operand(rank, i, salt, op);
                expectedLongs[i] = operand(0, i, salt, op);
                for (int r = 1; r < size; r++)
                {
                    expectedLongs[i] = OpReference.combine(op, expectedLongs[i], operand(r, i, salt, op));
                }
            }
            final long[] longResult = new long[count];
            comm.allReduce(longs, longResult, op);
            expect(Arrays.equals(longResult, expectedLongs), "allReduce long " + op, round);
            final int[] ints = Arrays.stream(longs).mapToInt(v -> (int)v).toArray();
            final int[] intResult = rank == root ? new int[count] : null;
            comm.reduce(ints, intResult, op, root);
            if (rank == root)
            {
                expect(Arrays.equals(intResult, Arrays.stream(expectedLongs).mapToInt(v -> (int)v).toArray()), "reduce int " + op, round);
            }
            if (op.ordinal() < Op.BAND.ordinal())
            {
                final double[] doubles = Arrays.stream(longs).asDoubleStream().toArray();
                final double[] doubleResult = new double[count];
                comm.allReduce(doubles, doubleResult, op);
                expect(Arrays.equals(doubleResult, Arrays.stream(expectedLongs).asDoubleStream().toArray()), "allReduce double " + op, round);
                final float[] floats = new float[count];
                final float[] floatResult = rank == root ? new float[count] : null;
                for (int i = 0; i < count; i++)
                {
                    floats[i] = longs[i];
                }
                comm.reduce(floats, floatResult, op, root);
                if (rank == root)
                {
                    for (int i = 0; i < count; i++)
                    {
                        expect(floatResult[i] == (float)expectedLongs[i], "reduce float " + op, round);
                    }
                }
            }
        }
        final double[] noisy = noisyDoubles(salt, rank, count);
        final double[] sum = new double[count];
        comm.allReduce(noisy, sum, Op.SUM);
        final byte[] bits = new byte[count * Double.BYTES];
        new UnsafeBuffer(bits).putBytes(0, doubleBytes(sum), 0, bits.length);
        final byte[] everyones = new byte[bits.length * size];
        comm.allGather(bits, 0, bits.length, everyones);
        for (int r = 1; r < size; r++)
        {
            expect(Arrays.equals(Arrays.copyOfRange(everyones, r * bits.length, (r + 1) * bits.length), bits),
                "allReduce double bits of rank " + r, round);
        }
        final double[] rooted = rank == root ? new double[count] : null;
        comm.reduce(noisy, rooted, Op.SUM, root);
        if (rank == root)
        {
            expect(Arrays.equals(rooted, binomialSum(salt, count, size)), "reduce double bits in the binomial tree's order", round);
        }
        matrices(comm, Math.min(count, 64), root, salt, round);
    }

    /**
     * @return rank {@code rank}'s doubles for the bit-for-bit checks: random, of both signs, far apart in
     *         magnitude, so that every combining order rounds differently.
     */
    private static double[] noisyDoubles(final long salt, final int rank, final int count)
    {
        return new Random(salt ^ rank).doubles(count).map(v -> v * 1e10 - 5e9).toArray();
    }

    /**
     * Every rank's noisy doubles summed as the documented order says, on one rank: at distance 1, 2, 4, ...,
     * rank r (a multiple of twice the distance) adds rank r + distance's partial sum to its own as the right
     * operand; rank 0 ends with the whole sum.
     */
    private static double[] binomialSum(final long salt, final int count, final int size)
    {
        final double[][] partial = new double[size][];
        for (int r = 0; r < size; r++)
        {
            partial[r] = noisyDoubles(salt, r, count);
        }
        for (int distance = 1; distance < size; distance <<= 1)
        {
            for (int r = 0; r + distance < size; r += 2 * distance)
            {
                for (int i = 0; i < count; i++)
                {
                    partial[r][i] += partial[r + distance][i];
                }
            }
        }
        return partial[0];
    }

    /**
     * What {@link #reductions} and {@link #prefixes} leave out: reduce and allReduce of every element type,
     * scan, exScan and reduceScatter with every operator (and in floating point for the arithmetic ones).
     */
    private static void everyTypeAndOperator(final Communicator comm, final int count, final int root, final long salt, final int round)
    {
        final int rank = comm.rank();
        final int size = comm.size();
        for (final Op op : Op.values())
        {
            final long[] mine = new long[count];
            final long[] all = new long[count];
            final long[] inclusive = new long[count];
            final long[] exclusive = new long[count];
            for (int i = 0; i < count; i++)
            {
                mine[i] = operand(rank, i, salt, op);
                for (int r = 0; r < size; r++)
                {
                    final long value = operand(r, i, salt, op);
                    all[i] = r == 0 ? value : OpReference.combine(op, all[i], value);
                    if (r < rank)
                    {
                        exclusive[i] = r == 0 ? value : OpReference.combine(op, exclusive[i], value);
                    }
                    if (r <= rank)
                    {
                        inclusive[i] = r == 0 ? value : OpReference.combine(op, inclusive[i], value);
                    }
                }
            }
            final long[] longResult = rank == root ? new long[count] : null;
            comm.reduce(mine, longResult, op, root);
            expect(rank != root || Arrays.equals(longResult, all), "reduce long " + op, round);
            final int[] intResult = new int[count];
            comm.allReduce(ints(mine), intResult, op);
            expect(Arrays.equals(intResult, ints(all)), "allReduce int " + op, round);
            final long[] scanned = new long[count];
            comm.scan(mine, scanned, op);
            expect(Arrays.equals(scanned, inclusive), "scan long " + op, round);
            final long[] before = new long[count];
            comm.exScan(mine, before, op);
            expect(rank == 0 || Arrays.equals(before, exclusive), "exScan long " + op, round);
            final int block = Math.max(1, count / size);
            final long[] blocks = new long[block * size];
            final long[] expectedBlock = new long[block];
            for (int i = 0; i < blocks.length; i++)
            {
                blocks[i] = operand(rank, i, salt, op);
            }
            for (int i = 0; i < block; i++)
            {
                for (int r = 0; r < size; r++)
                {
                    final long value = operand(r, rank * block + i, salt, op);
                    expectedBlock[i] = r == 0 ? value : OpReference.combine(op, expectedBlock[i], value);
                }
            }
            final long[] reduced = new long[block];
            comm.reduceScatter(blocks, reduced, op);
            expect(Arrays.equals(reduced, expectedBlock), "reduceScatter long " + op, round);
            final int[] intScan = new int[count];
            comm.scan(ints(mine), intScan, op);
            expect(Arrays.equals(intScan, ints(inclusive)), "scan int " + op, round);
            final int[] intExScan = new int[count];
            comm.exScan(ints(mine), intExScan, op);
            expect(rank == 0 || Arrays.equals(intExScan, ints(exclusive)), "exScan int " + op, round);
            final int[] intReduced = new int[block];
            comm.reduceScatter(ints(blocks), intReduced, op);
            expect(Arrays.equals(intReduced, ints(expectedBlock)), "reduceScatter int " + op, round);
            if (op.ordinal() < Op.BAND.ordinal())
            {
                final float[] floatExScan = new float[count];
                comm.exScan(floats(mine), floatExScan, op);
                expect(rank == 0 || Arrays.equals(floatExScan, floats(exclusive)), "exScan float " + op, round);
                final float[] floatReduced = new float[block];
                comm.reduceScatter(floats(blocks), floatReduced, op);
                expect(Arrays.equals(floatReduced, floats(expectedBlock)), "reduceScatter float " + op, round);
                final double[] doubleScan = new double[count];
                comm.scan(Arrays.stream(mine).asDoubleStream().toArray(), doubleScan, op);
                expect(Arrays.equals(doubleScan, Arrays.stream(inclusive).asDoubleStream().toArray()), "scan double " + op, round);
                final double[] doubleReduced = new double[block];
                comm.reduceScatter(Arrays.stream(blocks).asDoubleStream().toArray(), doubleReduced, op);
                expect(Arrays.equals(doubleReduced, Arrays.stream(expectedBlock).asDoubleStream().toArray()),
                    "reduceScatter double " + op, round);
                final float[] floatResult = new float[count];
                comm.allReduce(floats(mine), floatResult, op);
                expect(Arrays.equals(floatResult, floats(all)), "allReduce float " + op, round);
                final double[] doubleResult = rank == root ? new double[count] : null;
                comm.reduce(Arrays.stream(mine).asDoubleStream().toArray(), doubleResult, op, root);
                expect(rank != root || Arrays.equals(doubleResult, Arrays.stream(all).asDoubleStream().toArray()),
                    "reduce double " + op, round);
                final float[] floatScan = new float[count];
                comm.scan(floats(mine), floatScan, op);
                expect(Arrays.equals(floatScan, floats(inclusive)), "scan float " + op, round);
                final double[] doubleExScan = new double[count];
                comm.exScan(Arrays.stream(mine).asDoubleStream().toArray(), doubleExScan, op);
                expect(rank == 0 || Arrays.equals(doubleExScan, Arrays.stream(exclusive).asDoubleStream().toArray()),
                    "exScan double " + op, round);
            }
        }
    }

    /**
     * The data movers' typed-array and ByteBuffer forms (the byte[] forms are checked above): direct and heap
     * buffers whose positions are not 0, and which must not move.
     */
    private static void otherForms(final Communicator comm, final int count, final int root, final long salt, final int round)
    {
        final int rank = comm.rank();
        final int size = comm.size();
        final long[] mine = new long[count];
        final long[] everyones = new long[count * size];
        for (int r = 0; r < size; r++)
        {
            for (int i = 0; i < count; i++)
            {
                everyones[r * count + i] = operand(r, i, salt, Op.SUM);
            }
        }
        System.arraycopy(everyones, rank * count, mine, 0, count);

        final int[] broadcast = rank == root ? ints(Arrays.copyOfRange(everyones, root * count, (root + 1) * count)) : new int[count];
        comm.bcast(broadcast, root);
        expect(Arrays.equals(broadcast, ints(Arrays.copyOfRange(everyones, root * count, (root + 1) * count))), "bcast int[]", round);
        final long[] gathered = rank == root ? new long[count * size] : null;
        comm.gather(mine, gathered, root);
        expect(rank != root || Arrays.equals(gathered, everyones), "gather long[]", round);
        final float[] part = new float[count];
        comm.scatter(rank == root ? floats(everyones) : null, part, root);
        expect(Arrays.equals(part, floats(mine)), "scatter float[]", round);
        final double[] all = new double[count * size];
        comm.allGather(Arrays.stream(mine).asDoubleStream().toArray(), all);
        expect(Arrays.equals(all, Arrays.stream(everyones).asDoubleStream().toArray()), "allGather double[]", round);
        final int[] exchanged = new int[count * size];
        comm.allToAll(ints(everyones), exchanged); // rank r's block d is rank d's values: every rank gets its own n times
        for (int r = 0; r < size; r++)
        {
            expect(Arrays.equals(Arrays.copyOfRange(exchanged, r * count, (r + 1) * count), ints(mine)), "allToAll int[]", round);
        }

        final int length = count * Long.BYTES;
        final ByteBuffer data = ByteBuffer.allocateDirect(length + 3).position(3);
        if (rank == root)
        {
            data.duplicate().put(bytes(Arrays.copyOfRange(everyones, root * count, (root + 1) * count)));
        }
        comm.bcast(data, root);
        expect(data.position() == 3 && bytesOf(data).equals(ByteBuffer.wrap(bytes(Arrays.copyOfRange(everyones, root * count,
            (root + 1) * count)))), "bcast direct ByteBuffer", round);
        final ByteBuffer own = ByteBuffer.wrap(new byte[length + 5]).position(5);
        own.duplicate().put(bytes(mine));
        final ByteBuffer allBytes = ByteBuffer.allocateDirect(length * size + 1).position(1);
        comm.allGather(own, allBytes);
        expect(own.position() == 5 && allBytes.position() == 1 && bytesOf(allBytes).equals(ByteBuffer.wrap(bytes(everyones))),
            "allGather ByteBuffers", round);
        final ByteBuffer gatheredBytes = rank == root ? ByteBuffer.wrap(new byte[length * size + 2]).position(2) : null;
        comm.gather(own, gatheredBytes, root);
        expect(rank != root || bytesOf(gatheredBytes).equals(ByteBuffer.wrap(bytes(everyones))), "gather ByteBuffers", round);
        final ByteBuffer partBytes = ByteBuffer.allocateDirect(length);
        comm.scatter(rank == root ? ByteBuffer.wrap(bytes(everyones)) : null, partBytes, root);
        expect(bytesOf(partBytes).equals(ByteBuffer.wrap(bytes(mine))), "scatter ByteBuffers", round);
        final ByteBuffer received = ByteBuffer.allocateDirect(length * size);
        comm.allToAll(ByteBuffer.wrap(bytes(everyones)), received);
        for (int r = 0; r < size; r++)
        {
            expect(bytesOf(received.duplicate().position(r * length).limit((r + 1) * length)).equals(ByteBuffer.wrap(bytes(mine))),
                "allToAll ByteBuffers", round);
        }
    }

    private static byte[] bytes(final long[] values)
    {
        final ByteBuffer bytes = ByteBuffer.allocate(values.length * Long.BYTES);
        Arrays.stream(values).forEach(bytes::putLong);
        return bytes.array();
    }

    /**
     * @return {@code buffer}'s bytes from its position to its limit, as a heap buffer (compared by content).
     */
    private static ByteBuffer bytesOf(final ByteBuffer buffer)
    {
        final byte[] copy = new byte[buffer.remaining()];
        buffer.duplicate().get(copy);
        return ByteBuffer.wrap(copy);
    }

    private static int[] ints(final long[] values)
    {
        return Arrays.stream(values).mapToInt(v -> (int)v).toArray();
    }

    private static float[] floats(final long[] values)
    {
        final float[] floats = new float[values.length];
        for (int i = 0; i < values.length; i++)
        {
            floats[i] = values[i];
        }
        return floats;
    }

    /**
     * scan, exScan and reduceScatter of longs (SUM) and, for the prefixes, of matrices (rank order matters).
     */
    private static void prefixes(final Communicator comm, final int count, final long salt, final int round)
    {
        final int rank = comm.rank();
        final int size = comm.size();
        final long[] mine = new long[count];
        final long[] inclusive = new long[count];
        final long[] exclusive = new long[count];
        for (int i = 0; i < count; i++)
        {
            mine[i] = operand(rank, i, salt, Op.SUM);
            for (int r = 0; r <= rank; r++)
            {
                inclusive[i] += operand(r, i, salt, Op.SUM);
            }
            exclusive[i] = inclusive[i] - mine[i];
        }
        final long[] result = new long[count];
        comm.scan(mine, result, Op.SUM);
        expect(Arrays.equals(result, inclusive), "scan", round);
        final long[] before = new long[count];
        Arrays.fill(before, 77);
        comm.exScan(mine, before, Op.SUM);
        expect(rank == 0 ? before.length == 0 || before[0] == 77 : Arrays.equals(before, exclusive), "exScan", round);

        final int matrices = Math.min(count, 16);
        final ByteOperator product = matrixProduct();
        final UnsafeBuffer own = new UnsafeBuffer(new byte[matrices * 16]);
        final UnsafeBuffer expected = new UnsafeBuffer(new byte[matrices * 16]);
        final UnsafeBuffer other = new UnsafeBuffer(new byte[matrices * 16]);
        for (int r = 0; r <= rank; r++)
        {
            final UnsafeBuffer target = r == 0 ? expected : other;
            final Random cells = new Random(salt + 7 * r);
            for (int i = 0; i < matrices * 4; i++)
            {
                target.putInt(i * 4, cells.nextInt(5) - 2);
            }
            if (r == rank)
            {
                own.putBytes(0, target, 0, matrices * 16);
            }
            if (r > 0)
            {
                product.apply(expected, 0, other, 0, matrices * 16);
            }
        }
        final UnsafeBuffer prefix = new UnsafeBuffer(new byte[matrices * 16]);
        comm.scan(own, 0, prefix, 0, matrices * 16, product);
        expect(prefix.compareTo(expected) == 0, "scan of matrices in rank order", round);

        final int block = Math.max(1, count / size);
        final long[] blocks = new long[block * size];
        for (int i = 0; i < blocks.length; i++)
        {
            blocks[i] = operand(rank, i, salt, Op.SUM);
        }
        final long[] reduced = new long[block];
        comm.reduceScatter(blocks, reduced, Op.SUM);
        for (int i = 0; i < block; i++)
        {
            long sum = 0;
            for (int r = 0; r < size; r++)
            {
                sum += operand(r, rank * block + i, salt, Op.SUM);
            }
            expect(reduced[i] == sum, "reduceScatter", round);
        }
    }

    /**
     * gatherv, scatterv, allGatherv and allToAllv with a random count per rank and gaps between blocks.
     */
    private static void vectors(final Communicator comm, final Random random, final int root, final long salt, final int round)
    {
        final int rank = comm.rank();
        final int size = comm.size();
        final int[] counts = new int[size];
        final int[] displacements = new int[size];
        int end = 0;
        for (int r = 0; r < size; r++)
        {
            counts[r] = LENGTHS[random.nextInt(LENGTHS.length)] / 8;
            displacements[r] = end + random.nextInt(16);
            end = displacements[r] + counts[r];
        }
        final byte[] all = new byte[end];
        for (int r = 0; r < size; r++)
        {
            fill(all, displacements[r], counts[r], r, salt);
        }
        final byte[] gathered = rank == root ? new byte[end] : null;
        comm.gatherv(filled(counts[rank], rank, salt), 0, counts[rank], gathered, counts, displacements, root);
        if (rank == root)
        {
            expect(blocksEqual(gathered, all, counts, displacements), "gatherv", round);
        }
        final byte[] part = new byte[counts[rank]];
        comm.scatterv(rank == root ? all : null, counts, displacements, part, 0, counts[rank], root);
        expect(Arrays.equals(part, filled(counts[rank], rank, salt)), "scatterv", round);
        final byte[] everyone = new byte[end];
        comm.allGatherv(filled(counts[rank], rank, salt), 0, counts[rank], everyone, counts, displacements);
        expect(blocksEqual(everyone, all, counts, displacements), "allGatherv", round);

        // rank r sends (r + d) % 5 * scale bytes to rank d, each block filled with (sender, receiver): up to 12,000
        // bytes, so that a block takes one step of a region or several, or is over its limit (point to point)
        final int scale = 1 + random.nextInt(3_000);
        final int[] sendCounts = new int[size];
        final int[] sendDisplacements = new int[size];
        final int[] recvCounts = new int[size];
        final int[] recvDisplacements = new int[size];
        int sendEnd = 0;
        int recvEnd = 0;
        for (int r = 0; r < size; r++)
        {
            sendCounts[r] = (rank + r) % 5 * scale;
            sendDisplacements[r] = sendEnd + 3;
            sendEnd = sendDisplacements[r] + sendCounts[r];
            recvCounts[r] = (r + rank) % 5 * scale;
            recvDisplacements[r] = recvEnd + 5;
            recvEnd = recvDisplacements[r] + recvCounts[r];
        }
        final byte[] out = new byte[sendEnd];
        for (int d = 0; d < size; d++)
        {
            fill(out, sendDisplacements[d], sendCounts[d], rank * 1000 + d, salt);
        }
        final byte[] in = new byte[recvEnd];
        comm.allToAllv(out, sendCounts, sendDisplacements, in, recvCounts, recvDisplacements);
        for (int source = 0; source < size; source++)
        {
            final byte[] expected = new byte[recvCounts[source]];
            fill(expected, 0, expected.length, source * 1000 + rank, salt);
            expect(Arrays.equals(Arrays.copyOfRange(in, recvDisplacements[source], recvDisplacements[source] + recvCounts[source]),
                expected), "allToAllv", round);
        }
    }

    private static boolean blocksEqual(final byte[] actual, final byte[] expected, final int[] counts, final int[] displacements)
    {
        for (int r = 0; r < counts.length; r++)
        {
            if (!Arrays.equals(actual, displacements[r], displacements[r] + counts[r], expected, displacements[r],
                displacements[r] + counts[r]))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * 2x2 integer matrices (16 bytes), multiplied in rank order: associative, not commutative.
     */
    private static void matrices(final Communicator comm, final int count, final int root, final long salt, final int round)
    {
        final ByteOperator product = matrixProduct();
        final int rank = comm.rank();
        final int size = comm.size();
        final int bytes = count * 16;
        final UnsafeBuffer mine = cells(salt, bytes);
        final UnsafeBuffer expected = cells(salt, bytes); // rank 0's, then times each next rank's
        final UnsafeBuffer exclusive = new UnsafeBuffer(new byte[bytes]);
        for (int r = 1; r < size; r++)
        {
            if (r == rank)
            {
                exclusive.putBytes(0, expected, 0, bytes);
                mine.putBytes(0, cells(salt + r, bytes), 0, bytes);
            }
            product.apply(expected, 0, cells(salt + r, bytes), 0, bytes);
        }
        final UnsafeBuffer result = new UnsafeBuffer(new byte[bytes]);
        comm.reduce(mine, 0, rank == root ? result : null, 0, bytes, product, root);
        expect(rank != root || result.compareTo(expected) == 0, "reduce matrices in rank order", round);
        final UnsafeBuffer everyone = new UnsafeBuffer(new byte[bytes]);
        comm.allReduce(mine, 0, everyone, 0, bytes, product);
        expect(everyone.compareTo(expected) == 0, "allReduce matrices in rank order", round);
        final UnsafeBuffer before = new UnsafeBuffer(new byte[bytes]);
        comm.exScan(mine, 0, before, 0, bytes, product);
        expect(rank == 0 || before.compareTo(exclusive) == 0, "exScan matrices in rank order", round);

        // reduceScatter: rank r's block d is cells(salt + 1000 * d + r); rank d gets their product over r
        final UnsafeBuffer blocks = new UnsafeBuffer(new byte[bytes * size]);
        for (int d = 0; d < size; d++)
        {
            blocks.putBytes(d * bytes, cells(salt + 1000L * d + rank, bytes), 0, bytes);
        }
        final UnsafeBuffer myBlock = cells(salt + 1000L * rank, bytes);
        for (int r = 1; r < size; r++)
        {
            product.apply(myBlock, 0, cells(salt + 1000L * rank + r, bytes), 0, bytes);
        }
        final UnsafeBuffer scattered = new UnsafeBuffer(new byte[bytes]);
        comm.reduceScatter(blocks, 0, scattered, 0, bytes, product);
        expect(scattered.compareTo(myBlock) == 0, "reduceScatter matrices in rank order", round);
    }

    /**
     * @return {@code bytes / 16} 2x2 matrices of small ints, drawn from {@code seed}.
     */
    private static UnsafeBuffer cells(final long seed, final int bytes)
    {
        final UnsafeBuffer cells = new UnsafeBuffer(new byte[bytes]);
        final Random random = new Random(seed);
        for (int i = 0; i < bytes / 4; i++)
        {
            cells.putInt(i * 4, random.nextInt(7) - 3);
        }
        return cells;
    }

    private static ByteOperator matrixProduct()
    {
        return (left, leftOffset, right, rightOffset, length) ->
        {
            for (int at = 0; at < length; at += 16)
            {
                final int[] a = read(left, leftOffset + at);
                final int[] b = read(right, rightOffset + at);
                left.putInt(leftOffset + at, a[0] * b[0] + a[1] * b[2]);
                left.putInt(leftOffset + at + 4, a[0] * b[1] + a[1] * b[3]);
                left.putInt(leftOffset + at + 8, a[2] * b[0] + a[3] * b[2]);
                left.putInt(leftOffset + at + 12, a[2] * b[1] + a[3] * b[3]);
            }
        };
    }

    private static int[] read(final org.agrona.DirectBuffer buffer, final int at)
    {
        return new int[]{ buffer.getInt(at), buffer.getInt(at + 4), buffer.getInt(at + 8), buffer.getInt(at + 12) };
    }

    /**
     * sendRecv around a ring (of arrays, and of ByteBuffers at their positions), waitAll/waitAny/testAll over
     * isends and irecvs, cancel of a posted receive, wtime.
     */
    private static void basics(final Communicator comm)
    {
        final int rank = comm.rank();
        final int size = comm.size();
        final int right = (rank + 1) % size;
        final int left = (rank - 1 + size) % size;
        final byte[] in = new byte[100_000];
        final byte[] out = new byte[100_000];
        Arrays.fill(out, (byte)rank);
        final Status status = comm.sendRecv(right, 3, out, left, 3, in);
        expect(status.source() == left && status.length() == out.length && in[99_999] == (byte)left, "sendRecv", 0);
        final ByteBuffer outBuffer = ByteBuffer.allocateDirect(64);
        outBuffer.put(8, (byte)(rank + 1)).position(8).limit(40);
        final ByteBuffer inBuffer = ByteBuffer.allocate(100).position(10);
        final Status viaBuffers = comm.sendRecv(right, 8, outBuffer, left, 8, inBuffer);
        expect(viaBuffers.source() == left && viaBuffers.length() == 32 && inBuffer.get(10) == (byte)(left + 1) &&
            inBuffer.position() == 10 && outBuffer.position() == 8, "sendRecv of ByteBuffers", 0);

        final Request[] requests = new Request[4];
        final byte[] a = new byte[8];
        final byte[] b = new byte[50_000];
        requests[0] = comm.irecv(left, 4, a);
        requests[1] = null; // MPI_REQUEST_NULL
        requests[2] = comm.irecv(left, 5, b);
        requests[3] = comm.isend(right, 5, new byte[50_000]);
        comm.send(right, 4, new byte[8]);
        final Status[] statuses = Request.waitAll(requests);
        expect(statuses[1] == null && statuses[0].length() == 8 && statuses[2].length() == 50_000, "waitAll", 0);
        expect(Request.testAll(requests), "testAll after waitAll", 0);

        final Request first = comm.irecv(left, 6, a);
        final Request never = comm.irecv(left, 7, a);
        comm.send(right, 6, new byte[3]);
        expect(Request.waitAny(never, first) == 1 && !never.isDone(), "waitAny", 0);
        expect(Request.testAny(never) == -1, "testAny", 0);
        comm.barrier(); // nobody sends tag 7 before every rank has checked that it has not arrived
        comm.send(right, 7, new byte[1]);
        expect(Request.waitSome(never).length == 1, "waitSome", 0);
        comm.barrier();

        final Request cancelled = comm.irecv(left, 9, a);
        expect(cancelled.cancel() && cancelled.isCancelled() && cancelled.isDone(), "cancel of a posted receive", 0);
        comm.barrier(); // no tag 9 is sent before every rank has cancelled its receive of it
        comm.send(right, 9, new byte[2]); // not taken by the cancelled receive: the next one gets it
        expect(comm.recv(left, 9, a).length() == 2, "a receive after a cancelled one", 0);
        final double start = Communicator.wtime();
        comm.barrier();
        expect(Communicator.wtime() >= start && Communicator.wtick() > 0 && Communicator.wtick() <= 1e-6, "wtime", 0);
    }

    /**
     * split by parity (ranked in reverse), dup, and UNDEFINED: sizes and ranks, traffic on the same tags in
     * the world and in the derived communicators at once (each receive for any source and any tag takes its
     * own communicator's message), collectives and barriers inside them, then the world again.
     */
    private static void split(final Communicator comm)
    {
        final int rank = comm.rank();
        final int size = comm.size();
        final int color = rank % 2;
        try (Communicator half = comm.split(color, -rank))
        {
            final int members = (size + 1 - color) / 2;
            expect(half.size() == members, "split size", 0);
            int expectedRank = 0;
            for (int r = rank + 2; r < size; r += 2)
            {
                expectedRank++; // ranked by key = -rank: higher world ranks first
            }
            expect(half.rank() == expectedRank, "split rank " + half.rank() + " of world rank " + rank, 0);

            final byte[] inWorld = new byte[8];
            final byte[] inHalf = new byte[8];
            final Request worldAny = comm.irecv(Communicator.ANY_SOURCE, Communicator.ANY_TAG, inWorld);
            final Request halfAny = half.irecv(Communicator.ANY_SOURCE, Communicator.ANY_TAG, inHalf);
            comm.send((rank + 1) % size, 5, new byte[]{ 1, (byte)rank });
            half.send((half.rank() + 1) % half.size(), 5, new byte[]{ 2, (byte)half.rank() });
            final Status worldStatus = worldAny.await();
            final Status halfStatus = halfAny.await();
            expect(inWorld[0] == 1 && worldStatus.source() == (rank - 1 + size) % size && worldStatus.tag() == 5 &&
                inWorld[1] == (byte)worldStatus.source(), "world traffic beside a split", 0);
            expect(inHalf[0] == 2 && halfStatus.source() == (half.rank() - 1 + half.size()) % half.size() &&
                halfStatus.tag() == 5 && inHalf[1] == (byte)halfStatus.source(), "split traffic beside the world", 0);

            final long[] sum = new long[1];
            half.allReduce(new long[]{ rank }, sum, Op.SUM);
            long expected = 0;
            for (int r = color; r < size; r += 2)
            {
                expected += r;
            }
            expect(sum[0] == expected, "allReduce in a split", 0);
            final byte[] root = { (byte)(half.rank() == 0 ? 42 : 0) };
            half.bcast(root, 0, 1, 0);
            expect(root[0] == 42, "bcast in a split", 0);
            half.barrier();
            expect(half.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG) == null, "nothing left in the split", 0);
            // the world's collectives and the split's, interleaved: each context has its own region and steps
            for (int round = 1; round <= 4; round++)
            {
                final long[] world = new long[1];
                final long[] mine = new long[1];
                comm.allReduce(new long[]{ rank + round }, world, Op.SUM);
                half.allReduce(new long[]{ (long)rank * round }, mine, Op.SUM);
                expect(world[0] == (long)size * (size - 1) / 2 + (long)size * round, "world allReduce, round " + round, 0);
                expect(mine[0] == expected * round, "split allReduce, round " + round, 0);
                final byte[] fromRoot = { (byte)(rank == round % size ? round : 0) };
                comm.bcast(fromRoot, 0, 1, round % size);
                half.barrier();
                expect(fromRoot[0] == round, "world bcast between the split's collectives, round " + round, 0);
            }
        }
        try (Communicator copy = comm.dup())
        {
            expect(copy.rank() == rank && copy.size() == size, "dup", 0);
            final byte[] inWorld = new byte[1];
            final byte[] inCopy = new byte[1];
            final Request worldReceive = comm.irecv((rank - 1 + size) % size, 7, inWorld);
            final Request copyReceive = copy.irecv((rank - 1 + size) % size, 7, inCopy);
            copy.send((rank + 1) % size, 7, new byte[]{ 3 }); // the copy's first: the world's receive must not take it
            comm.send((rank + 1) % size, 7, new byte[]{ 4 });
            Request.waitAll(worldReceive, copyReceive);
            expect(inWorld[0] == 4 && inCopy[0] == 3, "dup traffic on the world's tag", 0);
            for (int round = 1; round <= 4; round++)
            {
                final long[] inCopySum = new long[1];
                final long[] inWorldMax = new long[1];
                copy.allReduce(new long[]{ (long)rank * round }, inCopySum, Op.SUM);
                comm.allReduce(new long[]{ rank + round }, inWorldMax, Op.MAX);
                expect(inCopySum[0] == (long)size * (size - 1) / 2 * round && inWorldMax[0] == size - 1 + round,
                    "dup and world allReduces interleaved, round " + round, 0);
            }
            final Communicator none = copy.split(rank == 0 ? Communicator.UNDEFINED : 1, 0);
            expect(rank == 0 ? none == null : none != null && none.size() == size - 1 && none.rank() == rank - 1, "UNDEFINED", 0);
            if (none != null)
            {
                none.barrier();
                none.close();
                try
                {
                    none.barrier();
                    expect(false, "a closed split refuses calls", 0);
                }
                catch (final IllegalStateException expected)
                {
                    expect(expected.getMessage().contains("closed"), "closed: " + expected.getMessage(), 0);
                }
            }
            try
            {
                copy.send(rank, Integer.MAX_VALUE, new byte[0]);
                expect(false, "a tag above the bound", 0);
            }
            catch (final IllegalArgumentException expected)
            {
                expect(expected.getMessage().equals("tag=2147483647 (expected: 0..1048575 in a communicator made by split or dup)"),
                    expected.getMessage(), 0);
            }
        }
        final Communicator closed = comm.dup();
        final Request stale = closed.irecv(Communicator.ANY_SOURCE, Communicator.ANY_TAG, new byte[1]);
        closed.close();
        try (Communicator next = comm.dup())
        {
            final byte[] got = new byte[1];
            final Request receive = next.irecv((rank - 1 + size) % size, 8, got);
            next.send((rank + 1) % size, 8, new byte[]{ 9 });
            receive.await();
            expect(got[0] == 9 && !stale.isDone(), "a closed communicator's receive took a later one's message", 0);
        }
        comm.barrier();
        System.out.println("split ok " + rank);
    }

    private static void isolation(final Communicator comm)
    {
        final Request any = comm.rank() == 0 ? null : comm.irecv(Communicator.ANY_SOURCE, Communicator.ANY_TAG, new byte[64]);
        final byte[] data = new byte[16];
        comm.bcast(data, 0, 16, 0);
        comm.barrier();
        if (any != null)
        {
            expect(!any.test(), "a receive for any tag stayed posted through the bcast", 0);
        }
        comm.barrier(); // rank 0 sends its user message once every rank has checked
        if (comm.rank() == 0)
        {
            for (int r = 1; r < comm.size(); r++)
            {
                comm.send(r, 9, new byte[]{ 42 });
            }
        }
        else
        {
            final Status status = any.await();
            expect(status.tag() == 9 && status.length() == 1, "the receive for any tag took the user's message", 0);
        }
        System.out.println("isolated " + comm.rank());
    }

    private static long operand(final int rank, final int i, final long salt, final Op op)
    {
        final long mixed = (salt ^ (rank * 0x9E3779B97F4A7C15L) ^ (i * 0xC2B2AE3D27D4EB4FL)) >>> 3;
        // small magnitudes keep floating-point products and sums exact; no zero factor (-0.0 is not 0.0 bitwise)
        return op == Op.PROD ? new long[]{ -2, -1, 1, 2 }[(int)(mixed % 4)] : mixed % 2001 - 1000;
    }

    private static byte[] doubleBytes(final double[] values)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[values.length * Double.BYTES]);
        for (int i = 0; i < values.length; i++)
        {
            buffer.putDouble(i * Double.BYTES, values[i]);
        }
        return buffer.byteArray();
    }

    private static byte[] concatenation(final int length, final int size, final long salt)
    {
        final byte[] all = new byte[length * size];
        for (int r = 0; r < size; r++)
        {
            fill(all, r * length, length, r, salt);
        }
        return all;
    }

    private static byte[] filled(final int length, final int rank, final long salt)
    {
        final byte[] data = new byte[length];
        fill(data, rank, salt);
        return data;
    }

    /**
     * {@code inplace ROUNDS [refuse]}: {@link #inPlace(Communicator, int)} on an endpoint that reads its peers'
     * processes where the machine lets it (with {@code refuse}, rank 1 does not: then no rank leaves its off-heap
     * data in place); prints "in place ok R, read N bytes out of peers' processes".
     */
    private static void inPlace(final int rounds, final boolean refuse)
    {
        final int rank = Integer.parseInt(System.getenv(Endpoints.RANK_ENV));
        final TransportOptions env = TransportOptions.fromEnvironment(System.getenv());
        final Endpoint endpoint = Endpoints.attach(Path.of(System.getenv(Endpoints.SEGMENT_ENV)), rank,
            Integer.parseInt(System.getenv(Endpoints.SIZE_ENV)), refuse && rank == 1 ? env.withPeerReads(TransportOptions.PeerReads.OFF) : env);
        try (Communicator comm = new Communicator(endpoint))
        {
            inPlace(comm, rounds);
            final PeerMemory reader = endpoint.peerMemory();
            final long read = reader == null ? 0 : reader.bytesRead();
            System.out.println("in place ok " + rank + ", read " + read + " bytes out of peers' processes");
            if (refuse)
            {
                // the ranks but 1 in a communicator of their own (with a region of its own): they all read
                try (Communicator others = comm.split(rank == 1 ? 1 : 0, rank))
                {
                    allGatherFromDirect(others);
                }
                System.out.println("split ok " + rank + ", read " + ((reader == null ? 0 : reader.bytesRead()) - read) +
                    " bytes out of peers' processes");
            }
        }
    }

    /**
     * {@code unmapped}: rank 0 bcasts 512 KiB (in place wherever reads are on: at least 256 KiB, and within the
     * region's steps, so never point to point) from {@link #UNMAPPED}, an address no process has, so each other
     * rank's read of it out of rank 0's process fails: the job must end with the one line that names the rank and
     * the address, not with a crash or a wait. Rank 0 never touches the address itself: it offers its data in place
     * only where every rank has found it can read the others ({@link Endpoint#readEachOther}), which it checks
     * first (exit code 3 if not).
     */
    private static void unmapped()
    {
        final Endpoint endpoint = Endpoints.attachFromEnvironment();
        final int rank = endpoint.rank();
        try (Communicator comm = new Communicator(endpoint))
        {
            comm.barrier(); // every rank attached, so every rank has checked its reads
            if (!endpoint.readEachOther(IntStream.range(0, endpoint.size()).toArray()))
            {
                System.out.println("the ranks do not read each other's processes here");
                System.exit(3);
            }
            // the root's data at an address no process has; the others receive into memory of their own
            final int length = 512 * 1024;
            final UnsafeBuffer buffer = rank == 0 ? new UnsafeBuffer(UNMAPPED, length) : new UnsafeBuffer(ByteBuffer.allocateDirect(length));
            comm.bcast(buffer, 0, length, 0);
            System.out.println("bcast from an unmapped address returned on rank " + rank);
        }
    }

    /**
     * {@code choose}: three allToAlls of 64 KiB blocks from direct memory, each checked; prints "choose ok R, read
     * A B C" with the bytes each call read out of peers' processes. By default a rank chooses, per kind of call and
     * size, between leaving its data in place and copying it into its half: the first call's data is left in
     * place, the second's copied, the third's as was the faster.
     */
    private static void choose()
    {
        final int rank = Integer.parseInt(System.getenv(Endpoints.RANK_ENV));
        final Endpoint endpoint = Endpoints.attach(Path.of(System.getenv(Endpoints.SEGMENT_ENV)), rank,
            Integer.parseInt(System.getenv(Endpoints.SIZE_ENV)), TransportOptions.fromEnvironment(System.getenv()));
        try (Communicator comm = new Communicator(endpoint))
        {
            final int block = 1 << 16;
            final int n = comm.size();
            final UnsafeBuffer send = new UnsafeBuffer(ByteBuffer.allocateDirect(block * n));
            final UnsafeBuffer recv = new UnsafeBuffer(ByteBuffer.allocateDirect(block * n));
            final PeerMemory reader = endpoint.peerMemory();
            final StringBuilder read = new StringBuilder();
            // every rank has checked it can read the others before its attach returned: after this barrier each knows
            // the others have, and the first call is the first that may leave data in place (else a peer still
            // checking makes it the second)
            comm.barrier();
            for (int call = 0; call < 3; call++)
            {
                final byte[] data = new byte[block];
                for (int d = 0; d < n; d++)
                {
                    fill(data, rank * n + d, call);
                    send.putBytes(d * block, data);
                }
                final long before = reader == null ? 0 : reader.bytesRead();
                comm.allToAll(send, 0, recv, 0, block);
                read.append(' ').append((reader == null ? 0 : reader.bytesRead()) - before);
                for (int p = 0; p < n; p++)
                {
                    fill(data, p * n + rank, call);
                    final byte[] got = new byte[block];
                    recv.getBytes(p * block, got);
                    expect(Arrays.equals(got, data), "allToAll of 64 KiB blocks, rank " + p + "'s block,", call);
                }
            }
            System.out.println("choose ok " + rank + ", read" + read);
        }
    }

    /**
     * An allGather of 300,000 bytes per rank from direct memory into direct memory, each rank's block checked.
     */
    private static void allGatherFromDirect(final Communicator comm)
    {
        final int length = 300_000;
        final int n = comm.size();
        final byte[] pattern = new byte[length];
        fill(pattern, comm.rank(), 7);
        final UnsafeBuffer send = new UnsafeBuffer(ByteBuffer.allocateDirect(length));
        send.putBytes(0, pattern);
        final UnsafeBuffer recv = new UnsafeBuffer(ByteBuffer.allocateDirect(length * n));
        comm.allGather(send, 0, length, recv, 0);
        for (int p = 0; p < n; p++)
        {
            fill(pattern, p, 7);
            final byte[] block = new byte[length];
            recv.getBytes(p * length, block);
            expect(Arrays.equals(block, pattern), "allGather of " + length + " bytes in a split, rank " + p + "'s block,", 0);
        }
    }

    /**
     * bcast, allGather and allToAll whose ranks send from shared buffers (read in place from 8 KiB per rank or
     * block), from direct memory (read out of the rank's process from 32 KiB blocks, where every rank reads
     * processes; with ranks sharing cores, from 256 KiB left in place),
     * from arrays, or from a shared buffer's view that is no longer its own memory (direct memory then), mixed per
     * round and rank, or all shared, or all direct: lengths around the limits and over several steps of the
     * region, at an offset into the buffer. Each rank overwrites its send buffer as soon as the call returns: a
     * rank that returned while a peer still read its buffer in place shows as those bytes in the peer's result.
     */
    private static void inPlace(final Communicator comm, final int rounds)
    {
        final int n = comm.size();
        final int[] lengths = { 8191, 8192, 20_000, 32_767, 32_768, 65_536, 300_000 };
        final int offset = 24;
        final int largest = 300_000;
        final MutableDirectBuffer shared = comm.allocate(offset + largest * n);
        final UnsafeBuffer copied = new UnsafeBuffer(new byte[offset + largest * n]);
        final UnsafeBuffer direct = new UnsafeBuffer(ByteBuffer.allocateDirect(offset + largest * n));
        final UnsafeBuffer rewrapped = new UnsafeBuffer(0, 0);
        final byte[] pattern = new byte[largest * n];
        final byte[] received = new byte[largest * n];
        final UnsafeBuffer heapRecv = new UnsafeBuffer(received);
        final UnsafeBuffer directRecv = new UnsafeBuffer(ByteBuffer.allocateDirect(largest * n));
        for (int round = 0; round < rounds; round++)
        {
            final int length = lengths[round % lengths.length];
            final boolean toAll = (round / lengths.length) % 2 == 1;
            // 0: shared, 1: an array, 2: the shared buffer re-wrapped, 3: direct; every sixth round all shared and
            // every sixth all direct (then read whole in the first step)
            final int kind = round % 6 == 5 ? 0 : round % 6 == 4 ? 3 : (round + comm.rank()) % 4;
            if (kind == 2)
            {
                rewrapped.wrap(shared.addressOffset(), shared.capacity());
            }
            final MutableDirectBuffer send = kind == 0 ? shared : kind == 1 ? copied : kind == 2 ? rewrapped : direct;
            final int sent = toAll ? length * n : length;
            fill(pattern, 0, sent, comm.rank(), round);
            send.putBytes(offset, pattern, 0, sent);
            Arrays.fill(received, (byte)0);
            final int root = round % n;
            if (comm.rank() == root)
            {
                send.putBytes(offset, pattern, 0, length);
            }
            // results into arrays, or (every other six rounds, so each kind of round above meets both) into direct
            // memory: a read out of a process straight into it
            final boolean intoDirect = (round / 6) % 2 == 1;
            if (intoDirect)
            {
                directRecv.setMemory(0, directRecv.capacity(), (byte)0);
            }
            final UnsafeBuffer recv = intoDirect ? directRecv : heapRecv;
            final UnsafeBuffer bcast = comm.rank() == root ? null :
                intoDirect ? new UnsafeBuffer(ByteBuffer.allocateDirect(length)) : new UnsafeBuffer(new byte[length]);
            comm.bcast(bcast == null ? send : bcast, bcast == null ? offset : 0, length, root);
            if (comm.rank() == root)
            {
                send.setMemory(offset, length, (byte)-1); // at once: a peer still reading it in place would see this
                send.putBytes(offset, pattern, 0, sent);
            }
            else
            {
                final byte[] theirs = new byte[length];
                fill(theirs, 0, length, root, round);
                final byte[] got = new byte[length];
                bcast.getBytes(0, got);
                expect(Arrays.equals(got, theirs), "bcast of " + length + " bytes from rank " + root, round);
            }
            if (toAll)
            {
                comm.allToAll(send, offset, recv, 0, length);
            }
            else
            {
                comm.allGather(send, offset, length, recv, 0);
            }
            send.setMemory(offset, sent, (byte)-1); // at once: a peer still reading it in place would see this
            if (intoDirect)
            {
                directRecv.getBytes(0, received, 0, length * n);
            }
            for (int p = 0; p < n; p++)
            {
                fill(pattern, 0, sent, p, round);
                final int from = toAll ? comm.rank() * length : 0;
                expect(Arrays.equals(received, p * length, (p + 1) * length, pattern, from, from + length),
                    (toAll ? "allToAll" : "allGather") + " of " + length + " bytes, rank " + p + "'s block,", round);
            }
        }
    }

    private static void fill(final byte[] data, final int rank, final long salt)
    {
        fill(data, 0, data.length, rank, salt);
    }

    private static void fill(final byte[] data, final int offset, final int length, final int rank, final long salt)
    {
        for (int i = 0; i < length; i++)
        {
            data[offset + i] = (byte)(salt + rank * 31 + i * 7 + (i >> 8));
        }
    }

    private static void expect(final boolean holds, final String what, final int round)
    {
        if (!holds)
        {
            throw new IllegalStateException(what + " gave a wrong result in round " + round);
        }
    }
}
