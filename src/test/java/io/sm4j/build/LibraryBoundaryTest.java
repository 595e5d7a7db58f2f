package io.sm4j.build;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The library packages never reach the tools or the tools' dependencies, so that an application that
 * depends on sm4j needs Agrona alone (the tool dependencies are optional in the pom). Checked on the
 * compiled classes: every class or package a class file refers to is named in its constant pool.
 */
class LibraryBoundaryTest
{
    private static final Path CLASSES = Path.of("target/classes/io/sm4j");
    private static final List<String> TOOLS = List.of(
        "picocli/", "org/HdrHistogram/", "org/knowm/", "io/sm4j/cli/", "io/sm4j/launch/", "io/sm4j/bench/", "io/sm4j/report/");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "layout", "segment", "job", "fifo", "transport", "window", "collective", "message", "examples" })
    void libraryPackagesShouldNotReferToToolsOrTheirDependencies(final String pkg) throws IOException
    {
        final List<String> offences = new ArrayList<>();
        final List<Path> classes = classesOf(CLASSES.resolve(pkg));
        assertFalse(classes.isEmpty(), "no classes compiled in " + pkg);
        for (final Path file : classes)
        {
            final String pool = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            for (final String tool : TOOLS)
            {
                if (pool.contains(tool))
                {
                    offences.add(file.getFileName() + " -> " + tool);
                }
            }
        }
        assertEquals(List.of(), offences);
    }

    @ParameterizedTest(name = "layout must not refer to {0}")
    @ValueSource(strings = { "segment", "job", "fifo", "transport", "window", "collective", "message" })
    void layoutShouldBePureComputation(final String pkg) throws IOException
    {
        for (final Path file : classesOf(CLASSES.resolve("layout")))
        {
            final String pool = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            assertFalse(pool.contains("io/sm4j/" + pkg + "/"), file + " refers to io.sm4j." + pkg);
        }
    }

    /**
     * Lower layers never refer to higher ones: the shared-memory primitives and the job's concerns sit below
     * the transport, the collectives' algorithms beside the message layer and below it.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "fifo: job transport window collective message", "job: fifo transport window collective message",
        "segment: job fifo transport window collective message", "transport: window collective message",
        "window: job fifo transport message", "collective: transport window message" })
    void lowerLayersShouldNotReferToHigherOnes(final String rule) throws IOException
    {
        final String pkg = rule.substring(0, rule.indexOf(':'));
        final List<String> offences = new ArrayList<>();
        for (final Path file : classesOf(CLASSES.resolve(pkg)))
        {
            final String pool = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            for (final String higher : rule.substring(rule.indexOf(':') + 1).trim().split(" "))
            {
                if (pool.contains("io/sm4j/" + higher + "/"))
                {
                    offences.add(file.getFileName() + " -> " + higher);
                }
            }
        }
        assertEquals(List.of(), offences);
    }

    private static List<Path> classesOf(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.filter(f -> f.toString().endsWith(".class")).toList();
        }
    }
}
