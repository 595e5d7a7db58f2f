package io.sm4j.examples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;


/**
 * The consumer sample of docs/api.md: the copy in the document is the source that {@code mvn verify} builds
 * and runs (src/it/consumer, through the invoker plugin).
 */
class ThreadRanksSampleTest
{
    private static final Path SOURCE = Path.of("src/it/consumer/src/main/java/com/example/ThreadRanks.java");

    @Test
    void docsApiShouldShowTheSampleExactlyAsItIs() throws IOException
    {
        DocsCopy.assertShownInApiDocs(SOURCE, "sample");
    }
}
