package io.sm4j.job;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Whether the node has more runnable threads than processors, so that a rank's thread competes for one: what a
 * rank that was given a core of its own learns when other processes (a build, a browser, another job) take some
 * of them. Sampled, at most every {@link #SAMPLE_NANOS}, from three kernel counters:
 * <ul>
 *   <li>the node's idle time, every processor's ({@code /proc/uptime}, second field, in seconds with two
 *       decimals);</li>
 *   <li>the node's runnable threads at the moment of the sample, this one included ({@code /proc/loadavg}, the
 *       number before the slash in its fourth field);</li>
 *   <li>this thread's run delay, the time it was runnable but waited for a processor
 *       ({@code /proc/thread-self/schedstat}, second field, nanoseconds).</li>
 * </ul>
 * An interval is oversubscribed if the node's processors together idled for less than half of it
 * ({@link #IDLE_CORES}), and either more threads than processors were runnable at its end or this thread
 * waited for a processor for at least a quarter of it ({@link #DELAYED_SHARE}). Each part keeps out a case
 * that the others would let in:
 * <ul>
 *   <li>the idle time, two ranks that share one core while another idles: they wait for each other as long,
 *       and if their waits yield, the scheduler never separates them (docs/benchmarks.md, "Two ranks on two
 *       cores");</li>
 *   <li>the runnable count, the rank that spins while its peer waits for a processor: with one busy process
 *       beside 2 ranks on 2 cores, the spinner waited 3 % of the time, its peer all of it;</li>
 *   <li>the run delay, the rank just woken while its peer sleeps: the count then leaves the sleeper out.</li>
 * </ul>
 * The node becomes oversubscribed at the {@link #SUSTAINED}-th oversubscribed interval in a row, and stops being
 * so at the {@link #RELIEVED}-th in a row with a processor to spare (ranks that yield under another process's
 * load sleep now and then, and leave a processor idle for an interval); an interval in which this JVM's JIT
 * compiled for a twentieth of it or more ({@link #COMPILING_SHARE}) is not judged. As two rank JVMs start, their
 * compiler threads oversubscribe a 2-core node for a second or so, and ranks made to yield then measured their
 * first 8 B round trips at 0.28-0.31 us instead of 0.11 and their first windows at a third of their rate
 * (docs/benchmarks.md, "Twenty-second session").
 * <p>
 * The counters are the host's, not a container's: inside a cpuset or a CPU quota on a larger host, another
 * processor's idle time vetoes the verdict (the rank then waits as before), and a host busy everywhere makes it
 * yield where its own cores may be free (costing a yield per empty pass). The idle time is the kernel's sum over
 * processors, without I/O wait; kernels before 3.x that did not count a tickless processor's idle time until it
 * woke could under-count it, and so let the other two rules judge alone. Where the node's files cannot be read
 * ({@link #FAILURES} samples in a row) the verdict is false and sampling pauses for {@link #RETRY_NANOS}; where the
 * kernel keeps no run delay (no schedstat file, or one that reads 0) or the JVM no compiling time
 * ({@code -XX:-UsePerfData}), that part of the rule is inert.
 * Not thread-safe: one per waiting thread, sampled by that thread (the run delay is the calling thread's, the
 * operating system's thread: a sample by another thread, or by this one on another carrier thread, starts a new
 * interval, so threads that take turns waiting leave the verdict as it is).
 */
public final class CpuContention
{
    /** The least time between two samples; each reads three small files (tens of microseconds). */
    static final long SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * Run delay over an interval, as a share of it, from which a thread counts as competing for a processor:
     * three busy threads on two cores wait a third of the time each, two ranks alone on two cores almost never
     * (a kernel thread, the JIT's threads at start).
     */
    static final double DELAYED_SHARE = 0.25;
    /**
     * The node's idle time over an interval, in processors (idle time / interval), from which it has a processor
     * to spare: a whole one where two ranks share a core beside an idle one, next to none where every processor
     * is busy.
     */
    static final double IDLE_CORES = 0.5;
    /**
     * Oversubscribed intervals in a row that make the node oversubscribed: the second or so in which two starting
     * rank JVMs compile is oversubscribed too, and the peer's compiling is not this JVM's to see.
     */
    static final int SUSTAINED = 5;
    /** Intervals in a row with a processor to spare that make an oversubscribed node no longer so. */
    static final int RELIEVED = 3;
    /** This JVM's compiling time over an interval, as a share of it, from which the interval is not judged. */
    static final double COMPILING_SHARE = 0.05;
    /** Processors that /proc/uptime and /proc/loadavg count: the node's online CPUs, read once per JVM. */
    private static final int PROCESSORS = CpuBudget.onlineCpus().size();
    /** Nanoseconds per hundredth of a second, /proc/uptime's unit. */
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final Path SCHEDSTAT = Path.of("/proc/thread-self/schedstat");
    private static final Path UPTIME = Path.of("/proc/uptime");
    private static final Path LOADAVG = Path.of("/proc/loadavg");
    private static final Path THREAD_SELF = Path.of("/proc/thread-self");
    /** Samples in a row that could not read the node's files, after which sampling pauses. */
    static final int FAILURES = 3;
    /** How long sampling pauses after {@link #FAILURES}: an exhausted file table passes, a missing procfs stays. */
    static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final File schedstat;
    private final File uptime;
    private final File loadavg;
    private final int processors;
    /** This JVM's JIT's compiling time so far, in milliseconds (0 if the JIT does not tell it). */
    private final LongSupplier compilingMillis;
    /**
     * System.nanoTime(), the interval's own clock: the caller's may be old (it only saves a clock read between
     * samples), so this one paces them too.
     */
    private final LongSupplier clock;
    /** The calling thread's id in the operating system, whose run delay schedstat gives. */
    private final LongSupplier thread;
    private long lastCompilingMillis;
    private final byte[] text = new byte[256];
    /** The id of the thread that took the last sample, or -1: a sample by another starts a new interval. */
    private long sampler = -1;
    /** The caller's time of the last call that reached the clock, once {@link #paced}. */
    private long lastCall;
    private boolean paced;
    /** The schedstat file was missing: the run delay reads 0 from then on. */
    private boolean noDelay;
    /** After {@link #FAILURES}: the clock's time before which there is no sample. */
    private long retryAt;
    /** The clock's time of the last sample, where the interval starts. */
    private long lastSample;
    private long lastDelay;
    private long lastIdleTicks;
    private boolean oversubscribed;
    /** Intervals in a row that disagreed with {@link #oversubscribed}. */
    private int against;
    /** Samples in a row that could not read their files. */
    private int failures;

    /**
     * @return a sampler of the node's idle time and runnable threads and the calling thread's run delay, from procfs.
     */
    public static CpuContention ofNode()
    {
        return new CpuContention(SCHEDSTAT, UPTIME, LOADAVG, PROCESSORS, () -> Jit.COMPILING.getAsLong(), System::nanoTime,
            CpuContention::osThread);
    }

    /**
     * This JVM's JIT's compiling time, resolved at the first sample that reads it: the management classes take
     * 15-19 ms to load, which a rank's start should not pay for a sampler that may never sample.
     */
    private static final class Jit
    {
        static final LongSupplier COMPILING = compiling();

        private static LongSupplier compiling()
        {
            final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
            return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit::getTotalCompilationTime : () -> 0;
        }
    }

    /**
     * @return the calling thread's id in the operating system ({@code /proc/thread-self} links to PID/task/TID), or
     *         -1 if it cannot be read (each sample then starts an interval: no verdict changes).
     */
    private static long osThread()
    {
        try
        {
            final Path link = Files.readSymbolicLink(THREAD_SELF);
            return Long.parseLong(link.getFileName().toString());
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
    }

    /**
     * @param schedstat       a file in the format of {@code /proc/thread-self/schedstat}.
     * @param uptime          a file in the format of {@code /proc/uptime}.
     * @param loadavg         a file in the format of {@code /proc/loadavg}.
     * @param processors      the processors that {@code uptime} and {@code loadavg} count.
     * @param compilingMillis this JVM's JIT's compiling time so far, in milliseconds.
     * @param clock           nanoseconds, as System.nanoTime().
     * @param thread          the calling thread's id, as the operating system's whose run delay {@code schedstat}
     *                        gives (-1: unknown).
     */
    CpuContention(
        final Path schedstat, final Path uptime, final Path loadavg, final int processors,
        final LongSupplier compilingMillis, final LongSupplier clock, final LongSupplier thread)
    {
        this.schedstat = schedstat.toFile();
        this.uptime = uptime.toFile();
        this.loadavg = loadavg.toFile();
        this.processors = processors;
        this.compilingMillis = compilingMillis;
        this.clock = clock;
        this.thread = thread;
    }

    /**
     * Samples if the last sample is {@link #SAMPLE_NANOS} old, from the thread whose run delay counts.
     *
     * @param now System.nanoTime() as recently read (maybe old: it spares a clock read between samples).
     * @return whether the node is oversubscribed, as of the last sample.
     */
    public boolean oversubscribed(final long now)
    {
        if (!paced || now - lastCall >= SAMPLE_NANOS)
        {
            paced = true;
            lastCall = now;
            sample();
        }
        return oversubscribed;
    }

    private void sample()
    {
        final long now = clock.getAsLong();
        final long me = thread.getAsLong();
        if (failures >= FAILURES && now - retryAt < 0 || me == sampler && me >= 0 && now - lastSample < SAMPLE_NANOS)
        {
            return; // the caller's time was old: this interval is not over (the pacing is this clock's)
        }
        final long idleTicks;
        final long runnable;
        try
        {
            idleTicks = field(read(uptime), 1);
            runnable = field(read(loadavg), 3);
        }
        catch (final IOException | RuntimeException unreadable)
        {
            // no procfs, or no file to open now (after FAILURES in a row): the caller's own rules decide, as before
            if (++failures >= FAILURES)
            {
                oversubscribed = false;
                against = 0;
                retryAt = now + RETRY_NANOS;
            }
            sampler = -1;
            return;
        }
        failures = 0;
        final long delay = runDelay();
        final long compiling = compilingMillis.getAsLong();
        final double interval = now - lastSample;
        if (sampler == me && me >= 0 && interval > 0 && delay >= lastDelay && idleTicks >= lastIdleTicks &&
            TimeUnit.MILLISECONDS.toNanos(compiling - lastCompilingMillis) < COMPILING_SHARE * interval)
        {
            final boolean says = (idleTicks - lastIdleTicks) * TICK_NANOS < IDLE_CORES * interval &&
                (runnable > processors || delay - lastDelay >= DELAYED_SHARE * interval);
            against = says == oversubscribed ? 0 : against + 1;
            if (against == (says ? SUSTAINED : RELIEVED))
            {
                oversubscribed = says;
                against = 0;
            }
        }
        sampler = me;
        lastSample = now;
        lastDelay = delay;
        lastIdleTicks = idleTicks;
        lastCompilingMillis = compiling;
    }

    /**
     * @return the calling thread's run delay so far, in nanoseconds; 0 from the first time the kernel had no
     *         schedstat file (it keeps none on this kernel: that part of the rule is inert); the last one read if
     *         the file is there but could not be read now.
     */
    private long runDelay()
    {
        if (!noDelay)
        {
            try
            {
                return field(read(schedstat), 1);
            }
            catch (final IOException | RuntimeException ex)
            {
                if (schedstat.exists())
                {
                    return lastDelay; // a file table full for now: no delay seen in this interval
                }
                noDelay = true;
            }
        }
        return 0;
    }

    /**
     * Reads through a {@link RandomAccessFile}, which an interrupt does not close (a channel's read would throw
     * and leave a waiting thread whose interrupt flag is set without samples; sm4j waits with it set).
     *
     * @return the bytes of the start of {@code file} now in {@link #text}: up to its first line's end (procfs
     *         gives a line in one read, and no second read is needed to see the end of the file).
     * @throws IOException if the file cannot be read.
     */
    private int read(final File file) throws IOException
    {
        try (RandomAccessFile in = new RandomAccessFile(file, "r"))
        {
            int length = 0;
            int read;
            while (length < text.length && (read = in.read(text, length, text.length - length)) > 0)
            {
                length += read;
                if (text[length - 1] == '\n')
                {
                    break;
                }
            }
            return length;
        }
    }

    /**
     * @param length bytes of a file's start in {@link #text}.
     * @return the decimal number that starts the {@code index}-th field (from 0) of its first line, fields being
     *         separated by spaces (and ending at a slash: {@code 3/80}), its point left out ({@code 12.34}: 1234).
     * @throws IllegalStateException if the field is not there or is not a number.
     */
    private long field(final int length, final int index)
    {
        int at = 0;
        for (int field = 0; field < index; field++)
        {
            while (at < length && text[at] != ' ' && text[at] != '\n')
            {
                at++;
            }
            while (at < length && text[at] == ' ')
            {
                at++;
            }
        }
        long value = 0;
        int digits = 0;
        for (; at < length && text[at] != ' ' && text[at] != '\n' && text[at] != '/'; at++)
        {
            if (text[at] == '.' && digits > 0)
            {
                continue;
            }
            digits++;
            final int digit = text[at] - '0';
            if (digit < 0 || digit > 9 || digits > 18)
            {
                throw new IllegalStateException("field " + index + " is not a number");
            }
            value = value * 10 + digit;
        }
        if (digits == 0)
        {
            throw new IllegalStateException("no field " + index + " on the first line");
        }
        return value;
    }
}
