package io.sm4j.segment;

import io.sm4j.it.ScratchDir;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.Policy;
import io.sm4j.layout.SegmentHeaderDescriptor;
import io.sm4j.layout.SegmentLayout;
import io.sm4j.report.Column;
import io.sm4j.report.MemoryModel;
import io.sm4j.report.MemoryTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Segment creation, validation on attach, registration and removal, over real files in /dev/shm.
 */
@Timeout(60)
class SegmentTest
{
    private static final Duration SHORT = Duration.ofMillis(300);
    private ScratchDir scratch;
    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException
    {
        scratch = ScratchDir.create("sm4j-segment-test-");
        dir = scratch.path;
    }

    @AfterEach
    void removeDirectory() throws IOException
    {
        try
        {
            assertTrue(scratch.isEmpty(), "files left behind in " + dir);
        }
        finally
        {
            scratch.close();
        }
    }

    @Test
    void shouldCreateAFileOfExactlyTheLayoutsAndTheReportsSize() throws IOException
    {
        for (final Policy policy : Policy.values())
        {
            final LayoutParams params = LayoutParams.builder(5).policy(policy).queueEntries(16).build();
            try (Segment segment = Segment.create(params, dir, 42))
            {
                final long size = Files.size(segment.path());
                assertEquals(SegmentLayout.compute(params).totalBytes(), size, policy.name());
                final Column column = policy == Policy.AGGREGATED ? Column.AGGREGATED :
                    policy == Policy.CACHELINE ? Column.CACHELINE : Column.PAGE_4K;
                assertEquals(MemoryTable.of(params, MemoryModel.SM4J).total(column), size, policy.name());
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(segment.path())));
                assertTrue(segment.path().getFileName().toString()
                    .matches("sm4j-" + System.getProperty("user.name") + "-000000000000002a\\.seg"), segment.path().toString());
            }
        }
    }

    @Test
    void shouldRefuseToReuseAnExistingPath() throws IOException
    {
        final Path existing = dir.resolve(SegmentFiles.fileName(7));
        Files.writeString(existing, "not yours");
        final Sm4jException ex = assertThrows(Sm4jException.class, () -> Segment.create(LayoutParams.defaults(2), dir, 7));
        assertTrue(ex.getMessage().contains("FileAlreadyExists"), ex.getMessage());
        assertEquals("not yours", Files.readString(existing));
        Files.delete(existing);
    }

    @Test
    void shouldFailWithNeedAndAvailableWhenTheDirectoryIsShortOfSpace() throws IOException
    {
        final LayoutParams huge = LayoutParams.builder(LayoutParams.MAX_PEERS).build();
        assumeTrue(Files.getFileStore(dir).getUsableSpace() < SegmentLayout.compute(huge).totalBytes(), "a very large " + dir);
        final Sm4jException ex = assertThrows(Sm4jException.class, () -> Segment.create(huge, dir, 1));
        assertTrue(ex.getMessage().matches("not enough space in " + dir + ": the segment needs [\\d,]+ bytes, [\\d,]+ are free\\. .*"),
            ex.getMessage());
    }

    @Test
    void shouldAttachToAReadySegmentAndSeeTheSameLayout()
    {
        final LayoutParams params = LayoutParams.builder(3).queueEntries(8).build();
        try (Segment created = Segment.create(params, dir, 9);
             Segment attached = Segment.attach(created.path(), SHORT))
        {
            assertEquals(created.layout().checksum(), attached.layout().checksum());
            assertEquals(9, attached.jobId());
        }
    }

    @Test
    void shouldRejectAFileThatIsNotASegment() throws IOException
    {
        final Path path = dir.resolve("garbage.seg");
        Files.write(path, new byte[8192]);
        final ByteBuffer junk = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, 0x1234);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE))
        {
            channel.write(junk, 0);
        }
        final Sm4jException ex = assertThrows(Sm4jException.class, () -> Segment.attach(path, SHORT));
        assertEquals("not an sm4j segment: " + path + " (magic=0x1234)", ex.getMessage());
        Files.delete(path);
    }

    @Test
    void shouldRejectAnotherFormatVersion() throws IOException
    {
        try (Segment segment = Segment.create(LayoutParams.defaults(2), dir, 3))
        {
            patchInt(segment.path(), SegmentHeaderDescriptor.VERSION_OFFSET, 99);
            final Sm4jException ex = assertThrows(Sm4jException.class, () -> Segment.attach(segment.path(), SHORT));
            assertTrue(ex.getMessage().startsWith("segment version not compatible: app=" + SegmentHeaderDescriptor.VERSION + " file=99"), ex.getMessage());
        }
    }

    @Test
    void shouldRejectParametersThatDoNotMatchTheFile() throws IOException
    {
        try (Segment segment = Segment.create(LayoutParams.defaults(4), dir, 3))
        {
            patchInt(segment.path(), SegmentHeaderDescriptor.PARAMS_OFFSET, 5);
            final Sm4jException ex = assertThrows(Sm4jException.class, () -> Segment.attach(segment.path(), SHORT));
            assertTrue(ex.getMessage().startsWith("segment length mismatch: layout="), ex.getMessage());
            patchInt(segment.path(), SegmentHeaderDescriptor.PARAMS_OFFSET, 0);
            final Sm4jException invalid = assertThrows(Sm4jException.class, () -> Segment.attach(segment.path(), SHORT));
            assertTrue(invalid.getMessage().startsWith("segment header holds invalid parameters: peers=0 (expected: 1..4096)"),
                invalid.getMessage());
        }
    }

    @Test
    void shouldRejectATruncatedSegment() throws IOException
    {
        try (Segment segment = Segment.create(LayoutParams.defaults(2), dir, 3))
        {
            try (FileChannel channel = FileChannel.open(segment.path(), StandardOpenOption.WRITE))
            {
                channel.truncate(Files.size(segment.path()) / 2);
            }
            final Sm4jException ex = assertThrows(Sm4jException.class, () -> Segment.attach(segment.path(), SHORT));
            assertTrue(ex.getMessage().startsWith("segment length mismatch"), ex.getMessage());
            try (FileChannel channel = FileChannel.open(segment.path(), StandardOpenOption.WRITE))
            {
                channel.truncate(100);
            }
            final Sm4jException tiny = assertThrows(Sm4jException.class, () -> Segment.attach(segment.path(), SHORT));
            assertEquals("truncated segment " + segment.path() + ": length=100 (expected at least " + SegmentHeaderDescriptor.LENGTH + ")", tiny.getMessage());
        }
    }

    @Test
    void shouldTimeOutNamingWhatItWaitedFor()
    {
        final Path missing = dir.resolve("missing.seg");
        final Sm4jException ex = assertThrows(Sm4jException.class, () -> Segment.attach(missing, SHORT));
        assertEquals("segment " + missing + " not ready after 300 ms (waiting for the file to exist)", ex.getMessage());
    }

    @Test
    void shouldRefuseADuplicateRank()
    {
        try (Segment segment = Segment.create(LayoutParams.defaults(2), dir, 3))
        {
            segment.ranks().register(1);
            final Sm4jException ex = assertThrows(Sm4jException.class, () -> segment.ranks().register(1));
            assertTrue(ex.getMessage().startsWith("rank 1 is already attached (pid " + ProcessHandle.current().pid()),
                ex.getMessage());
        }
    }

    @Test
    void shouldNameMissingRanksAndAbortWhenTheyNeverAttach()
    {
        try (Segment segment = Segment.create(LayoutParams.defaults(4), dir, 3))
        {
            segment.ranks().register(0);
            segment.ranks().register(2);
            final Sm4jException ex = assertThrows(Sm4jException.class, () -> segment.awaitAll(0, SHORT));
            assertEquals("timed out after 300 ms waiting for ranks [1, 3] of 4 to attach", ex.getMessage());
            final JobAbortedException aborted = assertThrows(JobAbortedException.class, segment::checkNotAborted);
            assertEquals("job aborted by rank 0: timed out after 300 ms waiting for ranks [1, 3] of 4 to attach",
                aborted.getMessage());
            assertThrows(JobAbortedException.class, () -> Segment.attach(segment.path(), SHORT));
        }
    }

    @Test
    void anAbortReasonLongerThanTheHeaderHoldsShouldBeCutAtACharacterWithAMark()
    {
        final String whole = "rank 1 threw: " + "\u20ac".repeat(SegmentHeaderDescriptor.ABORT_REASON_MAX_LENGTH); // 3 bytes each
        try (Segment segment = Segment.create(LayoutParams.defaults(2), dir, 3))
        {
            segment.ranks().register(0);
            segment.abort(1, whole);
            final String seen = assertThrows(JobAbortedException.class, segment::checkNotAborted).getMessage();
            final String mark = " ... (cut: the rank's own output has it whole)";
            assertTrue(seen.startsWith("job aborted by rank 1: rank 1 threw: \u20ac\u20ac"), seen);
            assertTrue(seen.endsWith("\u20ac" + mark), "cut inside a character: " + seen.substring(seen.length() - 60));
            final String kept = seen.substring("job aborted by rank 1: ".length(), seen.length() - mark.length());
            assertTrue(whole.startsWith(kept), "the kept part is the reason's start");
            final int bytes = (kept + mark).getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
            assertTrue(bytes <= SegmentHeaderDescriptor.ABORT_REASON_MAX_LENGTH &&
                bytes > SegmentHeaderDescriptor.ABORT_REASON_MAX_LENGTH - 3, bytes + " bytes kept");
        }
        final String fits = "x".repeat(SegmentHeaderDescriptor.ABORT_REASON_MAX_LENGTH);
        assertEquals(fits, new String(SegmentHeader.fitted(fits), java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void shouldRemoveTheFileWhenTheLastRankDetaches()
    {
        final Segment segment = Segment.create(LayoutParams.defaults(2), dir, 3);
        try (Segment attached = Segment.attach(segment.path(), SHORT))
        {
            attached.ranks().register(0);
            attached.ranks().register(1);
            attached.detach(0);
            assertTrue(Files.exists(segment.path()));
            attached.detach(1);
            assertFalse(Files.exists(segment.path()));
        }
        segment.close();
    }

    private static void patchInt(final Path path, final int offset, final int value) throws IOException
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE))
        {
            channel.write(ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0, value), offset);
        }
    }
}
