package io.sm4j.it;

import io.sm4j.message.Communicator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A SINGLE-mode {@link Communicator} used from a second thread while its thread waits in {@code recv}, in a
 * JVM of its own (a fault there is a crash, which the test must see as an exit code). Ranks 0 and 1 run as
 * threads of this JVM over one segment; rank 1 sends rank 0 a number of messages, then stops; rank 0's
 * receiver thread receives in a loop. The main thread, once rank 0 has had them all:
 * <ul>
 *   <li>{@code misuse}: probes through rank 0's communicator until a call fails. The main thread's call or
 *       the receiver's wait must fail with the one-line "used by two threads at once"; then the main thread
 *       closes it.</li>
 *   <li>{@code close}: closes rank 0's communicator. The receiver's recv must end with "was closed by thread
 *       'main'" (or the endpoint's "is closed", had the close met it between two passes).</li>
 * </ul>
 * Any other exception, in any thread, fails the round. Prints "ROUNDS rounds ok" and exits 0.
 */
public final class CommunicatorRaceApp
{
    private static final int TAG = 3;

    private CommunicatorRaceApp()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final boolean misuse = args[0].equals("misuse");
        final int rounds = Integer.parseInt(args[1]);
        try (ScratchDir dir = ScratchDir.create("sm4j-comm-race-"))
        {
            for (int round = 0; round < rounds; round++)
            {
                round(dir.path, misuse);
            }
            if (!dir.isEmpty())
            {
                throw new AssertionError("files left in " + dir.path);
            }
        }
        System.out.println(rounds + " rounds ok");
    }

    private static void round(final Path dir, final boolean misuse) throws Exception
    {
        final Path segment = Communicator.createSegment(dir, 2);
        final int messages = ThreadLocalRandom.current().nextInt(1, 200);
        final CompletableFuture<Communicator> peer = CompletableFuture.supplyAsync(() -> Communicator.attach(segment, 1, 2));
        final Communicator comm = Communicator.attach(segment, 0, 2);
        final AtomicLong received = new AtomicLong();
        final CompletableFuture<RuntimeException> receiver = CompletableFuture.supplyAsync(() -> receiveUntilFailed(comm, received));
        final Communicator one = peer.join();
        final CompletableFuture<Void> sender = CompletableFuture.runAsync(() ->
        {
            for (int i = 0; i < messages; i++)
            {
                one.send(0, TAG, new byte[8]);
            }
        });
        sender.join();
        while (received.get() < messages && !receiver.isDone())
        {
            Thread.onSpinWait(); // until rank 0 has had them all: its receiver then waits for one more
        }
        boolean mainSawMisuse = false;
        while (misuse && !mainSawMisuse && !receiver.isDone())
        {
            // a call the receiver's thread does not announce (it has not idled yet) is taken over silently: its
            // wait then reports the misuse at its next pass, or the next try here meets its announcement
            try
            {
                comm.iprobe(1, TAG + 1);
            }
            catch (final IllegalStateException expected)
            {
                expect(expected, "used by two threads at once");
                mainSawMisuse = true;
            }
        }
        comm.close();
        final RuntimeException ended = receiver.join();
        if (misuse)
        {
            final boolean receiverSawMisuse = ended.getMessage().contains("used by two threads at once");
            if (!mainSawMisuse && !receiverSawMisuse)
            {
                throw new AssertionError("the misuse went unreported; the receiver ended with " + ended);
            }
            if (!receiverSawMisuse)
            {
                expectClosed(ended);
            }
        }
        else
        {
            expectClosed(ended);
        }
        one.close();
        Files.deleteIfExists(segment);
    }

    private static RuntimeException receiveUntilFailed(final Communicator comm, final AtomicLong received)
    {
        final byte[] buffer = new byte[8];
        try
        {
            while (true)
            {
                comm.recv(1, TAG, buffer);
                received.incrementAndGet();
            }
        }
        catch (final IllegalStateException ended)
        {
            return ended;
        }
    }

    private static void expectClosed(final RuntimeException ended)
    {
        // between two passes, the close may close the endpoint under the receiver's call before its wait checks
        if (!ended.getMessage().matches("communicator of rank 0 was closed by thread 'main' while thread '.+' used it") &&
            !ended.getMessage().equals("endpoint of rank 0 is closed"))
        {
            throw new AssertionError("the receiver ended with " + ended, ended);
        }
    }

    private static void expect(final RuntimeException ex, final String text)
    {
        if (!ex.getMessage().contains(text))
        {
            throw new AssertionError("expected '" + text + "': " + ex, ex);
        }
    }
}
