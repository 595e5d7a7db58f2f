package io.sm4j.examples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;


/**
 * The consumer sample and the application pom.xml of docs/api.md: the copies in the document are the sources
 * that {@code mvn verify} builds and runs (src/it/consumer and src/it/sample-app, through the invoker plugin).
 */
class ThreadRanksSampleTest
{
    private static final Path SOURCE = Path.of("src/it/consumer/src/main/java/com/example/ThreadRanks.java");

    @Test
    void docsApiShouldShowTheSampleExactlyAsItIs() throws IOException
    {
        DocsCopy.assertShownInApiDocs(SOURCE, "sample");
    }

    /**
     * The complete pom.xml docs/api.md gives an application is src/it/sample-app's, which {@code mvn verify}
     * builds and whose test starts ranks as threads.
     */
    @Test
    void docsApiShouldShowTheApplicationsPomExactlyAsItIsBuilt() throws IOException
    {
        DocsCopy.assertShownInApiDocs(Path.of("src/it/sample-app/pom.xml"), "application pom.xml", "xml");
    }
}
