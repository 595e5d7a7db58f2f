package io.sm4j.segment;

import io.sm4j.it.Procs;
import io.sm4j.it.ScratchDir;
import io.sm4j.layout.ControlBlockDescriptor;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentHeaderDescriptor;
import io.sm4j.transport.Endpoints;
import io.sm4j.transport.TransportOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which segment files are stale: decided by the pid and start time of every process a file records, over
 * real files whose records are forged to name a process that has exited.
 */
@Timeout(60)
class StaleSegmentsTest
{
    private ScratchDir scratch;
    private Path dir;
    private ProcessIdentity dead;

    @BeforeEach
    void setUp() throws Exception
    {
        scratch = ScratchDir.create("sm4j-stale-test-");
        dir = scratch.path;
        final Process exited = new ProcessBuilder("true").start();
        final ProcessIdentity identity = ProcessIdentity.of(exited.toHandle());
        exited.waitFor();
        dead = identity;
    }

    @AfterEach
    void tearDown() throws IOException
    {
        scratch.close();
    }

    @Test
    @Timeout(60)
    void aRankLeavingAnAbortedCreateJobShouldLeaveTheFileToTheRanksStillToCome() throws Exception
    {
        // an sm4j create segment for 3 ranks: rank 0 gives up waiting and aborts; ranks 1 and 2 come later
        final Path segment = Segment.createForRanks(LayoutParams.defaults(3), dir, 77);
        final TransportOptions shortWait = new TransportOptions(Duration.ofMillis(200), 0,
            TransportOptions.Idle.AUTO, 0, 1 << 20, TransportOptions.Bell.AUTO, TransportOptions.PeerReads.AUTO);
        final Sm4jException timedOut = assertThrows(Sm4jException.class,
            () -> Endpoints.attach(segment, 0, 3, shortWait));
        assertTrue(timedOut.getMessage().startsWith("timed out after 200 ms waiting for ranks [1, 2]"), timedOut.getMessage());
        assertTrue(Files.exists(segment), "the file stays for the ranks still to come");
        final JobAbortedException late = assertThrows(JobAbortedException.class,
            () -> Endpoints.attach(segment, 1, 3, shortWait));
        assertTrue(late.getMessage().contains("timed out after 200 ms waiting for ranks [1, 2]"), late.getMessage());
        assertEquals(1, StaleSegments.reclaim(dir, false).size(), "sm4j clean removes it: every rank that joined is dead");
    }

    @Test
    void aReusedPidShouldNotCountAsAlive()
    {
        final ProcessIdentity self = ProcessIdentity.current();
        assertTrue(self.isAlive());
        assertFalse(new ProcessIdentity(self.pid(), self.startTicks() - 10_000).isAlive(), "same pid, another start");
        assertFalse(dead.isAlive());
        assertFalse(new ProcessIdentity(0, 0).isAlive());
    }

    /**
     * The start time is the kernel's, in ticks after boot (field 22 of /proc/PID/stat), not a wall-clock instant: a
     * step of the clock (NTP after a VM's pause) leaves every JVM's reading of a live process the same.
     */
    @Test
    void aStartTimeShouldBeTheKernelsTicksAfterBoot() throws IOException
    {
        assertEquals(Long.parseLong(Procs.statField(ProcessHandle.current().pid(), 19)), ProcessIdentity.current().startTicks());
        assertEquals(ProcessIdentity.current(), ProcessIdentity.of(ProcessHandle.current()));
    }

    @Test
    void aSegmentWhoseLauncherAndRanksAreDeadShouldBeRemovedAndALiveOneKept() throws IOException
    {
        final Segment live = Segment.create(LayoutParams.defaults(3), dir, 1);
        final Segment orphan = Segment.create(LayoutParams.defaults(3), dir, 2);
        try
        {
            orphan.ranks().register(0);
            forgeCreator(orphan.path(), dead);
            assertEquals(List.of("0000000000000001: its launcher (pid " + ProcessHandle.current().pid() + ") is alive",
                "0000000000000002: 1 of 3 ranks alive"), verdicts());
            forgeRank(orphan, 0, dead);
            assertEquals(List.of("0000000000000002: its launcher (pid " + dead.pid() + ") and every rank are dead"),
                StaleSegments.reclaim(dir, false).stream().map(e -> e.jobId() + ": " + e.verdict()).toList());
            assertFalse(Files.exists(orphan.path()));
            assertTrue(Files.exists(live.path()));
        }
        finally
        {
            live.close();
            orphan.close();
        }
    }

    @Test
    void aSegmentHandedToRanksShouldWaitForThemAndGoWhenTheyAreDead() throws IOException
    {
        final Path path = Segment.createForRanks(LayoutParams.defaults(2), dir, 3);
        assertEquals(List.of("0000000000000003: waiting for its ranks (sm4j create); remove it by hand if they will not come"),
            verdicts());
        try (Segment segment = Segment.attach(path, Duration.ofSeconds(1)))
        {
            segment.ranks().register(1);
            forgeRank(segment, 1, dead);
            assertEquals(List.of("0000000000000003: every rank that joined is dead"), verdicts());
            assertEquals(1, StaleSegments.reclaim(dir, false).size());
        }
        assertFalse(Files.exists(path));
    }

    @Test
    void aFileLeftWhileAllocatingShouldBeRemovedOnlyOnceItsCreatorIsDead() throws IOException
    {
        final Path mine = dir.resolve(SegmentFiles.creatingName(4));
        final Path orphan = dir.resolve(SegmentFiles.fileName(5) + SegmentFiles.CREATING + dead.pid() + "-" + dead.startTicks());
        Files.write(mine, new byte[100]);
        Files.write(orphan, new byte[100]);
        assertEquals(List.of("0000000000000004: being created by pid " + ProcessHandle.current().pid(),
            "0000000000000005: its creator (pid " + dead.pid() + ") died while allocating it"), verdicts());
        assertEquals(1, StaleSegments.reclaim(dir, true).size(), "dry run");
        assertTrue(Files.exists(orphan), "dry run removes nothing");
        assertEquals(1, StaleSegments.reclaim(dir, false).size());
        assertFalse(Files.exists(orphan));
        Files.delete(mine);
    }

    @Test
    void aFileThatIsNotAReadableSegmentShouldBeListedAndLeftAlone() throws IOException
    {
        final Path foreign = dir.resolve(SegmentFiles.fileName(6));
        Files.write(foreign, new byte[100]);
        final Path other = dir.resolve(SegmentFiles.fileName(7));
        Files.write(other, new byte[SegmentHeaderDescriptor.LENGTH]);
        assertEquals(List.of("0000000000000006: not an sm4j segment; left alone", "0000000000000007: not an sm4j segment; left alone"),
            verdicts());
        assertEquals(0, StaleSegments.reclaim(dir, false).size());
        Files.delete(foreign);
        Files.delete(other);
    }

    /**
     * A rank that dies between claiming its control block and publishing ATTACHED is seen dead: its pid is
     * written first.
     */
    @Test
    void aRankThatDiedWhileRegisteringShouldBeFoundDead() throws IOException
    {
        try (Segment segment = Segment.create(LayoutParams.defaults(3), dir, 8))
        {
            segment.ranks().register(0);
            assertEquals(-1, segment.ranks().findDeadPeer(0));
            writeLong(segment.path(), segment.layout().controlBlockOffset(1) + ControlBlockDescriptor.PID_OFFSET, dead.pid());
            assertEquals(1, segment.ranks().findDeadPeer(0), "pid claimed, ATTACHED never published");
            assertEquals(List.of(1, 2), segment.ranks().missing());
        }
    }

    /**
     * A doorbell socket outlives its rank when the rank dies after its job's segment was removed: it goes, and one
     * whose segment is there stays with it.
     */
    @Test
    void aDoorbellSocketWhoseSegmentIsGoneShouldBeRemoved() throws IOException
    {
        final Segment live = Segment.create(LayoutParams.defaults(2), dir, 3);
        try
        {
            final Path orphan = socketFile(SegmentFiles.bellPath(SegmentFiles.path(dir, 4), 1));
            final Path kept = socketFile(SegmentFiles.bellPath(live.path(), 0));
            assertEquals(List.of("0000000000000003: its launcher (pid " + ProcessHandle.current().pid() + ") is alive",
                "0000000000000004: a rank's doorbell socket; its segment is gone"), verdicts());
            StaleSegments.reclaim(dir, false);
            assertFalse(Files.exists(orphan, java.nio.file.LinkOption.NOFOLLOW_LINKS), "the orphan socket stayed");
            assertTrue(Files.exists(kept, java.nio.file.LinkOption.NOFOLLOW_LINKS), "a live segment's socket went");
            Files.delete(kept);
        }
        finally
        {
            live.close();
        }
    }

    /**
     * @return {@code path}, a Unix socket's file as a rank's doorbell leaves it (bound, then its channel closed).
     */
    private static Path socketFile(final Path path) throws IOException
    {
        try (ServerSocketChannel socket = ServerSocketChannel.open(StandardProtocolFamily.UNIX))
        {
            socket.bind(UnixDomainSocketAddress.of(path));
        }
        return path;
    }

    private List<String> verdicts() throws IOException
    {
        return StaleSegments.scan(dir).stream().map(e -> e.jobId() + ": " + e.verdict()).toList();
    }

    private static void forgeCreator(final Path path, final ProcessIdentity process) throws IOException
    {
        writeLong(path, SegmentHeaderDescriptor.CREATOR_PID_OFFSET, process.pid());
        writeLong(path, SegmentHeaderDescriptor.CREATOR_START_OFFSET, process.startTicks());
    }

    private static void forgeRank(final Segment segment, final int rank, final ProcessIdentity process) throws IOException
    {
        final long control = segment.layout().controlBlockOffset(rank);
        writeLong(segment.path(), control + ControlBlockDescriptor.PID_OFFSET, process.pid());
        writeLong(segment.path(), control + ControlBlockDescriptor.START_OFFSET, process.startTicks());
    }

    private static void writeLong(final Path path, final long offset, final long value) throws IOException
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE))
        {
            channel.write(ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, value), offset);
        }
    }
}
