package io.sm4j.it;

import io.sm4j.message.Communicator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A job for {@code sm4j stat} to look at: {@code COUNT SIZE GO_FILE}. Rank 0 sends COUNT messages of SIZE
 * bytes to rank 1, which receives them; each says so, then rank 1 waits in a receive (it goes to sleep) and
 * rank 0 polls for GO_FILE, which the test makes once it has looked, and then sends rank 1 the last message.
 */
public final class StatApp
{
    private static final int DATA = 1;
    private static final int LAST = 2;

    private StatApp()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int count = Integer.parseInt(args[0]);
        final int size = Integer.parseInt(args[1]);
        final Path go = Path.of(args[2]);
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            final byte[] buffer = new byte[size];
            if (comm.rank() == 0)
            {
                for (int i = 0; i < count; i++)
                {
                    comm.send(1, DATA, buffer);
                }
                System.out.println("rank 0 sent " + count);
                while (!Files.exists(go))
                {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // a poll of the file the test makes
                }
                comm.send(1, LAST, new byte[1]);
            }
            else
            {
                for (int i = 0; i < count; i++)
                {
                    comm.recv(0, DATA, buffer);
                }
                System.out.println("rank 1 received " + count);
                comm.recv(0, LAST, new byte[1]);
            }
        }
    }
}
