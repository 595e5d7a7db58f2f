package io.sm4j.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The check that docs/api.md shows a program exactly as its source file is.
 */
final class DocsCopy
{
    private DocsCopy()
    {
    }

    static void assertShownInApiDocs(final Path source, final String what) throws IOException
    {
        assertShownInApiDocs(source, what, "java");
    }

    /**
     * @param language the code block's language tag in docs/api.md.
     */
    static void assertShownInApiDocs(final Path source, final String what, final String language) throws IOException
    {
        final String doc = Files.readString(Path.of("docs/api.md"));
        assertTrue(doc.contains("```" + language + "\n" + Files.readString(source) + "```\n"),
            "docs/api.md's " + what + " differs from " + source);
    }
}
