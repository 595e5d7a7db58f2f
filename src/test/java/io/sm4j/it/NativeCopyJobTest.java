package io.sm4j.it;

import io.sm4j.segment.NativeCopy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code SM4J_COPY=native} over real JVMs on a JDK 22+ ({@link FutexDoorbellTest#newerJava}; skipped without
 * one): the ranks copy into the segment with the C library's memcpy, and every byte of messages, bcasts,
 * allGathers and allToAlls from direct and heap buffers arrives intact ({@link NativeCopyApp}).
 */
class NativeCopyJobTest
{
    @Test
    @Timeout(180)
    void ranksOnJdk22ShouldCopyWithMemcpyEveryByteIntact() throws Exception
    {
        final String output = NewerJdkJob.run(Map.of(NativeCopy.ENV, "native"), NativeCopyApp.class.getName());
        for (int rank = 0; rank < 2; rank++)
        {
            assertTrue(output.contains("rank " + rank + " copies native (memcpy), every byte checked"), output);
        }
    }
}
