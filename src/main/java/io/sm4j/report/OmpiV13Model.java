package io.sm4j.report;

import io.sm4j.layout.Category;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.Policy;

import java.util.EnumMap;
import java.util.Map;

/**
 * Open MPI 1.3.0's sm BTL shared-memory allocations during MPI_Init, byte for byte, with its own structure
 * sizes (LP64). Used by {@code sm4j report --profile ompi-1.3} to validate the accounting method against the
 * RFC's published table; docs/memory.md derives every constant.
 * <p>
 * Every {@code mpool_alloc(size, align)} consumes {@code roundUp8(size + align + 32)} bytes: the bucket
 * allocator adds two 16-byte headers, the mmap segment allocator pads to 8 bytes, and an aligned
 * allocation reserves {@code size + alignment}. The PAGE columns use the page size as the reserve (stock
 * 1.3.0); CACHELINE and AGGREGATED use the cacheline (the RFC's patch).
 * <p>
 * RFC "other" row = {@link Category#FIFO_DESCRIPTORS} + {@link Category#MAX_POOLS}; the RFC's aggregated
 * "FIFOs and CBs" row = FIFO descriptors + the three CB rows.
 */
public final class OmpiV13Model implements MemoryModel
{
    /** Bucket allocator: chunk_header_t (16) + segment_head_t (16). */
    static final long ALLOCATOR_HEADER = 32;
    /** ompi_cb_fifo_wrapper_t: ompi_cb_fifo_t (5 pointers + 2 ints = 48) + next pointer + bool, padded. */
    static final long CB_WRAPPER = 64;
    /** ompi_cb_fifo_ctl_t, the head or tail: opal_atomic_lock_t (4) + 2 ints. */
    static final long CB_CTL = 12;
    /** ompi_fifo_t: lock + pad, 2 lock pointers, 2 ints, 3 mpool pointers, offset, head and tail pointers. */
    static final long FIFO = 80;
    /** mca_btl_sm_hdr_t in front of every fragment's payload. */
    static final long FRAGMENT_HEADER = 24;
    /** Queue pointers are 8 bytes (LP64). */
    static final long POINTER = 8;
    /** btl_sm_free_list_num: initial elements of each free list. */
    static final int FREE_LIST_NUM = 8;
    /** btl_sm_free_list_inc: elements per later grow of a free list. */
    static final int FREE_LIST_INC = 64;
    /** btl_sm_sm_extra_procs: FIFO arrays are sized for n + 2 processes. */
    static final int EXTRA_PROCS = 2;
    /** btl_sm_eager_limit: bytes of an eager fragment's payload, the sm BTL's header not included. */
    public static final int EAGER_LIMIT = 4096;

    /**
     * @param peers ranks on the node.
     * @return sm4j's defaults for {@code peers} ranks with Open MPI 1.3's eager limit: the RFC's case.
     */
    public static LayoutParams defaults(final int peers)
    {
        return LayoutParams.builder(peers).eagerLimit(EAGER_LIMIT).build();
    }

    @Override
    public Map<Category, Long> bytes(final LayoutParams params)
    {
        final long n = params.peers();
        final long cl = params.cacheline();
        final long reserve = params.policy() == Policy.PAGE ? params.pageSize() : cl;
        final long eagerElement = roundUp(FRAGMENT_HEADER + params.eagerLimit(), cl);
        final long maxElement = roundUp(FRAGMENT_HEADER + params.maxFragSize(), cl);
        final long queue = params.queueEntries() * POINTER;

        final EnumMap<Category, Long> bytes = new EnumMap<>(Category.class);
        bytes.put(Category.EAGER_POOLS, n * eagerFreeList(n, eagerElement, reserve));
        bytes.put(Category.MAX_POOLS, n * alloc(FREE_LIST_NUM * maxElement, reserve));
        bytes.put(Category.HEADER_AND_CONTROL, 0L);
        final long fifoArray = (n + EXTRA_PROCS) * FIFO;
        if (params.policy() == Policy.AGGREGATED)
        {
            // One allocation per receiver: FIFO array | n queues | n interleaved head+tail | n wrappers, each
            // group cacheline-rounded. The block counts n CBs, self included, and no tail cacheline.
            final long block = roundUp(fifoArray, cl) + roundUp(n * queue, cl) + roundUp(n * 2 * CB_CTL, cl) +
                n * CB_WRAPPER;
            bytes.put(Category.FIFO_DESCRIPTORS, n * (alloc(block, cl) - block + roundUp(fifoArray, cl)));
            bytes.put(Category.CB_QUEUES_AND_TAILS, n * (roundUp(n * queue, cl) + roundUp(n * 2 * CB_CTL, cl) - n * CB_CTL));
            bytes.put(Category.CB_HEADS, n * n * CB_CTL);
            bytes.put(Category.CB_WRAPPERS, n * n * CB_WRAPPER);
        }
        else
        {
            final long cbs = n * (n - 1);
            bytes.put(Category.FIFO_DESCRIPTORS, n * alloc(fifoArray, reserve));
            bytes.put(Category.CB_WRAPPERS, cbs * alloc(CB_WRAPPER, reserve));
            // The queue and its tail were one allocation: the tail takes one cacheline after the pointers.
            bytes.put(Category.CB_QUEUES_AND_TAILS, cbs * alloc(queue + cl, reserve));
            bytes.put(Category.CB_HEADS, cbs * alloc(CB_CTL, reserve));
        }
        return bytes;
    }

    /**
     * The eager free list starts with {@link #FREE_LIST_NUM} elements, then add_procs resizes it to 2n
     * in grows of {@link #FREE_LIST_INC}, each grow one aligned allocation.
     */
    static long eagerFreeList(final long n, final long element, final long reserve)
    {
        long bytes = alloc(FREE_LIST_NUM * element, reserve);
        for (long have = FREE_LIST_NUM; have < 2 * n; have += FREE_LIST_INC)
        {
            bytes += alloc(FREE_LIST_INC * element, reserve);
        }
        return bytes;
    }

    static long alloc(final long size, final long reserve)
    {
        return roundUp(size + reserve + ALLOCATOR_HEADER, Long.BYTES);
    }

    private static long roundUp(final long value, final long alignment)
    {
        return (value + alignment - 1) / alignment * alignment;
    }
}
