package io.sm4j.report;

import io.sm4j.layout.Category;
import io.sm4j.layout.LayoutParams;

import java.util.EnumMap;
import java.util.Map;

/**
 * Bytes per category and column for one set of parameters, rendered in the RFC's table form (units of
 * 10^6 bytes).
 */
public final class MemoryTable
{
    private static final double UNIT = 1e6;
    private static final int LABEL_WIDTH = 20;
    private static final int COLUMN_WIDTH = 12;

    private final EnumMap<Column, Map<Category, Long>> bytes = new EnumMap<>(Column.class);

    private MemoryTable(final LayoutParams params, final MemoryModel model)
    {
        for (final Column column : Column.values())
        {
            bytes.put(column, model.bytes(column.apply(params)));
        }
    }

    /**
     * @param params the user's parameters; each column overrides policy and page size.
     * @param model  whose structures to count.
     * @return the table.
     */
    public static MemoryTable of(final LayoutParams params, final MemoryModel model)
    {
        return new MemoryTable(params, model);
    }

    public long bytes(final Column column, final Category category)
    {
        return bytes.get(column).getOrDefault(category, 0L);
    }

    public long total(final Column column)
    {
        return bytes.get(column).values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * @return the table as text, one row per category plus the total.
     */
    public String render()
    {
        final boolean small = total(Column.PAGE_8K) < 1000 * UNIT;
        final StringBuilder out = new StringBuilder();
        out.append(String.format("%-" + LABEL_WIDTH + "s", "description"));
        for (final Column column : Column.values())
        {
            out.append(String.format("%" + COLUMN_WIDTH + "s", column.title()));
        }
        out.append('\n').append("=".repeat(LABEL_WIDTH + COLUMN_WIDTH * Column.values().length)).append('\n');
        for (final Category category : Category.values())
        {
            out.append(String.format("%-" + LABEL_WIDTH + "s", category.label()));
            for (final Column column : Column.values())
            {
                out.append(format(bytes(column, category), small));
            }
            out.append('\n');
        }
        out.append("-".repeat(LABEL_WIDTH + COLUMN_WIDTH * Column.values().length)).append('\n');
        out.append(String.format("%-" + LABEL_WIDTH + "s", "total"));
        for (final Column column : Column.values())
        {
            out.append(format(total(column), small));
        }
        return out.append('\n').toString();
    }

    static String megabytes(final long bytes, final boolean small)
    {
        return String.format(small ? "%,.3f" : "%,.0f", bytes / UNIT);
    }

    private static String format(final long bytes, final boolean small)
    {
        return String.format("%" + COLUMN_WIDTH + "s", megabytes(bytes, small));
    }
}
