package io.sm4j.examples;

import io.sm4j.message.Communicator;
import io.sm4j.message.Request;
import io.sm4j.message.Status;

import java.util.Arrays;

/**
 * A complete sm4j program, shown in docs/api.md. Run it with {@code bin/sm4j run -n 2 --
 * io.sm4j.examples.PingPongExample [rounds]}: rank 0 and rank 1 bounce a small message back and forth and
 * report the average round trip, then exchange 16 MiB both ways at once with nonblocking calls; any other
 * ranks just join the barriers. With one rank, rank 0 sends to itself.
 */
public final class PingPongExample
{
    private static final int PING = 1;
    private static final int BULK = 2;

    public static void main(final String[] args)
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            final int me = comm.rank();
            // with one rank (sm4j run -n 1), rank 0 plays both parts: messages to itself
            final int partner = comm.size() == 1 ? 0 : 1;
            final byte[] ball = new byte[64];
            comm.barrier();
            final long start = System.nanoTime();
            for (int i = 0; i < rounds && me < 2; i++)
            {
                if (me == 0)
                {
                    comm.send(partner, PING, ball);
                    comm.recv(partner, PING, ball);
                }
                else
                {
                    comm.recv(0, PING, ball);
                    comm.send(0, PING, ball);
                }
            }
            if (me == 0)
            {
                System.out.printf("%d round trips of %d bytes: %.3f us each%n", rounds, ball.length,
                    (System.nanoTime() - start) / 1e3 / rounds);
            }

            if (me < 2)
            {
                final int peer = partner - me;
                final byte[] out = new byte[16 << 20];
                Arrays.fill(out, (byte)(me + 1)); // not 0: an untouched buffer must not pass the check
                final byte[] in = new byte[out.length];
                final Request receive = comm.irecv(Communicator.ANY_SOURCE, BULK, in, 0, in.length);
                final Request send = comm.isend(peer, BULK, out, 0, out.length);
                final Status status = receive.await();
                send.await();
                final byte[] expected = new byte[in.length];
                Arrays.fill(expected, (byte)(peer + 1));
                System.out.printf("rank %d received %d bytes from rank %d, all %s%n", me, status.length(),
                    status.source(), Arrays.equals(in, expected) ? "correct" : "WRONG");
            }
            comm.barrier();
        }
    }
}
