package io.sm4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentLayout;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(120)
class RunCommandTest
{
    @Test
    void shouldRunRanksPrefixingTheirOutputAndReturnZero()
    {
        final CliRun run = CliRun.of("run", "-n", "3", "--dir", "/dev/shm", "--", "io.sm4j.it.ExchangeApp", "20");
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("[2] rank 2 received 40 fragments from 2 peers, all in order"), run.out());
    }

    @Test
    void shouldRunAJobOfOneRankThatMessagesItself()
    {
        final CliRun run = CliRun.of("run", "-n", "1", "--", "io.sm4j.it.RingApp");
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertEquals("[0] rank 0 received 1048576 bytes from rank 0, all correct\n", run.out());
    }

    @Test
    void shouldRunRanksBoundToCores()
    {
        final CliRun run = CliRun.of("run", "-n", "2", "--bind-to", "core", "--", "io.sm4j.it.RingApp", "5000");
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("[1] rank 1 received 5000 bytes from rank 0, all correct"), run.out());
    }

    @Test
    void shouldAcceptEnumValuesInAnyCase()
    {
        final CliRun run = CliRun.of("run", "-n", "2", "--policy", "cacheline", "--thread-mode", "Multiple", "--",
            "io.sm4j.it.RingApp", "100");
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("[1] rank 1 received 100 bytes from rank 0, all correct"), run.out());
    }

    @Test
    void shouldReturnTheRanksExitCodeWhenTheMainClassDoesNotExist()
    {
        final CliRun run = CliRun.of("run", "-n", "2", "--dir", "/dev/shm", "--", "no.such.Main");
        assertEquals(1, run.exitCode());
        assertTrue(run.err().contains("[0] Error: Could not find or load main class no.such.Main"), run.err());
        assertTrue(run.err().contains("sm4j run: rank "), run.err());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "run -n 0 -- Main                      | sm4j run: -n 0: expected 1..4096",
        "run --ranks 100000 -- Main            | sm4j run: --ranks 100000: expected 1..4096",
        "run -np 2 -- Main                     | sm4j run: -np is not an option: the rank count is -n N (or --ranks N)",
        "run -n 2                              | sm4j run: Missing required parameter: 'COMMAND'",
        "run -n 2 --dir /no/such/dir -- Main   | sm4j run: segment directory /no/such/dir is not a writable directory",
        "run -n 2 -- -jar                      | sm4j run: -jar needs a jar file",
        "run -n 2 -cp a.jar -- -jar b.jar      | sm4j run: -cp a.jar would be ignored with -jar",
        "run -n 2 --timeout 9999999999999 -- M | sm4j run: --timeout 9999999999999: expected 0..31536000 seconds",
        "run -n 2 --timeout -1 -- Main         | sm4j run: --timeout -1: expected 0..31536000 seconds",
        "run -n 2 --grace 99999999999999 -- M  | sm4j run: --grace 99999999999999: expected 0..3600000 ms",
        "run -n 2 --queue-entries 100 -- Main  | sm4j run: --queue-entries 100: expected a power of two",
        "run -n 2 --page-size 64 -- Main       | sm4j run: --page-size 64: expected >= --cacheline 128",
        "run -n 2 --policy diagonal -- Main    | sm4j run: Invalid value for option '--policy': expected one of",
        "run -n 2 --tiemout 3 -- Main          | sm4j run: Unknown option: '--tiemout' (did you mean --timeout?)",
        "run -n abc -- Main                    | sm4j run: Invalid value for option '-n': 'abc' is not an int",
        "run --ranks abc -- Main               | sm4j run: Invalid value for option '--ranks': 'abc' is not an int" })
    void shouldRejectBadInputWithOneLineNamingTheFlagAndExitCodeTwo(final String args, final String expected)
    {
        CliRun.assertRejected(args, expected);
    }

    @Test
    void notEnoughSpaceShouldSayWhatToDoInOneLine() throws java.io.IOException
    {
        // 4096 ranks with 64 max-size fragments of 16 MiB each: 4 TiB, more than any /dev/shm holds
        final long needed = SegmentLayout.compute(LayoutParams.builder(LayoutParams.MAX_PEERS).maxFragSize(16 << 20)
            .maxFragsPerRank(64).build()).totalBytes();
        assertTrue(Files.getFileStore(Path.of("/dev/shm")).getUsableSpace() < needed, "/dev/shm holds " + needed + " bytes");
        final CliRun run = CliRun.of("run", "-n", "4096", "--max-frag", "16777216", "--max-frags-per-rank", "64", "--dir",
            "/dev/shm", "--", "Main");
        assertEquals(2, run.exitCode(), run.err());
        assertTrue(run.err().matches("sm4j run: not enough space in /dev/shm: the segment needs [\\d,]+ bytes, [\\d,]+ are free\\. " +
            "Use another directory \\(--dir DIR of sm4j run, create and bench, or SM4J_DIR\\), fewer ranks, or a larger /dev/shm \\(Docker: --shm-size\\)\n"),
            run.err());
        assertEquals(0, Path.of("/dev/shm").toFile().list((d, name) -> name.startsWith("sm4j-") &&
            name.endsWith(".seg") && new java.io.File(d, name).length() > (1L << 34)).length, "no partial file left");
    }
}
