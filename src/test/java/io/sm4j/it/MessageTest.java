package io.sm4j.it;

import io.sm4j.layout.LayoutParams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The message layer over real JVMs: matching, ordering, large messages by rendezvous, requests, probe,
 * truncation, zero-copy receive, barrier, and a seeded random exchange.
 */
class MessageTest
{
    private static JobRunner run(final int ranks, final String... args) throws IOException
    {
        final String[] command = new String[args.length + 1];
        command[0] = MessageApp.class.getName();
        System.arraycopy(args, 0, command, 1, args.length);
        return JobRunner.run(LayoutParams.defaults(ranks), Map.of(), command);
    }

    private static void assertAllOk(final JobRunner job, final int ranks, final String scenario)
    {
        assertEquals(0, job.exitCode(), job.out() + job.err());
        for (int r = 0; r < ranks; r++)
        {
            assertTrue(job.out().contains("[" + r + "] rank " + r + ": " + scenario + " ok"), job.out() + job.err());
        }
    }

    @ParameterizedTest(name = "{0} ranks, {1}")
    @CsvSource({
        "2, sizes", "4, sizes", "2, sizes-unexpected", "4, sizes-unexpected", "3, any", "4, any", "2, outoforder",
        "3, outoforder", "2, probe", "2, truncate", "2, zerocopy", "3, zerocopy", "2, overtake", "3, overtake" })
    @Timeout(120)
    void scenarioShouldSucceedOnEveryRank(final int ranks, final String scenario) throws IOException
    {
        assertAllOk(run(ranks, scenario), ranks, scenario);
    }

    @Test
    @Timeout(120)
    void messagesNoReceiveTookShouldBeNamedAtClose() throws IOException
    {
        final JobRunner job = run(2, "leftover");
        assertAllOk(job, 2, "leftover");
        assertTrue(job.err().contains("[1] sm4j: rank 1 closed with 3 messages no receive took (lost): from rank 0 tag 5, " +
            "1 message, 1,048,576 bytes; from rank 0 tag 6, 1 message, 100 bytes; from world rank 0 tag 7 of the " +
            "communicator of context 1 (made by split or dup), 1 message, 10 bytes\n"), job.err());
        // the sender's side of the same loss: its large send failed when rank 1 left without taking it
        assertTrue(job.err().contains("[0] sm4j: rank 0 closed with 1 message that no receive took: their receivers " +
            "closed first (lost): to rank 1 tag 5, 1 message, 1,048,576 bytes\n"), job.err());
    }

    @Test
    @Timeout(120)
    void twoRanksSendingLargeMessagesToEachOtherBeforeReceivingShouldNotDeadlock() throws IOException
    {
        assertAllOk(run(2, "crossing", Integer.toString(8 << 20)), 2, "crossing");
    }

    @Test
    @Timeout(120)
    void aOneGibibyteMessageShouldArriveIntactWithoutBufferingWhileUnexpected() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(2), Map.of(), List.of("-Xmx1300m", "-Xmn64m", "-XX:+UseSerialGC"),
            MessageApp.class.getName(), "huge", Integer.toString(1 << 30));
        assertAllOk(job, 2, "huge");
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = { 3, 4 })
    @Timeout(120)
    void aBarrierShouldLetNoRankLeaveBeforeTheLastHasEntered(final int ranks) throws IOException
    {
        assertAllOk(run(ranks, "barrier", "30"), ranks, "barrier");
    }

    @ParameterizedTest(name = "seed {0}, {1} ranks")
    @CsvSource({ "1, 3, 30", "2, 4, 20", "3, 2, 60" })
    @Timeout(120)
    void seededRandomExchangeShouldDeliverEveryByteInOrder(final long seed, final int ranks, final int perPair)
        throws IOException
    {
        assertAllOk(run(ranks, "random", Long.toString(seed), Integer.toString(perPair)), ranks, "random");
    }
}
