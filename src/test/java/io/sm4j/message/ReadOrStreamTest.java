package io.sm4j.message;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The choice between reading a large message out of its sender's process and having it streamed
 * ({@link ReadOrStream}): each size class's first message is read and its second streamed, then the cheaper
 * per byte wins, the loser is tried again every {@link ReadOrStream#RETRY} messages, and one stalled copy moves
 * a cost by a quarter of at most its double.
 */
class ReadOrStreamTest
{
    private static final int MIB = 1 << 20;

    @Test
    void aClassShouldReadFirstThenStreamThenTakeTheCheaper()
    {
        final ReadOrStream choice = new ReadOrStream();
        assertTrue(choice.read(MIB), "a class's first message is read");
        choice.readTook(MIB, 74_000);
        assertFalse(choice.read(MIB), "its second is streamed");
        choice.streamEnded(MIB, 1_000_000, 1_035_000);
        for (int i = 0; i < ReadOrStream.RETRY - 1; i++)
        {
            assertFalse(choice.read(MIB + i), "message " + i + ": the pipeline was the cheaper");
            choice.streamEnded(MIB, 2_000_000 + i * 100_000L, 2_035_000 + i * 100_000L);
        }
        assertTrue(choice.read(MIB), "the read, which lost, is tried again after RETRY messages");
        choice.readTook(MIB, 20_000); // the machine changed: reads are now the cheaper
        for (int i = 0; i < 10; i++)
        {
            assertTrue(choice.read(MIB), "message " + i + " after the change");
            choice.readTook(MIB, 20_000);
        }
    }

    @Test
    void classesShouldBeChosenApart()
    {
        final ReadOrStream choice = new ReadOrStream();
        assertTrue(choice.read(16 << 10));
        choice.readTook(16 << 10, 2_900);
        assertTrue(choice.read(MIB), "another class starts with a read of its own");
        choice.readTook(MIB, 50_000);
        assertFalse(choice.read(16 << 10));
        assertFalse(choice.read(MIB));
        choice.streamEnded(MIB, 0, 170_000);
        assertTrue(choice.read(MIB), "the read was the cheaper at 1 MiB");
        assertTrue(choice.read((16 << 10) + 1), "no sample of the 16 KiB stream yet: read");
    }

    @Test
    void oneStalledCopyShouldNotTurnTheChoice()
    {
        final ReadOrStream choice = new ReadOrStream();
        assertTrue(choice.read(MIB));
        choice.readTook(MIB, 40_000);
        assertFalse(choice.read(MIB));
        choice.streamEnded(MIB, 0, 50_000);
        assertTrue(choice.read(MIB));
        choice.readTook(MIB, 4_000_000); // a 4 ms stall: counted as twice the cost, a quarter of the way
        assertTrue(choice.read(MIB), "50 us against 40 + (80 - 40) / 4 = 50 us: still the read");
    }

    @Test
    void aMethodThatGotSlowerForGoodShouldLoseWithinAFewMessages()
    {
        final ReadOrStream choice = new ReadOrStream();
        assertTrue(choice.read(MIB));
        choice.readTook(MIB, 74_000);
        assertFalse(choice.read(MIB));
        choice.streamEnded(MIB, 0, 35_000);
        int streamed = 0;
        long now = 1_000_000;
        while (!choice.read(MIB))
        {
            choice.streamEnded(MIB, now, now + 170_000); // the machine's other mode: the pipeline 170 us
            now += 1_000_000;
            streamed++;
        }
        assertEquals(4, streamed, "35 us, then 43.8, 54.7, 68.4 and 85.4: the 74 us read wins at the fifth");
    }

    @Test
    void streamsThatFollowEachOtherShouldEachBeTimedFromTheLastOnesEnd()
    {
        final ReadOrStream choice = new ReadOrStream();
        assertTrue(choice.read(MIB));
        choice.readTook(MIB, 60_000);
        assertFalse(choice.read(MIB));
        // a window: answered at once, the stream ended 40 us later, and the next 40 us after that
        choice.streamEnded(MIB, 0, 40_000);
        choice.streamEnded(MIB, 0, 80_000);
        assertEquals(false, choice.read(MIB), "40 us per stream, not 80: cheaper than a 60 us read");
    }
}
