package io.sm4j.report;

import io.sm4j.layout.Category;
import io.sm4j.layout.LayoutParams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ompi-1.3 profile against the RFC's published tables for n = 1024, 4K eager, 32K chunks, 128-byte
 * cachelines (units of 10^6 bytes).
 */
class OmpiV13ModelTest
{
    private static final MemoryTable RFC_CASE = MemoryTable.of(OmpiV13Model.defaults(1024), new OmpiV13Model());

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "PAGE_8K,   8682, 9822, 8632, 9171, 370, 36677",
        "PAGE_4K,   4391, 5531, 4341, 9032, 362, 23658",
        "CACHELINE,  235, 1374,  184, 8898, 355, 11046" })
    void shouldMatchTheRfcFirstTable(
        final Column column,
        final long wrappers,
        final long queuesAndTails,
        final long heads,
        final long eager,
        final long other,
        final long total)
    {
        assertEquals(wrappers, units(RFC_CASE.bytes(column, Category.CB_WRAPPERS)), "CB wrappers");
        assertEquals(queuesAndTails, units(RFC_CASE.bytes(column, Category.CB_QUEUES_AND_TAILS)), "CB queues+tails");
        assertEquals(heads, units(RFC_CASE.bytes(column, Category.CB_HEADS)), "CB heads");
        assertWithin(eager, RFC_CASE.bytes(column, Category.EAGER_POOLS), 0.02, "eager freelists");
        assertWithin(other, RFC_CASE.bytes(column, Category.FIFO_DESCRIPTORS) +
            RFC_CASE.bytes(column, Category.MAX_POOLS), 0.02, "other");
        assertWithin(total, RFC_CASE.total(column), 0.01, "total");
    }

    @Test
    void shouldMatchTheRfcAggregatedTable()
    {
        final Column column = Column.AGGREGATED;
        final long fifosAndCbs = RFC_CASE.bytes(column, Category.FIFO_DESCRIPTORS) +
            RFC_CASE.bytes(column, Category.CB_WRAPPERS) + RFC_CASE.bytes(column, Category.CB_QUEUES_AND_TAILS) +
            RFC_CASE.bytes(column, Category.CB_HEADS);
        assertWithin(1250, fifosAndCbs, 0.02, "FIFOs and CBs");
        assertWithin(8899, RFC_CASE.bytes(column, Category.EAGER_POOLS), 0.02, "eager freelists");
        assertWithin(270, RFC_CASE.bytes(column, Category.MAX_POOLS), 0.02, "max freelists");
        assertWithin(10418, RFC_CASE.total(column), 0.01, "total");
        assertEquals(10418, units(RFC_CASE.total(column)));
    }

    @Test
    void shouldReproduceTheTunedTableWithTwoHundredFiftySixByteEagerFragments()
    {
        // The RFC's tuned eager row (544) counts 256-byte fragments header included: eager limit 232 + 24.
        final LayoutParams tuned = LayoutParams.builder(1024).eagerLimit(232).queueEntries(16).maxFragSize(8192).build();
        final MemoryTable table = MemoryTable.of(tuned, new OmpiV13Model());
        assertEquals(544, units(table.bytes(Column.AGGREGATED, Category.EAGER_POOLS)));
        assertEquals(68, units(table.bytes(Column.AGGREGATED, Category.MAX_POOLS)));
        assertEquals(924, units(table.total(Column.AGGREGATED)));
    }

    private static long units(final long bytes)
    {
        return Math.round(bytes / 1e6);
    }

    private static void assertWithin(final long rfc, final long bytes, final double tolerance, final String row)
    {
        final double model = bytes / 1e6;
        assertTrue(Math.abs(model - rfc) <= rfc * tolerance,
            row + ": model " + model + " vs RFC " + rfc + " (tolerance " + tolerance * 100 + " %)");
    }
}
