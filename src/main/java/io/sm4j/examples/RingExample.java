package io.sm4j.examples;

import io.sm4j.message.Communicator;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The program a new user writes first, shown in docs/api.md: a token passed around a ring, an array
 * broadcast from rank 0, and each rank's sum gathered on rank 0. Run it with {@code bin/sm4j run -n 4 --
 * io.sm4j.examples.RingExample}.
 */
public final class RingExample
{
    public static void main(final String[] args)
    {
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            final int rank = comm.rank();
            final int size = comm.size();

            final byte[] token = new byte[Long.BYTES];                  // 1. rank 0 starts the token,
            if (rank > 0)                                               //    every rank adds its rank
            {
                comm.recv(rank - 1, 0, token);
            }
            ByteBuffer.wrap(token).putLong(0, ByteBuffer.wrap(token).getLong(0) + rank);
            comm.send((rank + 1) % size, 0, token);
            if (rank == 0)
            {
                comm.recv(size - 1, 0, token);                          //    back at rank 0: 0 + 1 + ... + size-1
            }

            final double[] weights = new double[1000];                  // 2. rank 0's array to everyone
            if (rank == 0)
            {
                Arrays.setAll(weights, i -> i * 0.5);
            }
            comm.bcast(weights, 0);

            final double[] mine = { Arrays.stream(weights).sum() * (rank + 1) };
            final double[] sums = new double[size];                     // 3. every rank's sum on rank 0
            comm.gather(mine, sums, 0);
            if (rank == 0)
            {
                System.out.println("token " + ByteBuffer.wrap(token).getLong(0) + ", sums " + Arrays.toString(sums));
            }
        }
    }
}
