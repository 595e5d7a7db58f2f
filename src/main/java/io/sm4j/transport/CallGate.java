package io.sm4j.transport;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps an endpoint's mapping alive while any thread is inside one of its calls: {@link #close()} returns
 * only once every call that entered before it has left, and no call enters after it. In
 * {@link io.sm4j.layout.ThreadMode#SINGLE} the one thread that calls is the one that closes, so only the
 * closed flag is kept.
 * <p>
 * The entering thread increments the count, then reads the flag; the closing thread sets the flag, then
 * reads the count. Both are sequentially consistent (a volatile RMW and volatile accesses), so at least one
 * of them sees the other: either the call sees the gate closed and leaves, or close sees the call and
 * waits for it.
 */
final class CallGate
{
    private static final long WAIT_NANOS = 10_000;
    private static final long FAULTED_WAIT_NANOS = 1_000_000_000L;
    /** Threads inside a call; null in SINGLE mode. */
    private final AtomicInteger inside;
    private volatile boolean closed;

    CallGate(final boolean multiple)
    {
        this.inside = multiple ? new AtomicInteger() : null;
    }

    /**
     * Counts the calling thread in; {@link #exit} must follow, whatever this returns or throws (the caller
     * enters inside its {@code try} and exits in its {@code finally}: a fault of compiled code surfaces at the
     * next call, which may be this one).
     *
     * @return false if the gate is closed: the call must not touch the mapping.
     */
    boolean enter()
    {
        if (inside != null)
        {
            inside.getAndIncrement();
        }
        return !closed;
    }

    void exit()
    {
        if (inside != null)
        {
            inside.getAndDecrement();
        }
    }

    /**
     * Closes the gate and waits until the calls inside have left (each sees the gate closed at its next wait).
     *
     * @param faulted the mapping has faulted: a fault thrown between a thread's {@link #enter} and its
     *                {@code try} leaves the count one too high, so wait at most a second (every real call
     *                leaves within milliseconds: none waits inside the gate).
     * @return false if it was already closed.
     */
    synchronized boolean close(final boolean faulted)
    {
        if (closed)
        {
            return false;
        }
        closed = true;
        final long deadline = System.nanoTime() + FAULTED_WAIT_NANOS;
        while (inside != null && inside.get() != 0 && (!faulted || System.nanoTime() - deadline < 0))
        {
            LockSupport.parkNanos(WAIT_NANOS);
        }
        return true;
    }
}
