package io.sm4j.message;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * How the matching queues tell that a collective's receive and its source's message belong to different
 * collectives ({@link MatchQueues#post}, {@link MatchQueues#queue}): both are on one context's collectives'
 * tags, from the same source, with different tags.
 */
class CrossedCollectiveTest
{
    private static final int BCAST = -2;
    private static final int ALL_GATHER = -9;

    private final MatchQueues queues = new MatchQueues(8);

    @Test
    void collectivesTagsShouldNameTheirContextAndNoOtherTagShould()
    {
        for (final int context : new int[] { 0, 1, 7, Contexts.MAX_CONTEXT })
        {
            for (int tag = -2; tag >= -63; tag--)
            {
                final int wire = Contexts.collectiveTag(context, tag);
                assertEquals(context, Contexts.collectiveContext(wire), "context " + context + ", tag " + tag);
                assertEquals(tag, Contexts.fromCollectiveWire(context, wire));
            }
            for (final int tag : new int[] { Communicator.ANY_TAG, 0, 5, Contexts.MAX_TAG })
            {
                assertEquals(-1, Contexts.collectiveContext(Contexts.userTag(context, tag)), "context " + context + ", tag " + tag);
            }
        }
        for (final int wire : new int[] { -1, 0, 1, -64, Integer.MIN_VALUE, Integer.MAX_VALUE })
        {
            assertEquals(-1, Contexts.collectiveContext(wire), "wire tag " + wire);
        }
    }

    @Test
    void aMessageOfAnotherCollectiveFromTheSourceShouldWithdrawTheReceiveWaitingForIt()
    {
        final RecvRequest receive = receive(1, Contexts.collectiveTag(3, BCAST));
        assertNull(queues.post(receive));
        assertNull(queues.queue(message(2, Contexts.collectiveTag(3, ALL_GATHER))), "another source");
        assertNull(queues.queue(message(1, Contexts.collectiveTag(4, ALL_GATHER))), "another context");
        assertNull(queues.queue(message(1, Contexts.userTag(3, 5))), "a user's tag");
        assertSame(receive, queues.queue(message(1, Contexts.collectiveTag(3, ALL_GATHER))));
        assertNull(queues.takePosted(1, receive.tag), "still posted");
    }

    @Test
    void aReceivePostedBehindAMessageOfAnotherCollectiveFromItsSourceShouldNotBePosted()
    {
        queues.queue(message(1, Contexts.userTag(0, 5)));
        queues.queue(message(2, ALL_GATHER));
        queues.queue(message(1, Contexts.collectiveTag(1, ALL_GATHER)));
        final Unexpected crossing = message(1, ALL_GATHER);
        queues.queue(crossing);
        final RecvRequest receive = receive(1, BCAST);
        assertSame(crossing, queues.post(receive), "the source's first message on context 0's collectives' tags");
        assertNull(queues.takePosted(1, BCAST), "posted");
    }

    @Test
    void aReceiveThatIsNoLongerPostedShouldNotBeWithdrawnAgain()
    {
        final RecvRequest withdrawn = receive(1, BCAST);
        assertNull(queues.post(withdrawn));
        queues.withdraw(withdrawn);
        final RecvRequest matched = receive(2, BCAST);
        assertNull(queues.post(matched));
        assertSame(matched, queues.takePosted(2, BCAST));
        assertNull(queues.queue(message(1, ALL_GATHER)));
        assertNull(queues.queue(message(2, ALL_GATHER)));
    }

    @Test
    void aSourcesQueuedCollectiveMessagesShouldBeFoundWhileAnyIsQueuedAndForItAlone()
    {
        final Unexpected first = message(2, ALL_GATHER);
        final Unexpected second = message(2, ALL_GATHER);
        queues.queue(first);
        queues.queue(second);
        assertNull(queues.queuedCollective(1, 0), "source 1 has none queued");
        assertNull(queues.queuedCollective(7, 0), "nor has the highest rank");
        assertSame(first, queues.queuedCollective(2, 0));
        assertSame(first, queues.takeUnexpected(receive(2, ALL_GATHER)));
        assertSame(second, queues.queuedCollective(2, 0), "one of two taken, one still queued");
        assertSame(second, queues.takeUnexpected(receive(2, ALL_GATHER)));
        assertNull(queues.queuedCollective(2, 0), "both taken");
        final RecvRequest receive = receive(2, BCAST);
        assertNull(queues.post(receive), "nothing of another collective left from source 2");
        assertSame(receive, queues.takePosted(2, BCAST));
    }

    @Test
    void aReceiveForAnySourceOrAUserTagShouldBePostedWhateverIsQueued()
    {
        queues.queue(message(1, ALL_GATHER));
        assertNull(queues.post(receive(Communicator.ANY_SOURCE, BCAST)));
        assertNull(queues.post(receive(1, 5)));
    }

    private static RecvRequest receive(final int source, final int tag)
    {
        return new RecvRequest(null, false).set(source, tag, null, 0, 0, null);
    }

    private static Unexpected message(final int source, final int tag)
    {
        return new Unexpected(source, tag, 0, 0, new byte[0], MessageType.EAGER, null);
    }
}
