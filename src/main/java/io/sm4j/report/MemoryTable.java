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
    private static final String NOT_LAID_OUT = String.format("%" + COLUMN_WIDTH + "s", "n/a");

    private final EnumMap<Column, Map<Category, Long>> bytes = new EnumMap<>(Column.class);
    /** Why a column's layout could not be computed (a fixed policy of it past a section's or a long's size). */
    private final EnumMap<Column, String> notLaidOut = new EnumMap<>(Column.class);

    private MemoryTable(final LayoutParams params, final MemoryModel model)
    {
        for (final Column column : Column.values())
        {
            try
            {
                bytes.put(column, model.bytes(column.apply(params)));
            }
            catch (final IllegalArgumentException tooLarge)
            {
                // the user's parameters hold for their own policy (checked before) but not for every column's: PAGE 8K
                // can pass a section's limit where AGGREGATED does not; the others are still worth a table
                notLaidOut.put(column, tooLarge.getMessage());
            }
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

    /**
     * @throws IllegalArgumentException why, if the column's layout cannot be computed.
     */
    public long bytes(final Column column, final Category category)
    {
        return laidOut(column).getOrDefault(category, 0L);
    }

    /**
     * @throws IllegalArgumentException why, if the column's layout cannot be computed.
     */
    public long total(final Column column)
    {
        return laidOut(column).values().stream().mapToLong(Long::longValue).sum();
    }

    private Map<Category, Long> laidOut(final Column column)
    {
        final String why = notLaidOut.get(column);
        if (why != null)
        {
            throw new IllegalArgumentException(column.title().strip() + ": " + why);
        }
        return bytes.get(column);
    }

    /**
     * @return the table as text, one row per category plus the total.
     */
    public String render()
    {
        final boolean small = !notLaidOut.containsKey(Column.PAGE_8K) && total(Column.PAGE_8K) < 1000 * UNIT;
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
                out.append(notLaidOut.containsKey(column) ? NOT_LAID_OUT : format(bytes(column, category), small));
            }
            out.append('\n');
        }
        out.append("-".repeat(LABEL_WIDTH + COLUMN_WIDTH * Column.values().length)).append('\n');
        out.append(String.format("%-" + LABEL_WIDTH + "s", "total"));
        for (final Column column : Column.values())
        {
            out.append(notLaidOut.containsKey(column) ? NOT_LAID_OUT : format(total(column), small));
        }
        out.append('\n');
        notLaidOut.forEach((column, why) -> out.append("n/a: ").append(column.title().strip()).append(": ").append(why).append('\n'));
        return out.toString();
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
