package io.sm4j.it;

import io.sm4j.message.Communicator;

import java.nio.file.Path;

/**
 * Creates a 2-rank segment in {@code args[0]} and prints its path: what a JVM does first that starts ranks
 * as threads or hands a segment to other processes.
 */
public final class CreateApp
{
    private CreateApp()
    {
    }

    public static void main(final String[] args)
    {
        System.out.println(Communicator.createSegment(Path.of(args[0]), 2));
    }
}
