package io.sm4j.transport;

import io.sm4j.it.ScratchDir;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.Segment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * The receiving side's scan over three ranks of one segment in this JVM: successive polls start at
 * successive active senders, so a poll limited to one message takes them in turn, also after a sender
 * becomes active in the middle of the rotation.
 */
@Timeout(60)
class FragmentPollerTest
{
    @Test
    void pollsLimitedToOneMessageShouldTakeTheActiveSendersInTurn() throws IOException
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-poller-"))
        {
            final Segment segment = Segment.create(LayoutParams.builder(3).build(), dir.path, 11);
            final List<CompletableFuture<Endpoint>> opening = new ArrayList<>();
            for (int rank = 1; rank < 3; rank++)
            {
                final int r = rank;
                opening.add(CompletableFuture.supplyAsync(() -> Endpoint.open(segment, r, TransportOptions.defaults(), false)));
            }
            final Endpoint receiver = Endpoint.open(segment, 0, TransportOptions.defaults(), false);
            final Endpoint one = opening.get(0).join();
            final Endpoint two = opening.get(1).join();
            try
            {
                final List<Integer> sources = new ArrayList<>();
                for (int i = 0; i < 3; i++)
                {
                    CopyingSends.send(one, 0, new byte[]{ 1, (byte)i });
                }
                pollOne(receiver, sources); // rank 1 alone is active
                for (int i = 0; i < 3; i++)
                {
                    CopyingSends.send(two, 0, new byte[]{ 2, (byte)i });
                }
                for (int i = 0; i < 5; i++)
                {
                    pollOne(receiver, sources);
                }
                assertEquals(1, sources.get(0));
                for (int i = 1; i < 5; i++) // both have messages waiting until rank 1's last is taken
                {
                    assertNotEquals(sources.get(i - 1), sources.get(i), "deliveries in turn: " + sources);
                }
                assertEquals(3, sources.stream().filter(s -> s == 1).count(), "every message, in turn: " + sources);
            }
            finally
            {
                final CompletableFuture<Void> closeOne = CompletableFuture.runAsync(one::close);
                final CompletableFuture<Void> closeTwo = CompletableFuture.runAsync(two::close);
                receiver.close();
                closeOne.join();
                closeTwo.join();
                segment.close();
            }
        }
    }

    /**
     * Polls until one message is delivered, noting its sender.
     */
    private static void pollOne(final Endpoint receiver, final List<Integer> sources)
    {
        while (receiver.poll(fragment -> sources.add((int)fragment.buffer().getByte(fragment.offset())), 1) == 0)
        {
            receiver.idle();
        }
        receiver.endWait();
    }
}
