package io.sm4j.bench;

import io.sm4j.launch.Binding;
import io.sm4j.launch.JobLauncher;
import io.sm4j.layout.LayoutParams;
import io.sm4j.transport.TransportOptions;
import org.agrona.IoUtil;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Runs one benchmark job: {@code processes} rank JVMs over a segment laid out by {@code params} (sized for
 * {@code params.peers()} ranks; the ranks that are not started are registered idle), every rank running
 * {@link BenchRank}. Collects the ranks' result and span lines; passes anything else they print to {@code err}. The
 * ranks wait as {@code --idle} says ({@code SM4J_IDLE}; AUTO spins, then sleeps while every rank can have a
 * core, and yields first otherwise).
 */
public final class BenchRunner
{
    private static final Path TRANSPARENT_HUGE_PAGES = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");

    private BenchRunner()
    {
    }

    /**
     * What a run produced.
     *
     * @param exitCode the job's exit code (0: every rank succeeded).
     * @param results  the measurements.
     * @param idle     how every rank waited, e.g. "auto (yield first: 4 ranks > 2 cores)".
     */
    public record Outcome(int exitCode, BenchResults results, String idle)
    {
    }

    /**
     * @param idle     how the ranks wait ({@code SM4J_IDLE}).
     * @param binding  where the rank JVMs run.
     * @param jvmArgs  the rank JVMs' options ({@link #rankJvmArgs(List)}), as the caller also reports them.
     * @param progress told {@code transport size} before each measurement.
     */
    public static Outcome run(
        final BenchSpec spec, final LayoutParams params, final int processes, final TransportOptions.Idle idle,
        final Binding binding, final Path segmentDir, final Duration limit, final List<String> jvmArgs, final Consumer<String> progress, final PrintWriter err)
        throws IOException
    {
        final BenchResults results = new BenchResults(spec.test());
        // the baselines' ring file and sockets sit beside the segment (tmpfs), where sm4j's own memory is
        final Path scratch = Files.createTempDirectory(segmentDir, "sm4j-bench-");
        final Thread cleanup = new Thread(() -> IoUtil.delete(scratch.toFile(), true));
        Runtime.getRuntime().addShutdownHook(cleanup);
        try (PrintWriter out = new PrintWriter(new LineWriter(line -> dispatch(line, results, progress, err)), true))
        {
            final List<String> command = new ArrayList<>();
            command.add(BenchRank.class.getName());
            command.addAll(spec.toArgs());
            final int code = JobLauncher.run(new JobLauncher.Job(params, segmentDir, System.getProperty("java.class.path"),
                command, jvmArgs, Map.of(BenchRank.SCRATCH_ENV, scratch.toString(), TransportOptions.IDLE_ENV, idle.name()),
                Duration.ofSeconds(5), limit, processes, binding), out, err);
            // as the ranks that run see it: the segment's rank count includes the idle ones
            return new Outcome(code, results, TransportOptions.describeIdle(idle, processes, binding.ownCores(processes)));
        }
        finally
        {
            Runtime.getRuntime().removeShutdownHook(cleanup);
            IoUtil.delete(scratch.toFile(), false);
        }
    }

    /**
     * @return the rank JVMs' options: ParallelGC (no concurrent GC threads next to two spinning ranks)
     * unless {@code extra} chooses a collector, a 256 MiB heap to start with, touched at start
     * ({@code -XX:+AlwaysPreTouch}), then {@code extra} (where {@code -XX:-AlwaysPreTouch} undoes it).
     * <p>
     * Why touched: the kernel maps a heap page on its first write, and here a fault costs about 7 us (the heap's
     * 65,536 pages take 0.48 s). A loop that allocates per message (plain isend windows: a request and its
     * status, about 108 bytes a message in each rank) faults once every 38 messages while its JVM is in its
     * first pass through the young generation, and whether a measured size falls in that pass depended on how
     * much the warm-up had allocated: runs were 2 M or 6-14 M messages/s, one mode per run, and with the heap
     * touched none was slow (docs/benchmarks.md). OSU's C loops allocate nothing per message; a touched heap
     * measures the steady state they measure.
     * <p>
     * Where the kernel gives transparent huge pages to a process that asks ({@link #offersHugePages}), the heap
     * and the code cache are asked for them ({@code -XX:+UseTransparentHugePages}): a JVM maps thousands of
     * small pages where a C loop maps a few, and a kernel that samples pages' accessed bits (DAMON, on this
     * machine's VM twice a second) stalled the rank JVMs for milliseconds each time; with huge pages the wake-up
     * test's p99.9 fell from 5-15 ms to 1.4-4.5 ms and its mean by 28-60 % (docs/benchmarks.md, "Seventeenth
     * session"). {@code -XX:-UseTransparentHugePages} in {@code extra} undoes it.
     */
    public static List<String> rankJvmArgs(final List<String> extra)
    {
        return rankJvmArgs(extra, readQuietly(TRANSPARENT_HUGE_PAGES));
    }

    /**
     * @param hugePageMode the kernel's transparent huge page mode ({@link #offersHugePages}).
     */
    static List<String> rankJvmArgs(final List<String> extra, final String hugePageMode)
    {
        final List<String> jvm = new ArrayList<>();
        if (extra.stream().noneMatch(arg -> arg.matches("-XX:\\+Use\\w+GC")))
        {
            jvm.add("-XX:+UseParallelGC");
        }
        jvm.add("-Xms256m");
        jvm.add("-XX:+AlwaysPreTouch");
        if (offersHugePages(hugePageMode))
        {
            jvm.add("-XX:+UseTransparentHugePages");
        }
        jvm.addAll(extra);
        return jvm;
    }

    /**
     * @param mode the text of {@code /sys/kernel/mm/transparent_hugepage/enabled}, e.g. {@code "always [madvise]
     *             never"} (the bracket marks the kernel's choice), or null where there is none.
     * @return true if a process that asks gets transparent huge pages: the choice is always or madvise. Where
     *         it is never, a JVM asked for them would warn on every start.
     */
    static boolean offersHugePages(final String mode)
    {
        return mode != null && (mode.contains("[always]") || mode.contains("[madvise]"));
    }

    private static String readQuietly(final Path file)
    {
        try
        {
            return Files.readString(file);
        }
        catch (final IOException | RuntimeException absent)
        {
            return null; // not Linux, or no huge pages in this kernel: ask for none
        }
    }

    private static void dispatch(
        final String prefixed, final BenchResults results,
        final Consumer<String> progress, final PrintWriter err)
    {
        final int close = prefixed.indexOf("] ");
        final String line = prefixed.startsWith("[") && close > 0 ? prefixed.substring(close + 2) : prefixed;
        if (line.startsWith(BenchRank.WARM_UP_RESULT))
        {
            ResultLine.parse(line.substring(BenchRank.WARM_UP_RESULT.length())); // the parser runs before measuring
            return;
        }
        final ResultLine result = ResultLine.parse(line);
        final LoopSpan span = result == null ? LoopSpan.parse(line) : null;
        if (result != null)
        {
            results.add(result);
        }
        else if (span != null)
        {
            results.add(span);
        }
        else if (line.startsWith(BenchRank.PROGRESS))
        {
            progress.accept(line.substring(BenchRank.PROGRESS.length()));
        }
        else
        {
            err.println(prefixed);
        }
    }
}
