package io.sm4j.it;

import io.sm4j.layout.LayoutParams;
import io.sm4j.transport.PeerMemory;
import io.sm4j.transport.TransportOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Large messages from off-heap memory between real JVMs ({@link PeerReadApp}): each receiver reads them out of
 * its sender's process where the kernel lets a process read a sibling's (no Yama ptrace restriction), and has
 * them streamed through the pipeline where it does not, or where it is told not to. The ranks call
 * process_vm_readv: on JDK 17 through the incubating linker that sm4j run resolves for them, on JDK 22+ through
 * java.lang.foreign (a JVM with neither reads /proc/PID/mem: {@code CommunicatorTest}, in the test JVM).
 */
class PeerReadTest
{
    private static final long ALL = Arrays.stream(PeerReadApp.SIZES).asLongStream().sum();
    /** Every message read, none streamed by choice. */
    private static final Map<String, String> READ_ALL = Map.of(TransportOptions.PEER_READS_ENV, "on");

    /**
     * By default each receiver reads the first message of a size class and has the second streamed, then
     * takes what it measured the faster ({@code FasterOfTwo}): of {@link PeerReadApp#SIZES} the second 16 KiB
     * message is streamed, and every byte still arrives.
     */
    @Test
    @Timeout(120)
    void aRankShouldReadSomeMessagesAndHaveOthersStreamedByWhatItMeasured() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(2), Map.of(), PeerReadApp.class.getName());
        assertEquals(0, job.exitCode(), job.out() + job.err());
        final long expected = PeerMemory.whyNot(TransportOptions.PeerReads.AUTO) == null ? ALL - PeerReadApp.SIZES[1] : 0;
        for (int rank = 0; rank < 2; rank++)
        {
            assertTrue(job.out().contains("[" + rank + "] rank " + rank + " read " + expected + " bytes out of its peer's process"),
                job.out() + job.err());
        }
        assertFalse(job.leftFiles(), "segment file left behind");
    }

    @Test
    @Timeout(120)
    void eachRankShouldReadItsPeersMessagesOutOfItsProcess() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(2), READ_ALL, PeerReadApp.class.getName());
        assertEquals(0, job.exitCode(), job.out() + job.err());
        final long expected = PeerMemory.whyNot(TransportOptions.PeerReads.ON) == null ? ALL : 0;
        for (int rank = 0; rank < 2; rank++)
        {
            assertTrue(job.out().contains("[" + rank + "] rank " + rank + " read " + expected +
                " bytes out of its peer's process (process_vm_readv), every byte checked"), job.out() + job.err());
            assertFalse(job.err().contains("incubator"), "the launcher passed on the JDK 17 module's warning: " + job.err());
        }
        assertFalse(job.leftFiles(), "segment file left behind");
    }

    /**
     * On JDK 22+ (skipped without one) the ranks read with process_vm_readv, as Open MPI's CMA does.
     */
    @Test
    @Timeout(180)
    void ranksOnJdk22ShouldReadWithProcessVmReadv() throws Exception
    {
        final String output = NewerJdkJob.run(READ_ALL, PeerReadApp.class.getName());
        final long expected = PeerMemory.whyNot(TransportOptions.PeerReads.ON) == null ? ALL : 0;
        for (int rank = 0; rank < 2; rank++)
        {
            assertTrue(output.contains("rank " + rank + " read " + expected +
                " bytes out of its peer's process (process_vm_readv), every byte checked"), output);
        }
    }

    @Test
    @Timeout(120)
    void aRankThatReadsNoPeerShouldHaveItsMessagesStreamed() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(2), Map.of(), PeerReadApp.class.getName(), "refuse");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        // rank 1 sends through the pipeline too: a rank that reads no peer's memory offers none of its own
        for (int rank = 0; rank < 2; rank++)
        {
            assertTrue(job.out().contains("[" + rank + "] rank " + rank + " read 0 bytes out of its peer's process"),
                job.out() + job.err());
        }
        assertFalse(job.leftFiles(), "segment file left behind");
    }
}
