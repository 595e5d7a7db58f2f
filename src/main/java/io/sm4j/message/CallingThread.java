package io.sm4j.message;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Which thread uses a communicator: one at a time, and the thread may change between calls (a hand-off with
 * a happens-before edge, docs/api.md "Threads"); never a receive's MessageHandler, from inside the poll that
 * runs it. Two threads inside at once would corrupt the matcher's state and blame a peer for it, so a call from another thread while one waits in the engine fails with
 * one line naming both; and a close from another thread (a shutdown hook, a watchdog) makes the first
 * thread's calls fail, waits for its wait to end, and closes the endpoint only (without completing this
 * rank's outstanding sends: the first thread may still be inside a call).
 * <p>
 * Implementation notes: cheap on the path of every call (two volatile loads, plain loads on x86, two
 * compares, and the plain load of the handler flag). A wait announces itself when it starts, with a release store (no fence), and checks after
 * every pass that nobody took over or closed. A thread that is not the latest caller takes over with a
 * volatile store (a full fence) and then waits {@link #HANDOFF_GRACE_NANOS} before it looks for a waiter:
 * an announcement it could have missed (still in the other core's store buffer) is visible by then, and a
 * wait that announces itself later sees the new caller at its first pass. So a call while another thread
 * waits is refused (the waiter may refuse too), and two threads never run the engine's passes at once
 * (before, a call that missed a wait not yet idle ran a pass beside it: the API fuzz found the fragment
 * returns corrupted once in 9,000 cases). Two threads taking over at once: the later store wins, the
 * other is refused after its grace; a thread refused because a wait started during its grace hands the
 * caller back to the waiter. The price: a change of calling thread costs 1 ms. A call that does
 * not wait (a send with room, an iprobe) is not announced: a thread taking over while the latest caller
 * is descheduled for more than the grace inside such a call can still meet it (marking every call would
 * need an exit hook on every public method; left open, docs/reliability.md).
 */
final class CallingThread
{
    private static final long CLOSE_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How long a thread taking over waits before it trusts that no other thread is waiting. */
    private static final long HANDOFF_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final VarHandle WAITER;
    private static final VarHandle CALLER;

    static
    {
        try
        {
            WAITER = MethodHandles.lookup().findVarHandle(CallingThread.class, "waiter", Thread.class);
            CALLER = MethodHandles.lookup().findVarHandle(CallingThread.class, "caller", Thread.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final int rank;
    /** The thread of the latest call. */
    private volatile Thread caller;
    /** The thread waiting in the engine, or null. */
    private volatile Thread waiter;
    /** The thread that closed the communicator while another used it, or null. */
    private volatile Thread closer;
    /** A receive's MessageHandler runs (plain: the calling thread's own, set and read around its call). */
    private boolean inHandler;

    CallingThread(final int rank)
    {
        this.rank = rank;
    }

    /**
     * On entry to every call.
     *
     * @throws IllegalStateException if another thread waits in the communicator now, or the call comes from a
     *                               receive's MessageHandler.
     */
    void check()
    {
        final Thread me = Thread.currentThread();
        if (closer != null)
        {
            throw closedBy(me);
        }
        if (me != caller)
        {
            takeOver(me);
        }
        checkNotInHandler(); // last: the flag is the caller's, and another thread is refused above
    }

    /**
     * The calling thread changes: refused if another thread waits in the communicator.
     */
    private void takeOver(final Thread me)
    {
        Thread waiting = waiter;
        if (waiting == null)
        {
            caller = me; // volatile: fenced, so a wait announced after this sees it at its first pass
            // an announcement made before it is visible after the grace; parkNanos returns at once for an
            // interrupted thread, so the grace is timed, not assumed
            final long end = System.nanoTime() + HANDOFF_GRACE_NANOS;
            for (long left = HANDOFF_GRACE_NANOS; left > 0; left = end - System.nanoTime())
            {
                LockSupport.parkNanos(left);
                if (Thread.currentThread().isInterrupted())
                {
                    Thread.yield();
                }
            }
            waiting = waiter;
            final Thread other = caller;
            if (other != me && waiting == null)
            {
                waiting = other; // another thread took over meanwhile: it goes on, this one is refused
            }
            else if (waiting != null && waiting != me && other == me)
            {
                // refused: the waiting thread stays the caller, so a close from this thread is one from another
                // thread (it must not run passes beside the waiter); a CAS, so a third thread's take-over since
                // the read above is not overwritten
                CALLER.compareAndSet(this, me, waiting);
            }
        }
        if (waiting != null && waiting != me)
        {
            throw twoThreads(waiting, me);
        }
    }

    /**
     * Around a receive's MessageHandler, which must not call the communicator: its poll holds the matcher's state
     * and the endpoint's gate.
     */
    void enterHandler()
    {
        inHandler = true;
    }

    void exitHandler()
    {
        inHandler = false;
    }

    /**
     * @throws IllegalStateException if a receive's MessageHandler runs: the call comes from inside it.
     */
    void checkNotInHandler()
    {
        if (inHandler)
        {
            throw new IllegalStateException("a MessageHandler must not call the communicator");
        }
    }

    /**
     * The calling thread starts a wait: from here on it is the waiter.
     */
    void startWaiting()
    {
        WAITER.setRelease(this, Thread.currentThread()); // no fence: see the class notes
    }

    /**
     * @throws IllegalStateException naming both threads if another thread has closed the communicator.
     */
    void checkNotClosedByAnother()
    {
        if (closer != null)
        {
            throw closedBy(Thread.currentThread());
        }
    }

    /**
     * @return true if a thread other than the latest caller has closed the communicator.
     */
    boolean isClosedByAnother()
    {
        return closer != null;
    }

    /**
     * After each pass of a wait.
     *
     * @throws IllegalStateException if another thread closed the communicator or called it meanwhile.
     */
    void checkWaiting()
    {
        final Thread me = Thread.currentThread();
        final Thread other = caller;
        if (other != me)
        {
            throw twoThreads(me, other); // a close from another thread leaves the caller as it is: this is a call
        }
        if (closer != null)
        {
            throw closedBy(me);
        }
    }

    void endWaiting()
    {
        WAITER.setRelease(this, null); // no fence on the path of every wait: a close or a take-over polls for it
    }

    /**
     * Before a close: if another thread made the latest call, it may still be inside one. From here on its
     * calls fail; if it waits, its wait throws at its next pass (its sleep is woken with {@code interrupt}),
     * and this returns once it has left.
     *
     * @return true if another thread made the latest call: the close must not run progress passes of its
     *         own (that thread may still be inside a short call), only close the endpoint, whose gate waits
     *         for calls inside it.
     */
    boolean closeFrom(final Runnable interrupt)
    {
        final Thread me = Thread.currentThread();
        final Thread last = caller;
        if (last == null || last == me)
        {
            return false;
        }
        closer = me;
        for (Thread waiting = waiter; waiting != null && waiting != me; waiting = waiter)
        {
            interrupt.run(); // a sleep on the doorbell ends; the next pass sees the close
            LockSupport.parkNanos(CLOSE_POLL_NANOS);
        }
        return true;
    }

    private IllegalStateException closedBy(final Thread me)
    {
        return new IllegalStateException("communicator of rank " + rank + " was closed by thread '" + closer.getName() +
            "' while thread '" + me.getName() + "' used it");
    }

    private IllegalStateException twoThreads(final Thread waiting, final Thread calling)
    {
        return new IllegalStateException("communicator of rank " + rank + " used by two threads at once: thread '" +
            waiting.getName() + "' waits in it and thread '" + (calling == null ? "?" : calling.getName()) +
            "' called it; a Communicator is for one thread at a time (an Endpoint in ThreadMode.MULTIPLE for several)");
    }
}
