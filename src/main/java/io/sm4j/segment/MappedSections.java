package io.sm4j.segment;

import io.sm4j.layout.SegmentLayout;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The segment mapped as consecutive layout sections grouped into mappings of at most {@link #MAX_MAPPING}
 * bytes, since one {@code MappedByteBuffer} stops at 2 GiB. No component crosses a section, so every
 * component lies in one mapping and gets a direct {@link UnsafeBuffer} view.
 */
final class MappedSections implements AutoCloseable
{
    static final long MAX_MAPPING = 1L << 30;

    private final MappedByteBuffer[] mappings;
    private final long[] starts;
    private final long[] ends;
    private final long[] addresses;

    private MappedSections(final List<MappedByteBuffer> mappings, final List<long[]> ranges)
    {
        this.mappings = mappings.toArray(new MappedByteBuffer[0]);
        starts = ranges.stream().mapToLong(r -> r[0]).toArray();
        ends = ranges.stream().mapToLong(r -> r[1]).toArray();
        addresses = mappings.stream().mapToLong(BufferUtil::address).toArray();
    }

    static MappedSections map(final FileChannel channel, final SegmentLayout layout) throws IOException
    {
        final List<MappedByteBuffer> mappings = new ArrayList<>();
        final List<long[]> ranges = new ArrayList<>();
        try
        {
            long start = 0;
            long end = 0;
            for (int s = 0; s < layout.sectionCount(); s++)
            {
                final long length = layout.sectionLength(s);
                if (end - start + length > MAX_MAPPING && end > start)
                {
                    mappings.add(channel.map(FileChannel.MapMode.READ_WRITE, start, end - start));
                    ranges.add(new long[]{ start, end });
                    start = end;
                }
                end += length;
            }
            mappings.add(channel.map(FileChannel.MapMode.READ_WRITE, start, end - start));
            ranges.add(new long[]{ start, end });
            return new MappedSections(mappings, ranges);
        }
        catch (final IOException | RuntimeException ex)
        {
            mappings.forEach(IoUtil::unmap);
            throw ex;
        }
    }

    /**
     * @param offset segment offset.
     * @param length bytes.
     * @return a view of {@code [offset, offset + length)}, which must lie in one mapping.
     */
    UnsafeBuffer view(final long offset, final int length)
    {
        final int m = mappingOf(offset);
        if (offset + length > ends[m])
        {
            throw new IllegalArgumentException(
                "range [" + offset + ", " + (offset + length) + ") crosses a mapping boundary at " + ends[m]);
        }
        return new UnsafeBuffer(addresses[m] + (offset - starts[m]), length);
    }

    int mappingCount()
    {
        return mappings.length;
    }

    private int mappingOf(final long offset)
    {
        for (int m = 0; m < starts.length; m++)
        {
            if (offset >= starts[m] && offset < ends[m])
            {
                return m;
            }
        }
        throw new IllegalArgumentException("offset=" + offset + " outside the segment [0, " + ends[ends.length - 1] + ")");
    }

    @Override
    public void close()
    {
        for (final MappedByteBuffer mapping : mappings)
        {
            IoUtil.unmap(mapping);
        }
    }
}
