package io.sm4j.bench;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

class SamplesTest
{
    @Test
    void everyLoopOfAThreadShouldGetTheSameHistogramEmptied()
    {
        final Histogram first = Samples.empty();
        first.recordValue(1_000);
        final Histogram second = Samples.empty();
        assertSame(first, second, "a histogram per loop is what made the garbage");
        assertEquals(0, second.getTotalCount());
    }

    @Test
    void aSampleOfUpToAnHourShouldBeRecordedWithoutGrowingTheHistogram()
    {
        final Histogram samples = Samples.empty();
        final int footprint = samples.getEstimatedFootprintInBytes();
        samples.recordValue(1);
        samples.recordValue(TimeUnit.HOURS.toNanos(1));
        assertEquals(footprint, samples.getEstimatedFootprintInBytes());
        assertEquals(2, samples.getTotalCount());
        assertEquals(TimeUnit.HOURS.toNanos(1), samples.getMaxValue(), TimeUnit.HOURS.toNanos(1) / 1000.0);
    }
}
