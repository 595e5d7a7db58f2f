package io.sm4j.cli;

import io.sm4j.bench.BenchRunner;
import io.sm4j.bench.BenchTest;
import io.sm4j.bench.OmpiBaseline;
import io.sm4j.transport.PeerMemory;
import io.sm4j.transport.TransportOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code sm4j bench} end to end with real rank JVMs over a real segment, with few iterations: what is
 * checked is the output's shape and sanity, never a speed.
 */
@Timeout(180)
class BenchCommandTest
{
    /**
     * Every run here passes it: the rank JVMs' heap is not touched at start (the bench's default costs each JVM
     * half a second here, and these tests check shapes, not speeds).
     */
    private static final String UNTOUCHED = "--jvm-arg=-XX:-AlwaysPreTouch";
    /** Few iterations. */
    private static final String[] FAST = { "-i", "200", "-x", "20", "--jit-warmup", "200", UNTOUCHED };

    @Test
    void latencyWithCompareShouldPrintOsuRowsWithEveryBaselineAndItsRatio(@TempDir final Path dir) throws IOException
    {
        final Path png = dir.resolve("latency.png");
        final CliRun run = CliRun.of(args("bench", "latency", "-m", "0:64", "--compare", "--chart", png.toString()));
        assertEquals(0, run.exitCode(), run.err());
        final List<String> lines = run.out().lines().toList();
        assertTrue(lines.get(0).matches("# OSU MPI-style Latency Test \\(sm4j \\S+\\)"), lines.get(0));
        assertTrue(lines.get(1).matches("# \\d+ cores, Java .*, idle strategy auto \\((spin, then sleep; yield first while other processes oversubscribe the node|yield first: [^)]*)\\), doorbell (futex|socket \\([^()]*\\)), thread mode SINGLE, layout AGGREGATED, " +
            "segment for 2 ranks, 2 running, bound to nothing, eager limit 4112 B, 16 eager fragments per peer, " +
            "large-message pipeline 8 x 32768 B, collective regions 2 x 262144 B"), lines.get(1));
        // the default options first, then the caller's, which the JVM reads last (a busy machine's warning may
        // come before this line)
        // (BenchRunnerTest: which defaults, huge pages by the kernel's mode); here, the header says what the ranks run
        assertEquals(List.of("# rank JVMs: " + String.join(" ", BenchRunner.rankJvmArgs(List.of("-XX:-AlwaysPreTouch")))),
            lines.stream().filter(l -> l.startsWith("# rank JVMs:")).toList());
        final String header = lines.stream().filter(l -> l.startsWith("# Size")).findFirst().orElseThrow();
        assertTrue(header.matches("# Size\\s+Avg Latency\\(us\\)\\s+p50\\(us\\)\\s+p99\\(us\\)\\s+p99.9\\(us\\)\\s+max\\(us\\)\\s+" +
            "agrona\\(us\\)\\s+x\\s+uds\\(us\\)\\s+x\\s+threads\\(us\\)\\s+x.*"), header);
        final List<String> rows = lines.stream().filter(l -> !l.startsWith("#")).toList();
        assertEquals(List.of(0, 1, 2, 4, 8, 16, 32, 64), rows.stream().map(r -> Integer.parseInt(r.split("\\s+")[0])).toList());
        for (final String row : rows)
        {
            final double[] v = Arrays.stream(row.trim().split("\\s+")).skip(1).mapToDouble(Double::parseDouble).toArray();
            assertTrue(v.length >= 11, row);
            assertTrue(v[0] > 0 && v[1] > 0 && v[1] <= v[2] && v[2] <= v[3] && v[3] <= v[4], "avg, p50 <= p99 <= p99.9 <= max: " + row);
            // both columns are printed to 0.01: the ratio of the exact values lies within their rounding
            final double half = 0.005;
            assertTrue(v[6] + half >= (v[0] - half) / (v[5] + half) && v[6] - half <= (v[0] + half) / (v[5] - half),
                "x = sm4j / agrona: " + row);
        }
        assertPng(png);
        // the summary at 8 B (4 KiB and 1 MiB were not measured): sm4j's median against each baseline's
        final double p50 = Double.parseDouble(rows.get(4).trim().split("\\s+")[2]);
        final String summary = lines.stream().filter(l -> l.startsWith("#   8 B")).findFirst().orElseThrow();
        assertTrue(summary.matches("#   8 B +sm4j +" + String.format(Locale.ROOT, "%.2f", p50) +
            " us( +\\d+\\.\\d\\dx Open MPI vader \\(\\d+\\.\\d\\d us\\))? +\\d+\\.\\d\\dx Agrona's ring \\(\\d+\\.\\d\\d us\\)" +
            " +[+-]\\d+\\.\\d\\d us over two threads \\(\\d+\\.\\d\\d us\\)"), summary);
        assertEquals(1, lines.stream().filter(l -> l.startsWith("#   ")).count(), run.out());
        assertTrue(run.err().matches("(?s).*\\[0] # cold start: the first 20,000 round trips of 8 B after attach, before any " +
            "warm-up: mean \\d+\\.\\d\\d us one-way, p50 \\d+\\.\\d\\d, p99 [\\d.]+, max [\\d.]+; [\\d,]+ ms in all, in which this JVM's " +
            "JIT compiled for [\\d,]+ ms .*"), run.err());
        // the warm-up's result lines reach the launcher, which parses and drops them: they are not shown
        assertFalse(run.err().lines().anyMatch(l -> l.matches("\\[\\d+] W .*")), run.err());
    }

    /**
     * A collective's --compare runs the same loop over Open MPI's collectives (where it is installed) and puts its
     * mean and the ratio beside each size.
     */
    @Test
    void aCollectiveWithCompareShouldShowOpenMpisTimeAndTheRatioPerSize()
    {
        assumeTrue(OmpiBaseline.unavailable() == null, () -> "no Open MPI: " + OmpiBaseline.unavailable());
        final CliRun run = CliRun.of(args("bench", "allreduce", "-n", "2", "-m", "8:16", "--compare"));
        assertEquals(0, run.exitCode(), run.err());
        final List<String> lines = run.out().lines().toList();
        final String header = lines.stream().filter(l -> l.startsWith("# Size")).findFirst().orElseThrow();
        assertTrue(header.matches("# Size\\s+Avg Latency\\(us\\)\\s+p50\\(us\\)\\s+p99\\(us\\)\\s+p99.9\\(us\\)\\s+max\\(us\\)\\s+" +
            "ompi\\(us\\)\\s+x"), header);
        final List<String> rows = lines.stream().filter(l -> !l.startsWith("#")).toList();
        assertEquals(List.of(8, 16), rows.stream().map(r -> Integer.parseInt(r.split("\\s+")[0])).toList());
        for (final String row : rows)
        {
            final String[] f = row.trim().split("\\s+");
            assertTrue(Double.parseDouble(f[6]) > 0, "Open MPI's mean: " + row);
            assertRatio(Double.parseDouble(f[1]), f[7], f[6], row); // x = sm4j's mean / Open MPI's
        }
    }

    @Test
    void bandwidthShouldWriteCsvWithAPositiveRatePerSize()
    {
        final CliRun run = CliRun.of(args("bench", "bw", "-m", "64:4096", "-W", "16", "--format", "csv"));
        assertEquals(0, run.exitCode(), run.err());
        final List<String> lines = run.out().lines().toList();
        assertEquals("test,transport,size,mb_per_s,messages_per_s,p50_window_mb_per_s,p99_window_mb_per_s", lines.get(0));
        assertEquals(7, lines.size() - 1, run.out());
        for (final String line : lines.subList(1, lines.size()))
        {
            final String[] f = line.split(",");
            assertEquals("bw", f[0]);
            assertEquals("sm4j", f[1]);
            assertTrue(Double.parseDouble(f[3]) > 0 && Double.parseDouble(f[4]) > 0, line);
            assertEquals(Double.parseDouble(f[3]), Double.parseDouble(f[4]) * Integer.parseInt(f[2]) / 1e6,
                Double.parseDouble(f[3]) * 1e-3, "MB/s = messages/s x size: " + line);
            // the slow (99th-percentile) window is no faster than the median one
            assertTrue(Double.parseDouble(f[6]) > 0 && Double.parseDouble(f[6]) <= Double.parseDouble(f[5]), line);
        }
    }

    @Test
    void bandwidthWithBaselinesShouldEndWithTheRateOfTheMedianWindows()
    {
        final CliRun run = CliRun.of(args("bench", "bw", "-m", "8:8", "-W", "16", "--compare"));
        assertEquals(0, run.exitCode(), run.err());
        final List<String> lines = run.out().lines().toList();
        final String row = lines.stream().filter(l -> l.startsWith("8 ")).findFirst().orElseThrow();
        final double p50 = Double.parseDouble(row.trim().split("\\s+")[3]); // the p50 window's column
        final String summary = lines.stream().filter(l -> l.startsWith("#   8 B")).findFirst().orElseThrow();
        final Matcher parts = Pattern.compile("#   8 B +sm4j +" +
            String.format(Locale.ROOT, "%.2f", p50).replace(".", "\\.") + " MB/s( +(\\d+\\.\\d\\d)x Open MPI vader " +
            "\\((\\d+\\.\\d\\d) MB/s\\))? +(\\d+\\.\\d\\d)x Agrona's ring \\((\\d+\\.\\d\\d) MB/s\\)").matcher(summary);
        assertTrue(parts.matches(), summary);
        // above 1: sm4j is faster; each ratio lies within the rounding of the two rates printed to 0.01
        assertRatio(p50, parts.group(4), parts.group(5), summary);
        if (parts.group(1) != null)
        {
            assertRatio(p50, parts.group(2), parts.group(3), summary);
        }
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("# summary: rate of the median (p50) window")), run.out());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({ "mbw_mr, 4", "multi_lat, 4", "bibw, 2", "allreduce, 3", "reduce, 3", "reduce_scatter, 3", "bcast, 3", "gather, 3", "allgather, 3", "alltoall, 2" })
    void multiPairAndBidirectionalTestsShouldReportEverySize(final String test, final int ranks)
    {
        // no warm-up (what it runs, other tests check): a row per size is what this test asks, for each test
        final List<String> args = new java.util.ArrayList<>(List.of("bench", test, "-n", Integer.toString(ranks), "-m", "8:128",
            "--format", "json", "-i", "100", "-x", "10", "--jit-warmup", "0", UNTOUCHED));
        if (BenchTest.of(test).windowed())
        {
            args.addAll(List.of("-W", "8")); // the windowed tests only: the others refuse it
        }
        final CliRun run = CliRun.of(args.toArray(new String[0]));
        assertEquals(0, run.exitCode(), run.err());
        for (final int size : new int[]{ 8, 16, 32, 64, 128 })
        {
            assertTrue(run.out().contains("{\"test\":\"" + test + "\",\"transport\":\"sm4j\",\"size\":" + size + ","), run.out());
        }
    }

    @Test
    void sharedBuffersShouldRunSingleCopyAndShowTheMemcpyLimit()
    {
        final CliRun run = CliRun.of(args("bench", "latency", "-m", "65536:1048576", "--buffers", "shared"));
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("# sm4j buffers: shared (Communicator.allocate): one copy above the eager limit"), run.out());
        assertTrue(run.out().matches("(?s).*# memcpy: one core copies 1,048,576 B in [\\d.]+ us \\([\\d.]+ GB/s\\).*"), run.out());
        assertEquals(List.of(65536, 131072, 262144, 524288, 1048576), run.out().lines().filter(l -> !l.startsWith("#"))
            .map(r -> Integer.parseInt(r.split("\\s+")[0])).toList());
    }

    /**
     * Every buffer kind runs point to point and a collective, and the header names it.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "heap, 'heap arrays (byte[]): two copies above the eager limit', 'heap arrays (byte[]): through the collective region'",
        "direct, 'direct ByteBuffers: ', 'direct ByteBuffers: '", // the reads' text depends on the machine: below
        "shared, 'shared (Communicator.allocate): one copy above the eager limit', 'shared (Communicator.allocate): bcast, allgather and alltoall'" })
    void everyBufferKindShouldRunAndBeNamed(final String kind, final String pointToPoint, final String collective)
    {
        final CliRun latency = CliRun.of("bench", "latency", "-m", "65536:65536", "--buffers", kind, "-i", "50", "-x", "5", "--jit-warmup", "0",
            UNTOUCHED);
        assertEquals(0, latency.exitCode(), latency.err());
        assertTrue(latency.out().contains("# sm4j buffers: " + pointToPoint), latency.out());
        assertEquals(1, latency.out().lines().filter(l -> l.startsWith("65536 ")).count(), latency.out());
        final CliRun bcast = CliRun.of("bench", "bcast", "-n", "2", "-m", "65536:65536", "--buffers", kind, "-i", "50", "-x", "5",
            "--jit-warmup", "0", UNTOUCHED);
        assertEquals(0, bcast.exitCode(), bcast.err());
        assertTrue(bcast.out().contains("# sm4j buffers: " + collective), bcast.out());
        if (kind.equals("direct") && PeerMemory.whyNot(TransportOptions.fromEnvironment(System.getenv()).peerReads()) == null)
        {
            assertTrue(latency.out().contains("from 16384 B the receiver reads them out of the sender's process"), latency.out());
            assertTrue(bcast.out().contains("bcast, allgather and alltoall read a rank's data out of its process"), bcast.out());
        }
        else if (kind.equals("direct"))
        {
            assertTrue(latency.out().contains("(no reads of the sender's process: "), latency.out());
            assertTrue(bcast.out().contains("(no reads of each other's processes: "), bcast.out());
        }
        assertEquals(1, bcast.out().lines().filter(l -> l.startsWith("65536 ")).count(), bcast.out());
    }

    @Test
    void oneSidedTestsShouldReportATimePerOperationAndARatePerWindow()
    {
        for (final String test : List.of("put_latency", "get_latency"))
        {
            final CliRun run = CliRun.of(args("bench", test, "-m", "0:64"));
            assertEquals(0, run.exitCode(), run.err());
            assertTrue(run.out().contains("# one-sided, OSU's flush synchronisation: rank 0 " +
                (test.startsWith("get") ? "gets from" : "puts into") + " rank 1's part of a window"), run.out());
            final List<String> rows = run.out().lines().filter(l -> !l.startsWith("#")).toList();
            assertEquals(List.of(0, 1, 2, 4, 8, 16, 32, 64), rows.stream().map(r -> Integer.parseInt(r.split("\\s+")[0])).toList());
            rows.forEach(r -> assertTrue(Double.parseDouble(r.split("\\s+")[1]) > 0, r));
        }
        final CliRun bw = CliRun.of(args("bench", "put_bw", "-m", "4096:65536", "--format", "csv"));
        assertEquals(0, bw.exitCode(), bw.err());
        assertEquals(5, bw.out().lines().filter(l -> l.startsWith("put_bw,sm4j,")).filter(l -> Double.parseDouble(l.split(",")[3]) > 0).count(),
            bw.out());
    }

    @Test
    void barrierShouldReportOneRowOfTimePerCall()
    {
        final CliRun run = CliRun.of(args("bench", "barrier", "-n", "3", "--format", "csv"));
        assertEquals(0, run.exitCode(), run.err());
        assertEquals(1, run.out().lines().filter(l -> l.startsWith("barrier,sm4j,0,")).count(), run.out());
    }

    /**
     * The receiver sleeps through each 2 ms pause and reports its CPU; the sender reports send-to-receipt
     * times, which cannot be negative or zero (one clock for both processes).
     */
    @Test
    void wakeShouldReportTheWakeUpTimeAndTheSleepersCpu()
    {
        final CliRun run = CliRun.of("bench", "wake", "-i", "30", "-x", "2", "--pause-us", "2000", "--jit-warmup", "200", UNTOUCHED);
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("bound to nothing"), run.out());
        assertTrue(run.out().contains("# wake-up: from the send to the sleeping receiver having the message"), run.out());
        final String row = run.out().lines().filter(l -> l.startsWith("8 ")).findFirst().orElseThrow();
        assertTrue(Double.parseDouble(row.trim().split("\\s+")[2]) > 0, row);
        assertTrue(run.err().matches("(?s).*# wake, 8 B: the receiving rank used [0-9.]+ ms of CPU in [0-9.]+ ms of waiting.*"), run.err());
    }

    @Test
    void peersShouldSizeTheSegmentForMoreRanksThanRun()
    {
        final CliRun run = CliRun.of(args("bench", "latency", "-m", "8:8", "--peers", "16", "--layout", "page4k"));
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("layout PAGE 4096, segment for 16 ranks, 2 running"), run.out());
        assertTrue(run.out().lines().anyMatch(l -> l.startsWith("8 ")), run.out());
    }

    @Test
    void pipelineOptionsShouldShapeTheEagerAndLargeMessagePaths()
    {
        final CliRun run = CliRun.of(args("bench", "bw", "-m", "262144:262144", "-W", "4", "--max-frag", "65536",
            "--max-frags-per-rank", "4", "--eager-limit", "8208", "--eager-frags-per-peer", "32"));
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("eager limit 8208 B, 32 eager fragments per peer, large-message pipeline 4 x 65536 B"), run.out());
        assertTrue(run.out().lines().anyMatch(l -> l.startsWith("262144 ")), run.out());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "bench foo                       | sm4j bench: unknown test 'foo' (expected: latency, bw, bibw, mbw_mr, multi_lat, wake, allreduce, reduce, reduce_scatter, bcast, gather, allgather, alltoall, barrier, put_latency, get_latency or put_bw)",
        "bench barrier -m 8:8            | sm4j bench: -m 8:8: barrier sends no data, it has no sizes",
        "bench barrier -m 0:4194304      | sm4j bench: -m 0:4194304: barrier sends no data, it has no sizes",
        "bench wake -m 0:4194304         | sm4j bench: -m 0:4194304: wake sends a clock reading, expected sizes from 8 bytes",
        "bench latency --pause-us 10     | sm4j bench: --pause-us applies only with wake; it would be ignored",
        "bench latency --requests isend  | sm4j bench: --requests applies only with bw, bibw and mbw_mr; it would be ignored",
        "bench multi_lat -W 8            | sm4j bench: -W applies only with bw, bibw, mbw_mr and put_bw; it would be ignored",
        "bench wake -m 4:8               | sm4j bench: -m 4:8: wake sends a clock reading, expected sizes from 8 bytes",
        "bench wake --compare            | sm4j bench: --compare: wake measures sm4j alone (a waiting Open MPI rank never sleeps)",
        "bench wake --pause-us -1        | sm4j bench: --pause-us -1: expected 0..60000000 microseconds",
        "bench latency -m 10:5           | sm4j bench: -m 10:5: expected [MIN:]MAX with 0 <= MIN <= MAX <= 4194304 bytes",
        "bench latency -m x              | sm4j bench: -m x: expected [MIN:]MAX",
        "bench latency -m 100:120        | sm4j bench: -m 100:120: no size to measure (the sizes are 0, if MIN is 0, and the powers of two from MIN to MAX)",
        "bench alltoall -n 512 -m 4194304:4194304 | sm4j bench: -m 4194304:4194304 with -n 512: alltoall keeps 512 blocks of 4194304 bytes in one buffer, expected at most 2 GiB",
        "bench allreduce -n 512 -i 1000000 | sm4j bench: -i 1000000 with -n 512: rank 0 gathers every rank's call times, expected at most 2 GiB of them",
        "bench bw -W 0                   | sm4j bench: -W 0: expected 1..1024",
        "bench latency -n 4              | sm4j bench: -n 4: latency runs on 2 ranks (-n is for mbw_mr, multi_lat and the collectives)",
        "bench mbw_mr -n 3               | sm4j bench: -n 3: mbw_mr pairs ranks, expected an even count",
        "bench mbw_mr -n 4 --peers 8     | sm4j bench: --peers 8 applies to the two-rank tests only (latency, bw, bibw, wake and the one-sided tests)",
        "bench latency --idle fast       | sm4j bench: Invalid value for option '--idle'",
        "bench latency --peers 1         | sm4j bench: --peers 1: expected 2..4096",
        "bench latency --chart x.jpg     | sm4j bench: --chart x.jpg: expected a .png file name",
        "bench latency --layout diagonal | sm4j bench: Invalid value for option '--layout'",
        "bench latency --max-frag 100    | sm4j bench: --eager-limit 4112: expected <= --max-frag 100",
        "bench latency --eager-limit 10  | sm4j bench: --eager-limit 10: expected >= 64",
        "bench latency --max-frags-per-rank 0 | sm4j bench: --max-frags-per-rank 0: expected >= 1",
        "bench latency --eager-frags-per-peer 0 | sm4j bench: --eager-frags-per-peer 0: expected >= 1" })
    void badInputShouldBeOneLineWithExitCodeTwo(final String args, final String expected)
    {
        CliRun.assertRejected(args, expected);
    }

    /**
     * A chart under a regular file: one line naming the option and the directory, before any rank starts (was a
     * FileAlreadyExistsException's stack trace).
     */
    @Test
    void aChartThatCannotBeWrittenShouldBeOneLine(@TempDir final Path dir) throws IOException
    {
        CliRun.assertRejectedUnderAFile(dir, "bench latency", "--chart", "x.png");
    }

    @Test
    void aDemoWithABadMaxShouldSaySoBeforeItsReport()
    {
        CliRun.assertRejected("demo --max -1", "sm4j demo: --max -1: expected 0..4194304 bytes");
    }

    private static String[] args(final String... args)
    {
        final String[] all = Arrays.copyOf(args, args.length + FAST.length);
        System.arraycopy(FAST, 0, all, args.length, FAST.length);
        return all;
    }

    private static void assertRatio(final double own, final String ratio, final String other, final String line)
    {
        final double x = Double.parseDouble(ratio);
        final double base = Double.parseDouble(other);
        final double half = 0.005;
        assertTrue(x + half >= (own - half) / (base + half) && x - half <= (own + half) / (base - half), line);
    }

    private static void assertPng(final Path png) throws IOException
    {
        final byte[] bytes = Files.readAllBytes(png);
        assertArrayEquals(new byte[]{ (byte)0x89, 'P', 'N', 'G' }, Arrays.copyOf(bytes, 4));
    }
}
