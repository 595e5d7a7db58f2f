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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The example of docs/api.md: the copy in the document is the source, and it runs.
 */
class PingPongExampleTest
{
    private static final Path SOURCE = Path.of("src/main/java/io/sm4j/examples/PingPongExample.java");

    @Test
    void docsApiShouldShowTheExampleExactlyAsItIs() throws IOException
    {
        DocsCopy.assertShownInApiDocs(SOURCE, "example");
    }

    @Test
    @Timeout(120)
    void oneRankShouldPlayBothParts() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(1), Map.of(), PingPongExample.class.getName(), "2000");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        assertTrue(job.out().contains("[0] 2000 round trips of 64 bytes: "), job.out());
        assertTrue(job.out().contains("[0] rank 0 received 16777216 bytes from rank 0, all correct"), job.out());
        assertFalse(job.leftFiles(), "segment file left behind");
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = { 2, 3 })
    @Timeout(120)
    void theExampleShouldRunAndCheckItsBulkExchange(final int ranks) throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(ranks), Map.of(),
            PingPongExample.class.getName(), "2000");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        assertTrue(job.out().contains("[0] 2000 round trips of 64 bytes: "), job.out());
        assertTrue(job.out().contains("[0] rank 0 received 16777216 bytes from rank 1, all correct"), job.out());
        assertTrue(job.out().contains("[1] rank 1 received 16777216 bytes from rank 0, all correct"), job.out());
        assertFalse(job.leftFiles(), "segment file left behind");
    }
}
