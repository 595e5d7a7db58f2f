package io.sm4j.collective;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * The data movers over typed arrays ({@code int[]}, {@code long[]}, {@code float[]}, {@code double[]}):
 * each array is packed into bytes with one bulk copy, moved by the byte collectives of {@link Collectives}
 * (through the communicator's region or point to point, as their lengths decide) and unpacked the same way.
 * Counts are in elements: for gather, scatter, allGather and allToAll the n-block array holds n times the
 * one-block array's elements. Not thread-safe, as {@link Collectives}.
 */
public final class ArrayCollectives
{
    private final Collectives collectives;
    private final int rank;
    private final int size;
    /** The bytes sent and received; grown as needed, never shrunk. */
    private UnsafeBuffer out = new UnsafeBuffer(new byte[64]);
    private UnsafeBuffer in = new UnsafeBuffer(new byte[64]);

    public ArrayCollectives(final Collectives collectives, final int rank, final int size)
    {
        this.collectives = collectives;
        this.rank = rank;
        this.size = size;
    }

    /**
     * The root's {@code values} into every rank's (MPI_Bcast); every rank passes an array of the same length.
     */
    public void bcast(final Object values, final ElementType type, final int root)
    {
        final int count = type.length(values, "values");
        out = grown(out, bytes(count, type));
        if (rank == root)
        {
            type.pack(values, count, out);
        }
        collectives.bcast(out, 0, count * type.bytes, root);
        if (rank != root)
        {
            type.unpack(out, values, count);
        }
    }

    /**
     * Every rank's {@code send} into the root's {@code recv}, rank r's at element {@code r * send.length}
     * ({@code recv} may be null on the other ranks).
     */
    public void gather(final Object send, final Object recv, final ElementType type, final int root)
    {
        final int count = type.length(send, "send");
        if (rank == root)
        {
            checkBlocks(recv, type, count);
        }
        pack(send, type, count, 1);
        in = grown(in, rank == root ? bytes(count, type) * size : 0);
        collectives.gather(out, 0, count * type.bytes, rank == root ? in : null, 0, root);
        if (rank == root)
        {
            type.unpack(in, recv, count * size);
        }
    }

    /**
     * Rank r receives the root's elements {@code r * recv.length} on into {@code recv} ({@code send} may be
     * null on the other ranks).
     */
    public void scatter(final Object send, final Object recv, final ElementType type, final int root)
    {
        final int count = type.length(recv, "recv");
        if (rank == root)
        {
            checkBlocks(send, type, count);
            pack(send, type, count, size); // n blocks of what every rank checks: the same limit on every rank
        }
        in = grown(in, bytes(count, type));
        collectives.scatter(rank == root ? out : null, 0, in, 0, count * type.bytes, root);
        type.unpack(in, recv, count);
    }

    /**
     * Every rank's {@code send} into every rank's {@code recv}, rank r's at element {@code r * send.length}.
     */
    public void allGather(final Object send, final Object recv, final ElementType type)
    {
        final int count = type.length(send, "send");
        checkBlocks(recv, type, count);
        pack(send, type, count, 1);
        in = grown(in, bytes(count, type) * size);
        collectives.allGather(out, 0, count * type.bytes, in, 0);
        type.unpack(in, recv, count * size);
    }

    /**
     * Rank r's block d ({@code send.length / n} elements from {@code d * send.length / n}) becomes rank d's
     * block r in {@code recv}; {@code send} and {@code recv} have the same length, a multiple of n.
     */
    public void allToAll(final Object send, final Object recv, final ElementType type)
    {
        final int total = type.length(send, "send");
        if (total % size != 0)
        {
            throw new IllegalArgumentException("send has " + total + " elements: not a multiple of the " + size + " ranks");
        }
        final int block = total / size;
        checkBlocks(recv, type, block);
        pack(send, type, block, size);
        in = grown(in, bytes(block, type) * size);
        collectives.allToAll(out, 0, in, 0, block * type.bytes);
        type.unpack(in, recv, total);
    }

    /**
     * Packs {@code blocks} blocks of {@code count} elements (the checks of {@link #bytes} are on one block).
     */
    private void pack(final Object values, final ElementType type, final int count, final int blocks)
    {
        out = grown(out, bytes(count, type) * blocks);
        type.pack(values, count * blocks, out);
    }

    /**
     * @throws IllegalArgumentException unless {@code values} holds n blocks of {@code block} elements.
     */
    private void checkBlocks(final Object values, final ElementType type, final int block)
    {
        final int count = type.length(values, "the n-block array");
        if ((long)block * size != count)
        {
            throw new IllegalArgumentException("the n-block array has " + count + " elements (expected: " + size +
                " x " + block + " = " + (long)block * size + ")");
        }
    }

    private int bytes(final int count, final ElementType type)
    {
        final long bytes = (long)count * type.bytes;
        if (bytes * size > Integer.MAX_VALUE - 8)
        {
            throw new IllegalArgumentException(count + " elements of " + type.name().toLowerCase() + " on " + size +
                " ranks: more than one collective moves (2 GiB in all)");
        }
        return (int)bytes;
    }

    private static UnsafeBuffer grown(final UnsafeBuffer buffer, final int length)
    {
        return buffer.capacity() >= length ? buffer : new UnsafeBuffer(new byte[length]);
    }
}
