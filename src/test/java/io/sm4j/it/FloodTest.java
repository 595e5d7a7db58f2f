package io.sm4j.it;

import io.sm4j.layout.LayoutParams;
import io.sm4j.transport.TransportOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bounded memory under a flood, over 4 real JVMs: 3 ranks isend 102,000 messages of 1,000 bytes (102 MB) to
 * a rank that progresses without receiving. Its heap keeps at most its unexpected-message budget (1 MiB
 * here; the JVMs have 96 MiB of heap, so a receiver that kept the flood would die of it), the senders'
 * requests stay pending, and once it receives, every message arrives intact and in order.
 */
class FloodTest
{
    private static final long BUDGET = 1 << 20;

    @Test
    @Timeout(180)
    void aRankThatDoesNotReceiveShouldHoldItsBudgetAndLoseNothing() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(4),
            Map.of(TransportOptions.UNEXPECTED_BYTES_ENV, Long.toString(BUDGET)),
            List.of("-Xmx96m", "-XX:+UseSerialGC"), FloodApp.class.getName(), "34000", "1000");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        for (int rank = 0; rank < 4; rank++)
        {
            assertTrue(job.out().contains("[" + rank + "] rank " + rank + ": flood ok"), job.out() + job.err());
        }
        final Matcher held = Pattern.compile("rank 0 holds (\\d+) unexpected bytes .* anonymous RSS (-?\\d+) KiB above")
            .matcher(job.out());
        assertTrue(held.find(), job.out());
        assertTrue(Long.parseLong(held.group(1)) <= BUDGET, job.out());
        assertTrue(Long.parseLong(held.group(2)) < 32 * 1024, "resident memory grew by more than 32 MiB: " + job.out());
        assertTrue(job.out().contains("rank 0 received 102000 messages in order"), job.out());
    }
}
