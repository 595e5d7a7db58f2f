package io.sm4j.it;

import io.sm4j.transport.Endpoint;
import io.sm4j.transport.Endpoints;

/**
 * Attaches from the environment, prints "attached as rank R", detaches. A bad environment makes the
 * attach throw, which ends this JVM with the exception's message and exit code 1.
 */
public final class AttachApp
{
    private AttachApp()
    {
    }

    public static void main(final String[] args)
    {
        try (Endpoint endpoint = Endpoints.attachFromEnvironment())
        {
            System.out.println("attached as rank " + endpoint.rank());
        }
    }
}
