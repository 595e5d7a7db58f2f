package io.sm4j.report;

import io.sm4j.layout.Category;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.Policy;
import io.sm4j.layout.SegmentLayout;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryTableTest
{
    @Test
    void shouldReportEachColumnsTotalAsTheExactSegmentSizeOfThatPolicy()
    {
        final LayoutParams params = LayoutParams.builder(37).queueEntries(32).build();
        final MemoryTable table = MemoryTable.of(params, MemoryModel.SM4J);
        assertEquals(SegmentLayout.compute(params).totalBytes(), table.total(Column.AGGREGATED));
        assertEquals(SegmentLayout.compute(params.toBuilder().policy(Policy.PAGE).pageSize(8192).build()).totalBytes(),
            table.total(Column.PAGE_8K));
    }

    @Test
    void shouldShrinkCbRowsFromPageToCachelineToAggregated()
    {
        final MemoryTable table = MemoryTable.of(LayoutParams.defaults(64), MemoryModel.SM4J);
        for (final Category category : new Category[]{ Category.CB_WRAPPERS, Category.CB_HEADS })
        {
            assertTrue(table.bytes(Column.PAGE_8K, category) > table.bytes(Column.PAGE_4K, category));
            assertTrue(table.bytes(Column.PAGE_4K, category) > table.bytes(Column.CACHELINE, category));
            assertTrue(table.bytes(Column.CACHELINE, category) > table.bytes(Column.AGGREGATED, category));
        }
    }

    @Test
    void shouldRenderOneRowPerCategoryAndATotalInRfcUnits()
    {
        final String text = MemoryTable.of(LayoutParams.defaults(1024), MemoryModel.SM4J).render();
        for (final Category category : Category.values())
        {
            assertTrue(text.contains(category.label()), category.label());
        }
        final long aggregated = SegmentLayout.compute(LayoutParams.defaults(1024)).totalBytes();
        assertTrue(text.lines().anyMatch(l -> l.startsWith("total") && l.endsWith(String.format("%,.0f", aggregated / 1e6))),
            text);
    }
}
