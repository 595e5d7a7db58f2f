package io.sm4j.cli;

import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentLayout;
import io.sm4j.report.OmpiFileSizes;
import io.sm4j.report.OmpiV13Model;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReportCommandTest
{
    @Test
    void shouldPrintTheTableAndTheExactSizeSm4jCreates()
    {
        final CliRun run = CliRun.of("report", "-n", "1024");
        assertEquals(0, run.exitCode(), run.err());
        final long total = SegmentLayout.compute(LayoutParams.defaults(1024)).totalBytes();
        assertTrue(run.out().contains(String.format("%,d bytes", total)), run.out());
        assertTrue(run.out().contains("CB queues+tails"), run.out());
        assertTrue(run.out().contains(String.format("%,d bytes", 512L << 20)), "Open MPI 1.3.0 default: " + run.out());
        // Open MPI's own eager limit, not sm4j's (which counts 16 bytes of headers on top), unless one is given
        final LayoutParams ompi = OmpiV13Model.defaults(1024);
        assertTrue(run.out().contains(String.format("%,d bytes", OmpiFileSizes.v18Formula(ompi, OmpiV13Model.EAGER_LIMIT))),
            "Open MPI 1.8 formula: " + run.out());
        final CliRun given = CliRun.of("report", "-n", "1024", "--eager-limit", "256");
        assertTrue(given.out().contains(String.format("%,d bytes", OmpiFileSizes.v18Formula(ompi, 256))), given.out());
    }

    @Test
    void shouldReportAJobOfOneRank()
    {
        final CliRun run = CliRun.of("report", "--ranks", "1", "--policy", "aggregated");
        assertEquals(0, run.exitCode(), run.err());
        final long total = SegmentLayout.compute(LayoutParams.defaults(1)).totalBytes();
        assertTrue(run.out().contains(String.format("%,d bytes", total)), run.out());
    }

    @Test
    void shouldPrintTheRfcTotalsWithTheOmpiProfile()
    {
        final CliRun run = CliRun.of("report", "--peers", "1024", "--profile", "ompi-1.3");
        assertEquals(0, run.exitCode(), run.err());
        final String total = run.out().lines().filter(l -> l.startsWith("total")).findFirst().orElseThrow();
        assertEquals(List.of("total", "36,677", "23,658", "11,046", "10,418"), List.of(total.trim().split("\\s+")));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--peers 0                 | sm4j report: --peers 0: expected 1..4096",
        "-n 5000                   | sm4j report: -n 5000: expected 1..4096",
        "-n5000                    | sm4j report: -n 5000: expected 1..4096",
        "--ranks 4 --queue-entries 100 | sm4j report: --queue-entries 100: expected a power of two",
        "-n 4 --eager-limit 65536  | sm4j report: --eager-limit 65536: expected <= --max-frag 32768",
        "-n 4 --cacheline 96       | sm4j report: --cacheline 96: expected a power of two",
        "-n 4 --profile ompi-9     | sm4j report: Invalid value for option '--profile': ompi-9 (expected: sm4j or ompi-1.3)",
        "-n 4 --format json        | sm4j report: --format applies only with --sweep; it would be ignored",
        "-n 4 --out x              | sm4j report: --out applies only with --sweep; it would be ignored",
        "--sweep 2..8 -n 3 --out x | sm4j report: -n 3 cannot be combined with --sweep 2..8",
        "--sweep 2..8              | sm4j report: --sweep needs --out PREFIX",
        "--sweep 10..2 --out x     | sm4j report: --sweep 10..2: expected FROM..TO with 1 <= FROM <= TO <= 4096",
        "--sweep 2-8 --out x       | sm4j report: --sweep 2-8: expected FROM..TO, e.g. 2..1024",
        "                          | sm4j report: -n N is required (or --sweep FROM..TO --out PREFIX)" })
    void shouldRejectBadInputWithOneLineNamingTheProblemAndExitCodeTwo(final String args, final String expected)
    {
        CliRun.assertRejected("report " + (args == null ? "" : args), expected);
    }

    @Test
    void shouldWriteSweepCsvAndAPngChart(@TempDir final Path dir) throws IOException
    {
        final Path prefix = dir.resolve("sweep");
        final CliRun run = CliRun.of("report", "--sweep", "2..64", "--out", prefix.toString());
        assertEquals(0, run.exitCode(), run.err());
        final List<String> csv = Files.readAllLines(dir.resolve("sweep.csv"));
        assertEquals(64, csv.size(), "header + 63 peer counts");
        assertEquals("peers,PAGE_8K,PAGE_4K,CACHELINE,AGGREGATED,OMPI_1_3_0_DEFAULT,OMPI_1_8_FORMULA", csv.get(0));
        final String[] last = csv.get(63).split(",");
        assertEquals("64", last[0]);
        assertEquals(SegmentLayout.compute(LayoutParams.defaults(64)).totalBytes(), Long.parseLong(last[4]));
        final byte[] png = Files.readAllBytes(dir.resolve("sweep.png"));
        assertArrayEquals(new byte[]{ (byte)0x89, 'P', 'N', 'G' }, java.util.Arrays.copyOf(png, 4));
    }

    /**
     * A layout the user's policy holds but a fixed column's does not (a CB region past a section's 2 GiB under PAGE
     * 8K): that column is n/a, with why, and the rest is reported (before: the whole report was refused).
     */
    @Test
    void aColumnWhoseLayoutCannotBeComputedShouldBeNotApplicable()
    {
        final CliRun run = CliRun.of("report", "-n", "4000", "--queue-entries", "65536");
        assertEquals(0, run.exitCode(), run.err());
        final String total = run.out().lines().filter(l -> l.startsWith("total")).findFirst().orElseThrow();
        assertTrue(total.matches("total\\s+n/a(\\s+n/a)?(\\s+[\\d,]+){2,}"), total);
        assertTrue(run.out().contains("n/a: "), run.out());
    }

    @Test
    void aSweepWhoseOutputCannotBeWrittenShouldBeOneLine(@TempDir final Path dir) throws IOException
    {
        CliRun.assertRejectedUnderAFile(dir, "report --sweep 2..3", "--out", "x");
    }

    @Test
    void shouldWriteSweepJson(@TempDir final Path dir) throws IOException
    {
        final CliRun run = CliRun.of("report", "--sweep", "2..3", "--format", "json", "--out", dir.resolve("s").toString());
        assertEquals(0, run.exitCode(), run.err());
        final String json = Files.readString(dir.resolve("s.json"));
        assertTrue(json.contains("{\"peers\":3,\"PAGE_8K\":"), json);
        assertTrue(json.contains("\"AGGREGATED\":" + SegmentLayout.compute(LayoutParams.defaults(3)).totalBytes()), json);
    }
}
