package io.sm4j.launch;

import io.sm4j.it.ScratchDir;
import io.sm4j.layout.CountersDescriptor;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.Segment;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher's watch for frozen ranks, over a real segment and a real running process, driven by the clock it is
 * given: a rank marked waiting whose heartbeat stands still is frozen, but not because the launcher itself did not
 * run for a while (Ctrl-Z stops the whole process group, launcher included).
 */
class StoppedRanksTest
{
    @Test
    void aLauncherThatWasAwayShouldNotCallItsRanksFrozen() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-stopped-"))
        {
            final Segment segment = Segment.create(LayoutParams.defaults(1), dir.path, 21);
            final Process rank = new ProcessBuilder("sleep", "60").start(); // runs: not stopped
            try (StoppedRanks stopped = new StoppedRanks(List.of(rank), segment, Duration.ofSeconds(5)))
            {
                segment.ranks().register(0);
                segment.views().counters(0).putLongVolatile(CountersDescriptor.offset(CountersDescriptor.WAITING), 1);
                segment.ranks().heartbeat(0);
                final boolean[] done = new boolean[1];
                final StringWriter err = new StringWriter();
                final PrintWriter out = new PrintWriter(err, true);
                final long t0 = System.nanoTime();
                assertNull(stopped.check(t0, done, out));
                // ten seconds later, with no check between (the launcher was stopped with its ranks): the rank's next
                // beat may not have come yet; before, it was frozen since t0 and past the 5 s limit at once
                assertNull(stopped.check(t0 + TimeUnit.SECONDS.toNanos(10), done, out));
                assertNull(stopped.check(t0 + TimeUnit.SECONDS.toNanos(10) + TimeUnit.MILLISECONDS.toNanos(300), done, out));
                assertEquals("", err.toString());
                // checked every 250 ms from there on, a heartbeat that still stands still is frozen after a second and
                // named after two more: the watch still works
                final long later = t0 + TimeUnit.SECONDS.toNanos(10) + StoppedRanks.FROZEN_AFTER.toNanos() +
                    StoppedRanks.NOTICE.toNanos() + TimeUnit.MILLISECONDS.toNanos(600);
                for (long now = t0 + TimeUnit.SECONDS.toNanos(10) + TimeUnit.MILLISECONDS.toNanos(550); now <= later;
                    now += TimeUnit.MILLISECONDS.toNanos(250))
                {
                    assertNull(stopped.check(now, done, out), "aborted before the 5 s limit");
                }
                assertTrue(err.toString().contains("has been frozen for 2.") && err.toString().contains("inside an sm4j wait"), err.toString());
            }
            finally
            {
                rank.destroyForcibly().waitFor();
                segment.close();
            }
        }
    }
}
