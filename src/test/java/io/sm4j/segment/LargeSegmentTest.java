package io.sm4j.segment;

import io.sm4j.it.ScratchDir;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentLayout;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * n = 1024 with defaults: a 10 GB segment, beyond one mapping. Allocates 10 GB of /dev/shm, so it runs only
 * with {@code mvn verify -Dstress}.
 */
@Tag("stress")
class LargeSegmentTest
{
    @Test
    @Timeout(300)
    void shouldMapASegmentLargerThanTwoGibibytesInSections() throws IOException
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-large-test-"))
        {
            final LayoutParams params = LayoutParams.defaults(1024);
            final Path path;
            try (Segment segment = Segment.create(params, dir.path, 5))
            {
                path = segment.path();
                final SegmentLayout layout = segment.layout();
                assertTrue(layout.totalBytes() > Integer.MAX_VALUE);
                assertEquals(layout.totalBytes(), Files.size(path));
                assertTrue(segment.mappingCount() >= 10, "mappings: " + segment.mappingCount());
                final long last = layout.maxFragmentOffset(1023, layout.maxFragmentCount() - 1);
                final UnsafeBuffer fragment = segment.view(last, params.maxFragSize());
                fragment.putLong(params.maxFragSize() - 8, 0xCAFEL);
                try (Segment attached = Segment.attach(path, java.time.Duration.ofSeconds(5)))
                {
                    assertEquals(0xCAFEL, attached.view(last, params.maxFragSize()).getLong(params.maxFragSize() - 8));
                }
            }
            assertFalse(Files.exists(path));
        }
    }
}
