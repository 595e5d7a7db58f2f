package io.sm4j.it;

import io.sm4j.message.Communicator;
import io.sm4j.message.Request;

import java.util.Arrays;

/**
 * Every rank passes {@code args[0]} bytes (default 1 MiB, a rendezvous message) to its right neighbour and
 * checks what came from its left; with one rank, the neighbour is the rank itself. Prints
 * "rank R received N bytes from rank L, all correct", or exits 1.
 */
public final class RingApp
{
    private RingApp()
    {
    }

    public static void main(final String[] args)
    {
        final int bytes = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 20;
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            System.out.println(ring(comm, bytes));
        }
    }

    /**
     * @return the line this rank prints.
     * @throws IllegalStateException if the data that arrived is not what the left neighbour sent.
     */
    public static String ring(final Communicator comm, final int bytes)
    {
        final int rank = comm.rank();
        final int left = (rank - 1 + comm.size()) % comm.size();
        final int right = (rank + 1) % comm.size();
        final byte[] sent = new byte[bytes];
        final byte[] received = new byte[bytes];
        Arrays.fill(sent, (byte)(rank + 1));
        final Request receive = comm.irecv(left, 5, received, 0, bytes);
        comm.send(right, 5, sent);
        receive.await();
        comm.barrier();
        for (int i = 0; i < bytes; i++)
        {
            if (received[i] != (byte)(left + 1))
            {
                throw new IllegalStateException("rank " + rank + ": byte " + i + " is " + received[i] + ", expected " + (left + 1));
            }
        }
        return "rank " + rank + " received " + bytes + " bytes from rank " + left + ", all correct";
    }
}
