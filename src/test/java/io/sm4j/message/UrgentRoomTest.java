package io.sm4j.message;

import io.sm4j.transport.Endpoint;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transport keeps fast box room for one urgent message behind messages a receiver declined
 * ({@link Endpoint#MAX_URGENT_LENGTH}); every message the message layer claims as urgent must fit in it, or an
 * answer could again wait behind messages the budget declines (docs/transport.md).
 */
class UrgentRoomTest
{
    @Test
    void everyUrgentMessageShouldFitTheRoomTheTransportKeeps()
    {
        // ACK and BARRIER carry the full header alone; PUSH and HELP a payload after it
        final int longest = MessageHeaderDescriptor.HEADER_LENGTH + Math.max(MessageType.PUSH_PAYLOAD, MessageType.HELP_PAYLOAD);
        assertTrue(longest <= Endpoint.MAX_URGENT_LENGTH, longest + " bytes > " + Endpoint.MAX_URGENT_LENGTH);
    }
}
