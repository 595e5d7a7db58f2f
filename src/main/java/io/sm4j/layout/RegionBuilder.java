package io.sm4j.layout;

import java.util.EnumMap;
import java.util.Map;

/**
 * Lays runs one after another from offset 0 of a region and charges every byte, padding included, to a
 * {@link Category}: a run is charged from the end of the previous run, so alignment padding belongs to the
 * run that needed it.
 */
final class RegionBuilder
{
    private final EnumMap<Category, Long> bytes = new EnumMap<>(Category.class);
    private long cursor;

    /**
     * Components packed back to back, the first aligned to {@code groupAlign}.
     */
    Run packed(final Category category, final int count, final long stride, final long groupAlign)
    {
        final long start = Align.up(cursor, groupAlign);
        final Run run = new Run(start, count, stride, 1);
        charge(category, run.end() - cursor);
        cursor = run.end();
        return run;
    }

    /**
     * Components each in its own allocation that reserves {@code size} rounded to 8 plus {@code alignment}.
     */
    Run separate(final Category category, final int count, final long size, final long alignment)
    {
        final Run run = new Run(cursor, count, Math.addExact(Align.up(size, Long.BYTES), alignment), alignment);
        charge(category, Math.multiplyExact(count, run.stride()));
        cursor = run.end();
        return run;
    }

    /**
     * Pairs {@code (first, second)} packed back to back from a {@code groupAlign} boundary; the first
     * component of each pair is charged to {@code firstCategory} and everything else to
     * {@code secondCategory}. Returns the run of pairs; the second component sits {@code firstSlot} after
     * the first.
     */
    Run pairs(
        final Category firstCategory,
        final Category secondCategory,
        final int count,
        final long firstSlot,
        final long secondSlot,
        final long groupAlign)
    {
        final long before = cursor;
        final Run run = packed(secondCategory, count, firstSlot + secondSlot, groupAlign);
        final long firstBytes = Math.multiplyExact(count, firstSlot);
        charge(secondCategory, -firstBytes);
        charge(firstCategory, firstBytes);
        assert cursor - before >= firstBytes;
        return run;
    }

    /**
     * Pads the region to {@code alignment}, charging the padding to {@code category}.
     */
    long finish(final Category category, final long alignment)
    {
        final long end = Align.up(cursor, alignment);
        charge(category, end - cursor);
        cursor = end;
        return end;
    }

    Map<Category, Long> bytes()
    {
        return bytes;
    }

    private void charge(final Category category, final long amount)
    {
        bytes.merge(category, amount, Math::addExact);
    }
}
