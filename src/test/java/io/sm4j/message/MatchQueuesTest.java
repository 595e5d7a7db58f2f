package io.sm4j.message;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MatchQueues#isEmpty}, which a blocking receive asks before it looks at its source directly (and which
 * is kept in a field, not asked of the queues): it must say false whenever a receive is posted or a message is
 * queued, or that receive would take a message past them.
 */
class MatchQueuesTest
{
    @Test
    void isEmptyShouldFollowEveryPostTakeWithdrawAndQueue()
    {
        final SplittableRandom random = new SplittableRandom(20261130);
        final MatchQueues queues = new MatchQueues(4);
        final List<RecvRequest> posted = new ArrayList<>();
        final List<Unexpected> queued = new ArrayList<>();
        for (int step = 0; step < 20_000; step++)
        {
            final int source = random.nextInt(4);
            final int tag = random.nextInt(3);
            switch (random.nextInt(5))
            {
                case 0 -> // a receive no queued message matches is posted
                {
                    if (queued.stream().noneMatch(m -> m.source() == source && m.tag() == tag))
                    {
                        final RecvRequest request = new RecvRequest(null, false).set(source, tag, null, 0, 0, null);
                        assertEquals(null, queues.post(request));
                        posted.add(request);
                    }
                }
                case 1 -> // a message arrives: a posted receive takes it, else it is queued
                {
                    final RecvRequest taken = queues.takePosted(source, tag);
                    if (taken != null)
                    {
                        assertTrue(posted.remove(taken));
                    }
                    else
                    {
                        final Unexpected message = new Unexpected(source, tag, 0, 0, new byte[0], MessageType.EAGER, null);
                        assertEquals(null, queues.queue(message));
                        queued.add(message);
                    }
                }
                case 2 -> // a receive takes a queued message
                {
                    final RecvRequest request = new RecvRequest(null, false).set(source, tag, null, 0, 0, null);
                    final Unexpected taken = queues.takeUnexpected(request);
                    assertEquals(queued.stream().anyMatch(m -> m.source() == source && m.tag() == tag), taken != null);
                    if (taken != null)
                    {
                        assertTrue(queued.remove(taken));
                    }
                }
                case 3 -> // a posted receive is withdrawn (a failed or cancelled wait)
                {
                    if (!posted.isEmpty())
                    {
                        assertTrue(queues.withdraw(posted.remove(random.nextInt(posted.size()))));
                    }
                }
                default -> // a withdrawal of a receive that is not posted changes nothing
                    assertFalse(queues.withdraw(new RecvRequest(null, false).set(source, tag, null, 0, 0, null)));
            }
            assertEquals(posted.isEmpty() && queued.isEmpty(), queues.isEmpty(),
                "step " + step + ": " + posted.size() + " posted, " + queued.size() + " queued");
        }
    }
}
