package io.sm4j.it;

import io.sm4j.layout.LayoutParams;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The seeded API fuzz ({@link ApiFuzzApp}) over 2 real JVMs: every random call succeeds or is refused in
 * one documented line, none hangs, no JVM crashes, no file is left. 400 cases per seed by default;
 * {@code -Dsm4j.fuzz.cases=10000} for the long run recorded in docs/reliability.md.
 */
class ApiFuzzTest
{
    private static final String CASES = System.getProperty("sm4j.fuzz.cases", "400");

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = { 1, 2 })
    @Timeout(3600)
    void everyCallShouldSucceedOrBeRefusedInOneLine(final long seed) throws IOException
    {
        // about 20 ms per case on a loaded 2-core machine, with room to spare
        final JobRunner job = JobRunner.run(LayoutParams.defaults(2), Map.of(), List.of("-Xmx768m", "-XX:+UseSerialGC"),
            Duration.ofSeconds(60 + Long.parseLong(CASES) / 20), ApiFuzzApp.class.getName(), Long.toString(seed), CASES);
        assertEquals(0, job.exitCode(), job.out() + job.err());
        assertTrue(job.out().contains("[0] fuzz ok: " + CASES + " cases, "), job.out());
        assertTrue(job.out().contains(", 0 wrong"), job.out());
        assertFalse(job.err().contains("hs_err") || job.err().contains("SIGSEGV"), job.err());
        assertFalse(job.leftFiles(), "a file left behind");
    }
}
