package io.sm4j.bench;

import io.sm4j.collective.SharedRegion;
import io.sm4j.message.Communicator;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * The program every rank of an {@code sm4j bench} job runs. Pair tests (latency, bw, bibw) run on ranks 0
 * and 1, which also open the baselines' channels (Agrona rings in a file of the scratch directory, Unix
 * sockets) and take turns size by size: every transport measures size s before any measures the next;
 * pair tests synchronise through a control socket, so a waiting rank sleeps in the kernel instead of
 * spinning. Ranks above 1 in a segment sized for more ranks never exist as processes (the bench registers
 * them idle). Multi-pair tests (mbw_mr, multi_lat) run on every rank: rank {@code r < n/2} with rank {@code r + n/2},
 * synchronised by sm4j's barrier. Lines: {@code P transport size} progress ({@code P transport warm-up} before
 * a transport's warm-up), {@link ResultLine results}, and for the multi-pair tests each pair's {@link LoopSpan}.
 */
public final class BenchRank
{
    /** Largest window. */
    public static final int MAX_WINDOW = 1024;
    private static final long QUIET_MILLIS = 300;
    private static final int WARM_UP_CALLS = 1000;
    /** Starts a progress line: {@code P transport size}. */
    public static final String PROGRESS = "P ";
    /** The size field of a progress line that announces a warm-up. */
    public static final String WARM_UP = "warm-up";
    /** Starts a warm-up's result line, which the launcher parses and discards. */
    public static final String WARM_UP_RESULT = "W ";
    /** Round trips of the cold-start line (the measure: a short job never leaves this regime). */
    private static final int COLD_ROUND_TRIPS = 20_000;
    private static final long SETTLE_MILLIS = 20;
    private static final long QUIET_LIMIT_MILLIS = 10_000;
    private static final long ROUNDS_LIMIT_MILLIS = 3_000;
    /**
     * Calls of a collective before C2 compiles a method again whose compiled code was thrown away (HotSpot's
     * Tier4InvocationThreshold, 5,000, counted from its profiled recompilation), with a margin.
     */
    private static final int RECOMPILE_CALLS = 6_000;
    /** Collectives per run of the loop in those calls: the loop itself is run 1,200 times. */
    private static final int RECOMPILE_RUN = 5;
    /** A medium and a large message, warmed up for a transport whose every size takes one path. */
    private static final int[] ONE_PATH_SIZES = { 4096, 65536 };
    /**
     * The same for the collectives: one step through the region, a sliced reduction or data read in place (from
     * {@link SharedRegion#READ_MIN_BLOCK}), and a larger call read in place.
     */
    private static final int[] COLLECTIVE_PATH_SIZES = { 4096, SharedRegion.READ_MIN_BLOCK, 65536 };
    /** The most calls of one size a rehearsal of the measurement's start makes. */
    private static final int REHEARSAL_CALLS = 2_000;
    /** The JIT, if it measures its compilation time (the warm-up waits for it to go quiet), else null. */
    private static final CompilationMXBean JIT = compilationTimer();
    /** The multi-pair tests' warm-up vote (the measured messages use tag 1). */
    private static final int VOTE_TAG = 2;
    /** Environment variable with the scratch directory for the baselines' files and sockets. */
    public static final String SCRATCH_ENV = "SM4J_BENCH_SCRATCH";

    private BenchRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final BenchSpec spec = BenchSpec.parse(args);
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            if (spec.test().collective())
            {
                runCollective(comm, spec);
            }
            else if (spec.test().rma())
            {
                runRma(comm, spec);
            }
            else if (spec.test().pair())
            {
                runPair(comm, spec, Path.of(System.getenv(SCRATCH_ENV)));
            }
            else
            {
                runPairs(comm, spec);
            }
        }
    }

    private static void runPair(final Communicator comm, final BenchSpec spec, final Path scratch) throws Exception
    {
        final int rank = comm.rank();
        final boolean timer = rank == 0;
        final Path ringFile = scratch.resolve("agrona.rings");
        final boolean rings = spec.transports().contains("agrona");
        try (PairSockets sockets = PairSockets.open(scratch, rank, () ->
        {
            if (rings)
            {
                AgronaRingPair.createFile(ringFile);
            }
        }))
        {
            final List<PairTransport> transports = new ArrayList<>();
            ThreadPingPong threads = null;
            for (final String name : spec.transports())
            {
                switch (name)
                {
                    case "sm4j" -> transports.add(new Sm4jPair(comm, 1 - rank, spec.persistent(), spec.buffers()));
                    case "agrona" -> transports.add(AgronaRingPair.map(ringFile, rank));
                    case "uds" -> transports.add(new UnixSocketPair(sockets.data()));
                    case "threads" -> threads = timer ? new ThreadPingPong() : null;
                    default -> throw new IllegalArgumentException("unknown transport " + name);
                }
            }
            if (spec.test() == BenchTest.LATENCY && spec.transports().get(0).equals("sm4j"))
            {
                sockets.sync();
                coldStart(transports.get(0), timer);
            }
            // two passes when the transports share the loops: the first compiles the loop with the first transport's
            // calls inlined, later transports make those calls virtual (the loop is compiled again), and the
            // second pass gets each transport's own methods compiled as the measurement calls them. With one pass,
            // C2 compiled sm4j's send path (75 ms) inside the first size measured, a compiler thread taking one of
            // two cores from the spinning ranks: a mean of 2-5 us against a median of 0.35 (docs/benchmarks.md)
            for (int pass = transports.size() > 1 ? 2 : 1; pass > 0; pass--)
            {
                for (final PairTransport transport : transports)
                {
                    sockets.sync();
                    warmingUp(timer && spec.jitWarmup() > 0, transport.name());
                    warmUp(spec, transport, timer, () -> { }, sockets::both);
                }
            }
            if (threads != null && spec.jitWarmup() > 0)
            {
                // short calls, as the transports' warm-up makes (one long call compiles only its loop, on stack), and
                // each measured size once: the physical limit's row must not start interpreted
                final int perCall = Math.max(1, spec.jitWarmup() / WARM_UP_CALLS);
                for (int call = 0; call < WARM_UP_CALLS; call++)
                {
                    threads.run(8, 0, perCall, ignored -> { });
                }
                for (final int size : spec.sizes())
                {
                    threads.run(size, 0, 100, ignored -> { });
                }
            }
            awaitQuietCompiler();
            sockets.sync();
            for (final int size : spec.sizes())
            {
                for (final PairTransport transport : transports)
                {
                    progress(timer, transport.name(), size);
                    sockets.sync();
                    report(measure(spec, transport, timer, size, spec.skipFor(size), spec.iterationsFor(size)));
                }
                if (spec.transports().contains(ThreadPingPong.name()))
                {
                    progress(threads != null, ThreadPingPong.name(), size);
                    sockets.sync();
                    if (threads != null)
                    {
                        report(threadLatency(threads, size, spec.skipFor(size), spec.iterationsFor(size)));
                    }
                }
            }
            sockets.sync();
            for (final PairTransport transport : transports)
            {
                transport.close();
            }
        }
    }

    private static void runPairs(final Communicator comm, final BenchSpec spec) throws InterruptedException
    {
        final int half = comm.size() / 2;
        final boolean sender = comm.rank() < half;
        final Sm4jPair pair = new Sm4jPair(comm, sender ? comm.rank() + half : comm.rank() - half, spec.persistent(), spec.buffers());
        comm.barrier();
        warmingUp(comm.rank() == 0 && spec.jitWarmup() > 0, pair.name());
        final Vote everyRank = quiet -> everyRank(comm, quiet);
        warmUp(spec, pair, sender, comm::barrier, everyRank);
        if (spec.jitWarmup() > 0)
        {
            rehearse(everyRank, () -> rehearseSizes(comm, spec, comm.rank() == 0,
                size -> measure(spec, pair, sender, size, 0, rehearsalCalls(spec, size))));
        }
        awaitQuietCompiler();
        for (final int size : spec.sizes())
        {
            progress(comm.rank() == 0, pair.name(), size);
            comm.barrier();
            final long start = System.nanoTime();
            final ResultLine line = measure(spec, pair, sender, size, spec.skipFor(size), spec.iterationsFor(size));
            final long end = System.nanoTime();
            report(line);
            if (line != null)
            {
                // did the pairs run at once, and (a rate test) how many bytes did this one send, warm-up included
                final long sent = spec.test().latency() ? 0 :
                    (long)(spec.skipFor(size) + spec.iterationsFor(size)) * spec.window() * size;
                System.out.println(new LoopSpan(line.transport(), size, start, end, sent).format());
            }
        }
        comm.barrier();
    }

    /**
     * The one-sided tests: rank 0 against rank 1's part of a window. Warmed up as the collectives: the loop at
     * each size, unreported, until a round compiles nothing.
     */
    private static void runRma(final Communicator comm, final BenchSpec spec) throws InterruptedException
    {
        final boolean timer = comm.rank() == 0;
        try (RmaLoop loop = new RmaLoop(comm, spec.test(), spec.maxSize(), spec.buffers()))
        {
            if (spec.jitWarmup() > 0)
            {
                warmingUp(timer, "sm4j");
                loop.run(false, spec.sizes().get(0), 0, spec.jitWarmup(), spec.window());
                untilQuiet(quiet -> everyRank(comm, quiet), () ->
                {
                    for (final int size : spec.sizes())
                    {
                        reportWarmUp(loop.run(true, size, 0, size > BenchTest.LARGE_MESSAGE ? 2 : 100, spec.window()));
                    }
                });
            }
            awaitQuietCompiler();
            for (final int size : spec.sizes())
            {
                progress(timer, "sm4j", size);
                report(loop.run(true, size, spec.skipFor(size), spec.iterationsFor(size), spec.window()));
            }
        }
    }

    /**
     * The collectives: every rank runs the loop; rank 0 times it. Warmed up as the other tests are: the loop
     * at the smallest size ({@value #WARM_UP_CALLS} short calls, {@code --jit-warmup} collectives in all), three
     * tenths as many at each of {@link #COLLECTIVE_PATH_SIZES} (capped at the largest size measured), then rounds
     * over every size measured (a few calls each, the report's path once) until one round compiled nothing on
     * any rank (at most
     * {@value #ROUNDS_LIMIT_MILLIS} ms), then each size's start is rehearsed ({@link #rehearse}).
     */
    private static void runCollective(final Communicator comm, final BenchSpec spec) throws InterruptedException
    {
        final boolean timer = comm.rank() == 0;
        final CollectiveLoop loop = new CollectiveLoop(comm, spec.test(), spec.maxSize(), spec.buffers());
        comm.barrier();
        if (spec.jitWarmup() > 0)
        {
            // as the pair tests (warmUp): the whole loop in short calls, so that C2 compiles the collective's
            // path before it is measured (1,000 calls in one loop left it to compile during the first sizes:
            // ranks stalled 1-2 ms at a time while a compiler thread took one of two cores)
            warmingUp(timer, "sm4j");
            final int perCall = Math.max(2, spec.jitWarmup() / WARM_UP_CALLS);
            for (int call = 0; call < WARM_UP_CALLS; call++)
            {
                loop.run(false, spec.sizes().get(0), 0, perCall);
            }
            // each larger path as long as C2 needs (see warmUpRound): with a tenth at 4 KiB and a hundredth at 64
            // KiB, the sliced reduction and the reads in place were compiled inside the first 32 KiB row measured
            // (allReduce and bcast p99.9 1-3.5 ms)
            for (final int size : pathSizes(COLLECTIVE_PATH_SIZES, spec.maxSize()))
            {
                loop.run(false, size, 0, Math.max(1, pathShare(spec.jitWarmup())));
            }
            untilQuiet(quiet -> everyRank(comm, quiet), () ->
            {
                for (final int size : spec.sizes())
                {
                    reportWarmUp(loop.run(true, size, 0, size > BenchTest.LARGE_MESSAGE ? 2 : 100));
                }
            });
            rehearse(quiet -> everyRank(comm, quiet), () ->
            {
                // first enough calls for C2 to compile again what a vote or a size threw away: after a method's
                // compiled code is thrown away it runs profiled, and is queued for C2 only some 5,000 calls
                // later, which the calls per size below do not reach at large sizes (a quiet compiler does
                // not show a method that waits for its calls); in short runs of the loop, for the loop itself
                // is queued again only on its calls (every 1,024), not on its iterations; one call of each
                // skipped, as the measurement skips its first (a branch the warm-up never took threw the loop's
                // compiled code away at the first measured size)
                for (int call = 0; call < RECOMPILE_CALLS / RECOMPILE_RUN; call++)
                {
                    loop.run(false, spec.sizes().get(0), 1, RECOMPILE_RUN - 1);
                }
                // reported, as the measurement is: its gather and its histogram are in the profile too
                rehearseSizes(comm, spec, timer, size -> reportWarmUp(loop.run(true, size, 1, rehearsalCalls(spec, size))));
            });
        }
        awaitQuietCompiler();
        for (final int size : spec.sizes())
        {
            progress(timer, "sm4j", size);
            comm.barrier();
            report(loop.run(true, size, spec.skipFor(size), spec.iterationsFor(size)));
        }
        comm.barrier();
    }

    /**
     * Runs the test's own loop at 8 bytes, at a size on each larger path and at every measured size before anything is measured:
     * the JIT compiles every path the measured sizes take (inline fast box records, a full box, references,
     * the rendezvous pipeline) and the loop itself (C2 compiles a method after about 10,000
     * invocations or loop back-edges). At 8 bytes the loop runs in {@value #WARM_UP_CALLS} short calls (the
     * first round of each skipped): C2 then compiles the loop method itself (it wants 600 calls), with both
     * of its branches profiled, and every measured call enters compiled code. Warmed up in one long call instead,
     * only an on-stack replacement of that call was compiled; each measured call started interpreted and was
     * compiled again while it ran, its compiler thread taking a core from a spinning rank for milliseconds
     * (2 ms stalls in the maximum, means 2-4x their medians at 8 bytes).
     * <p>
     * {@code between} runs after every short call, as the measurement runs it before each size (the
     * multi-pair tests' barrier): a BARRIER message that C2 never saw in the warm-up made it throw away its
     * code for the receive path at the first measured size, and the recompilations, on a compiler thread
     * that does not yield, stalled ranks for 4 ms at a time (a scheduler tick) over the first 300 ms:
     * multi_lat with 4 ranks on 2 cores measured a mean of 3-4 us instead of 1.2 us.
     * <p>
     * Windowed tests run as many windows at 8 bytes as latency runs round trips: with a tenth as many, the
     * methods called once per window (the acknowledgement's send and receive, the window's start) stayed
     * below C2's threshold and were compiled during the first measured sizes, and while a compiler thread
     * held one of two cores the ranks shared the other: every window then took a waiting rank's whole spin
     * phase (1 ms), 40 % of the windows of the size measured then (docs/benchmarks.md). Then it repeats
     * shorter rounds until one round compiled nothing on any rank (at most {@value #ROUNDS_LIMIT_MILLIS} ms).
     */
    private static void warmUp(
        final BenchSpec measured, final PairTransport transport, final boolean timer, final Runnable between,
        final Vote everyRank) throws InterruptedException
    {
        final BenchSpec spec = measured.warmUp();
        if (spec.jitWarmup() == 0)
        {
            return;
        }
        warmUpRound(spec, transport, timer, between, WARM_UP_CALLS);
        untilQuiet(everyRank, () -> warmUpRound(spec, transport, timer, between, WARM_UP_CALLS / 10));
    }

    /**
     * Repeats {@code round} until one compiled nothing on any rank, at most {@value #ROUNDS_LIMIT_MILLIS} ms.
     */
    private static void untilQuiet(final Vote everyRank, final InterruptibleRound round) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ROUNDS_LIMIT_MILLIS);
        boolean compiled = true;
        while (compiled)
        {
            final long before = compilationMillis();
            round.run();
            compiled = !everyRank.all(compilationMillis() == before || System.nanoTime() - deadline > 0);
        }
    }

    /**
     * Rehearses the start of the measurement until the JIT has nothing left to do for it: {@code round} (the
     * timer's pause after a progress line, the barrier, a few thousand calls at the smallest size and a few
     * at the others), then a quiet wait, in which what the round queued is compiled and counted, then a vote;
     * until one rehearsal compiled nothing on any rank (no round starts after {@value #ROUNDS_LIMIT_MILLIS} ms,
     * and each ends with a quiet wait of its own), and then
     * once more, unvoted: the vote's own waits (point to point) may change what the round's compiled code
     * assumed, and the last round compiles that back.
     * <p>
     * Why: the warm-up's rounds never waited long, and they voted between them. After the quiet wait, which
     * every rank ends on its own, and after the timer's pause, a measured size's first barrier waited tens of
     * milliseconds, and the vote had waited on a request, not a collective step: both were branches or types
     * that C2 had compiled as never seen. The waiting path was thrown away there (an uncommon trap) and
     * compiled again about a thousand calls into the size, a compiler thread taking one of two cores from 4
     * ranks for 30-70 ms: barriers of 1-6 ms in bursts, a mean 2-4 times the median (docs/benchmarks.md, "The
     * compiler inside the measurement").
     */
    private static void rehearse(final Vote everyRank, final InterruptibleRound round) throws InterruptedException
    {
        untilQuiet(everyRank, () ->
        {
            round.run();
            awaitQuietCompiler(); // what the round queued is compiled, and counted in this round
        });
        round.run(); // unvoted: the caller's quiet wait follows
    }

    /**
     * One rehearsal of each measured size's start, as the measurement makes it: the timer's pause after its
     * progress line, the barrier, then {@code calls} at the size.
     */
    private static void rehearseSizes(
        final Communicator comm, final BenchSpec spec, final boolean timer, final IntConsumer calls) throws InterruptedException
    {
        for (final int size : spec.sizes())
        {
            pause(timer);
            comm.barrier();
            calls.accept(size);
        }
    }

    /**
     * @return the calls (round trips, windows) a rehearsal makes at {@code size}: a fifth of the measured
     * iterations, at most {@value #REHEARSAL_CALLS}, so that each size's own branches are in the profile (a
     * method thrown away is compiled again only after {@value #RECOMPILE_CALLS} or so calls: the collectives'
     * rehearsal makes those first).
     */
    private static int rehearsalCalls(final BenchSpec spec, final int size)
    {
        return Math.max(2, Math.min(REHEARSAL_CALLS, spec.iterationsFor(size) / 5));
    }

    /**
     * A round that may sleep.
     */
    @FunctionalInterface
    private interface InterruptibleRound
    {
        void run() throws InterruptedException;
    }

    /**
     * Prints a warm-up round's result line, if this rank has one, marked {@link #WARM_UP_RESULT} so that the
     * launcher reads and discards it: the report's path gets compiled in the rank, and the launcher loads
     * and runs its parser now. The launcher's first parse of a result otherwise came during the second
     * measured size and took a core from a spinning rank for tens of milliseconds: that size's mean rate fell
     * to a tenth of its median window's (docs/benchmarks.md, "A size's first windows").
     */
    private static void reportWarmUp(final ResultLine line)
    {
        if (line != null)
        {
            System.out.println(WARM_UP_RESULT + line.format());
        }
    }

    /**
     * One round of the warm-up: {@code calls} short calls of the test's loop at 8 bytes (every other one at
     * the smallest size measured, if smaller), three tenths as many round trips (a tenth for a transport with one
     * path for every size), or as many messages in windows (at least a hundredth as many windows), at each of
     * the transport's {@link PairTransport#pathSizes} (capped at the largest size measured), then the loop at
     * every measured size, with a tenth of its measured iterations in the first round and a hundredth in the
     * later ones (at least 2).
     */
    private static void warmUpRound(
        final BenchSpec spec, final PairTransport transport, final boolean timer, final Runnable between, final int calls)
    {
        final int share = (int)((long)spec.jitWarmup() * calls / WARM_UP_CALLS); // up to 10^8 x 1,000
        final int perCall = Math.max(2, share / calls);
        for (int call = 0; call < calls; call++)
        {
            // every other call at the smallest size measured, if smaller: a branch that C2 never saw taken
            // (a copy of under 8 bytes) deoptimised the compiled path in the first size measured
            measure(spec, transport, timer, call % 2 == 0 ? 8 : Math.min(8, spec.minSize()), 1, perCall - 1);
            between.run();
        }
        // then each larger message's path (PairTransport.pathSizes). A round trip runs each rank's send and
        // receive path once, and C2 compiles a method called once per message after about RECOMPILE_CALLS calls
        // (Tier4InvocationThreshold): three tenths of the 8-byte share (6,000 round trips by default) get there;
        // with a tenth (2,000, then 200 a round) sm4j's rendezvous path was compiled inside the 8 KiB row
        // measured, a compiler thread taking a core from the spinning ranks (p99.9 0.4-1.6 ms against 40 us). A
        // transport with one path for every size (a ring, a socket) keeps a tenth at a medium and a large size.
        // Windows: as many messages, and at least a hundredth of the share in windows, for what runs once per
        // window (the acknowledgement)
        final int[] paths = transport.pathSizes();
        final int messages = paths != null ? pathShare(share) : share / 10;
        final int perPath = Math.max(1, spec.test().latency() ? messages
            : Math.max(share / 100, messages / spec.window()));
        for (final int size : pathSizes(paths != null ? paths : ONE_PATH_SIZES, spec.maxSize()))
        {
            measure(spec, transport, timer, size, 0, perPath);
        }
        for (final int size : spec.sizes())
        {
            // and every measured size: the first size that fills a fast box with inline records (256 B
            // windows after an 8 B warm-up) took a branch C2 had never seen, which threw away the compiled send
            // path; its recompilation, a compiler thread on one of two cores, cost 3 ms a window for the whole
            // size (docs/benchmarks.md, "A size's first windows")
            final int iterations = (int)Math.max(2, (long)spec.iterationsFor(size) * calls / WARM_UP_CALLS / 10);
            // the report's path too: its first run (class loading, string concatenation's bootstraps) queued
            // compilations that ran on a compiler thread through the next measured size
            reportWarmUp(measure(spec, transport, timer, size, 0, iterations));
        }
    }

    /**
     * @return the calls that get a path's methods, called once per message, compiled by C2: three tenths of a
     *         warm-up's 8-byte {@code share} (6,000 of the default 20,000: RECOMPILE_CALLS, C2's threshold with
     *         a margin).
     */
    private static int pathShare(final int share)
    {
        return share * 3 / 10;
    }

    /**
     * @return {@code sizes}, each at most {@code max}, without repeats: a warm-up runs each path once.
     */
    private static int[] pathSizes(final int[] sizes, final int max)
    {
        return Arrays.stream(sizes).map(size -> Math.min(size, max)).distinct().toArray();
    }

    /**
     * @return the JIT's total compilation time so far, in ms (0 if the JVM does not measure it).
     */
    private static long compilationMillis()
    {
        return JIT == null ? 0 : JIT.getTotalCompilationTime();
    }

    /**
     * @return the JIT's bean if it measures its compilation time, else null.
     */
    private static CompilationMXBean compilationTimer()
    {
        final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit : null;
    }

    /**
     * The multi-pair tests' vote: every rank sends its answer to rank 0, which sends back whether all agreed.
     */
    private static boolean everyRank(final Communicator comm, final boolean mine)
    {
        final UnsafeBuffer vote = new UnsafeBuffer(new byte[Integer.BYTES]);
        if (comm.rank() != 0)
        {
            vote.putInt(0, mine ? 1 : 0);
            comm.send(0, VOTE_TAG, vote, 0, Integer.BYTES);
            comm.recv(0, VOTE_TAG, vote, 0, Integer.BYTES);
            return vote.getInt(0) == 1;
        }
        boolean all = mine;
        for (int rank = 1; rank < comm.size(); rank++)
        {
            comm.recv(rank, VOTE_TAG, vote, 0, Integer.BYTES);
            all &= vote.getInt(0) == 1;
        }
        vote.putInt(0, all ? 1 : 0);
        for (int rank = 1; rank < comm.size(); rank++)
        {
            comm.send(rank, VOTE_TAG, vote, 0, Integer.BYTES);
        }
        return all;
    }

    /**
     * Whether every rank of the test says yes.
     */
    @FunctionalInterface
    interface Vote
    {
        boolean all(boolean mine);
    }

    /**
     * Waits until the JIT has compiled nothing for {@value #QUIET_MILLIS} ms (at most {@value #QUIET_LIMIT_MILLIS}
     * ms): the warm-up queues C2 compilations that finish in background compiler threads, and on a machine
     * with as many cores as spinning ranks those threads take a core from a rank for milliseconds at a
     * time; measured without this wait, the first sizes' averages were 5 to 30 times their medians.
     */
    private static void awaitQuietCompiler() throws InterruptedException
    {
        if (JIT == null)
        {
            return;
        }
        final long limit = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(QUIET_LIMIT_MILLIS);
        long last = JIT.getTotalCompilationTime();
        long quietSince = System.nanoTime();
        while (System.nanoTime() - quietSince < TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS) && System.nanoTime() - limit < 0)
        {
            Thread.sleep(20);
            final long now = JIT.getTotalCompilationTime();
            if (now != last)
            {
                last = now;
                quietSince = System.nanoTime();
            }
        }
    }

    /**
     * The first {@link #COLD_ROUND_TRIPS} 8-byte round trips after attach, before any warm-up: what a short
     * job sees while the JIT has not compiled the path yet. Printed by the timing rank as a comment line, with
     * the window's wall time and the time this JVM's compiler threads spent compiling in it (the cost the
     * window pays for: docs/benchmarks.md, "Cold start").
     */
    private static void coldStart(final PairTransport transport, final boolean timer)
    {
        final long compiledBefore = compilationMillis();
        final long start = System.nanoTime();
        final ResultLine cold = OsuLoops.latency(transport, timer, 8, 0, COLD_ROUND_TRIPS);
        final long wallMillis = (System.nanoTime() - start) / 1_000_000;
        final long compiledMillis = compilationMillis() - compiledBefore;
        if (cold != null)
        {
            final double[] v = cold.values();
            System.out.println(String.format(java.util.Locale.ROOT, "# cold start: the first %,d round trips of 8 B " +
                "after attach, before any warm-up: mean %.2f us one-way, p50 %.2f, p99 %.2f, max %.2f; %,d ms in all, " +
                "in which this JVM's JIT compiled for %,d ms (the table's 8 B row is after the warm-up)",
                COLD_ROUND_TRIPS, v[0], v[1], v[2], v[4], wallMillis, compiledMillis));
        }
    }

    private static ResultLine measure(
        final BenchSpec spec, final PairTransport transport, final boolean timer, final int size, final int skip,
        final int iterations)
    {
        return switch (spec.test())
        {
            case LATENCY, MULTI_LAT -> OsuLoops.latency(transport, timer, size, skip, iterations);
            case WAKE -> OsuLoops.wake((Sm4jPair)transport, timer, size, skip, iterations, spec.pauseMicros() * 1_000);
            case BW, MBW_MR -> OsuLoops.bandwidth(transport, timer, size, spec.window(), skip, iterations);
            case BIBW -> OsuLoops.bidirectional((Sm4jPair)transport, timer, size, spec.window(), skip, iterations);
            case ALLREDUCE, REDUCE, REDUCE_SCATTER, BCAST, GATHER, ALLGATHER, ALLTOALL, BARRIER -> throw new IllegalStateException(spec.test() + " is a collective: runCollective measures it");
            case PUT_LATENCY, GET_LATENCY, PUT_BW -> throw new IllegalStateException(spec.test() + " is one-sided: runRma measures it");
        };
    }

    private static ResultLine threadLatency(final ThreadPingPong threads, final int size, final int skip, final int iterations)
        throws InterruptedException
    {
        final Histogram roundTrips = Samples.empty();
        final long elapsed = threads.run(size, skip, iterations, roundTrips::recordValue);
        return OsuLoops.latencyLine(ThreadPingPong.name(), size, elapsed, iterations, roundTrips);
    }

    /**
     * Says that {@code transport}'s warm-up starts, which takes seconds. The launcher's first progress line
     * costs it tens of milliseconds of one core (class loading, its first {@code String.format}): printed only
     * before the first measured size, that took a core from a spinning rank and the first size of every run,
     * whichever it was, had a mean rate 10-20 times below its median window's (docs/benchmarks.md, "A size's
     * first windows"). Now it happens during the warm-up.
     */
    private static void warmingUp(final boolean print, final String transport)
    {
        if (print)
        {
            System.out.println(PROGRESS + transport + " " + WARM_UP);
        }
    }

    /**
     * Says which size is next, before the ranks meet to measure it: the launcher wakes up to read this line
     * and the last result, and on a machine with as many cores as spinning ranks its thread takes a core from
     * a rank. The printing rank waits {@value #SETTLE_MILLIS} ms so that happens now: measured right after
     * the line, 10,000 round trips of 8 bytes (4 ms) took a 2-5 ms stall, which doubled their mean.
     */
    private static void progress(final boolean print, final String transport, final int size) throws InterruptedException
    {
        if (print)
        {
            System.out.println(PROGRESS + transport + " " + size);
        }
        pause(print);
    }

    /**
     * The printing rank's pause after a progress line, which the other ranks wait out in their next call.
     */
    private static void pause(final boolean printing) throws InterruptedException
    {
        if (printing)
        {
            Thread.sleep(SETTLE_MILLIS);
        }
    }

    private static void report(final ResultLine line)
    {
        if (line != null)
        {
            System.out.println(line.format());
        }
    }
}
