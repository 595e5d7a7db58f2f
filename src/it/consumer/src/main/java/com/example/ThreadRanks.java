package com.example;

import io.sm4j.message.Communicator;
import io.sm4j.message.Request;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A job of N ranks without sm4j run: one segment, then every rank joins with its own Communicator, here as
 * threads of one JVM (processes started by any process manager join the same way, given the path).
 * Each rank passes 1 MiB to its right neighbour in a ring and checks what came from its left.
 */
public final class ThreadRanks
{
    private static final int BYTES = 1 << 20;

    public static void main(final String[] args) throws Exception
    {
        final int size = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        final Path segment = Communicator.createSegment(size);       // in $SM4J_DIR, else /dev/shm
        final ExecutorService threads = Executors.newFixedThreadPool(size);
        boolean correct = true;
        try
        {
            final List<Future<Boolean>> ranks = new ArrayList<>();
            for (int rank = 0; rank < size; rank++)
            {
                final int r = rank;
                ranks.add(threads.submit(() -> ring(segment, r, size)));
            }
            for (final Future<Boolean> rank : ranks)
            {
                correct &= rank.get();                                 // rethrows a rank's exception
            }
        }
        finally
        {
            threads.shutdownNow();
            Files.deleteIfExists(segment);                             // gone already unless a rank failed
        }
        System.out.println("ring of " + size + " ranks: every rank received its left neighbour's " + BYTES +
            " bytes, " + (correct ? "all correct" : "WRONG DATA"));
        System.exit(correct ? 0 : 1);
    }

    private static boolean ring(final Path segment, final int rank, final int size)
    {
        try (Communicator comm = Communicator.attach(segment, rank, size))   // the last close removes the file
        {
            final int left = (rank - 1 + size) % size;
            final int right = (rank + 1) % size;
            final byte[] received = new byte[BYTES];
            final byte[] sent = new byte[BYTES];
            java.util.Arrays.fill(sent, (byte)(rank + 1)); // not 0: an untouched buffer must not pass
            final Request receive = comm.irecv(left, 0, received, 0, BYTES);
            comm.send(right, 0, sent);
            receive.await();
            comm.barrier();
            for (final byte b : received)
            {
                if (b != (byte)(left + 1))
                {
                    return false;
                }
            }
            return true;
        }
    }
}
