package io.sm4j.examples;

import io.sm4j.it.JobRunner;
import io.sm4j.layout.LayoutParams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.StringJoiner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ring, broadcast and gather example of docs/api.md: the copy in the document is the source, and it
 * computes what it should on real JVMs.
 */
class RingExampleTest
{
    private static final Path SOURCE = Path.of("src/main/java/io/sm4j/examples/RingExample.java");

    @Test
    void docsApiShouldShowTheExampleExactlyAsItIs() throws IOException
    {
        DocsCopy.assertShownInApiDocs(SOURCE, "example");
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = { 1, 4 })
    @Timeout(120)
    void theTokenShouldAddEveryRankAndTheSumsScaleWithTheRank(final int ranks) throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(ranks), Map.of(), RingExample.class.getName());
        assertEquals(0, job.exitCode(), job.out() + job.err());
        final StringJoiner sums = new StringJoiner(", ", "[", "]");
        for (int rank = 0; rank < ranks; rank++)
        {
            sums.add(Double.toString(249_750.0 * (rank + 1))); // 0.5 * (0 + 1 + ... + 999), times rank + 1
        }
        assertTrue(job.out().contains("[0] token " + ranks * (ranks - 1) / 2 + ", sums " + sums), job.out());
        assertFalse(job.leftFiles(), "segment file left behind");
    }
}
