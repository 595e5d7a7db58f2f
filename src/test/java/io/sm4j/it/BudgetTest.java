package io.sm4j.it;

import io.sm4j.layout.LayoutParams;
import io.sm4j.transport.TransportOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The unexpected-message budget over real JVMs: derived from the heap (a small heap is not run out of
 * memory by a flood), large messages kept as envelopes (a message behind many unexpected large ones still
 * arrives), and a budget that truly holds a wanted message back is said in one line, not a silent hang.
 */
@Timeout(180)
class BudgetTest
{
    @Test
    void aSmallHeapShouldHoldSendersBackInsteadOfRunningOutOfMemory() throws IOException
    {
        // 3 senders x 3,000 x 4,000 B = 36 MB of eager messages, to a 32 MiB heap that receives them last-rank
        // first: with a fixed 64 MiB budget it died of OutOfMemoryError in Matcher.arrival
        final JobRunner job = JobRunner.run(LayoutParams.defaults(4), Map.of(), List.of("-Xmx32m", "-XX:+UseSerialGC"),
            BudgetApp.class.getName(), "order", "3000", "4000");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        final long kept = kept(job.out());
        assertTrue(kept > 0 && kept <= (32L << 20) / 4, "kept " + kept + " bytes: " + job.out());
    }

    @Test
    void unexpectedLargeMessagesShouldNotStarveAMessageSentAfterThem() throws IOException
    {
        // 20,000 x 8 KiB isends and then one byte the receiver waits for first: with a first chunk kept per
        // large message the default budget filled at about 16,000 and the byte never came
        final JobRunner job = JobRunner.run(LayoutParams.defaults(2), Map.of(), BudgetApp.class.getName(), "behind",
            "20000", "8192");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        assertTrue(kept(job.out()) > 0, job.out());
        assertTrue(job.out().contains("budget ok"), job.out());
    }

    @Test
    void aBudgetThatHoldsAWantedMessageBackShouldSaySoInOneLine() throws IOException
    {
        // 200 eager messages of 1,000 B, a 64 KiB budget, and a receive for the byte sent after them
        final JobRunner job = JobRunner.run(LayoutParams.defaults(2), Map.of(TransportOptions.UNEXPECTED_BYTES_ENV, "65536"),
            BudgetApp.class.getName(), "behind", "200", "1000", "stall");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        final List<String> lines = job.err().lines().filter(line -> line.contains("held back")).toList();
        assertEquals(1, lines.size(), job.err());
        assertTrue(lines.get(0).matches("\\[0] sm4j: rank 0 has held back messages from rank\\(s\\) \\[1] for \\d+ ms: its " +
            "unexpected-message budget is full \\([\\d,]+ bytes kept, limit 65,536: SM4J_UNEXPECTED_BYTES, .*Receive them, " +
            "or raise SM4J_UNEXPECTED_BYTES \\(and -Xmx\\)"), lines.get(0));
    }

    @Test
    void aWaitThatABudgetMakesImpossibleShouldFailWithOneLine() throws IOException
    {
        // a receive naming rank 1 waits for what rank 1 sent after 200 x 1,000 B that nothing receives: without a
        // deadline, that wait can never end (before: it hung until --timeout)
        final JobRunner job = JobRunner.run(LayoutParams.defaults(2), Map.of(TransportOptions.UNEXPECTED_BYTES_ENV, "65536"),
            BudgetApp.class.getName(), "behind", "200", "1000", "forever");
        assertNotEquals(0, job.exitCode(), job.out() + job.err());
        assertFalse(job.out().contains("rank failed"), job.out());
        assertFalse(job.leftFiles(), "files left behind");
        assertTrue(Pattern.compile("job was aborted by rank 0: rank 0 threw io\\.sm4j\\.segment\\.Sm4jException: rank 0 waits " +
            "for a message from rank 1 that cannot arrive: it is behind messages from rank 1 that no receive has taken, " +
            "and the unexpected-message budget is full \\([\\d,]+ bytes kept, limit 65,536: SM4J_UNEXPECTED_BYTES, by default " +
            "a quarter of the heap\\)\\. Post receives for them before such a wait, or raise SM4J_UNEXPECTED_BYTES \\(and -Xmx\\)$",
            Pattern.MULTILINE).matcher(job.err()).find(), job.err());
    }

    /**
     * Rank 1 isends 200 x 1,000 B, and once 66 are in shared memory (more than a 64 KiB budget keeps) receives 1 MiB
     * from rank 0, whose send first receives none of them. Before, the ACK of that send waited behind the messages
     * the budget declined (and, without a fast box, behind the eager credits they held), and both ranks hung; the
     * budget is overdrawn by what stood ahead of the ACK instead. Also: rank 1 computing 2.5 s before it receives
     * (rank 0's wait for the ACK was failed as one that "cannot arrive" after 1 s, BudgetStalls.NOTICE_NANOS: the
     * margin keeps a rank 0 that started late waiting that long), and a FIFO whose consumed slots
     * are cleared 32 at a time (its declined words and the slots not yet cleared filled it, and the ACK stayed in
     * rank 1's pending list), and a FIFO of 16 slots for 16 eager fragments (the declined words alone filled it:
     * a declinable message now leaves a slot free), and an 8 KiB budget full within the pair's first 16
     * messages, which go by the FIFO: the ACK then waits in the fast box announced behind them.
     */
    @ParameterizedTest(name = "{0} fast boxes, {1} FIFO slots cleared {2} at a time, answer after {3} ms, budget {4}, {5} ahead")
    @CsvSource({ "8, 128, 0, 0, 65536, 66", "0, 128, 0, 0, 65536, 66", "8, 128, 0, 2500, 65536, 66", "0, 32, 32, 0, 65536, 66",
        "0, 16, 0, 0, 65536, 66", "8, 128, 0, 0, 8192, 20" })
    void answersBehindMessagesTheBudgetDeclinesShouldStillArrive(
        final int fastBoxes, final int queueEntries, final int lazyFree, final int computeMillis, final long budget,
        final int ahead) throws IOException
    {
        final Map<String, String> env = new HashMap<>(Map.of(TransportOptions.UNEXPECTED_BYTES_ENV, Long.toString(budget)));
        if (lazyFree > 0)
        {
            env.put(TransportOptions.LAZY_FREE_ENV, Integer.toString(lazyFree));
        }
        final LayoutParams params = LayoutParams.defaults(2).toBuilder().fastBoxes(fastBoxes).queueEntries(queueEntries).build();
        final JobRunner job = JobRunner.run(params, env, BudgetApp.class.getName(), "reply", "200", "1000",
            Integer.toString(ahead), Integer.toString(computeMillis));
        assertEquals(0, job.exitCode(), job.out() + job.err());
        final long kept = kept(job.out());
        // the overdraft's bound (docs/transport.md): a fast box ring of the smallest messages (48 KiB for 8 KiB) and the
        // sender's eager fragments for this rank; every one of the 200 messages kept would be ~200 KB
        final long overdraft = 6L * params.fastBoxSize() + (long)params.eagerFragsPerPeer() * params.eagerLimit();
        assertTrue(kept > budget && kept <= budget + overdraft,
            "the budget was overdrawn, by at most " + overdraft + " bytes: " + kept);
    }

    private static long kept(final String out)
    {
        final Matcher kept = Pattern.compile("budget ok: at most (\\d+) unexpected bytes kept").matcher(out);
        assertTrue(kept.find(), out);
        return Long.parseLong(kept.group(1));
    }
}
