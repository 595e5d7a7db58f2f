package io.sm4j.launch;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;

/**
 * What a rank JVMs' class data archive depends on, as one name ({@link ClassDataArchive}): the JDK, the JVM options
 * (the job's, and those the environment gives every JVM), and every jar the ranks load classes from, manifest
 * Class-Path entries included, each by its inode, change time and size. The change time moves with any write and
 * cannot be set back (a rebuilt jar of the same size and modification time is a new jar here, where the JVM's
 * own check, size and modification time, would still map the old classes).
 */
final class ArchiveKey
{
    /** Variables from which every JVM takes options: they change what an archive holds as the job's do. */
    static final List<String> OPTION_VARIABLES = List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS");

    private ArchiveKey()
    {
    }

    /**
     * @param classpath the ranks' classpath (with -jar, the jar).
     * @return the jars the ranks load classes from, those their manifests' Class-Path name too; none if an entry
     *         is not a jar file (a directory, a wildcard, a missing file): CDS would not archive it.
     */
    static List<Path> jars(final String classpath)
    {
        if (classpath == null || classpath.isEmpty())
        {
            return List.of();
        }
        final Set<Path> jars = new LinkedHashSet<>();
        final List<Path> next = new ArrayList<>();
        for (final String entry : classpath.split(File.pathSeparator))
        {
            if (entry.isEmpty() || entry.contains("*"))
            {
                return List.of();
            }
            next.add(Path.of(entry).toAbsolutePath().normalize());
        }
        while (!next.isEmpty())
        {
            final Path path = next.remove(0);
            if (!Files.isRegularFile(path))
            {
                return List.of();
            }
            if (jars.add(path) && !manifestPath(path, next))
            {
                return List.of();
            }
        }
        return List.copyOf(jars);
    }

    /**
     * Adds the jars {@code jar}'s manifest names in its Class-Path (relative URLs, from its directory).
     *
     * @return false if the jar or an entry cannot be read.
     */
    private static boolean manifestPath(final Path jar, final List<Path> next)
    {
        try (JarFile file = new JarFile(jar.toFile()))
        {
            final String entries = file.getManifest() == null ? null :
                file.getManifest().getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
            if (entries != null)
            {
                for (final String entry : entries.trim().split("\\s+"))
                {
                    next.add(Path.of(jar.getParent().toUri().resolve(entry)).normalize()); // a relative URL
                }
            }
            return true;
        }
        catch (final IOException | RuntimeException ex)
        {
            return false;
        }
    }

    /**
     * @return a name for the archive of {@code jars} as they are now, under this JDK, with {@code jvmArgs} and the
     *         environment's options (logging options aside: they change nothing the archive holds).
     */
    static String of(final List<Path> jars, final List<String> jvmArgs, final Map<String, String> env)
    {
        final StringBuilder text = new StringBuilder()
            .append(System.getProperty("java.home")).append('\n')
            .append(System.getProperty("java.vm.version")).append('\n');
        for (final String arg : jvmArgs)
        {
            if (!arg.startsWith("-Xlog"))
            {
                text.append(arg).append('\n');
            }
        }
        for (final String variable : OPTION_VARIABLES)
        {
            text.append(variable).append('=').append(env.getOrDefault(variable, "")).append('\n');
        }
        for (final Path jar : jars)
        {
            text.append(jar).append(' ').append(identity(jar)).append('\n');
        }
        try
        {
            final byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("every JDK has SHA-256", ex);
        }
    }

    /**
     * @return the file's inode, change time (nanoseconds) and size; its size and modification time where the file
     *         system has no unix attributes.
     */
    private static String identity(final Path file)
    {
        try
        {
            final Map<String, Object> unix = Files.readAttributes(file, "unix:ino,ctime,size");
            return unix.get("ino") + " " + ((FileTime)unix.get("ctime")).to(TimeUnit.NANOSECONDS) + " " + unix.get("size");
        }
        catch (final IOException | UnsupportedOperationException | IllegalArgumentException ex)
        {
            return file.toFile().length() + " " + file.toFile().lastModified();
        }
    }
}
