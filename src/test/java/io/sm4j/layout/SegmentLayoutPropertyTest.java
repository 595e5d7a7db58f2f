package io.sm4j.layout;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Properties of {@link SegmentLayout} over random parameters (seeded, reproducible: the seed is the test's
 * name).
 */
class SegmentLayoutPropertyTest
{
    static LongStream seeds()
    {
        return LongStream.range(0, 300);
    }

    static LayoutParams randomParams(final long seed)
    {
        final Random random = new Random(seed);
        final int cacheline = random.nextBoolean() ? 64 : 128;
        final int eagerLimit = 64 + random.nextInt(8192);
        return LayoutParams.builder(2 + random.nextInt(12))
            .eagerLimit(eagerLimit)
            .maxFragSize(eagerLimit + random.nextInt(40000))
            .queueEntries(1 << (1 + random.nextInt(8)))
            .eagerFragsPerPeer(1 + random.nextInt(3))
            .maxFragsPerRank(1 + random.nextInt(8))
            .cacheline(cacheline)
            .pageSize(random.nextBoolean() ? 4096 : 8192)
            .threadMode(ThreadMode.values()[random.nextInt(2)])
            .policy(Policy.values()[random.nextInt(3)])
            .build();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void componentsShouldNotOverlapAndShouldLieInsideTheSegment(final long seed)
    {
        final SegmentLayout layout = SegmentLayout.compute(randomParams(seed));
        final List<Component> sorted = LayoutComponents.of(layout);
        sorted.sort(Comparator.comparingLong(Component::offset));
        for (int i = 0; i < sorted.size(); i++)
        {
            final Component c = sorted.get(i);
            assertTrue(c.offset() >= 0 && c.end() <= layout.totalBytes(),
                () -> c + " outside totalBytes=" + layout.totalBytes());
            if (i > 0 && sorted.get(i - 1).end() > c.offset())
            {
                fail(sorted.get(i - 1) + " overlaps " + c + " in " + layout.params());
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void componentsShouldBeAlignedAsTheirPolicySays(final long seed)
    {
        final SegmentLayout layout = SegmentLayout.compute(randomParams(seed));
        for (final Component c : LayoutComponents.of(layout))
        {
            assertEquals(0, c.offset() % c.alignment(), () -> c + " not aligned in " + layout.params());
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void sectionsShouldTileTheSegmentAndHoldWholeComponents(final long seed)
    {
        final SegmentLayout layout = SegmentLayout.compute(randomParams(seed));
        long expected = 0;
        for (int s = 0; s < layout.sectionCount(); s++)
        {
            assertEquals(expected, layout.sectionOffset(s), "section " + s);
            expected += layout.sectionLength(s);
        }
        assertEquals(layout.totalBytes(), expected);
        for (final Component c : LayoutComponents.of(layout))
        {
            assertEquals(sectionOf(layout, c.offset()), sectionOf(layout, c.end() - 1), () -> c + " crosses a section");
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void categoriesShouldAddUpToTheTotal(final long seed)
    {
        final SegmentLayout layout = SegmentLayout.compute(randomParams(seed));
        final long sum = layout.bytesByCategory().values().stream().mapToLong(Long::longValue).sum();
        assertEquals(layout.totalBytes(), sum);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aggregatedCachelinesOutsideQueuesShouldHaveOneWriterAtMost(final long seed)
    {
        final LayoutParams params = randomParams(seed).toBuilder().policy(Policy.AGGREGATED).build();
        final SegmentLayout layout = SegmentLayout.compute(params);
        final Map<Long, Integer> writerOfLine = new HashMap<>();
        for (final Component c : LayoutComponents.of(layout))
        {
            if (c.writer() == Component.MANY_WRITERS)
            {
                continue;
            }
            for (long line = c.offset() / params.cacheline(); line <= (c.end() - 1) / params.cacheline(); line++)
            {
                final Integer previous = writerOfLine.putIfAbsent(line, c.writer());
                if (previous != null && previous != Component.NO_WRITER && c.writer() != Component.NO_WRITER &&
                    previous != c.writer())
                {
                    fail("cacheline " + line + " written by ranks " + previous + " and " + c.writer() + " (" + c + ")");
                }
                if (previous != null && (previous == Component.NO_WRITER) != (c.writer() == Component.NO_WRITER))
                {
                    fail("cacheline " + line + " mixes read-mostly data with a written word (" + c + ")");
                }
            }
        }
        for (final Component c : LayoutComponents.of(layout))
        {
            if (c.writer() == Component.MANY_WRITERS)
            {
                for (long line = c.offset() / params.cacheline(); line <= (c.end() - 1) / params.cacheline(); line++)
                {
                    assertTrue(!writerOfLine.containsKey(line), c + " shares a cacheline with a single-writer word");
                }
            }
        }
    }

    private static int sectionOf(final SegmentLayout layout, final long offset)
    {
        for (int s = 0; s < layout.sectionCount(); s++)
        {
            if (offset >= layout.sectionOffset(s) && offset < layout.sectionOffset(s) + layout.sectionLength(s))
            {
                return s;
            }
        }
        throw new AssertionError("offset " + offset + " in no section");
    }
}
