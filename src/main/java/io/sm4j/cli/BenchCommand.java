package io.sm4j.cli;

import io.sm4j.bench.BenchChart;
import io.sm4j.bench.BenchExport;
import io.sm4j.bench.BenchRank;
import io.sm4j.bench.BenchRunner;
import io.sm4j.bench.BenchSpec;
import io.sm4j.bench.BenchSummary;
import io.sm4j.bench.BenchTable;
import io.sm4j.bench.BenchTest;
import io.sm4j.bench.BufferKind;
import io.sm4j.bench.BusyCores;
import io.sm4j.bench.MemcpyRate;
import io.sm4j.bench.OmpiBaseline;
import io.sm4j.bench.PageSampling;
import io.sm4j.collective.SharedRegion;
import io.sm4j.job.CpuBudget;
import io.sm4j.launch.Binding;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.Policy;
import io.sm4j.layout.ThreadMode;
import io.sm4j.segment.NativeCopy;
import io.sm4j.segment.SegmentFiles;
import io.sm4j.transport.PeerMemory;
import io.sm4j.transport.TransportOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code sm4j bench}: OSU micro-benchmarks across real JVMs, with baselines side by side.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Measures latency and bandwidth between JVMs as the OSU micro-benchmarks do, optionally next to other transports.",
        "",
        "Tests: latency (osu_latency: ping-pong, one-way = round trip / 2), bw (osu_bw: a window of isends, then an " +
            "ack), bibw (windows both ways), mbw_mr (n/2 pairs stream at once: aggregate bandwidth and message rate), " +
            "multi_lat (n/2 pairs ping-pong at once), wake (not OSU's: ping-pong after a pause in which the receiver " +
            "falls asleep, timing send to receipt, and the sleeping rank's CPU), and the collectives on n ranks: allreduce " +
            "(osu_allreduce: size / 4 floats, SUM), reduce (osu_reduce: the same, to rank 0), reduce_scatter (osu_reduce_scatter: the same, each rank receiving size / 4 / n floats), bcast (osu_bcast, from rank 0), gather (to rank 0), allgather, alltoall (size bytes per rank) and barrier (osu_barrier), timed per call " +
            "on every rank. Output as OSU prints it (size, then average latency or MB/s, " +
            "10^6 bytes per second), then p50, p99, p99.9 and max (HdrHistogram) or the message rate.",
        "",
        "--compare adds, between the same two JVMs and in the same loops, size by size: Agrona's " +
            "OneToOneRingBuffer over a mapped file (agrona) and Unix domain sockets (uds) for latency and bw, two " +
            "threads of one JVM handing a message over through one buffer (threads, latency only: the physical " +
            "limit), and Open MPI's vader transport (ompi) when mpicc and mpirun are installed, bound as sm4j's ranks " +
            "are; each with x = sm4j / baseline. Every other test compares with Open MPI only, on as many ranks " +
            "(mpirun --oversubscribe).",
        "" },
    footer = { "", "Examples:",
        "  sm4j bench latency --compare --chart target/latency.png",
        "  sm4j bench bw -m 64:65536 --compare",
        "  sm4j bench multi_lat -n 4 -m 8:8 --compare     (2 pairs on the cores there are, next to Open MPI)",
        "  sm4j bench wake -i 200                         (how fast a sleeping rank wakes, and what it costs while asleep)",
        "  sm4j bench latency -m 0:64 --layout page4k      (the RFC's latency table: one run per layout)",
        "  sm4j bench latency -m 8:8 --peers 256          (a segment for 256 ranks, 2 of them running)",
        "  sm4j bench mbw_mr -n 4 --format csv" })
final class BenchCommand implements Callable<Integer>
{
    /** Layouts as the RFC names them. */
    enum Layout
    {
        page4k, page8k, cacheline, aggregated
    }

    enum Requests
    {
        persistent, isend
    }

    enum Buffers
    {
        direct(BufferKind.DIRECT), shared(BufferKind.SHARED), heap(BufferKind.HEAP);

        final BufferKind kind;

        Buffers(final BufferKind kind)
        {
            this.kind = kind;
        }
    }

    enum Format
    {
        text, csv, json
    }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "TEST", description = "latency, bw, bibw, mbw_mr, multi_lat, wake, allreduce, reduce, reduce_scatter, bcast, gather, allgather, alltoall, barrier, or the one-sided put_latency, get_latency and put_bw (a window, rank 0 against rank 1's part).")
    String test;

    @Option(names = "-m", paramLabel = "[MIN:]MAX", description = "Message sizes: 0 (if MIN is 0), then powers of two from MIN to MAX bytes (default: 0:4194304; wake: 8:8).")
    String sizes = DEFAULT_SIZES;
    private static final String DEFAULT_SIZES = "0:4194304";

    @Option(names = "-i", paramLabel = "ITER", description = "Iterations per size (default: OSU's, 10000 round trips or 100 windows, a tenth as many above 8 KiB; wake: 1000 round trips).")
    int iterations;

    @Option(names = "-x", paramLabel = "WARMUP", description = "Warm-up iterations per size (default: OSU's, a tenth of the iterations (wake: 10); multi_lat: as many as the iterations, so that the scheduler has evened out ranks that waited unequally).")
    int skip = -1;

    @Option(names = "-W", paramLabel = "WINDOW", description = "Sends per window for bw, bibw, mbw_mr and put_bw (default: ${DEFAULT-VALUE}).")
    int window = 64;

    @Option(names = { "-n", "--ranks" }, paramLabel = "N", description = "Ranks for mbw_mr and multi_lat (even), and for the collectives (default: 2); latency, bw, bibw and the one-sided tests run on 2.")
    int ranks = 2;

    @Option(names = "--peers", paramLabel = "N", description = "Size the segment for N ranks while 2 run (the others idle): what idle peers cost (default: the running ranks).")
    Integer peers;

    @Option(names = "--layout", paramLabel = "LAYOUT", description = "CB placement: page4k, page8k, cacheline or aggregated (default: ${DEFAULT-VALUE}).")
    Layout layout = Layout.aggregated;

    @Option(names = "--thread-mode", paramLabel = "MODE", description = "single or multiple (default: single).")
    ThreadMode threadMode = ThreadMode.SINGLE;

    @Mixin
    PipelineOptions pipeline = new PipelineOptions();

    @Mixin
    CollectiveOptions collective = new CollectiveOptions();

    @Option(names = "--requests", paramLabel = "KIND", description = "How sm4j's windows (bw, bibw, mbw_mr) send and receive: persistent (sendInit/recvInit once, then start: allocation-free, as a Java application that cares writes it) or isend (a new isend/irecv request per message, as osu_bw) (default: ${DEFAULT-VALUE}).")
    Requests requests = Requests.persistent;

    @Option(names = "--buffers", paramLabel = "KIND", description = "What sm4j's ranks send from and receive into: direct (ByteBuffers, as OSU's loops pass malloc'd memory: from 16 KiB the receiver reads a message out of the sender's process, one copy, or has it streamed through the fragment pipeline, two copies on two cores, whichever it measured faster lately (SM4J_PEER_READS=on: always read); above the eager limit and below that, or with SM4J_PEER_READS=off, the pipeline; bcast, allgather and alltoall read each rank's data out of its process from " + SharedRegion.READ_MIN_BLOCK / 1024 + " KiB blocks, with more ranks than cores from " + SharedRegion.READ_MIN_SHARING_CORES / 1024 + " KiB a rank leaves in place, allgather and alltoall while that has been the faster lately), shared (buffers from Communicator.allocate: one copy, the receiver's straight out of the sender's buffer; bcast, allgather and alltoall from 8 KiB per rank: each rank reads the others' data in place) or heap (byte[] arrays, which the collector moves: two copies above the eager limit, collectives through the region) (default: ${DEFAULT-VALUE}).")
    Buffers buffers = Buffers.direct;

    @Option(names = "--pause-us", paramLabel = "MICROS", description = "wake: the pause before every round trip, long enough that the receiver sleeps (default: ${DEFAULT-VALUE}).")
    long pauseMicros = 5_000;

    @Option(names = "--compare", description = "Measure the baselines too (agrona, uds, threads, ompi), size by size; latency, bw and mbw_mr end with a summary of the medians (round trips, or windows) at 8 B, 4 KiB and 1 MiB.")
    boolean compare;

    @Option(names = "--jit-warmup", paramLabel = "N", description = "Round trips run once per transport before measuring (N round trips at 8 B, or N windows for bw, bibw and mbw_mr; 3N/10 round trips, or as many messages in at least N/100 windows, at sm4j's largest eager message, its smallest rendezvous one and 64 KiB, one size on each path a larger message takes (N/10 at 4 KiB and 64 KiB for the baselines), and 3N/10 collectives at 4 KiB, 32 KiB and 64 KiB, each at most the largest size measured; a tenth of each measured size's iterations), then shorter rounds until one compiles nothing, and for the collectives, mbw_mr and multi_lat rehearsals of each size's start (a pause, a barrier, a fifth of its iterations; for the collectives first 6,000 calls at the smallest size, so that C2 compiles again what was thrown away) until one compiles nothing, so what is measured is JIT-compiled (default: ${DEFAULT-VALUE}).")
    int jitWarmup = 20_000;

    @Option(names = "--format", paramLabel = "FORMAT", description = "text (OSU's table), csv or json (default: ${DEFAULT-VALUE}).")
    Format format = Format.text;

    @Option(names = "--chart", paramLabel = "FILE.png", description = "Also write a log-log chart, one line per transport.")
    Path chart;

    @Option(names = "--idle", paramLabel = "MODE", description = "How a waiting rank waits: auto (spin, yield, then sleep on its doorbell, as the waits show), spin, yield or block (default: ${DEFAULT-VALUE}; see sm4j run --help).")
    TransportOptions.Idle idle = TransportOptions.Idle.AUTO;

    @Option(names = "--bind-to", paramLabel = "core|none", description = "Pin rank r to the r-th CPU this process may use (the online CPUs within its affinity or cpuset, modulo their count) with taskset, as mpirun --bind-to core; with no more ranks than cores, idle auto then spins and sleeps as with a core per rank (default: ${DEFAULT-VALUE}).")
    Binding binding = Binding.NONE;

    @Option(names = "--jvm-arg", paramLabel = "OPTION", description = "Extra JVM option for the rank JVMs, e.g. -XX:StartFlightRecording=... (repeatable). " +
        "They start with -XX:+UseParallelGC -Xms256m -XX:+AlwaysPreTouch (the heap touched before the loops, as a C " +
        "benchmark's buffers are: a page's first write costs a fault), and -XX:+UseTransparentHugePages where the " +
        "kernel gives huge pages to who asks (fewer pages for the kernel's page sampling to stall on); options given " +
        "here come after and win (-XX:-AlwaysPreTouch skips the touch, which takes 0.5 s for 256 MiB here and grows " +
        "with a larger -Xms).")
    List<String> jvmArgs = new ArrayList<>();

    @Option(names = "--dir", paramLabel = "DIR", description = "Segment directory (default: $SM4J_DIR, else /dev/shm, else java.io.tmpdir).")
    Path dir;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "Abort a run that takes longer; 0: no limit (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds = 1800;

    @Override
    public Integer call() throws IOException, InterruptedException
    {
        final BenchTest benchTest = BenchTest.of(test.toLowerCase(Locale.ROOT));
        // what the user typed, not what equals a default: an explicit -m 0:4194304 is one
        final CommandLine.ParseResult given = spec.commandLine().getParseResult();
        if (benchTest == BenchTest.WAKE)
        {
            checkWake(given.hasMatchedOption("-m"));
        }
        if (benchTest == BenchTest.BARRIER && given.hasMatchedOption("-m"))
        {
            throw new IllegalArgumentException("-m " + sizes + ": barrier sends no data, it has no sizes");
        }
        final int[] range = benchTest == BenchTest.BARRIER ? new int[]{ 0, 0 } : parseSizes();
        OptionChecks.requireRange("-W", window, 1, io.sm4j.bench.BenchRank.MAX_WINDOW, "");
        // options of other tests: a run that ignored them would measure something else than asked
        OptionChecks.requireWith(given.hasMatchedOption("-W"), "-W", benchTest.windowed() || benchTest == BenchTest.PUT_BW,
            "bw, bibw, mbw_mr and put_bw");
        OptionChecks.requireWith(given.hasMatchedOption("--requests"), "--requests", benchTest.windowed(), "bw, bibw and mbw_mr");
        OptionChecks.requireWith(given.hasMatchedOption("--pause-us"), "--pause-us", benchTest == BenchTest.WAKE, "wake");
        OptionChecks.requireRange("-i", iterations, 0, 100_000_000, " (0: OSU's default)");
        OptionChecks.requireRange("-x", skip, -1, 100_000_000, " (-1: OSU's default)");
        OptionChecks.requireRange("--jit-warmup", jitWarmup, 0, 100_000_000, "");
        OptionChecks.requireRange("--timeout", timeoutSeconds, 0, RunCommand.MAX_TIMEOUT_SECONDS, " seconds (0: no limit)");
        final int processes = benchTest.pair() ? 2 : ranks;
        if (benchTest.pair() && ranks != 2)
        {
            throw new IllegalArgumentException("-n " + ranks + ": " + benchTest.id() + " runs on 2 ranks (-n is for mbw_mr, multi_lat and the collectives)");
        }
        if (!benchTest.pair())
        {
            OptionChecks.requireRange("-n", ranks, 2, LayoutParams.MAX_PEERS, "");
            if (ranks % 2 != 0 && !benchTest.collective())
            {
                throw new IllegalArgumentException("-n " + ranks + ": " + benchTest.id() + " pairs ranks, expected an even count");
            }
            if (peers != null)
            {
                throw new IllegalArgumentException("--peers " + peers + " applies to the two-rank tests only (latency, bw, bibw, wake and the one-sided tests)");
            }
        }
        if (benchTest.collective())
        {
            checkCollectiveRoom(benchTest, range[1]);
        }
        final int segmentRanks = peers == null ? processes : peers;
        OptionChecks.requireRange("--peers", segmentRanks, processes, LayoutParams.MAX_PEERS, "");
        if (chart != null)
        {
            checkWritable(chart);
        }
        final PrintWriter err = spec.commandLine().getErr();
        final List<String> transports = new ArrayList<>(List.of("sm4j"));
        String ompiMissing = null;
        if (compare)
        {
            transports.addAll(benchTest == BenchTest.LATENCY ? List.of("agrona", "uds", "threads") :
                benchTest == BenchTest.BW ? List.of("agrona", "uds") : List.of());
            ompiMissing = OmpiBaseline.unavailable();
        }
        final BenchSpec benchSpec = new BenchSpec(benchTest, transports, range[0], range[1], iterations, skip, window, jitWarmup,
            requests == Requests.persistent, buffers.kind, pauseMicros);
        final LayoutParams params = layoutParams(segmentRanks);
        final double busy = BusyCores.measure(CpuBudget.cores(), 300);
        final Progress progress = new Progress(err, benchSpec.sizes().size() * transports.size());
        final List<String> rankJvmArgs = BenchRunner.rankJvmArgs(jvmArgs); // run with, and shown in the header
        final BenchRunner.Outcome outcome;
        try
        {
            outcome = BenchRunner.run(benchSpec, params, processes, idle, binding, SegmentFiles.directory(dir, err::println),
                Duration.ofSeconds(timeoutSeconds), rankJvmArgs, progress::show, err);
        }
        finally
        {
            progress.done();
        }
        if (outcome.exitCode() != 0)
        {
            err.println("sm4j bench: the benchmark job failed (exit code " + outcome.exitCode() + "); see the ranks' output above");
            return outcome.exitCode();
        }
        if (compare && ompiMissing == null)
        {
            final boolean bound = binding == Binding.CORE;
            err.println("# running the same loops over Open MPI (mpirun --oversubscribe -np " + processes +
                " --bind-to " + (bound ? "core" : "none") + " --mca btl self,vader) ...");
            try
            {
                OmpiBaseline.run(benchSpec, processes, bound, outcome.results(),
                    timeoutSeconds == 0 ? RunCommand.MAX_TIMEOUT_SECONDS : timeoutSeconds);
            }
            catch (final IOException ex)
            {
                ompiMissing = "the Open MPI run failed: " + ex.getMessage().lines().findFirst().orElse("");
                err.println("# " + ompiMissing);
            }
        }
        final List<String> facts = facts(benchTest, benchSpec.maxSize(), params, processes, outcome.idle(), busy, rankJvmArgs, ompiMissing);
        final PrintWriter out = spec.commandLine().getOut();
        switch (format)
        {
            case text ->
            {
                BenchTable.print(outcome.results(), facts, Version.text(), out);
                if (compare && (benchTest == BenchTest.LATENCY || benchTest == BenchTest.BW || benchTest == BenchTest.MBW_MR))
                {
                    BenchSummary.print(outcome.results(), out);
                }
            }
            case csv -> BenchExport.csv(outcome.results(), out);
            case json -> BenchExport.json(outcome.results(), out);
        }
        if (format != Format.text)
        {
            facts.forEach(fact -> err.println("# " + fact)); // the data stays parseable, the facts still reach the user
            BenchTable.notes(outcome.results()).forEach(note -> err.println("# " + note));
        }
        if (chart != null)
        {
            try
            {
                BenchChart.write(outcome.results(), "sm4j bench " + benchTest.id() + ", " + params.policy() + " layout, " +
                    io.sm4j.job.CpuBudget.cores() + " cores", chart);
                err.println("# chart: " + chart);
            }
            catch (final RuntimeException | LinkageError | java.awt.AWTError | InternalError noChart)
            {
                // a JDK without fonts (a slim image: "FontConfiguration.head is null") draws nothing: the table stands
                err.println("# chart skipped: " + noChart);
            }
        }
        return 0;
    }

    /**
     * wake carries a clock reading in every message, measures sm4j alone (the baselines do not sleep: a
     * waiting Open MPI rank spins), and needs a pause in which the receiver falls asleep.
     */
    private void checkWake(final boolean sizesGiven)
    {
        if (!sizesGiven)
        {
            sizes = "8:8";
        }
        if (parseSizes()[0] < Long.BYTES)
        {
            throw new IllegalArgumentException("-m " + sizes + ": wake sends a clock reading, expected sizes from 8 bytes");
        }
        if (compare)
        {
            throw new IllegalArgumentException("--compare: wake measures sm4j alone (a waiting Open MPI rank never sleeps)");
        }
        OptionChecks.requireRange("--pause-us", pauseMicros, 0, 60_000_000, " microseconds");
    }

    /**
     * Fails before a long run, not after it, if the chart could not be written.
     */
    private static void checkWritable(final Path chart)
    {
        if (!chart.toString().endsWith(".png"))
        {
            throw new IllegalArgumentException("--chart " + chart + ": expected a .png file name");
        }
        final Path parent = chart.toAbsolutePath().getParent();
        OptionChecks.createDirectoryOf("--chart", chart);
        if (!Files.isWritable(parent))
        {
            throw new IllegalArgumentException("--chart " + chart + ": " + parent + " is not writable");
        }
    }

    /**
     * A collective's rank keeps n blocks of the largest size (gather, allGather, allToAll), and rank 0 gathers every
     * rank's call times: both in one Java array, at most 2 GiB.
     */
    private void checkCollectiveRoom(final BenchTest benchTest, final int maxSize)
    {
        final long limit = Integer.MAX_VALUE - 8;
        final boolean blocks = benchTest.keepsBlocks();
        if (blocks && (long)maxSize * ranks > limit)
        {
            throw new IllegalArgumentException("-m " + sizes + " with -n " + ranks + ": " + benchTest.id() + " keeps " + ranks +
                " blocks of " + maxSize + " bytes in one buffer, expected at most 2 GiB");
        }
        if ((long)Math.max(iterations, benchTest.defaultIterations(0)) * Long.BYTES * ranks > limit)
        {
            throw new IllegalArgumentException("-i " + iterations + " with -n " + ranks + ": rank 0 gathers every rank's call " +
                "times, expected at most 2 GiB of them");
        }
    }

    private int[] parseSizes()
    {
        final String[] parts = sizes.split(":", -1);
        try
        {
            final long min = parts.length == 2 ? Long.parseLong(parts[0]) : 0;
            final long max = Long.parseLong(parts[parts.length - 1]);
            if (parts.length > 2 || min < 0 || max < min || max > BenchSpec.MAX_SIZE)
            {
                throw new NumberFormatException();
            }
            if (min > 0 && Long.highestOneBit(max) < min)
            {
                // a run of no size at all, and a table without rows
                throw new IllegalArgumentException("-m " + sizes + ": no size to measure (the sizes are 0, if MIN is 0, " +
                    "and the powers of two from MIN to MAX)");
            }
            return new int[]{ (int)min, (int)max };
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("-m " + sizes + ": expected [MIN:]MAX with 0 <= MIN <= MAX <= " +
                BenchSpec.MAX_SIZE + " bytes");
        }
    }

    private LayoutParams layoutParams(final int segmentRanks)
    {
        final LayoutParams.Builder builder =
            collective.applyTo(pipeline.applyTo(LayoutParams.builder(segmentRanks), LayoutParams.DEFAULT_EAGER_LIMIT))
                .threadMode(threadMode);
        return switch (layout)
        {
            case page4k -> builder.policy(Policy.PAGE).pageSize(4096).build();
            case page8k -> builder.policy(Policy.PAGE).pageSize(8192).build();
            case cacheline -> builder.policy(Policy.CACHELINE).build();
            case aggregated -> builder.policy(Policy.AGGREGATED).build();
        };
    }

    /**
     * @param maxSize the largest message measured: from 1 MiB up, the memcpy limit is measured and shown.
     * @param busy    cores other processes kept busy just before the run (-1: unknown).
     */
    private List<String> facts(
        final BenchTest test, final int maxSize, final LayoutParams params, final int processes, final String idle, final double busy,
        final List<String> rankJvmArgs, final String ompiMissing)
    {
        final int cores = CpuBudget.cores();
        final List<String> facts = new ArrayList<>();
        facts.add(String.format(Locale.ROOT, "%d cores, Java %s (%s), idle strategy %s, doorbell %s, thread mode %s, " +
                "layout %s%s, segment for %d ranks, %d running, bound to %s, eager limit %d B, %d eager fragments per peer, " +
                "large-message pipeline %d x %d B, collective regions %d x %d B", cores,
            System.getProperty("java.version"), System.getProperty("java.vm.name"), idle,
            TransportOptions.describeBell(TransportOptions.fromEnvironment(System.getenv()).bell()), params.threadMode(),
            params.policy(), params.policy() == Policy.PAGE ? " " + params.pageSize() : "", params.peers(), processes,
            binding == Binding.CORE ? "cores" : "nothing", params.eagerLimit(), params.eagerFragsPerPeer(), params.maxFragsPerRank(),
            params.maxFragSize(),
            params.collectiveContexts(), params.collectiveBufferSize()));
        if (processes > cores - Math.round(Math.max(0, busy)))
        {
            facts.add(String.format(Locale.ROOT, "WARNING: %d ranks, %d cores, %.1f of them busy before the run: ranks " +
                "share cores with each other or with other processes, figures will be noisy", processes, cores, Math.max(0, busy)));
        }
        final int samplers = PageSampling.kdamonds();
        if (samplers > 0)
        {
            facts.add("NOTE: the kernel samples this machine's memory pages (" + samplers + " DAMON thread" +
                (samplers == 1 ? "" : "s") + ", kdamond): on the machine measured, each sample stalled JVM ranks for " +
                "milliseconds; the p99 and longer columns carry it");
        }
        facts.add("rank JVMs: " + String.join(" ", rankJvmArgs));
        if ("native".equals(System.getenv(NativeCopy.ENV)))
        {
            facts.add("copies into the segment from " + NativeCopy.MIN_BYTES + " B: the C library's memcpy (" + NativeCopy.ENV + "=native)");
        }
        facts.add("sm4j buffers: " + switch (buffers)
        {
            case shared -> test.collective() ?
                "shared (Communicator.allocate): bcast, allgather and alltoall from 8 KiB per rank read each rank's data in place, one copy" :
                "shared (Communicator.allocate): one copy above the eager limit, the receiver's out of the sender's buffer";
            case heap -> test.collective() ? "heap arrays (byte[]): through the collective region" :
                "heap arrays (byte[]): two copies above the eager limit, through the fragment pipeline";
            case direct -> directBuffers(test.collective());
        });
        if (!test.collective() && test != BenchTest.WAKE && maxSize >= 1 << 20)
        {
            final int block = Math.min(maxSize, 4 << 20);
            final double nanos = MemcpyRate.nanosPerCopy(block);
            facts.add(String.format(Locale.ROOT, "memcpy: one core copies %,d B in %.1f us (%.2f GB/s), the least a " +
                "single-copy one-way message of that size can take", block, nanos / 1000, block / nanos));
        }
        facts.add(test == BenchTest.WAKE ? "wake-up: from the send to the sleeping receiver having the message, after a pause of " +
            pauseMicros + " us before every round trip (the receiver's CPU while it waited is on stderr)" :
            test.collective() ? "time per call: every rank times each call, a barrier between calls (but for barrier itself), as " +
            "OSU; Avg and percentiles over every rank's calls" :
            test.rma() ? "one-sided, OSU's flush synchronisation: rank 0 " + (test == BenchTest.GET_LATENCY ? "gets from" : "puts into") +
            " rank 1's part of a window and flushes, under one shared lock per size; " + (test.latency() ?
            "Avg = elapsed / operations, percentiles of batches of 16" : "MB/s = 10^6 bytes per second, a flush per window") :
            test.latency() ? "one-way latency: Avg = elapsed / (2 x iterations), as OSU; percentiles from every round trip / 2" +
            (test == BenchTest.MULTI_LAT ? "; every column is the mean over the pairs" : "") :
            "MB/s = 10^6 bytes per second" + (test == BenchTest.BIBW ? ", both directions counted" : "") +
                (test == BenchTest.MBW_MR ? ", summed over the pairs" : "") + "; sm4j windows: " +
                (requests == Requests.persistent ? "persistent requests (sendInit/recvInit, start)" : "a new isend/irecv request per message"));
        if (ompiMissing != null)
        {
            facts.add("no Open MPI baseline: " + ompiMissing);
        }
        return facts;
    }

    /**
     * @return what the ranks do with the direct ByteBuffers they send above the eager limit.
     */
    private static String directBuffers(final boolean collective)
    {
        final TransportOptions.PeerReads setting = TransportOptions.fromEnvironment(System.getenv()).peerReads();
        final String whyNot = PeerMemory.whyNot(setting);
        final boolean chosen = setting == TransportOptions.PeerReads.AUTO;
        if (collective)
        {
            return whyNot != null ?
                "direct ByteBuffers: through the collective region (no reads of each other's processes: " + whyNot + ")" :
                "direct ByteBuffers: bcast, allgather and alltoall read a rank's data out of its process (" +
                    PeerMemory.describeForRanks() + "), one copy, from " + SharedRegion.READ_MIN_BLOCK / 1024 + " KiB blocks (and with more ranks " +
                    "than cores, " + SharedRegion.READ_MIN_SHARING_CORES / 1024 + " KiB a rank leaves in place)" + (chosen ? " or not, whichever has been the faster lately" : "") +
                    ", where every rank has found it can read the others; else through the collective region";
        }
        return whyNot != null ?
            "direct ByteBuffers: two copies above the eager limit, through the fragment pipeline (no reads of the sender's process: " +
                whyNot + ")" :
            "direct ByteBuffers: from " + PeerMemory.MIN_BYTES + " B the receiver reads them out of the sender's process (" +
                PeerMemory.describeForRanks() + "), one copy" + (chosen ? ", or has them streamed, two copies on two cores, whichever has been the faster lately" : "") +
                "; above the eager limit and below that, two copies through the fragment pipeline";
    }

    /**
     * Progress on stderr: on a terminal one line rewritten per measurement; otherwise nothing (the table
     * follows soon enough, and logs stay clean), except every 10 s a line saying what is being measured.
     */
    private static final class Progress
    {
        private final PrintWriter err;
        private final int total;
        private final boolean terminal = System.console() != null;
        private int done;
        private long lastLine = System.nanoTime();

        Progress(final PrintWriter err, final int total)
        {
            this.err = err;
            this.total = total;
        }

        synchronized void show(final String what)
        {
            final String[] parts = what.split(" ");
            final boolean warmUp = parts[1].equals(BenchRank.WARM_UP);
            done += warmUp ? 0 : 1;
            final String text = warmUp ? String.format(Locale.ROOT, "# warming up %s (%d of %d measured)", parts[0], done, total) :
                String.format(Locale.ROOT, "# measuring %s, %s bytes (%d of %d)", parts[0], parts[1], done, total);
            if (terminal)
            {
                err.print("\r" + text + "\u001b[K");
                err.flush();
            }
            else if (System.nanoTime() - lastLine > 10_000_000_000L)
            {
                err.println(text);
                lastLine = System.nanoTime();
            }
        }

        synchronized void done()
        {
            if (terminal)
            {
                err.print("\r\u001b[K");
                err.flush();
            }
        }
    }
}
