package io.sm4j.it;

import io.sm4j.message.Communicator;
import io.sm4j.message.Request;
import io.sm4j.message.Status;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A seeded fuzz of the message API's arguments, buffer kinds, threads and call order, over a 2-rank job:
 * rank 0 makes {@code args[1]} random calls (seed {@code args[0]}), rank 1 receives whatever reaches it.
 * Every call must either succeed or be refused with one of the documented exceptions whose message is one
 * non-empty line; a wait that does not end within {@link #BOUND} is a hang. Cases:
 * <ul>
 *   <li>send, isend, sendInit+start to rank 1, to itself or to no rank; tags valid, ANY_TAG or negative; a
 *       byte[], a heap, direct or read-only ByteBuffer, an UnsafeBuffer or null; offsets and lengths in and
 *       out of bounds;</li>
 *   <li>recv, irecv, recvInit+start from itself (a matching message sent first, sometimes longer than the
 *       buffer), ANY_SOURCE or no rank, with the same buffer kinds, and iprobe;</li>
 *   <li>a call from another thread (one at a time: allowed), and a call while another thread waits in a
 *       receive that cannot complete (refused, and the wait fails too);</li>
 *   <li>after the last case, calls on the closed communicator (refused).</li>
 * </ul>
 * Prints "fuzz ok: ..." with the counts, or "fuzz wrong: ..." for each case that broke the rule, and exits 1.
 */
public final class ApiFuzzApp
{
    /** Every call and wait ends within this. */
    static final Duration BOUND = Duration.ofSeconds(20);
    private static final int STOP = 1_000_000;
    /** The tag of the receive a second thread interrupts: no other message has it. */
    private static final int NEVER = 999_999;
    /** How long that receive waits. */
    private static final Duration WAIT = Duration.ofMillis(300);
    private static final int LARGEST = 80_000;
    private static final int[] SIZES = { 0, 1, 100, 4000, 5000, 70_000 };

    private final Communicator comm;
    private final Random random;
    private final Map<String, Integer> refusals = new TreeMap<>();
    private int ok;
    private int wrong;

    /** A wait past {@link #BOUND}: always wrong. */
    private static final class Hang extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        Hang(final String message)
        {
            super(message);
        }
    }

    private ApiFuzzApp(final Communicator comm, final long seed)
    {
        this.comm = comm;
        this.random = new Random(seed);
    }

    public static void main(final String[] args) throws Exception
    {
        final long seed = Long.parseLong(args[0]);
        final int cases = Integer.parseInt(args[1]);
        final Communicator comm = Communicator.attachFromEnvironment();
        if (comm.rank() == 1)
        {
            sink(comm);
            comm.close();
            return;
        }
        final ApiFuzzApp fuzz = new ApiFuzzApp(comm, seed);
        for (int i = 0; i < cases; i++)
        {
            fuzz.oneCase(i);
        }
        comm.send(1, STOP, new byte[0]);
        comm.close();
        for (int i = 0; i < 20; i++)
        {
            fuzz.afterClose(i);
        }
        System.out.println("fuzz " + (fuzz.wrong == 0 ? "ok" : "WRONG") + ": " + cases + " cases, " + fuzz.ok + " calls ok, " +
            fuzz.refusals.values().stream().mapToInt(Integer::intValue).sum() + " refused " + fuzz.refusals + ", " +
            fuzz.wrong + " wrong");
        System.exit(fuzz.wrong == 0 ? 0 : 1);
    }

    private static void sink(final Communicator comm)
    {
        final byte[] buffer = new byte[LARGEST];
        while (comm.recv(Communicator.ANY_SOURCE, Communicator.ANY_TAG, buffer).tag() != STOP)
        {
            // whatever rank 0 sends
        }
    }

    private void oneCase(final int index) throws InterruptedException
    {
        final int kind = random.nextInt(10);
        if (kind == 0)
        {
            // the same calls from another thread, one at a time: a hand-off, allowed
            final long seed = random.nextLong();
            final Thread other = new Thread(() -> call(index, new Random(seed)), "fuzz-other");
            other.start();
            other.join();
        }
        else if (kind == 1)
        {
            twoThreadsAtOnce(index);
        }
        else
        {
            call(index, random);
        }
    }

    /**
     * One random call from the calling thread.
     */
    private void call(final int index, final Random r)
    {
        final int op = r.nextInt(8);
        final int peer = pick(r, 1, 0, 1, 0, -1, 2, Integer.MAX_VALUE, Communicator.ANY_SOURCE);
        final int tag = pick(r, 3, 7, 0, Communicator.ANY_TAG, -5, Integer.MAX_VALUE);
        final int size = SIZES[r.nextInt(SIZES.length)];
        final int offset = pick(r, 0, 0, 0, 1, -1, size, size + 1, Integer.MAX_VALUE);
        final int length = pick(r, size - Math.max(0, offset), size, 0, 1, -1, size + 1, Integer.MIN_VALUE);
        final String what = "case " + index + ": " + name(op) + "(peer " + peer + ", tag " + tag + ", size " + size +
            ", offset " + offset + ", length " + length + ")";
        try
        {
            switch (op)
            {
                case 0 ->
                {
                    comm.send(peer, tag, buffer(r, size), offset, length);
                    if (peer == 0)
                    {
                        comm.recv(0, tag, new byte[LARGEST]); // sent to itself: taken back, nothing is left
                    }
                }
                case 1 -> completeOrConsume(comm.isend(peer, tag, buffer(r, size), offset, length), peer, tag, what);
                case 2 -> completeOrConsume(comm.isend(peer, tag, byteBuffer(r, size, offset, length)), peer, tag, what);
                case 3 -> completeOrConsume(comm.sendInit(peer, tag, unsafeBuffer(r, size), offset, length).start(), peer, tag, what);
                case 4 -> receive(r, peer, tag, size, () -> comm.recv(peer, tag, buffer(r, size), offset, length), null);
                case 5 -> receive(r, peer, tag, size, () -> bounded(comm.irecv(peer, tag, byteBuffer(r, size, offset, length)), what),
                    () -> comm.irecv(peer, tag, byteBuffer(r, size, offset, length)));
                case 6 -> receive(r, peer, tag, size, () -> bounded(comm.recvInit(peer, tag, unsafeBuffer(r, size), offset, length)
                    .start(), what), () -> comm.recvInit(peer, tag, unsafeBuffer(r, size), offset, length).start());
                default -> comm.iprobe(peer, tag);
            }
            ok++;
        }
        catch (final RuntimeException ex)
        {
            judge(what, ex);
        }
    }

    /**
     * Thread 'fuzz-waiter' waits 300 ms in a receive nothing will match; this thread calls meanwhile. The
     * call is refused, or it takes over and the waiter's wait fails (or both): one line names both threads,
     * and the two never run the engine at once (that corrupted the fragment returns once in 9,000 cases).
     */
    private void twoThreadsAtOnce(final int index) throws InterruptedException
    {
        final AtomicReference<RuntimeException> waited = new AtomicReference<>();
        final Thread waiter = new Thread(() ->
        {
            try
            {
                comm.irecv(0, NEVER, new byte[1], 0, 1).await(WAIT);
            }
            catch (final RuntimeException ex)
            {
                waited.set(ex);
            }
        }, "fuzz-waiter");
        waiter.start();
        RuntimeException refused = null;
        final long deadline = System.nanoTime() + BOUND.toNanos();
        while (refused == null && waiter.isAlive() && System.nanoTime() < deadline)
        {
            try
            {
                comm.iprobe(0, NEVER); // until the waiter has announced itself: then this is refused
            }
            catch (final RuntimeException ex)
            {
                refused = ex;
            }
        }
        waiter.join(BOUND.toMillis());
        final String what = "case " + index + ": a call while another thread waits";
        // the call is refused if the waiter had announced itself; if not, the call takes over and the waiter's
        // receive fails at its next pass: either way the wait ends, with one line naming both threads
        final RuntimeException ended = waited.get();
        final RuntimeException told = refused != null ? refused : ended;
        if (waiter.isAlive() || told == null || !String.valueOf(told.getMessage()).contains("used by two threads at once"))
        {
            wrong(what + ": waiter alive " + waiter.isAlive() + ", refused " + refused + ", wait ended by " + ended);
            return;
        }
        judge(what, told);
    }

    private void afterClose(final int index)
    {
        final String what = "after close " + index;
        try
        {
            switch (random.nextInt(4))
            {
                case 0 -> comm.send(1, 3, new byte[10]);
                case 1 -> comm.isend(0, 3, new byte[10], 0, 10);
                case 2 -> comm.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                default -> comm.recv(0, 3, new byte[10]);
            }
            wrong(what + ": a call on a closed communicator succeeded");
        }
        catch (final IllegalStateException ex)
        {
            judge(what, ex);
        }
        catch (final RuntimeException ex)
        {
            wrong(what + ": " + ex);
        }
    }

    /**
     * A receive that may match this rank's own messages (from 0 or ANY_SOURCE) is preceded by a matching
     * message (sometimes longer than the buffer), which is taken back if the receive was refused; one from
     * rank 1, which only receives, is posted and left pending (a blocking one becomes an iprobe); one with a
     * bad rank or tag is refused before anything.
     *
     * @param receive the receive, waited for.
     * @param post    the same receive, posted and not waited for; null for a blocking receive.
     */
    private void receive(
        final Random r, final int peer, final int tag, final int size, final Runnable receive, final Supplier<Request> post)
    {
        if (peer != 0 && peer != 1 && peer != Communicator.ANY_SOURCE || tag < 0 && tag != Communicator.ANY_TAG)
        {
            receive.run();
            return;
        }
        if (peer == 1)
        {
            if (post == null)
            {
                comm.iprobe(1, tag);
            }
            else if (post.get().isDone())
            {
                wrong("a receive from rank 1, which sends nothing, completed");
            }
            return;
        }
        final int sentTag = tag == Communicator.ANY_TAG ? 3 : tag;
        final int sent = r.nextInt(4) == 0 ? size + 1 : size;
        final Request message = comm.isend(0, sentTag, new byte[sent], 0, sent);
        try
        {
            receive.run();
        }
        finally
        {
            if (comm.iprobe(0, sentTag) != null)
            {
                comm.recv(0, sentTag, new byte[LARGEST]); // the receive was refused: take the message, nothing is left
            }
            bounded(message, "the message to itself before a receive");
        }
    }

    /**
     * A send to this rank itself that was accepted is received, so nothing is left over.
     */
    private void completeOrConsume(final Request send, final int peer, final int tag, final String what)
    {
        if (peer == 0)
        {
            final byte[] in = new byte[LARGEST];
            comm.recv(0, tag, in);
        }
        bounded(send, what);
    }

    private static Status bounded(final Request request, final String what)
    {
        final Status status = request.await(BOUND);
        if (status == null)
        {
            throw new Hang(what + " did not complete within " + BOUND.toSeconds() + " s");
        }
        return status;
    }

    /**
     * A refusal must be documented and one line naming its cause.
     */
    private void judge(final String what, final RuntimeException ex)
    {
        final String message = ex.getMessage();
        final boolean documented = ex instanceof IllegalArgumentException || ex instanceof IllegalStateException ||
            ex instanceof IndexOutOfBoundsException || ex instanceof io.sm4j.message.TruncationException ||
            ex instanceof NullPointerException && message != null && message.contains("null");
        if (!documented || message == null || message.isBlank() || message.contains("\n"))
        {
            wrong(what + ": " + ex);
            ex.printStackTrace(System.out);
            return;
        }
        refusals.merge(ex.getClass().getSimpleName(), 1, Integer::sum);
    }

    private void wrong(final String text)
    {
        wrong++;
        System.out.println("fuzz wrong: " + text);
    }

    private static byte[] buffer(final Random r, final int size)
    {
        return r.nextInt(12) == 0 ? null : new byte[size];
    }

    private static UnsafeBuffer unsafeBuffer(final Random r, final int size)
    {
        return r.nextInt(12) == 0 ? null : new UnsafeBuffer(new byte[size]);
    }

    /**
     * A heap, direct or read-only buffer of {@code size} bytes, its position and limit set from
     * {@code offset} and {@code length} where they fit; or null.
     */
    private static ByteBuffer byteBuffer(final Random r, final int size, final int offset, final int length)
    {
        final int kind = r.nextInt(12);
        if (kind == 0)
        {
            return null;
        }
        ByteBuffer buffer = kind < 5 ? ByteBuffer.allocate(size) : ByteBuffer.allocateDirect(size);
        if (kind > 9)
        {
            buffer = buffer.asReadOnlyBuffer();
        }
        if (offset >= 0 && length >= 0 && (long)offset + length <= size)
        {
            buffer.limit(offset + length).position(offset);
        }
        return buffer;
    }

    private static int pick(final Random r, final int... values)
    {
        return values[r.nextInt(values.length)];
    }

    private static String name(final int op)
    {
        return new String[]{ "send", "isend", "isend(ByteBuffer)", "sendInit", "recv", "irecv(ByteBuffer)", "recvInit",
            "iprobe" }[op];
    }
}
