package io.sm4j.layout;

/**
 * Everything that decides the segment's layout. Two ranks attach to the same segment only if their
 * parameters are equal; the segment header stores them.
 *
 * @param peers             ranks on the node, {@code n}.
 * @param eagerLimit        bytes of one eager fragment, fragment header included.
 * @param maxFragSize       bytes of one max-size fragment, fragment header included.
 * @param queueEntries      slots of one CB queue, a power of two.
 * @param eagerFragsPerPeer eager fragments each sender owns per rank on the node (the RFC counts 2: {@code 2n}
 *                          per sender, {@code 2n²} in the job); by default {@link #defaultEagerFragsPerPeer}.
 * @param maxFragsPerRank   max-size fragments each sender owns.
 * @param cacheline         alignment unit against false sharing; 128 because x86 prefetches line pairs.
 * @param pageSize          alignment of {@link Policy#PAGE} allocations.
 * @param threadMode        {@link ThreadMode#MULTIPLE} spreads heads and tails onto their own cachelines.
 * @param policy            placement of the CB components.
 * @param fastBoxes         fast boxes each receiver offers ({@code min(fastBoxes, n - 1)} are laid out):
 *                          small-message rings that senders claim lazily, first come first served; 0 turns
 *                          them off (every message then takes a fragment and a FIFO slot, as the RFC's sm BTL).
 * @param fastBoxSize       bytes of one fast box's ring, a power of two.
 * @param collectiveContexts communicator contexts with a collective region (the world's is context 0, then
 *                          the first ones split and dup make); 0 turns the regions off (every collective
 *                          then goes point to point).
 * @param collectiveBufferSize bytes of one rank's collective buffer in one region, two halves used in turn,
 *                          a power of two; by default {@link #defaultCollectiveBufferSize}.
 */
public record LayoutParams(
    int peers,
    int eagerLimit,
    int maxFragSize,
    int queueEntries,
    int eagerFragsPerPeer,
    int maxFragsPerRank,
    int cacheline,
    int pageSize,
    ThreadMode threadMode,
    Policy policy,
    int fastBoxes,
    int fastBoxSize,
    int collectiveContexts,
    int collectiveBufferSize)
{
    /**
     * A 4 KiB message (a page, 512 doubles) and its 16 bytes of headers (the fragment's length and sender, the
     * message's type and tag): one eager fragment. At 4096, as Open MPI's sm BTL counts it, a 4 KiB message
     * went by rendezvous (RNDV, ACK, FRAG: three trips where eager takes one), 2.5 times slower between two
     * ranks and 3 times with 4 ranks on 2 cores (docs/benchmarks.md, "4 KiB messages go eager"). A fragment
     * is laid out at a whole number of cachelines, so this costs 3 % more eager-fragment memory at 128-byte
     * cachelines (1.6 % at 64).
     */
    public static final int DEFAULT_EAGER_LIMIT = 4096 + 16;
    public static final int DEFAULT_MAX_FRAG_SIZE = 32768;
    public static final int DEFAULT_QUEUE_ENTRIES = 128;
    /**
     * The default's floor, the RFC's count: at and above 33 ranks every sender owns 2 eager fragments per
     * rank ({@link #defaultEagerFragsPerPeer}).
     */
    public static final int MIN_DEFAULT_EAGER_FRAGS_PER_PEER = 2;
    /** The default's ceiling: eager messages in flight from one sender to one receiver before a credit returns. */
    public static final int MAX_DEFAULT_EAGER_FRAGS_PER_PEER = 16;
    /** The default's budget per sender, shared by its peers, between the floor and the ceiling. */
    public static final int DEFAULT_EAGER_FRAGS_PER_SENDER = 64;
    public static final int DEFAULT_MAX_FRAGS_PER_RANK = 8;
    public static final int DEFAULT_CACHELINE = 128;
    public static final int DEFAULT_PAGE_SIZE = 4096;
    public static final int DEFAULT_FAST_BOXES = 8;
    public static final int DEFAULT_FAST_BOX_SIZE = 8192;
    /** A fast box must hold a few records of the largest inline size. */
    public static final int MIN_FAST_BOX_SIZE = 1024;
    /**
     * Keeps a ring's records at most 2^15, which its 16-bit record sequence needs (FastBoxDescriptor): the smallest
     * record is 8 bytes (an empty inline message, a padding record). At {@code 1 << 19} (before the twenty-fourth session) a
     * ring of 8-byte records held 2^16, and an old lap's commit word read as the next record.
     */
    public static final int MAX_FAST_BOX_SIZE = 1 << 18;
    /** The world and the first communicator that split or dup makes. */
    public static final int DEFAULT_COLLECTIVE_CONTEXTS = 2;
    /**
     * The default's floor, from 17 ranks on ({@link #defaultCollectiveBufferSize}): two halves of 16 KiB, a
     * 64 KiB bcast in 4 steps (every job's default until 2026-11-27).
     */
    public static final int MIN_DEFAULT_COLLECTIVE_BUFFER_SIZE = 32768;
    /** The default's ceiling, up to 4 ranks: two halves of 128 KiB. */
    public static final int MAX_DEFAULT_COLLECTIVE_BUFFER_SIZE = 262144;
    /** The default's budget per region, shared by its ranks' buffers, between the floor and the ceiling. */
    public static final int DEFAULT_COLLECTIVE_REGION_BUDGET = 1 << 20;
    public static final int MIN_COLLECTIVE_BUFFER_SIZE = 1024;
    public static final int MAX_COLLECTIVE_BUFFER_SIZE = 1 << 26;
    /** Contexts a job can make at most ({@code message.Contexts}): more regions would never be used. */
    public static final int MAX_COLLECTIVE_CONTEXTS = 1024;
    /**
     * Most ranks on one node. The layout grows as n²: at 4096 ranks with the defaults the segment is about
     * 160 GB, beyond any node's tmpfs, and larger counts would only fail later and slower.
     */
    public static final int MAX_PEERS = 4096;
    /** A fragment must hold its header and leave room for payload. */
    public static final int MIN_FRAGMENT_SIZE = 64;
    /** Largest single fragment: one mapping section must hold a fragment pool. */
    public static final int MAX_FRAGMENT_SIZE = 1 << 30;

    /**
     * Validates every parameter; the message names the parameter, its value and the limit.
     *
     * @throws IllegalArgumentException on the first invalid parameter.
     */
    public LayoutParams
    {
        require(peers >= 1 && peers <= MAX_PEERS, "peers", peers, "1.." + MAX_PEERS);
        requirePowerOfTwo("cacheline", cacheline);
        require(cacheline >= 16 && cacheline <= 4096, "cacheline", cacheline, "between 16 and 4096");
        requirePowerOfTwo("pageSize", pageSize);
        require(pageSize >= cacheline, "pageSize", pageSize, ">= cacheline=" + cacheline);
        requirePowerOfTwo("queueEntries", queueEntries);
        require(queueEntries >= 2, "queueEntries", queueEntries, ">= 2");
        require(eagerLimit >= MIN_FRAGMENT_SIZE, "eagerLimit", eagerLimit, ">= " + MIN_FRAGMENT_SIZE);
        require(maxFragSize <= MAX_FRAGMENT_SIZE, "maxFragSize", maxFragSize, "<= " + MAX_FRAGMENT_SIZE);
        require(eagerLimit <= maxFragSize, "eagerLimit", eagerLimit, "<= maxFragSize=" + maxFragSize);
        require(eagerFragsPerPeer >= 1, "eagerFragsPerPeer", eagerFragsPerPeer, ">= 1");
        require(maxFragsPerRank >= 1, "maxFragsPerRank", maxFragsPerRank, ">= 1");
        require(fastBoxes >= 0 && fastBoxes <= MAX_PEERS, "fastBoxes", fastBoxes, "0.." + MAX_PEERS);
        requirePowerOfTwo("fastBoxSize", fastBoxSize);
        require(fastBoxSize >= MIN_FAST_BOX_SIZE && fastBoxSize <= MAX_FAST_BOX_SIZE, "fastBoxSize", fastBoxSize,
            "between " + MIN_FAST_BOX_SIZE + " and " + MAX_FAST_BOX_SIZE);
        require(collectiveContexts >= 0 && collectiveContexts <= MAX_COLLECTIVE_CONTEXTS, "collectiveContexts",
            collectiveContexts, "0.." + MAX_COLLECTIVE_CONTEXTS);
        requirePowerOfTwo("collectiveBufferSize", collectiveBufferSize);
        require(collectiveBufferSize >= MIN_COLLECTIVE_BUFFER_SIZE && collectiveBufferSize <= MAX_COLLECTIVE_BUFFER_SIZE,
            "collectiveBufferSize", collectiveBufferSize,
            "between " + MIN_COLLECTIVE_BUFFER_SIZE + " and " + MAX_COLLECTIVE_BUFFER_SIZE);
        if (threadMode == null)
        {
            throw new InvalidParameterException("threadMode", "null", "SINGLE or MULTIPLE");
        }
        if (policy == null)
        {
            throw new InvalidParameterException("policy", "null", "PAGE, CACHELINE or AGGREGATED");
        }
    }

    /**
     * The default eager fragments per peer: {@value #DEFAULT_EAGER_FRAGS_PER_SENDER} per sender shared by its
     * {@code n - 1} peers, at least {@value #MIN_DEFAULT_EAGER_FRAGS_PER_PEER} (the RFC's count) and at most
     * {@value #MAX_DEFAULT_EAGER_FRAGS_PER_PEER}: 16 up to 5 ranks, 9 at 8, 4 at 16, 2 from 33 on. With the
     * RFC's 2, a window of eager messages that do not fit a fast box record (1,009 bytes to 4 KiB by default)
     * waited for a credit every second message: with 4 ranks on 2 cores, a context switch each, and
     * {@code mbw_mr} moved 1 KiB at 189-248 MB/s against 2,756-2,849 with 16 (docs/benchmarks.md). The
     * budget keeps the pools' growth linear in {@code n} until the floor takes over at 33 ranks, where the
     * pools are what they were.
     *
     * @param peers ranks on the node.
     * @return eager fragments each sender owns per rank by default.
     */
    public static int defaultEagerFragsPerPeer(final int peers)
    {
        final int share = DEFAULT_EAGER_FRAGS_PER_SENDER / Math.max(1, peers - 1);
        return Math.max(MIN_DEFAULT_EAGER_FRAGS_PER_PEER, Math.min(MAX_DEFAULT_EAGER_FRAGS_PER_PEER, share));
    }

    /**
     * The default bytes of each rank's buffer in a collective region: a budget of
     * {@value #DEFAULT_COLLECTIVE_REGION_BUDGET} bytes divided by the {@code n} ranks, rounded down to a power of
     * two, at least
     * {@value #MIN_DEFAULT_COLLECTIVE_BUFFER_SIZE} and at most {@value #MAX_DEFAULT_COLLECTIVE_BUFFER_SIZE}: 256
     * KiB up to 4 ranks, 128 KiB at 5-8, 64 KiB at 9-16, 32 KiB from 17 on. A collective of a few hundred
     * KiB then takes one or two steps where 16 KiB halves made it take dozens, each a wait for the slowest
     * rank: at 4 ranks on 2 cores a 1 MiB allReduce took 1,183 against 1,501 µs at the median, a 64 KiB
     * allToAll 74 against 150 µs (docs/benchmarks.md, "Collective buffers sized by the ranks"). A region is
     * then 512 KiB to 1 MiB up to 16 ranks, and n x 32 KiB (as before) from 17 on.
     *
     * @param peers ranks on the node.
     * @return the default {@link #collectiveBufferSize}.
     */
    public static int defaultCollectiveBufferSize(final int peers)
    {
        final int share = Integer.highestOneBit(DEFAULT_COLLECTIVE_REGION_BUDGET / Math.max(1, peers));
        return Math.max(MIN_DEFAULT_COLLECTIVE_BUFFER_SIZE, Math.min(MAX_DEFAULT_COLLECTIVE_BUFFER_SIZE, share));
    }

    /**
     * @param peers ranks on the node.
     * @return a builder holding the defaults for {@code peers} ranks.
     */
    public static Builder builder(final int peers)
    {
        return new Builder().peers(peers);
    }

    /**
     * @param peers ranks on the node.
     * @return the default parameters for {@code peers} ranks.
     */
    public static LayoutParams defaults(final int peers)
    {
        return builder(peers).build();
    }

    /**
     * @return a builder initialised with these parameters, the eager fragments per peer and the collective
     * buffer size as set: a builder that then changes the peer count keeps them (build from {@link #builder}
     * for that count's defaults).
     */
    public Builder toBuilder()
    {
        return new Builder()
            .peers(peers)
            .eagerLimit(eagerLimit)
            .maxFragSize(maxFragSize)
            .queueEntries(queueEntries)
            .eagerFragsPerPeer(eagerFragsPerPeer)
            .maxFragsPerRank(maxFragsPerRank)
            .cacheline(cacheline)
            .pageSize(pageSize)
            .threadMode(threadMode)
            .policy(policy)
            .fastBoxes(fastBoxes)
            .fastBoxSize(fastBoxSize)
            .collectiveContexts(collectiveContexts)
            .collectiveBufferSize(collectiveBufferSize);
    }

    /**
     * @return fast boxes laid out per receiver: no more than it has senders.
     */
    public int fastBoxesPerReceiver()
    {
        return Math.min(fastBoxes, peers - 1);
    }

    private static void require(final boolean ok, final String name, final long value, final String expected)
    {
        if (!ok)
        {
            throw new InvalidParameterException(name, Long.toString(value), expected);
        }
    }

    private static void requirePowerOfTwo(final String name, final long value)
    {
        require(Align.isPowerOfTwo(value), name, value, "a power of two");
    }

    /**
     * Mutable builder; {@link #build()} validates.
     */
    public static final class Builder
    {
        private int peers;
        private int eagerLimit = DEFAULT_EAGER_LIMIT;
        private int maxFragSize = DEFAULT_MAX_FRAG_SIZE;
        private int queueEntries = DEFAULT_QUEUE_ENTRIES;
        /** 0 until set: {@link #build} takes the default for the peers then. */
        private int eagerFragsPerPeer;
        private boolean eagerFragsPerPeerSet;
        private int maxFragsPerRank = DEFAULT_MAX_FRAGS_PER_RANK;
        private int cacheline = DEFAULT_CACHELINE;
        private int pageSize = DEFAULT_PAGE_SIZE;
        private ThreadMode threadMode = ThreadMode.SINGLE;
        private Policy policy = Policy.AGGREGATED;
        private int fastBoxes = DEFAULT_FAST_BOXES;
        private int fastBoxSize = DEFAULT_FAST_BOX_SIZE;
        private int collectiveContexts = DEFAULT_COLLECTIVE_CONTEXTS;
        /** 0 until set: {@link #build} takes the default for the peers then. */
        private int collectiveBufferSize;
        private boolean collectiveBufferSizeSet;

        public Builder peers(final int peers)
        {
            this.peers = peers;
            return this;
        }

        public Builder eagerLimit(final int eagerLimit)
        {
            this.eagerLimit = eagerLimit;
            return this;
        }

        public Builder maxFragSize(final int maxFragSize)
        {
            this.maxFragSize = maxFragSize;
            return this;
        }

        public Builder queueEntries(final int queueEntries)
        {
            this.queueEntries = queueEntries;
            return this;
        }

        public Builder eagerFragsPerPeer(final int eagerFragsPerPeer)
        {
            this.eagerFragsPerPeer = eagerFragsPerPeer;
            this.eagerFragsPerPeerSet = true;
            return this;
        }

        public Builder maxFragsPerRank(final int maxFragsPerRank)
        {
            this.maxFragsPerRank = maxFragsPerRank;
            return this;
        }

        public Builder cacheline(final int cacheline)
        {
            this.cacheline = cacheline;
            return this;
        }

        public Builder pageSize(final int pageSize)
        {
            this.pageSize = pageSize;
            return this;
        }

        public Builder threadMode(final ThreadMode threadMode)
        {
            this.threadMode = threadMode;
            return this;
        }

        public Builder policy(final Policy policy)
        {
            this.policy = policy;
            return this;
        }

        public Builder fastBoxes(final int fastBoxes)
        {
            this.fastBoxes = fastBoxes;
            return this;
        }

        public Builder fastBoxSize(final int fastBoxSize)
        {
            this.fastBoxSize = fastBoxSize;
            return this;
        }

        public Builder collectiveContexts(final int collectiveContexts)
        {
            this.collectiveContexts = collectiveContexts;
            return this;
        }

        public Builder collectiveBufferSize(final int collectiveBufferSize)
        {
            this.collectiveBufferSize = collectiveBufferSize;
            this.collectiveBufferSizeSet = true;
            return this;
        }

        public LayoutParams build()
        {
            return new LayoutParams(
                peers, eagerLimit, maxFragSize, queueEntries,
                eagerFragsPerPeerSet ? eagerFragsPerPeer : defaultEagerFragsPerPeer(peers), maxFragsPerRank,
                cacheline, pageSize, threadMode, policy, fastBoxes, fastBoxSize, collectiveContexts,
                collectiveBufferSizeSet ? collectiveBufferSize : defaultCollectiveBufferSize(peers));
        }
    }
}
