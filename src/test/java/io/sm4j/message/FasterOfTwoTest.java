package io.sm4j.message;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The choice between two ways of moving bytes ({@link FasterOfTwo}), as a receiver makes it between reading a large
 * message out of its sender's process (the first way) and having it streamed (the second): each size class's first
 * use takes the first way and its second the second, then the cheaper per byte wins, the loser is tried again every
 * {@link FasterOfTwo#RETRY} uses, one stalled copy moves a cost by a quarter of at most its double, and uses that
 * follow each other are each timed from the previous one's end.
 */
class FasterOfTwoTest
{
    private static final int MIB = 1 << 20;

    private final FasterOfTwo choice = new FasterOfTwo(2);
    /** A clock the uses below run on, one after another, a millisecond apart. */
    private long clock = 1_000_000;

    /**
     * The 1 MiB class's first use: the first way, taking {@code nanos}; its second use is then the second way.
     */
    private void firstWayTookThenSecondChosen(final long nanos)
    {
        assertTrue(choice.first(MIB), "a class's first use takes the first way");
        took(true, MIB, nanos);
        assertFalse(choice.first(MIB), "its second the second");
    }

    private void took(final boolean first, final int bytes, final long nanos)
    {
        choice.ended(first, bytes, 0, clock, clock + nanos, 0, 0);
        clock += nanos + 1_000_000;
    }

    @Test
    void aClassShouldTakeTheFirstWayThenTheSecondThenTheCheaper()
    {
        firstWayTookThenSecondChosen(74_000);
        took(false, MIB, 35_000);
        for (int i = 0; i < FasterOfTwo.RETRY - 1; i++)
        {
            assertFalse(choice.first(MIB + i), "use " + i + ": the second way was the cheaper");
            took(false, MIB, 35_000);
        }
        assertTrue(choice.first(MIB), "the first way, which lost, is tried again after RETRY uses");
        took(true, MIB, 90_000); // its first use in a while finds the caches as the other way left them
        assertTrue(choice.first(MIB), "a retry takes RETRY_USES uses in a row");
        took(true, MIB, 20_000); // the machine changed: the first way is now the cheaper, at once
        for (int i = 0; i < 10; i++)
        {
            assertTrue(choice.first(MIB), "use " + i + " after the change");
            took(true, MIB, 20_000);
        }
    }

    @Test
    void classesShouldBeChosenApart()
    {
        assertTrue(choice.first(16 << 10));
        took(true, 16 << 10, 2_900);
        assertTrue(choice.first(MIB), "another class starts with the first way of its own");
        took(true, MIB, 50_000);
        assertFalse(choice.first(16 << 10));
        assertFalse(choice.first(MIB));
        took(false, MIB, 170_000);
        assertTrue(choice.first(MIB), "the first way was the cheaper at 1 MiB");
        assertTrue(choice.first((16 << 10) + 1), "no sample of the second way at 16 KiB yet: the first");
        took(false, 16 << 10, 1_000);
        assertFalse(choice.first(100), "a size below the smallest class counts as it: its second way is the cheaper");
    }

    @Test
    void oneStalledCopyShouldNotTurnTheChoice()
    {
        firstWayTookThenSecondChosen(40_000);
        took(false, MIB, 55_000);
        assertTrue(choice.first(MIB));
        took(true, MIB, 4_000_000); // a 4 ms stall: counted as twice the cost, a quarter of the way
        assertTrue(choice.first(MIB), "55 us against 40 + (80 - 40) / 4 = 50 us: still the first way");
    }

    @Test
    void aWayThatGotSlowerForGoodShouldLoseWithinAFewUses()
    {
        firstWayTookThenSecondChosen(74_000);
        took(false, MIB, 35_000);
        int second = 0;
        while (!choice.first(MIB))
        {
            took(false, MIB, 170_000); // the machine's other mode: the pipeline 170 us
            second++;
        }
        assertEquals(4, second, "35 us, then 43.8, 54.7, 68.4 and 85.4: the 74 us way wins at the fifth");
    }

    @Test
    void usesThatFollowEachOtherShouldEachBeTimedFromTheLastOnesEnd()
    {
        firstWayTookThenSecondChosen(45_000);
        // a window: both chosen at once, the first ended 40 us later, the next 40 us after that
        choice.ended(false, MIB, 0, clock, clock + 40_000, 0, 0);
        choice.ended(false, MIB, 0, clock, clock + 80_000, 0, 0);
        assertFalse(choice.first(MIB), "40 us per use, not 80 (which would blend to 50): cheaper than the 45 us first way");
    }

    @Test
    void timeTheOwnerSpentElsewhereShouldNotBeCharged()
    {
        firstWayTookThenSecondChosen(60_000);
        // a window's two streams: answered at once, ended 80 and 150 us later, with 30 and 25 us of the receiver's
        // reads of other messages in each (its running sum of excluded time at the answer 1000, at the ends 1000 + ...)
        choice.ended(false, MIB, 0, clock, clock + 80_000, 1_000, 31_000);
        choice.ended(false, MIB, 0, clock, clock + 150_000, 1_000, 56_000);
        assertFalse(choice.first(MIB), "50 and 45 us per stream, not 80 or 70: cheaper than the 60 us first way");
    }

    @Test
    void timeLeftOutShouldBeHalfTheDurationAtMost()
    {
        firstWayTookThenSecondChosen(40_000);
        // 100 us of a stream, 95 of them spent reading other messages: the stream went on meanwhile
        choice.ended(false, MIB, 0, clock, clock + 100_000, 0, 95_000);
        assertTrue(choice.first(MIB), "50 us for the stream, not 5: the 40 us first way stays the cheaper");
    }

    @Test
    void aUseThatIsNotMeasuredShouldStillStartTheLanesNextTiming()
    {
        firstWayTookThenSecondChosen(60_000);
        // the sender streamed a message of its own choosing first (a RNDV), which ended 100 us after the answer
        choice.passed(false, 0, clock + 100_000, 0);
        choice.ended(false, MIB, 0, clock, clock + 140_000, 0, 0);
        assertFalse(choice.first(MIB), "40 us for the stream itself, not 140: cheaper than the 60 us first way");
    }

    @Test
    void usesInTwoLanesShouldBeTimedApart()
    {
        firstWayTookThenSecondChosen(50_000);
        // two senders' streams at once, 100 us each, ending a microsecond apart: not 1 us for the second
        choice.ended(false, MIB, 0, clock, clock + 100_000, 0, 0);
        choice.ended(false, MIB, 1, clock, clock + 101_000, 0, 0);
        assertTrue(choice.first(MIB), "100 us per stream: the 50 us first way is the cheaper");
    }

    @Test
    void aSampleFarBelowTheCostShouldLowerItToAQuarterAtMost()
    {
        firstWayTookThenSecondChosen(20_000);
        took(false, MIB, 100_000);
        took(false, MIB, 1_000); // a timing gone wrong: 1 us for a 1 MiB stream
        assertTrue(choice.first(MIB), "the stream's cost fell to 25 us, not 1: the 20 us first way stays the cheaper");
    }
}
