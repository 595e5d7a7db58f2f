package io.sm4j.report;

import io.sm4j.layout.Category;
import io.sm4j.layout.LayoutParams;

import java.util.Map;

/**
 * Bytes of shared memory per category for given parameters; the parameters' policy and page size pick
 * the column.
 */
public interface MemoryModel
{
    /**
     * @param params layout parameters, policy and page size included.
     * @return bytes per category; the values add up to the segment's size.
     */
    Map<Category, Long> bytes(LayoutParams params);

    /**
     * sm4j's own structures, exactly as the segment is created.
     */
    MemoryModel SM4J = params -> io.sm4j.layout.SegmentLayout.compute(params).bytesByCategory();
}
