package io.sm4j.transport;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps an endpoint's mapping alive while any thread is inside one of its calls: {@link #close} returns
 * only once every call that entered before it has left, and no call enters after it.
 * <p>
 * MULTIPLE mode: the entering thread increments the count, then reads the flag; the closing thread sets the
 * flag, then reads the count. Both are sequentially consistent (a volatile RMW and volatile accesses), so at
 * least one of them sees the other: either the call sees the gate closed and leaves, or close sees the call
 * and waits for it.
 * <p>
 * SINGLE mode: one thread calls, but another may close (a shutdown hook, a watchdog): the count is kept
 * with release stores by the calling thread alone, without the RMW's fence on every call. Its read of the
 * flag may then pass its store of the count, and a close that read the count at that instant would unmap
 * under the call. So a close from a thread other than the last caller waits {@link #GRACE_NANOS} after
 * setting the flag before it trusts a count of zero: a call whose store it missed read the flag before the
 * flag was set, and its store leaves the store buffer within nanoseconds (the doorbell's second look rests
 * on the same fact, {@link BellWord}); a call that enters later sees the flag.
 */
final class CallGate
{
    private static final long WAIT_NANOS = 10_000;
    private static final long FAULTED_WAIT_NANOS = 1_000_000_000L;
    /** SINGLE: a close from another thread trusts a count of zero only this long after closing the gate. */
    private static final long GRACE_NANOS = 1_000_000;
    private final boolean multiple;
    /** Calls inside (nested calls count twice): MULTIPLE, any thread (RMW); SINGLE, the calling thread only. */
    private final AtomicInteger inside = new AtomicInteger();
    /** SINGLE: the thread of the last call to enter (written by that thread; read by close). */
    private volatile Thread lastCaller;
    private volatile boolean closed;
    /** Set by {@link #close}: it gave up waiting for a call inside. */
    private volatile boolean abandoned;

    CallGate(final boolean multiple)
    {
        this.multiple = multiple;
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
        if (multiple)
        {
            inside.getAndIncrement();
        }
        else
        {
            // NOTE: release stores, one writer: no fence per call (see the class notes for what close does instead)
            inside.lazySet(inside.get() + 1);
            final Thread me = Thread.currentThread();
            if (lastCaller != me)
            {
                lastCaller = me; // only when the calling thread changes: a volatile store is a fence
            }
        }
        return !closed;
    }

    void exit()
    {
        if (multiple)
        {
            inside.getAndDecrement();
        }
        else
        {
            inside.lazySet(inside.get() - 1);
        }
    }

    /**
     * After a successful claim. MULTIPLE mode leaves the gate: the destination's lock, which close takes,
     * covers the claim. SINGLE mode stays inside until {@link #exitClaim}, as the caller writes into the
     * mapping meanwhile and a close from another thread must wait for it.
     */
    void exitAfterClaim()
    {
        if (multiple)
        {
            exit();
        }
    }

    /**
     * At a claim's commit or abort.
     */
    void exitClaim()
    {
        if (!multiple)
        {
            exit();
        }
    }

    /**
     * Closes the gate and waits until the calls inside have left (each sees the gate closed at its next call).
     *
     * @param faulted the mapping has faulted: a fault thrown between a thread's {@link #enter} and its
     *                {@code try} leaves the count one too high, so wait at most a second (every real call
     *                leaves within milliseconds: the one that waits inside the gate, a collective through its
     *                region, enters it again on every pass and so leaves as soon as it is closed). SINGLE mode always waits at
     *                most a second: two threads calling at once (a misuse the message layer reports) can
     *                leave its count wrong.
     * @param wake    run once the gate is closed, to end a wait of a thread inside (its doorbell's sleep).
     * @return false if it was already closed.
     */
    synchronized boolean close(final boolean faulted, final Runnable wake)
    {
        if (closed)
        {
            return false;
        }
        closed = true;
        if (!multiple && lastCaller == Thread.currentThread())
        {
            return true; // the calling thread closes: nobody else is inside (a claim it left uncommitted is dropped)
        }
        final boolean foreign = !multiple && lastCaller != null;
        if (inside.get() == 0 && !foreign)
        {
            return true;
        }
        wake.run();
        final long start = System.nanoTime();
        final long deadline = start + FAULTED_WAIT_NANOS;
        // SINGLE mode bounds the wait too: two threads that misuse it can lose an update of the count
        while (inside.get() != 0 && (multiple && !faulted || System.nanoTime() - deadline < 0) ||
            foreign && System.nanoTime() - start < GRACE_NANOS)
        {
            LockSupport.parkNanos(WAIT_NANOS);
        }
        // decided here, once, not by a later read of the count: a call that comes after the gate shut raises it for a
        // few microseconds (it enters, sees the gate closed, leaves), and must not make a normal close skip its detach
        abandoned = inside.get() != 0;
        return true;
    }

    /**
     * After {@link #close}: whether it gave up waiting with a call still inside (its wait is bounded): the mapping
     * must then stay, as that call may still write into it (a handler that ran longer than the bound).
     */
    boolean abandoned()
    {
        return abandoned;
    }
}
