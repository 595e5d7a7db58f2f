package io.sm4j.bench;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A multi-pair test's pairs ran side by side, or took turns: what their loops' spans say, and the note the table
 * prints for a row whose pairs mostly took turns.
 */
class BenchResultsTest
{
    @Test
    void aSpanLineShouldReadBackAsPrinted()
    {
        final LoopSpan span = new LoopSpan("sm4j", 64, 123_456_789_012L, 123_456_999_999L, 7_040_000L);
        assertEquals(span, LoopSpan.parse(span.format()));
        assertNull(LoopSpan.parse(new ResultLine("sm4j", 64, new double[]{ 1.0 }).format()), "a result line is no span");
    }

    @Test
    void overlapShouldBeTheTimeAllPairsRanOverTheMeanLoop()
    {
        assertEquals(1.0, overlap(new long[]{ 0, 100 }, new long[]{ 0, 100 }), 1e-9);
        assertEquals(0.5, overlap(new long[]{ 0, 100 }, new long[]{ 50, 150 }), 1e-9);
        assertEquals(0.0, overlap(new long[]{ 0, 100 }, new long[]{ 100, 200 }), 1e-9);
        assertEquals(0.0, overlap(new long[]{ 0, 100 }, new long[]{ 300, 400 }), 1e-9, "apart: none, not less");
        assertEquals(0.25, overlap(new long[]{ 0, 100 }, new long[]{ 25, 125 }, new long[]{ 75, 175 }), 1e-9);
        assertTrue(Double.isNaN(overlap(new long[]{ 0, 100 })), "one pair: nothing to compare");
    }

    @Test
    void pairsThatTookTurnsShouldMoveTheirBytesOverTheWholeTime()
    {
        final BenchResults results = new BenchResults(BenchTest.MBW_MR);
        results.add(new LoopSpan("sm4j", 8, 0, 1_000_000, 1_000_000)); // 1 MB in 1 ms: 1,000 MB/s alone
        results.add(new LoopSpan("sm4j", 8, 1_000_000, 2_000_000, 1_000_000)); // then the other pair
        assertEquals(1_000, results.wallRate("sm4j", 8), 1e-9, "2 MB in 2 ms, not the 2,000 MB/s of the sum");
        results.add(new LoopSpan("sm4j", 16, 0, 1_000_000, 0));
        results.add(new LoopSpan("sm4j", 16, 0, 1_000_000, 0));
        assertTrue(Double.isNaN(results.wallRate("sm4j", 16)), "a latency test moves no counted bytes");
    }

    @Test
    void aRowWhosePairsTookTurnsShouldSaySo()
    {
        final String turns = table(BenchTest.MULTI_LAT, new long[]{ 0, 1_000, 0 }, new long[]{ 1_000, 2_000, 0 });
        assertTrue(turns.contains("# NOTE: 8 B: sm4j's pairs ran side by side for 0 % of their loops (warm-up included): " +
            "pairs that take turns have the cores to fewer ranks at a time, so this row is not what all pairs get at once"), turns);
        assertFalse(turns.contains("together"), "a latency test has no rate to sum: " + turns);
        final String together = table(BenchTest.MULTI_LAT, new long[]{ 0, 1_000, 0 }, new long[]{ 100, 1_100, 0 });
        assertFalse(together.contains("NOTE"), together);
    }

    @Test
    void aRateRowWhosePairsTookTurnsShouldSayWhatTheyMovedTogether()
    {
        final String turns = table(BenchTest.MBW_MR,
            new long[]{ 0, 1_000_000, 1_000_000 }, new long[]{ 1_000_000, 2_000_000, 1_000_000 });
        assertTrue(turns.contains("not what all pairs get at once; together they moved 1000.00 MB/s from the first loop's " +
            "start to the last one's end"), turns);
    }

    private static double overlap(final long[]... spans)
    {
        final BenchResults results = new BenchResults(BenchTest.MULTI_LAT);
        for (final long[] span : spans)
        {
            results.add(new LoopSpan("sm4j", 8, span[0], span[1], 0));
        }
        return results.overlap("sm4j", 8);
    }

    /**
     * @param spans each pair's loop: start, end and bytes sent.
     */
    private static String table(final BenchTest test, final long[]... spans)
    {
        final BenchResults results = new BenchResults(test);
        for (final long[] span : spans)
        {
            results.add(new ResultLine("sm4j", 8, new double[]{ 1.0, 1.0, 1.0, 1.0, 1.0 }));
            results.add(new LoopSpan("sm4j", 8, span[0], span[1], span[2]));
        }
        final StringWriter text = new StringWriter();
        BenchTable.print(results, List.of(), "test", new PrintWriter(text));
        return text.toString();
    }
}
