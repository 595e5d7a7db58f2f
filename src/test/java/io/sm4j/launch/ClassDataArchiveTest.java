package io.sm4j.launch;

import io.sm4j.examples.RingExample;
import io.sm4j.it.JobRunner;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.BadSettingException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClassDataArchiveTest
{
    private static final List<String> JVM_ARGS = List.of("-Xmx256m", "-XX:+UseSerialGC");

    @TempDir
    Path tmp;

    private final List<String> warnings = new ArrayList<>();

    @Test
    void theSettingShouldBeAutoOffOrAnAbsoluteDirectory()
    {
        assertNull(ArchiveDirectory.of(Map.of(ClassDataArchive.ENV, "off")));
        assertEquals(Path.of("/x/cds"), ArchiveDirectory.of(Map.of(ClassDataArchive.ENV, "/x/cds")));
        assertEquals(Path.of("/c/sm4j/cds"), ArchiveDirectory.of(Map.of("XDG_CACHE_HOME", "/c")));
        assertEquals(Path.of(System.getProperty("user.home"), ".cache", "sm4j", "cds"), ArchiveDirectory.of(Map.of()));
        final BadSettingException bad = assertThrows(BadSettingException.class,
            () -> ArchiveDirectory.of(Map.of(ClassDataArchive.ENV, "cds")));
        assertEquals("SM4J_CDS=cds (expected: auto, off or an absolute directory for the rank JVMs' class data archive)",
            bad.getMessage());
    }

    @Test
    void aClasspathWithADirectoryOrAMissingJarShouldHaveNoArchive() throws IOException
    {
        final Path jar = jar(tmp.resolve("a.jar"), null);
        assertEquals(List.of(jar), ArchiveKey.jars(jar.toString()));
        assertEquals(List.of(), ArchiveKey.jars(Files.write(tmp.resolve("b.jar"), new byte[] { 1 }).toString()), "not a jar");
        assertEquals(List.of(), ArchiveKey.jars(jar + File.pathSeparator + tmp));
        assertEquals(List.of(), ArchiveKey.jars(jar + File.pathSeparator + tmp.resolve("gone.jar")));
        assertEquals(List.of(), ArchiveKey.jars(tmp + "/*"));
        final Map<String, String> env = Map.of(ClassDataArchive.ENV, tmp.resolve("cds").toString());
        assertEquals(List.of(), ClassDataArchive.forJob(env, tmp.toString(), List.of(), List.of("Main"), warnings::add).jvmArgs(0));
        assertFalse(Files.exists(tmp.resolve("cds")), "no directory made for a job that cannot use it");
    }

    @Test
    void aJarShouldBringTheJarsOfItsManifestAndTheirs() throws IOException
    {
        Files.createDirectories(tmp.resolve("lib"));
        final Path inner = jar(tmp.resolve("lib/my dep.jar"), null);
        final Path dep = jar(tmp.resolve("lib/a.jar"), "my%20dep.jar");
        final Path app = jar(tmp.resolve("app.jar"), "lib/a.jar  lib/a.jar");
        assertEquals(List.of(app, dep, inner), ArchiveKey.jars(app.toString()));
        jar(app, "lib/gone.jar");
        assertEquals(List.of(), ArchiveKey.jars(app.toString()), "a missing jar in a manifest");
    }

    @Test
    void theKeyShouldFollowTheJarsAndOptionsButNotTheLogging() throws IOException
    {
        final Path jar = Files.write(tmp.resolve("a.jar"), new byte[] { 1, 2 });
        final String key = ArchiveKey.of(List.of(jar), JVM_ARGS, Map.of());
        assertEquals(key, ArchiveKey.of(List.of(jar), List.of("-Xmx256m", "-Xlog:class+load", "-XX:+UseSerialGC"), Map.of()));
        assertNotEquals(key, ArchiveKey.of(List.of(jar), List.of("-Xmx256m"), Map.of()));
        assertNotEquals(key, ArchiveKey.of(List.of(jar), JVM_ARGS, Map.of("JAVA_TOOL_OPTIONS", "-Xmx1g")), "options from the environment");
        // rebuilt with the same size, its modification time set back (as a build tool may): the JVM's own check
        // would still map the old classes
        final FileTime built = Files.getLastModifiedTime(jar);
        Files.write(jar, new byte[] { 3, 4 });
        Files.setLastModifiedTime(jar, built);
        assertNotEquals(key, ArchiveKey.of(List.of(jar), JVM_ARGS, Map.of()), "a rebuilt jar needs a new archive");
    }

    @Test
    void optionsThatChooseAnArchiveShouldTurnItOff() throws IOException
    {
        final Path jar = jar(tmp.resolve("a.jar"), null);
        final Map<String, String> env = Map.of(ClassDataArchive.ENV, tmp.resolve("cds").toString());
        for (final String option : List.of("-Xshare:off", "-XX:SharedArchiveFile=/x.jsa", "-XX:ArchiveClassesAtExit=/x.jsa"))
        {
            assertEquals(List.of(), ClassDataArchive.forJob(env, jar.toString(), List.of(option), List.of("Main"), warnings::add).jvmArgs(0), option);
            final Map<String, String> tool = Map.of(ClassDataArchive.ENV, env.get(ClassDataArchive.ENV), "JAVA_TOOL_OPTIONS", "-Xmx1g " + option);
            assertEquals(List.of(), ClassDataArchive.forJob(tool, jar.toString(), JVM_ARGS, List.of("Main"), warnings::add).jvmArgs(0), option);
        }
        final ClassDataArchive listing = ClassDataArchive.forJob(env, jar.toString(), JVM_ARGS, List.of("Main"), warnings::add);
        assertTrue(listing.jvmArgs(0).get(0).startsWith("-XX:DumpLoadedClassList=" + tmp.resolve("cds")), listing.jvmArgs(0).toString());
        assertTrue(listing.jvmArgs(0).containsAll(ClassDataArchive.QUIET), listing.jvmArgs(0).toString());
        assertEquals(List.of(), listing.jvmArgs(1), "only rank 0 lists its classes");
        listing.finish(true);
        assertEquals(List.of(), files(tmp.resolve("cds")), "rank 0 never ran: no list, no dump, no refusal");
    }

    /**
     * A dump that fails (here: a class list the JVM cannot read) leaves no archive and keeps the key from dumping
     * for a day; the job's ranks then get nothing.
     */
    @Test
    @Timeout(60)
    void aFailedDumpShouldBeRememberedAndNotTriedAgainForADay() throws IOException
    {
        final Path jar = jar(tmp.resolve("a.jar"), null);
        final Path cds = tmp.resolve("cds");
        final Map<String, String> env = Map.of(ClassDataArchive.ENV, cds.toString());
        final ClassDataArchive listing = ClassDataArchive.forJob(env, jar.toString(), JVM_ARGS, List.of("Main"), warnings::add);
        final String list = listing.jvmArgs(0).get(0).substring("-XX:DumpLoadedClassList=".length());
        Files.writeString(Path.of(list), "not a class list @@@\n");
        listing.finish(true);
        final List<String> marked = files(cds);
        assertEquals(1, marked.size(), marked.toString());
        assertTrue(marked.get(0).endsWith(".off"), marked.toString());
        assertEquals(List.of(), ClassDataArchive.forJob(env, jar.toString(), JVM_ARGS, List.of("Main"), warnings::add).jvmArgs(0));
        final Path marker = cds.resolve(marked.get(0));
        Files.setLastModifiedTime(marker, FileTime.fromMillis(System.currentTimeMillis() - ClassDataArchive.RETRY_MILLIS - 1_000));
        assertFalse(ClassDataArchive.forJob(env, jar.toString(), JVM_ARGS, List.of("Main"), warnings::add).jvmArgs(0).isEmpty(), "tried again a day later");
    }

    @Test
    void onlyAFinishedDumpShouldCount() throws IOException
    {
        assertTrue(ArchiveDirectory.finished(Files.write(tmp.resolve("whole"), new byte[] { (byte)0xa2, (byte)0xab, 0x0b, (byte)0xf0, 1 })));
        assertFalse(ArchiveDirectory.finished(Files.write(tmp.resolve("cut"), new byte[] { 0, 0, 0, 0, 1 })), "killed in its dump");
        assertFalse(ArchiveDirectory.finished(tmp.resolve("none")));
    }

    @Test
    void aDirectoryOthersMayWriteShouldNotBeUsed() throws IOException
    {
        final Path shared = Files.createDirectory(tmp.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertFalse(ArchiveDirectory.own(shared));
        final Path made = tmp.resolve("a").resolve("cds");
        assertTrue(ArchiveDirectory.own(made));
        assertEquals(PosixFilePermissions.fromString("rwx------"), Files.getPosixFilePermissions(made));
        // its parent too, whatever the umask: under umask 002 a parent made rwxrwxr-x was refused, and the archive never used
        assertEquals(PosixFilePermissions.fromString("rwx------"), Files.getPosixFilePermissions(made.getParent()));
        final Path jar = jar(tmp.resolve("a.jar"), null);
        assertEquals(List.of(), ClassDataArchive.forJob(Map.of(ClassDataArchive.ENV, shared.toString()), jar.toString(), JVM_ARGS,
            List.of("Main"), warnings::add).jvmArgs(0));
        assertEquals(List.of("SM4J_CDS=" + shared + " is not used: the class data archives need a directory of this user's " +
            "alone (mode rwx------, not a link, in a parent others cannot write); the ranks load their classes"), warnings);
        final Path link = Files.createSymbolicLink(tmp.resolve("link"), made);
        assertFalse(ArchiveDirectory.own(link), "a link may point anywhere later");
        final Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertFalse(ArchiveDirectory.own(open.resolve("cds")), "in a parent where another user may replace it");
        final Path sticky = Files.createDirectory(tmp.resolve("sticky"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        assertTrue(ArchiveDirectory.own(sticky.resolve("cds")), "in a sticky parent, as /tmp");
    }

    @Test
    void pruningShouldKeepTheNewestArchivesAndDropOldPartialDumps() throws IOException
    {
        final long now = System.currentTimeMillis();
        final List<Path> archives = new ArrayList<>();
        for (int i = 0; i < ArchiveDirectory.KEPT + 3; i++)
        {
            final Path archive = Files.write(tmp.resolve(i + ".jsa"), new byte[] { 1 });
            Files.setLastModifiedTime(archive, FileTime.fromMillis(now - i * 60_000L));
            archives.add(archive);
        }
        final long gone = ProcessHandle.current().pid() + 4_000_000; // above any pid_max
        final long twoHoursAgo = now - Duration.ofHours(2).toMillis();
        final Path oldPartial = Files.write(tmp.resolve("x.jsa." + gone + "-1a.classes.partial"), new byte[] { 1 });
        Files.setLastModifiedTime(oldPartial, FileTime.fromMillis(twoHoursAgo));
        final Path longJob = Files.write(tmp.resolve("x.jsa." + ProcessHandle.current().pid() + "-2b.classes.partial"), new byte[] { 1 });
        Files.setLastModifiedTime(longJob, FileTime.fromMillis(twoHoursAgo));
        final Path recent = Files.write(tmp.resolve("y.jsa." + gone + "-3c.dump.partial"), new byte[] { 1 });
        ArchiveDirectory.prune(tmp);
        for (int i = 0; i < archives.size(); i++)
        {
            assertEquals(i < ArchiveDirectory.KEPT, Files.exists(archives.get(i)), archives.get(i).toString());
        }
        assertFalse(Files.exists(oldPartial), "an hour old, its launcher gone");
        assertTrue(Files.exists(longJob), "a job that runs for hours lists its classes into it");
        assertTrue(Files.exists(recent), "another job may be dumping into it");
    }

    /**
     * Real rank JVMs from a jar: the first job's rank 0 leaves an archive, the next job's ranks load their classes
     * from it; a failed job leaves none.
     */
    @Test
    @Timeout(240)
    void aSecondJobsRanksShouldLoadTheirClassesFromTheFirstJobsArchive() throws IOException
    {
        final String classpath = jarClasspath();
        final Path cds = tmp.resolve("cds");
        final Map<String, String> env = Map.of(ClassDataArchive.ENV, cds.toString());
        final LayoutParams params = LayoutParams.defaults(2);

        final JobRunner failed = JobRunner.run(classpath, params, env, JVM_ARGS, Duration.ofSeconds(90), "io.sm4j.NoSuchMain");
        assertNotEquals(0, failed.exitCode());
        assertEquals(List.of(), files(cds), "a failed job's dump is not kept");

        final JobRunner first = JobRunner.run(classpath, params, env, JVM_ARGS, Duration.ofSeconds(90), RingExample.class.getName());
        assertEquals(0, first.exitCode(), first.out() + first.err());
        assertEquals("", first.err(), "the dump says nothing");
        assertFalse(first.out().contains("[warning]"), first.out());
        final List<String> made = files(cds);
        assertEquals(1, made.size(), made.toString());
        assertTrue(made.get(0).endsWith(".jsa"), made.toString());

        final List<String> logged = new ArrayList<>(JVM_ARGS);
        logged.add("-Xlog:class+load=info:file=" + tmp.resolve("load-%p.log"));
        final JobRunner second = JobRunner.run(classpath, params, env, logged, Duration.ofSeconds(90), RingExample.class.getName());
        assertEquals(0, second.exitCode(), second.out() + second.err());
        assertFalse(second.out().contains("[warning]") || second.err().contains("[warning]"), second.out() + second.err());
        assertEquals(made, files(cds), "the same archive serves logging options too");
        final List<Path> logs;
        try (Stream<Path> listed = Files.list(tmp))
        {
            logs = listed.filter(p -> p.getFileName().toString().startsWith("load-")).collect(Collectors.toList());
        }
        assertEquals(2, logs.size(), logs.toString());
        for (final Path log : logs)
        {
            final String text = Files.readString(log);
            assertTrue(text.contains(RingExample.class.getName() + " source: shared objects file"), log + " did not map the archive");
            assertTrue(text.contains("io.sm4j.transport.Endpoint source: shared objects file"), log.toString());
        }
    }

    /**
     * Writes an empty jar at {@code path}, its manifest naming {@code classPath} (null: none).
     */
    private static Path jar(final Path path, final String classPath) throws IOException
    {
        final Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (classPath != null)
        {
            manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
        }
        try (OutputStream file = Files.newOutputStream(path); JarOutputStream out = new JarOutputStream(file, manifest))
        {
            out.putNextEntry(new JarEntry("x.txt"));
            out.closeEntry();
        }
        return path;
    }

    private static List<String> files(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return List.of();
        }
        try (Stream<Path> listed = Files.list(dir))
        {
            return listed.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }

    /**
     * @return this build's classes in a jar of their own, then the dependency jars: a classpath CDS archives.
     */
    private String jarClasspath() throws IOException
    {
        final List<String> entries = new ArrayList<>();
        final Path jar = tmp.resolve("sm4j-classes.jar");
        final Path classes = Path.of(RingExample.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file);
             Stream<Path> walk = Files.walk(classes))
        {
            for (final Path path : (Iterable<Path>)walk.filter(Files::isRegularFile).sorted()::iterator)
            {
                out.putNextEntry(new JarEntry(classes.relativize(path).toString().replace(File.separatorChar, '/')));
                Files.copy(path, out);
                out.closeEntry();
            }
        }
        entries.add(jar.toString());
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> entry.endsWith(".jar"))
            .forEach(entries::add);
        return String.join(File.pathSeparator, entries);
    }
}
