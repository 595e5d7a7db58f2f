package io.sm4j.it;

import io.sm4j.transport.Endpoints;
import io.sm4j.transport.TransportOptions;

/**
 * Prints the idle strategy AUTO picks for {@code args[0]} ranks in this JVM, e.g. "spin".
 */
public final class IdleChoiceApp
{
    private IdleChoiceApp()
    {
    }

    public static void main(final String[] args)
    {
        System.out.println(TransportOptions.describeIdle(TransportOptions.defaults().idle(), Integer.parseInt(args[0]),
            Endpoints.onOwnCore()));
    }
}
