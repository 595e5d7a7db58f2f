package io.sm4j.job;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The verdict of {@link CpuContention}: over files in procfs's formats and a JIT's compiling time that a test
 * writes (each rule alone), and over the node's own procfs while more threads spin than it has processors.
 */
class CpuContentionTest
{
    private static final long SAMPLE = CpuContention.SAMPLE_NANOS;
    /** A run delay of a quarter of an interval of {@link #SAMPLE}: the least that counts. */
    private static final long DELAYED = SAMPLE / 4;
    /** Hundredths of a second of idle time in an interval of {@link #SAMPLE}: half a processor, the least that counts. */
    private static final long IDLE_HALF = SAMPLE / TimeUnit.MILLISECONDS.toNanos(10) / 2;

    @TempDir
    Path dir;

    private long delay;
    private long idle;
    private int runnable;
    /** The JIT's compiling time so far, in milliseconds. */
    private long compiling;
    /** The time of the last sample, in nanoseconds. */
    private long at;
    /** A kernel that keeps no run delays: no schedstat file. */
    private boolean noSchedstat;

    @Test
    void aNodeWithoutIdleTimeShouldBeOversubscribedFromTheFifthIntervalWithMoreThreadsRunnableThanProcessors()
        throws IOException
    {
        final CpuContention contention = files(2);
        runnable = 3;
        assertFalse(judge(contention, 1, 0, 0), "the first sample only starts an interval");
        assertFalse(judge(contention, CpuContention.SUSTAINED - 1, 0, 0), "3 runnable on 2 processors, not for long");
        assertTrue(judge(contention, 1, 0, 0), "3 runnable on 2 processors, no idle time, " + CpuContention.SUSTAINED +
            " intervals in a row");
        runnable = 2;
        assertTrue(judge(contention, CpuContention.RELIEVED - 1, 0, 0), "2 runnable on 2 processors, not for long");
        assertFalse(judge(contention, 1, 0, 0), "2 runnable on 2 processors, and this thread waited for none");
    }

    @Test
    void aNodeWithoutIdleTimeShouldBeOversubscribedWhileThisThreadWaitsAQuarterOfEachInterval() throws IOException
    {
        final CpuContention contention = files(2);
        runnable = 1;
        judge(contention, 1, 0, 0);
        assertFalse(judge(contention, CpuContention.SUSTAINED, DELAYED - 1_000_000, 0), "a run delay of less than a quarter");
        assertTrue(judge(contention, CpuContention.SUSTAINED, DELAYED, 0), "a run delay of a quarter, 1 thread runnable");
    }

    @Test
    void aNodeThatIdlesHalfAProcessorShouldNotBeOversubscribed() throws IOException
    {
        final CpuContention contention = files(2);
        runnable = 4;
        judge(contention, 1, 0, 0);
        assertFalse(judge(contention, CpuContention.SUSTAINED, SAMPLE, IDLE_HALF),
            "half a processor idled: two ranks that share a core beside an idle one");
        assertTrue(judge(contention, CpuContention.SUSTAINED, SAMPLE, IDLE_HALF - 1), "less than half a processor idled");
    }

    @Test
    void anIntervalThatDisagreesShouldStartTheCountAgain() throws IOException
    {
        final CpuContention contention = oneIntervalShort();
        assertFalse(judge(contention, 1, 0, 2 * IDLE_HALF), "a whole processor idled");
        assertFalse(judge(contention, CpuContention.SUSTAINED - 1, 0, 0), "counted from before the idle interval");
        assertTrue(judge(contention, 1, 0, 0));
        assertTrue(judge(contention, CpuContention.RELIEVED - 1, 0, 2 * IDLE_HALF), "idle, not for long");
        assertTrue(judge(contention, 1, 0, 0));
        assertTrue(judge(contention, CpuContention.RELIEVED - 1, 0, 2 * IDLE_HALF), "counted from before the busy interval");
        assertFalse(judge(contention, 1, 0, 2 * IDLE_HALF));
    }

    @Test
    void anIntervalInWhichThisJvmCompiledATwentiethOfItShouldNotBeJudged() throws IOException
    {
        final CpuContention contention = oneIntervalShort();
        compiling += 5; // 5 ms in an interval of 100: the JIT's threads are some of the runnable ones
        runnable = 1;
        assertFalse(judge(contention, 1, 0, 2 * IDLE_HALF), "an interval not judged");
        runnable = 3;
        assertTrue(judge(contention, 1, 0, 0), "the count of busy intervals went on past the one not judged");
        compiling += 4;
        runnable = 1;
        judge(contention, CpuContention.RELIEVED - 1, 0, 2 * IDLE_HALF);
        assertFalse(judge(contention, 1, 0, 2 * IDLE_HALF), "an interval with 4 ms of compiling in 100 was judged");
    }

    @Test
    void theVerdictShouldLastUntilTheNextSample() throws IOException
    {
        final CpuContention contention = oversubscribed();
        runnable = 1;
        judge(contention, CpuContention.RELIEVED - 1, 0, 0);
        write();
        at += SAMPLE;
        assertTrue(contention.oversubscribed(at - 1), "sampled again within " + SAMPLE + " ns");
        assertFalse(contention.oversubscribed(at));
    }

    @Test
    void filesUnreadableInThreeSamplesInARowShouldLeaveTheVerdictFalseUntilTheRetry() throws IOException
    {
        final CpuContention contention = oversubscribed();
        Files.delete(dir.resolve("uptime"));
        at += SAMPLE;
        assertTrue(contention.oversubscribed(at), "one sample could not read its files");
        write();
        assertTrue(judge(contention, 1, 0, 0), "a sample after a failure only starts an interval");
        Files.delete(dir.resolve("uptime"));
        for (int i = 0; i < CpuContention.FAILURES - 1; i++)
        {
            at += SAMPLE;
            assertTrue(contention.oversubscribed(at), (i + 1) + " samples in a row could not read their files");
        }
        at += SAMPLE;
        assertFalse(contention.oversubscribed(at), CpuContention.FAILURES + " samples in a row could not read their files");
        write();
        final long retry = at + CpuContention.RETRY_NANOS;
        while (at + SAMPLE - retry < 0)
        {
            assertFalse(judge(contention, 1, 0, 0), "no sample before the retry");
        }
        assertFalse(judge(contention, CpuContention.SUSTAINED, 0, 0), "the first sample after the retry starts an interval");
        assertTrue(judge(contention, 1, 0, 0), "sampled again after the retry");
    }

    @Test
    void aKernelWithoutRunDelaysShouldLeaveTheOtherRules() throws IOException
    {
        final CpuContention contention = files(2);
        noSchedstat = true;
        Files.delete(dir.resolve("schedstat"));
        runnable = 3;
        judge(contention, 1, 0, 0);
        assertTrue(judge(contention, CpuContention.SUSTAINED, 0, 0), "3 runnable on 2 processors, no idle time");
        runnable = 1;
        assertFalse(judge(contention, CpuContention.RELIEVED, 0, 0), "1 runnable, and no run delay to say otherwise");
    }

    @Test
    void aCallerWhoseTimeIsOldShouldNotShortenTheInterval() throws IOException
    {
        final CpuContention contention = files(2);
        runnable = 3;
        judge(contention, 1, 0, 0);
        for (int i = 0; i < 2 * CpuContention.SUSTAINED; i++)
        {
            at += SAMPLE / 10;
            write();
            // the caller's time jumps a whole interval each call, the clock a tenth of one
            assertFalse(contention.oversubscribed(at + (i + 1) * SAMPLE), "judged an interval of " + SAMPLE / 10 + " ns");
        }
    }

    @Test
    void aFieldThatIsNotANumberShouldCountAsAnUnreadableFile() throws IOException
    {
        final CpuContention contention = oversubscribed();
        for (int i = 0; i < CpuContention.FAILURES; i++)
        {
            Files.writeString(dir.resolve("loadavg"), "0.00 0.01 0.05 x/80 1234\n");
            at += SAMPLE;
            contention.oversubscribed(at);
        }
        assertFalse(contention.oversubscribed(at));
    }

    @Test
    void aSampleByAnotherThreadShouldStartANewIntervalAndLeaveTheCount() throws Exception
    {
        final CpuContention contention = oneIntervalShort();
        final Thread other = new Thread(() -> contention.oversubscribed(at + SAMPLE));
        other.start();
        other.join();
        at += SAMPLE;
        assertFalse(judge(contention, 1, 0, 0), "the interval since the other thread's sample is not this thread's");
        assertTrue(judge(contention, 1, 0, 0), "the count went on");
    }

    @Test
    void countersThatGoBackShouldNotBeJudged() throws IOException
    {
        final CpuContention contention = files(2);
        runnable = 3;
        delay = SAMPLE;
        idle = 100;
        judge(contention, 1, 0, 0);
        assertFalse(judge(contention, 1, -SAMPLE, 0), "the run delay went back");
        assertFalse(judge(contention, 1, 0, -100), "the idle time went back");
        assertFalse(judge(contention, CpuContention.SUSTAINED - 1, 0, 0));
        assertTrue(judge(contention, 1, 0, 0));
    }

    /**
     * The node's own procfs: twice as many threads as it has processors spin, and one of them samples.
     */
    @Test
    @Timeout(30)
    void moreSpinningThreadsThanProcessorsShouldBeSeenByOneOfThem() throws InterruptedException
    {
        assumeWholeNode();
        final int spinners = 2 * CpuBudget.onlineCpus().size();
        final AtomicBoolean stop = new AtomicBoolean();
        final List<Thread> threads = new ArrayList<>();
        try
        {
            for (int i = 0; i < spinners; i++)
            {
                final Thread spinner = new Thread(() ->
                {
                    while (!stop.get())
                    {
                        Thread.onSpinWait();
                    }
                });
                spinner.setDaemon(true);
                threads.add(spinner);
                spinner.start();
            }
            final CpuContention contention = CpuContention.ofNode();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            boolean seen = false;
            while (!seen && System.nanoTime() - deadline < 0)
            {
                seen = contention.oversubscribed(System.nanoTime()); // this thread spins too, between samples
            }
            assertTrue(seen, spinners + 1 + " spinning threads on " + spinners / 2 + " processors: not seen in 10 s");
        }
        finally
        {
            stop.set(true);
            for (final Thread spinner : threads)
            {
                spinner.join();
            }
        }
    }

    /**
     * The node's counters are the host's: a cpuset or a CPU quota smaller than the host lets other processors'
     * idle time veto the verdict (documented), and procfs must be there.
     */
    static void assumeWholeNode()
    {
        assumeTrue(Files.isReadable(Path.of("/proc/thread-self/schedstat")) && Files.isReadable(Path.of("/proc/uptime")),
            "no procfs with schedstat");
        assumeTrue(CpuBudget.onlineCpus().size() == Runtime.getRuntime().availableProcessors() &&
            CpuBudget.cores() == CpuBudget.onlineCpus().size(), "this process may use only part of the node");
    }

    /**
     * @return a contention of 2 processors that has judged the node oversubscribed (3 runnable threads, no idle time).
     */
    private CpuContention oversubscribed() throws IOException
    {
        final CpuContention contention = oneIntervalShort();
        assertTrue(judge(contention, 1, 0, 0));
        return contention;
    }

    /**
     * @return a contention of 2 processors one busy interval short of judging the node oversubscribed (3 runnable
     *         threads, no idle time).
     */
    private CpuContention oneIntervalShort() throws IOException
    {
        final CpuContention contention = files(2);
        runnable = 3;
        judge(contention, 1, 0, 0);
        assertFalse(judge(contention, CpuContention.SUSTAINED - 1, 0, 0));
        return contention;
    }

    private CpuContention files(final int processors) throws IOException
    {
        write();
        return new CpuContention(dir.resolve("schedstat"), dir.resolve("uptime"), dir.resolve("loadavg"), processors,
            () -> compiling, () -> at, () -> Thread.currentThread().getId());
    }

    /**
     * Samples {@code intervals} more intervals of {@link CpuContention#SAMPLE_NANOS}, each adding {@code delayPer}
     * nanoseconds of run delay and {@code idlePer} clock ticks of idle time, with {@link #runnable} threads at
     * each sample.
     *
     * @return the verdict after the last.
     */
    private boolean judge(final CpuContention contention, final int intervals, final long delayPer, final long idlePer)
        throws IOException
    {
        boolean verdict = false;
        for (int i = 0; i < intervals; i++)
        {
            delay += delayPer;
            idle += idlePer;
            write();
            at += SAMPLE;
            verdict = contention.oversubscribed(at);
        }
        return verdict;
    }

    private void write() throws IOException
    {
        if (!noSchedstat)
        {
            Files.writeString(dir.resolve("schedstat"), "123456789 " + delay + " 42\n");
        }
        final long idleHundredths = 2743097 + idle;
        Files.writeString(dir.resolve("uptime"),
            "27751.84 " + idleHundredths / 100 + "." + String.format("%02d", idleHundredths % 100) + "\n");
        Files.writeString(dir.resolve("loadavg"), "1.34 2.27 2.30 " + runnable + "/78 1317\n");
    }
}
