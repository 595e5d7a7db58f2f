package io.sm4j.it;

import io.sm4j.layout.LayoutParams;
import io.sm4j.transport.PeerMemory;
import io.sm4j.transport.TransportOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The collectives and the MPI basics over real JVMs and a real segment, against sequential references
 * ({@link CollectiveApp}): 1 to 8 ranks (up to 4 per core here), random lengths from empty to rendezvous,
 * random roots, every operator and type.
 */
@Timeout(300)
class CollectiveTest
{
    @ParameterizedTest
    @ValueSource(ints = { 1, 2, 3, 4, 5, 6, 7, 8 })
    void everyCollectiveShouldMatchItsSequentialReference(final int ranks) throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(ranks), Map.of(), CollectiveApp.class.getName(),
            "check", String.valueOf(20_261_125 + ranks), "6");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        for (int rank = 0; rank < ranks; rank++)
        {
            assertTrue(job.out().contains("collectives ok " + rank), job.out() + job.err());
        }
        assertFalse(job.leftFiles(), "files left behind");
    }

    /**
     * Regions off (every collective point to point), and a region of 1 KiB per rank (halves of 512 bytes):
     * bcasts of 1,000 and 1,500 bytes in 2 and 3 steps and longer ones point to point, gathers of up to 4 KiB
     * in up to 8 steps, scatter and allToAll in pieces of 170 bytes at 3 ranks and 102 at 5 (1,000 and 1,500
     * bytes in 6-15 steps) and point to point at 9 (under 64 bytes per rank), reductions in one step up to 512
     * bytes at 3 ranks and 409 at 5, longer typed ones sliced (slices of 128 bytes at 3 ranks, 80 at 5, 48 at 9).
     */
    @ParameterizedTest
    @ValueSource(strings = { "0 2", "0 3", "1024 3", "1024 5", "1024 9" })
    void everyCollectiveShouldMatchItsReferenceWithoutARegionAndThroughASmallOne(final String setting) throws IOException
    {
        final String[] words = setting.split(" ");
        final int ranks = Integer.parseInt(words[1]);
        final int buffer = Integer.parseInt(words[0]);
        final LayoutParams.Builder builder = LayoutParams.builder(ranks);
        final LayoutParams params = (buffer == 0 ? builder.collectiveContexts(0) : builder.collectiveBufferSize(buffer)).build();
        final JobRunner job = JobRunner.run(params, Map.of(), CollectiveApp.class.getName(),
            "check", String.valueOf(20_261_126 + ranks), ranks > 5 ? "2" : "4");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        for (int rank = 0; rank < ranks; rank++)
        {
            assertTrue(job.out().contains("collectives ok " + rank), job.out() + job.err());
        }
        assertFalse(job.leftFiles(), "files left behind");
    }

    /**
     * bcast, allGather and allToAll from shared buffers and from direct memory, read in place by every rank
     * (CollectiveApp's "inplace"): mixed with arrays and re-wrapped views, around the 8 KiB and 16 KiB limits and
     * over several steps (300,000 bytes per rank: 3 halves of 128 KiB), each round's send buffers rewritten as
     * soon as the call returns. Direct memory is read out of its rank's process (bytes counted) where every
     * rank reads processes (from 32 KiB blocks with a core per rank, 256 KiB left in place when 3 or 4 ranks share
     * this machine's 2 cores: the 65,536-byte allToAll at 4 ranks and the 300,000-byte calls); with one rank that
     * does not, by nobody, and the results are the same.
     */
    @ParameterizedTest
    @CsvSource({ "1, false", "2, false", "3, false", "4, false", "3, true" })
    void dataReadInPlaceShouldGiveEveryBlockAndBeFreeOnReturn(final int ranks, final boolean refuse) throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(ranks), Map.of(), CollectiveApp.class.getName(),
            "inplace", "84", refuse ? "refuse" : "-");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        final boolean reads = ranks > 1 && !refuse &&
            PeerMemory.whyNot(TransportOptions.fromEnvironment(System.getenv()).peerReads()) == null;
        for (int rank = 0; rank < ranks; rank++)
        {
            final Matcher line = Pattern.compile("in place ok " + rank + ", read (\\d+) bytes").matcher(job.out());
            assertTrue(line.find(), job.out() + job.err());
            final long read = Long.parseLong(line.group(1));
            assertTrue(reads ? read > 0 : read == 0, "rank " + rank + " read " + read + " bytes out of peers' processes\n" + job.out());
            if (refuse)
            {
                // the refusing rank 1 is not in the others' split: they read each other (rank 1, alone, reads nobody)
                final Matcher split = Pattern.compile("split ok " + rank + ", read (\\d+) bytes").matcher(job.out());
                assertTrue(split.find(), job.out() + job.err());
                final long splitRead = Long.parseLong(split.group(1));
                final boolean splitReads = rank != 1 && PeerMemory.whyNot(TransportOptions.fromEnvironment(System.getenv()).peerReads()) == null;
                assertTrue(splitReads ? splitRead > 0 : splitRead == 0, "rank " + rank + " read " + splitRead + " bytes in the split\n" + job.out());
            }
        }
        assertFalse(job.leftFiles(), "files left behind");
    }

    /**
     * By default each rank chooses, per kind of call and size, between leaving its off-heap data in place for the
     * others to read and copying it into its half (CollectiveApp's "choose"): of three allToAlls between 2 ranks
     * the first is read in place, the second goes through the region (nothing read), and every block is right.
     */
    @Test
    void aRankShouldLeaveItsDataInPlaceOrCopyItByWhatItMeasured() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(2), Map.of(), CollectiveApp.class.getName(), "choose");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        final boolean reads = PeerMemory.whyNot(TransportOptions.fromEnvironment(System.getenv()).peerReads()) == null;
        for (int rank = 0; rank < 2; rank++)
        {
            final Matcher line = Pattern.compile("choose ok " + rank + ", read (\\d+) (\\d+) (\\d+)").matcher(job.out());
            assertTrue(line.find(), job.out() + job.err());
            assertEquals(reads ? 1 << 16 : 0, Long.parseLong(line.group(1)), "the first call, in place:\n" + job.out());
            assertEquals(0, Long.parseLong(line.group(2)), "the second call, through the region:\n" + job.out());
        }
        assertFalse(job.leftFiles(), "files left behind");
    }

    @Test
    void aReadInPlaceThatFailsShouldEndTheJobWithOneLineNamingTheRankAndTheAddress() throws IOException
    {
        assumeTrue(PeerMemory.whyNot(TransportOptions.fromEnvironment(System.getenv()).peerReads()) == null,
            "the ranks cannot read each other's processes here");
        final JobRunner job = JobRunner.run(LayoutParams.defaults(2), Map.of(), CollectiveApp.class.getName(), "unmapped");
        assumeFalse(job.exitCode() == 3, "the ranks found they cannot read each other's processes: " + job.out());
        assertNotEquals(0, job.exitCode(), job.out() + job.err());
        assertTrue(job.err().contains("rank 1 could not read rank 0's data in place: reading 524288 bytes at address 0x" +
            Long.toHexString(1L << 62) + " out of the process of world rank 0 failed"), job.err());
        assertFalse(job.out().contains("returned"), job.out());
        assertFalse(job.leftFiles(), "files left behind");
    }

    @Test
    void ranksThatCallDifferentCollectivesShouldFailWithOneLineInsteadOfWaiting() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(2), Map.of(), CollectiveApp.class.getName(), "crossed");
        assertNotEquals(0, job.exitCode(), job.out() + job.err());
        assertTrue(job.err().contains("rank 0 called barrier where this rank called bcast: every rank must call a " +
            "communicator's collectives in the same order") ||
            job.err().contains("rank 1 called bcast where this rank called barrier"), job.err());
        assertFalse(job.leftFiles(), "files left behind");
    }

    /**
     * Point to point (no region): the receive of the rank that called another collective fails, whether its
     * source's message was queued before it was posted (crossedQueued) or arrives while it waits (crossedPoint,
     * most runs).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "crossedPoint  | rank 0 called allGather where this rank called bcast",
        "crossedQueued | rank 0 called bcast where this rank called allGather" })
    void ranksThatCallDifferentCollectivesPointToPointShouldFailWithOneLineInsteadOfWaiting(final String mode, final String line)
        throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.builder(2).collectiveContexts(0).build(), Map.of(),
            CollectiveApp.class.getName(), mode);
        assertFailedSaying(job, line + ": every rank must call a communicator's collectives in the same order");
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, LayoutParams.DEFAULT_COLLECTIVE_CONTEXTS })
    void aRankKilledInsideACollectiveShouldFailTheOthersWaitsInsteadOfHangingThem(final int contexts) throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.builder(3).collectiveContexts(contexts).build(), Map.of(),
            CollectiveApp.class.getName(), "die");
        assertNotEquals(0, job.exitCode(), job.out() + job.err());
        assertFalse(job.out().contains("barrier passed"), job.out());
        // each survivor's wait ends naming the dead rank (by its death, or by the launcher's abort, whichever
        // comes first), and the launcher names its exit
        assertTrue(job.err().contains("rank 0 exited with code 137"), job.err());
        assertTrue(job.err().contains("[1] aborted: rank 0 ") && job.err().contains("[2] aborted: rank 0 "), job.err());
        assertFalse(job.leftFiles(), "files left behind");
    }

    /**
     * Lengths on either side of a region's limit: rank 0 waits in the region for rank 1's post, and rank 1's
     * point-to-point message of the same call ends that wait with one line.
     */
    @Test
    void ranksWhoseLengthsTakeDifferentPathsShouldFailWithOneLineInsteadOfWaiting() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.builder(2).collectiveBufferSize(1024).build(), Map.of(),
            CollectiveApp.class.getName(), "paths");
        assertFailedSaying(job, "rank 1 called allGather point to point where this rank called allGather through the " +
            "collective region: the ranks called different collectives, or one with lengths or roots that take different paths");
    }

    /**
     * MPI_Abort across processes: every other rank's wait in a barrier (point to point without regions, through
     * the region with them) ends with the caller's reason, and the launcher reports it and exits with the
     * caller's code (3), as mpirun does.
     */
    @ParameterizedTest
    @ValueSource(ints = { 0, LayoutParams.DEFAULT_COLLECTIVE_CONTEXTS })
    void anAbortShouldEndEveryRanksWaitWithItsReason(final int contexts) throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.builder(3).collectiveContexts(contexts).build(), Map.of(),
            CollectiveApp.class.getName(), "abort");
        assertEquals(3, job.exitCode(), job.out() + job.err());
        assertFalse(job.out().contains("barrier passed"), job.out());
        for (final int rank : new int[] { 0, 2 })
        {
            assertTrue(job.err().contains("[" + rank + "] aborted: rank 1 called abort(3): the input file is empty"), job.err());
        }
        assertFalse(job.leftFiles(), "files left behind");
    }

    @Test
    void aReceiveForAnyTagShouldNotTakeACollectivesMessage() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(3), Map.of(), CollectiveApp.class.getName(), "isolation");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        assertTrue(job.out().contains("isolated 1") && job.out().contains("isolated 2"), job.out() + job.err());
    }

    @ParameterizedTest
    @ValueSource(ints = { 1, 2, 5, 8 })
    void splitAndDupShouldMakeCommunicatorsWhoseMessagesNeverMeetTheWorlds(final int ranks) throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(ranks), Map.of(), CollectiveApp.class.getName(), "split");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        for (int rank = 0; rank < ranks; rank++)
        {
            assertTrue(job.out().contains("split ok " + rank), job.out() + job.err());
        }
    }

    @Test
    void aGathervWhoseRankPassesAnotherCountThanTheRootsShouldFailAtTheRootWithOneLine() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(3), Map.of(), CollectiveApp.class.getName(), "counts");
        assertFailedSaying(job, "rank 2 called this gatherv with 20000 bytes, where the root's counts[2] is 8: the ranks " +
            "called it with different counts");
    }

    /**
     * A receiver whose count differs from its sender's: through a region (2 contexts) and point to point (0), the
     * receiving rank reports it in the same line.
     */
    @ParameterizedTest(name = "{0}, {1} ranks, {2} collective contexts")
    @CsvSource(delimiter = '|', value = {
        "scattered | 3 | 0 | rank 0 sent 8 bytes to this scatterv, which expects 16",
        "scattered | 3 | 2 | rank 0 sent 8 bytes to this scatterv, which expects 16",
        "pairs     | 2 | 0 | rank 0 sent 8 bytes to this allToAllv, which expects 16",
        "pairs     | 2 | 2 | rank 0 sent 8 bytes to this allToAllv, which expects 16" })
    void aReceiverCountingOtherBytesThanItsSenderShouldFailWithOneLine(
        final String mode, final int ranks, final int contexts, final String line) throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.builder(ranks).collectiveContexts(contexts).build(), Map.of(),
            CollectiveApp.class.getName(), mode);
        assertFailedSaying(job, line + ": the ranks called it with different counts or roots");
    }

    /**
     * Asserts that {@code job} failed, that its errors contain {@code line}, and that it left no file.
     */
    private static void assertFailedSaying(final JobRunner job, final String line)
    {
        assertNotEquals(0, job.exitCode(), job.out() + job.err());
        assertTrue(job.err().contains(line), job.err());
        assertFalse(job.leftFiles(), "files left behind");
    }

    @Test
    void ranksThatDisagreeOnALengthShouldFailWithOneLine() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(2), Map.of(), CollectiveApp.class.getName(), "mismatch");
        assertFailedSaying(job, "rank 0 sent more than 8 bytes to this bcast, which expects 8: the ranks called it with " +
            "different counts or roots");
    }
}
