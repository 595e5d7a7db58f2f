package io.sm4j.layout;

import java.util.EnumMap;
import java.util.Map;

/**
 * Where every byte of the per-node segment goes. The file's size IS {@link #totalBytes()}; the segment
 * creator, every attaching rank, the memory report and the tests all use this one computation. All
 * offsets are arithmetic (O(1) per query, O(1) to compute): no per-pair tables.
 * <pre>
 *  +--------------------------------------------------------------+ 0
 *  | segment header (SegmentHeaderDescriptor)                     |
 *  | control block rank 0 .. n-1 (owner line | activity bitmap)   |
 *  | doorbell rank 0 .. n-1 (DoorbellDescriptor, a line each)      |
 *  | counters rank 0 .. n-1 (CountersDescriptor, whole lines each) |
 *  +--------------------------------------------------------------+ section 1 + r: CB region of receiver r
 *  | AGGREGATED (RFC section 2), for receiver r, each group on a   |
 *  | cacheline boundary:                                          |
 *  |   FIFO descriptor s -> r          for every s != r           |
 *  |   --- cacheline ---                                          |
 *  |   queue of CB s -> r              for every s != r           |
 *  |   --- cacheline ---                                          |
 *  |   head of CB r -> p | tail of CB p -> r   for every p != r   |
 *  |     (MULTIPLE thread mode: each on its own cacheline)        |
 *  |   --- cacheline ---                                          |
 *  |   wrapper of CB s -> r            for every s != r           |
 *  |   eager credits s -> r (64 bits) for every s != r            |
 *  |   fast box directory, then min(fastBoxes, n-1) fast boxes    |
 *  |     (FastBoxDescriptor; every policy, cacheline-aligned)     |
 *  | PAGE / CACHELINE: the same components, each its own aligned  |
 *  | allocation reserving size + alignment bytes                  |
 *  +--------------------------------------------------------------+ section 1 + n + s: pools of sender s
 *  | eager fragments of s   (eagerFragsPerPeer per receiver, in receiver order) |
 *  | max fragments of s     (maxFragsPerRank, cacheline-aligned stride)        |
 *  | collective slot of s in context 0 .. collectiveContexts-1             |
 *  |   (CollectiveSlotDescriptor: a line of s's words, then s's buffer)      |
 *  +--------------------------------------------------------------+ totalBytes()
 * </pre>
 * Queues are local to receivers, heads to senders and tails to receivers; wrappers and descriptors never
 * share a line with a head or tail. Every region is aligned to the policy's alignment (page for
 * {@link Policy#PAGE}, cacheline otherwise), so every region has the same relative layout.
 */
public final class SegmentLayout
{
    /** Sections are mapped separately; one must fit one {@code MappedByteBuffer}. */
    public static final long MAX_SECTION_LENGTH = Integer.MAX_VALUE;

    private final LayoutParams params;
    private final int peers;
    private final long controlBlocksOffset;
    private final long controlBlockStride;
    private final long doorbellsOffset;
    private final long doorbellStride;
    private final long countersOffset;
    private final long countersStride;
    private final long cbRegionsOffset;
    private final long cbRegionStride;
    private final long poolRegionsOffset;
    private final long poolRegionStride;
    private final Run descriptors;
    private final Run queues;
    private final Run heads;
    private final Run tails;
    private final Run wrappers;
    private final Run eagerFragments;
    private final Run maxFragments;
    private final Run credits;
    private final Run fastBoxDirectory;
    private final Run fastBoxes;
    private final Run collectiveSlots;
    private final long totalBytes;
    private final EnumMap<Category, Long> bytesByCategory = new EnumMap<>(Category.class);

    private SegmentLayout(final LayoutParams params)
    {
        this.params = params;
        this.peers = params.peers();
        final int n = peers;
        final int inbound = n - 1;
        final long cacheline = params.cacheline();
        final long regionAlign = params.policy() == Policy.PAGE ? params.pageSize() : cacheline;

        final RegionBuilder header = new RegionBuilder();
        header.packed(Category.HEADER_AND_CONTROL, 1, SegmentHeaderDescriptor.LENGTH, cacheline);
        final Run controlBlocks = header.packed(
            Category.HEADER_AND_CONTROL, n, ControlBlockDescriptor.stride(params.cacheline(), n), cacheline);
        controlBlocksOffset = controlBlocks.start();
        controlBlockStride = controlBlocks.stride();
        final Run bells = header.packed(Category.DOORBELLS, n, DoorbellDescriptor.stride(params.cacheline()), cacheline);
        doorbellsOffset = bells.start();
        doorbellStride = bells.stride();
        final Run counters = header.packed(Category.COUNTERS, n, CountersDescriptor.stride(params.cacheline()), cacheline);
        countersOffset = counters.start();
        countersStride = counters.stride();
        cbRegionsOffset = header.finish(Category.HEADER_AND_CONTROL, regionAlign);

        final RegionBuilder cb = new RegionBuilder();
        final long queueBytes = (long)params.queueEntries() * CbIndexDescriptor.SLOT_LENGTH;
        if (params.policy() == Policy.AGGREGATED)
        {
            descriptors = cb.packed(Category.FIFO_DESCRIPTORS, inbound, FifoDescriptor.LENGTH, cacheline);
            queues = cb.packed(Category.CB_QUEUES_AND_TAILS, inbound, Align.up(queueBytes, cacheline), cacheline);
            final long slot = params.threadMode() == ThreadMode.MULTIPLE ? cacheline : CbIndexDescriptor.HEAD_LENGTH;
            final Run pairs = cb.pairs(
                Category.CB_HEADS, Category.CB_QUEUES_AND_TAILS, inbound, slot, slot, cacheline);
            heads = pairs;
            tails = new Run(pairs.start() + slot, inbound, pairs.stride(), 1);
            wrappers = cb.packed(Category.CB_WRAPPERS, inbound, CbWrapperDescriptor.LENGTH, cacheline);
        }
        else
        {
            // Open MPI allocated each receiver's array of FIFO descriptors as one cacheline-aligned block.
            descriptors = new Run(
                cb.separate(Category.FIFO_DESCRIPTORS, 1, (long)inbound * FifoDescriptor.LENGTH, cacheline)
                    .offset(0), inbound, FifoDescriptor.LENGTH, 1);
            wrappers = cb.separate(Category.CB_WRAPPERS, inbound, CbWrapperDescriptor.LENGTH, regionAlign);
            queues = cb.separate(Category.CB_QUEUES_AND_TAILS, inbound, queueBytes, regionAlign);
            tails = cb.separate(Category.CB_QUEUES_AND_TAILS, inbound, CbIndexDescriptor.TAIL_LENGTH, regionAlign);
            heads = cb.separate(Category.CB_HEADS, inbound, CbIndexDescriptor.HEAD_LENGTH, regionAlign);
        }
        credits = cb.packed(Category.EAGER_CREDITS, inbound, Long.BYTES, cacheline);
        final int boxes = params.fastBoxesPerReceiver();
        if (boxes > 0)
        {
            fastBoxDirectory = cb.packed(Category.FAST_BOXES, boxes, FastBoxDescriptor.OWNER_LENGTH, cacheline);
            fastBoxes = cb.packed(
                Category.FAST_BOXES, boxes, FastBoxDescriptor.stride(params.cacheline(), params.fastBoxSize()), cacheline);
        }
        else
        {
            fastBoxDirectory = new Run(0, 0, 1, 1);
            fastBoxes = fastBoxDirectory;
        }
        cbRegionStride = cb.finish(Category.CB_WRAPPERS, regionAlign);

        final RegionBuilder pools = new RegionBuilder();
        eagerFragments = pools.packed(
            Category.EAGER_POOLS, Math.multiplyExact(params.eagerFragsPerPeer(), n),
            Align.up(params.eagerLimit(), cacheline), cacheline);
        maxFragments = pools.packed(
            Category.MAX_POOLS, params.maxFragsPerRank(), Align.up(params.maxFragSize(), cacheline), cacheline);
        collectiveSlots = pools.packed(Category.COLLECTIVES, params.collectiveContexts(),
            CollectiveSlotDescriptor.stride(params.cacheline(), params.collectiveBufferSize()), cacheline);
        poolRegionStride = pools.finish(Category.MAX_POOLS, regionAlign);

        poolRegionsOffset = Math.addExact(cbRegionsOffset, Math.multiplyExact(n, cbRegionStride));
        totalBytes = Math.addExact(poolRegionsOffset, Math.multiplyExact(n, poolRegionStride));

        bytesByCategory.putAll(header.bytes());
        cb.bytes().forEach((category, bytes) -> bytesByCategory.merge(category, Math.multiplyExact(bytes, n), Math::addExact));
        pools.bytes().forEach((category, bytes) -> bytesByCategory.merge(category, Math.multiplyExact(bytes, n), Math::addExact));

        checkSection("CB region of one receiver", cbRegionStride, "peers or queueEntries");
        checkSection("fragment pools and collective slots of one rank", poolRegionStride,
            "peers, eagerLimit, eagerFragsPerPeer, maxFragSize, maxFragsPerRank or collectiveContexts");
    }

    /**
     * @param params validated layout parameters.
     * @return the layout.
     * @throws IllegalArgumentException if the segment's size overflows a long or a section exceeds
     *                                  {@link #MAX_SECTION_LENGTH}.
     */
    public static SegmentLayout compute(final LayoutParams params)
    {
        try
        {
            return new SegmentLayout(params);
        }
        catch (final ArithmeticException ex)
        {
            throw new IllegalArgumentException("segment too large to lay out (a size past a long, or a fragment count " +
                "past an int): peers=" + params.peers() +
                ", queueEntries=" + params.queueEntries() + ", eagerLimit=" + params.eagerLimit() +
                ", eagerFragsPerPeer=" + params.eagerFragsPerPeer() + ", maxFragSize=" + params.maxFragSize() +
                ", maxFragsPerRank=" + params.maxFragsPerRank(), ex);
        }
    }

    public LayoutParams params()
    {
        return params;
    }

    /**
     * @return the exact size of the segment file.
     */
    public long totalBytes()
    {
        return totalBytes;
    }

    /**
     * @return a copy of the bytes per category.
     */
    public Map<Category, Long> bytesByCategory()
    {
        return new EnumMap<>(bytesByCategory);
    }

    public long headerOffset()
    {
        return 0;
    }

    public long controlBlockOffset(final int rank)
    {
        return controlBlocksOffset + checkRank("rank", rank) * controlBlockStride;
    }

    public long bellOffset(final int rank)
    {
        return doorbellsOffset + checkRank("rank", rank) * doorbellStride;
    }

    /**
     * @return offset of {@code rank}'s counters ({@link CountersDescriptor}).
     */
    public long countersOffset(final int rank)
    {
        return countersOffset + checkRank("rank", rank) * countersStride;
    }

    public long activityOffset(final int rank)
    {
        return controlBlockOffset(rank) + ControlBlockDescriptor.activityOffset(params.cacheline());
    }

    public long fifoDescriptorOffset(final int sender, final int receiver)
    {
        return cbRegionOffset(receiver) + descriptors.offset(inboundIndex(sender, receiver));
    }

    public long queueOffset(final int sender, final int receiver)
    {
        return cbRegionOffset(receiver) + queues.offset(inboundIndex(sender, receiver));
    }

    public long tailOffset(final int sender, final int receiver)
    {
        return cbRegionOffset(receiver) + tails.offset(inboundIndex(sender, receiver));
    }

    public long wrapperOffset(final int sender, final int receiver)
    {
        return cbRegionOffset(receiver) + wrappers.offset(inboundIndex(sender, receiver));
    }

    /**
     * The head of CB {@code sender -> receiver} lives in the sender's region, beside its in-bound tails.
     */
    public long headOffset(final int sender, final int receiver)
    {
        return cbRegionOffset(sender) + heads.offset(inboundIndex(receiver, sender));
    }

    /**
     * @return the word in which {@code receiver} counts the eager fragments of {@code sender} it has consumed
     * (written by the receiver only; the sender's credits are its sent count less this).
     */
    public long creditOffset(final int sender, final int receiver)
    {
        return cbRegionOffset(receiver) + credits.offset(inboundIndex(sender, receiver));
    }

    /**
     * @return eager fragment {@code index} (0..eagerFragsPerPeer-1) of the slice {@code owner} keeps for
     * sending to {@code dest}: each pair's eager fragments are a ring used in order.
     */
    public long eagerFragmentOffset(final int owner, final int dest, final int index)
    {
        checkRank("dest", dest);
        return eagerFragmentOffset(owner, dest * params.eagerFragsPerPeer() + checkIndex(index, params.eagerFragsPerPeer()));
    }

    /**
     * @return fast boxes per receiver, {@code min(fastBoxes, n - 1)}.
     */
    public int fastBoxCount()
    {
        return fastBoxes.count();
    }

    /**
     * @return the directory entry (owner word) of fast box {@code box} of {@code receiver}.
     */
    public long fastBoxOwnerOffset(final int receiver, final int box)
    {
        return cbRegionOffset(receiver) + fastBoxDirectory.offset(checkIndex(box, fastBoxes.count()));
    }

    /**
     * @return the consumed-position line of fast box {@code box} of {@code receiver}; its ring follows one
     * cacheline later.
     */
    public long fastBoxOffset(final int receiver, final int box)
    {
        return cbRegionOffset(receiver) + fastBoxes.offset(checkIndex(box, fastBoxes.count()));
    }

    public long fastBoxRingOffset(final int receiver, final int box)
    {
        return fastBoxOffset(receiver, box) + params.cacheline();
    }

    public long queueLength()
    {
        return (long)params.queueEntries() * CbIndexDescriptor.SLOT_LENGTH;
    }

    public int eagerFragmentCount()
    {
        return eagerFragments.count();
    }

    public int maxFragmentCount()
    {
        return maxFragments.count();
    }

    public long eagerFragmentOffset(final int owner, final int index)
    {
        return poolRegionOffset(owner) + eagerFragments.offset(checkIndex(index, eagerFragments.count()));
    }

    public long maxFragmentOffset(final int owner, final int index)
    {
        return poolRegionOffset(owner) + maxFragments.offset(checkIndex(index, maxFragments.count()));
    }

    /**
     * @return the slot of {@code rank} in the collective region of communicator context {@code context}
     *         ({@link CollectiveSlotDescriptor}).
     */
    public long collectiveSlotOffset(final int rank, final int context)
    {
        return poolRegionOffset(rank) + collectiveSlots.offset(checkIndex(context, collectiveSlots.count()));
    }

    /**
     * @param offset an untrusted segment offset, e.g. read from a queue slot.
     * @return the rank whose pool region holds {@code offset}, or -1 if it is outside every pool.
     */
    public int fragmentOwner(final long offset)
    {
        if (offset < poolRegionsOffset || offset >= totalBytes)
        {
            return -1;
        }
        return (int)((offset - poolRegionsOffset) / poolRegionStride);
    }

    /**
     * @param offset an untrusted segment offset.
     * @return the capacity of the fragment starting at {@code offset} (eager limit or max fragment size,
     * header included), or -1 if no fragment starts there.
     */
    public int fragmentCapacity(final long offset)
    {
        final int owner = fragmentOwner(offset);
        if (owner < 0)
        {
            return -1;
        }
        final long relative = offset - poolRegionOffset(owner);
        if (startsComponent(eagerFragments, relative))
        {
            return params.eagerLimit();
        }
        return startsComponent(maxFragments, relative) ? params.maxFragSize() : -1;
    }

    private static boolean startsComponent(final Run run, final long relative)
    {
        return relative >= run.start() && relative < run.end() && (relative - run.start()) % run.stride() == 0;
    }

    /**
     * @return sections that are mapped separately: header and control blocks, one CB region per receiver,
     * one pool region per sender; no component crosses a section boundary.
     */
    public int sectionCount()
    {
        return 1 + 2 * peers;
    }

    public long sectionOffset(final int section)
    {
        checkIndex(section, sectionCount());
        if (section == 0)
        {
            return 0;
        }
        return section <= peers ? cbRegionOffset(section - 1) : poolRegionOffset(section - 1 - peers);
    }

    public long sectionLength(final int section)
    {
        checkIndex(section, sectionCount());
        if (section == 0)
        {
            return cbRegionsOffset;
        }
        return section <= peers ? cbRegionStride : poolRegionStride;
    }

    public long cbRegionOffset(final int receiver)
    {
        return cbRegionsOffset + checkRank("receiver", receiver) * cbRegionStride;
    }

    /**
     * @return bytes of one sender's pool region (eager then max fragments), the same for every sender.
     */
    public long poolRegionLength()
    {
        return poolRegionStride;
    }

    public long poolRegionOffset(final int owner)
    {
        return poolRegionsOffset + checkRank("owner", owner) * poolRegionStride;
    }

    /**
     * @return a fingerprint of the parameters and the computed offsets; stored in the header so that two
     * builds with different layout code refuse to share a segment.
     */
    public long checksum()
    {
        long h = SegmentHeaderDescriptor.VERSION;
        for (final int word : SegmentHeaderDescriptor.encodeParams(params))
        {
            h = mix(h, word);
        }
        for (final Run run : new Run[]{ descriptors, queues, heads, tails, wrappers, eagerFragments, maxFragments,
            credits, fastBoxDirectory, fastBoxes, collectiveSlots })
        {
            h = mix(mix(mix(h, run.start()), run.stride()), run.count());
        }
        return mix(mix(mix(h, cbRegionStride), poolRegionStride), totalBytes);
    }

    private static long mix(final long h, final long value)
    {
        long x = (h ^ value) * 0x9E3779B97F4A7C15L;
        x ^= x >>> 32;
        return x * 0xD6E8FEB86659FD93L;
    }

    private int inboundIndex(final int peer, final int self)
    {
        checkRank("peer", peer);
        checkRank("self", self);
        if (peer == self)
        {
            throw new IllegalArgumentException("no FIFO from rank " + peer + " to itself");
        }
        return peer < self ? peer : peer - 1;
    }

    private long checkRank(final String name, final int rank)
    {
        if (rank < 0 || rank >= peers)
        {
            throw new IllegalArgumentException(name + "=" + rank + " (expected: 0.." + (peers - 1) + ")");
        }
        return rank;
    }

    private static int checkIndex(final int index, final int count)
    {
        if (index < 0 || index >= count)
        {
            throw new IndexOutOfBoundsException("index=" + index + " (expected: 0.." + (count - 1) + ")");
        }
        return index;
    }

    private static void checkSection(final String what, final long length, final String lower)
    {
        if (length > MAX_SECTION_LENGTH)
        {
            throw new IllegalArgumentException(
                what + " is " + length + " bytes (expected: <= " + MAX_SECTION_LENGTH + "); lower " + lower);
        }
    }
}
