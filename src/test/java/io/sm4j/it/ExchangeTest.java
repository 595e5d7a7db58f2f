package io.sm4j.it;

import io.sm4j.layout.FragmentDescriptor;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.Policy;
import io.sm4j.layout.ThreadMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real JVMs exchanging fragments of every size 0..maxPayload over a real segment, on every policy and
 * thread mode; also a mutual flood with tiny queues and pools.
 */
class ExchangeTest
{
    /** A fragment per pair of every payload size from 0 to the transport's eager payload (4104 by default) once. */
    @ParameterizedTest(name = "{0} ranks, {1} {2}, {3}, cacheline {4}, {5} entries, {6} eager/peer, {7} fast boxes")
    @CsvSource({
        "2, AGGREGATED, 4096, SINGLE,   128, 128, 2, 8",
        "2, AGGREGATED, 4096, SINGLE,   128, 128, 2, 0",
        "4, AGGREGATED, 4096, SINGLE,   128, 128, 2, 8",
        "4, AGGREGATED, 4096, SINGLE,   128, 128, 2, 0",
        "4, AGGREGATED, 4096, SINGLE,   128, 128, 2, 1",
        "4, AGGREGATED, 4096, MULTIPLE,  64, 128, 2, 0",
        "4, PAGE,       4096, SINGLE,   128, 128, 2, 8",
        "3, PAGE,       8192, MULTIPLE, 128, 128, 2, 0",
        "4, CACHELINE,  4096, MULTIPLE, 128, 128, 2, 0",
        "3, CACHELINE,  4096, SINGLE,    64, 128, 2, 8",
        "2, AGGREGATED, 4096, MULTIPLE, 128,   4, 1, 0" })
    @Timeout(180)
    void everyRankShouldReceiveEveryFragmentInOrderAndIntact(
        final int ranks, final Policy policy, final int pageSize, final ThreadMode mode, final int cacheline,
        final int entries, final int eagerPerPeer, final int fastBoxes) throws IOException
    {
        final int count = LayoutParams.DEFAULT_EAGER_LIMIT - FragmentDescriptor.HEADER_LENGTH + 1;
        final LayoutParams params = LayoutParams.builder(ranks).policy(policy).pageSize(pageSize).threadMode(mode)
            .cacheline(cacheline).queueEntries(entries).eagerFragsPerPeer(eagerPerPeer).fastBoxes(fastBoxes).build();
        final JobRunner job = JobRunner.run(params, Map.of(), ExchangeApp.class.getName(), Integer.toString(count));
        assertEquals(0, job.exitCode(), job.out() + job.err());
        for (int r = 0; r < ranks; r++)
        {
            assertTrue(job.out().contains("[" + r + "] rank " + r + " received " + count * (ranks - 1) + " fragments"),
                job.out() + job.err());
        }
        assertFalse(job.leftFiles(), "segment file left behind");
    }

    @ParameterizedTest(name = "{0} fast boxes")
    @org.junit.jupiter.params.provider.ValueSource(ints = { 0, 8 })
    @Timeout(120)
    void twoRanksFloodingEachOtherWithTinyQueuesAndPoolsShouldBothComplete(final int fastBoxes) throws IOException
    {
        final LayoutParams params = LayoutParams.builder(2).queueEntries(4).eagerFragsPerPeer(1).fastBoxes(fastBoxes)
            .fastBoxSize(LayoutParams.MIN_FAST_BOX_SIZE).build();
        final JobRunner job = JobRunner.run(params, Map.of(), ExchangeApp.class.getName(), "5000", "flood");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        assertTrue(job.out().contains("[0] rank 0 received 5000 fragments"), job.out());
        assertTrue(job.out().contains("[1] rank 1 received 5000 fragments"), job.out());
        assertFalse(job.leftFiles(), "segment file left behind");
    }

    @Test
    @Timeout(120)
    void threadsOfMultipleModeShouldSendAndPollConcurrentlyKeepingEachStreamInOrder() throws IOException
    {
        final LayoutParams params = LayoutParams.builder(3).threadMode(ThreadMode.MULTIPLE).queueEntries(8).build();
        final JobRunner job = JobRunner.run(params, Map.of(), MultiThreadApp.class.getName(), "3", "2000");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        for (int r = 0; r < 3; r++)
        {
            assertTrue(job.out().contains("[" + r + "] rank " + r + " received 12000 fragments in order"), job.out());
        }
        assertFalse(job.leftFiles(), "segment file left behind");
    }

    @Test
    @Timeout(300)
    void eightRanksOnTwoCoresShouldCompleteAnAllToAll() throws IOException
    {
        // AUTO counts the node's cores (CpuBudget): on a 2-core machine 8 ranks yield, then sleep, instead of spinning;
        // ActiveProcessorCount=2 only keeps each JVM's own thread pools small (on a larger machine they spin)
        final JobRunner job = JobRunner.run(LayoutParams.defaults(8), Map.of(),
            List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:ActiveProcessorCount=2"), ExchangeApp.class.getName(), "300");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        for (int r = 0; r < 8; r++)
        {
            assertTrue(job.out().contains("[" + r + "] rank " + r + " received 2100 fragments"), job.out());
        }
        assertFalse(job.leftFiles(), "segment file left behind");
    }
}
