package io.sm4j.transport;

import io.sm4j.job.CpuContention;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongPredicate;

/**
 * How one thread waits after a progress pass that found nothing to do: spin while waits are short, yield
 * the processor while others want it, and block on the rank's {@link Doorbell} once a wait lasts.
 * <p>
 * AUTO first asks whether every rank can have a core of its own: ranks no more than the node's cores, and
 * this process allowed on at least as many cores as there are ranks. Then it spins, for up to
 * {@link #BLOCK_AFTER_NANOS} ({@link #BLOCK_MODE_AFTER_NANOS} after a wait that slept, until a wait ends
 * without sleeping), and sleeps: a rank that waits a whole scheduler tick goes cold and the
 * scheduler moves it to an idle core, so two ranks that start on one core end up on two (ranks that yield
 * to each other both run every microsecond and are never moved: measured, 1.0 us one-way instead of 0.28).
 * Otherwise (more ranks than cores, or {@code taskset} and binding leave this process fewer cores than
 * ranks, as mpirun starts an oversubscribed job yielding) it decides from what the waits show:
 * <ul>
 *   <li>uncontended, a wait spins for {@link #SPIN_NANOS}, then yields after every empty pass, and blocks
 *       after {@link #BLOCK_AFTER_NANOS};</li>
 *   <li>contended (Open MPI's {@code mpi_yield_when_idle}), a wait yields after every empty pass and blocks
 *       after {@link #CONTENDED_BLOCK_AFTER_NANOS}.</li>
 * </ul>
 * It starts contended and judges over windows of {@link #WINDOW} yields: contended while at least an eighth
 * of them gave the processor away (took longer than {@link #SWITCHED_NANOS}: another thread ran), and from
 * the first spin that was preempted (a gap of {@link #PREEMPTED_NANOS} between two clock reads), until a
 * window says otherwise. Single events do not decide: a VM's interrupts and the JIT's threads make a yield
 * or a spin slow now and then. A rank bound to a core of its own thus finds itself uncontended within 128
 * yields.
 * <p>
 * Where every rank was given a core, other processes may still take some (a build, a browser, another job): AUTO
 * then asks, as a wait's spin phase ends (and, once it yields, as a wait or looks start), whether the node is
 * oversubscribed ({@link CpuContention}: less than half a processor idle while more threads were runnable than
 * processors or this one waited for a processor a quarter of the time, over 5 intervals of at least 100 ms in a row; 3
 * with a processor to spare end it), and while it is, waits as where ranks share cores, starting contended. A
 * sample takes about 16 us, so a wait that spins asks only as its spin phase ends. Spinning for a millisecond
 * there holds a processor that the peer needs, and a sleeper's wake-up waits for another process's time slice:
 * with one busy process beside 2 ranks on 2 cores, an 8 B ping-pong took 520 us one-way instead of 1.5
 * (docs/benchmarks.md, "Twenty-second session"). The job's other choices made from its shape at start
 * ({@link Endpoint#ownCores()}: a collective step's spun looks, the split copies of large messages) stay.
 * <p>
 * Blocking takes three empty passes: the first arms the doorbell and returns, so that the caller's next
 * pass is a look at every in-bound path after arming; if that pass finds nothing, the next call naps for
 * {@link #NAP_NANOS}, still armed, and the pass after it is a second look (a publisher does not fence, so
 * the first look may miss a message published as the rank armed: {@link BellWord}); only if that pass too
 * finds nothing does the next call sleep. A nap or a sleep ends when a peer rings, or after the timeout the
 * caller gives (at most the health check's interval, so a sleeping rank still sees a dead peer or an
 * aborted job in time).
 * Not thread-safe: one per waiting thread.
 */
final class WaitPolicy
{
    /**
     * Uncontended: spin this long, then yield on every empty pass. A ping-pong's wait ends well within it;
     * a thread that spins longer holds its processor until the scheduler's tick from a peer that became
     * runnable on it (docs/benchmarks.md).
     */
    private static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(2);
    /** Uncontended: a wait this long is no longer short; a wake-up (about 10-20 us) is small beside it. */
    private static final long BLOCK_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Contended: the processor is wanted; a waiter that yields for this long gives it up altogether. */
    private static final long CONTENDED_BLOCK_AFTER_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    /**
     * Ranks that may share cores, a wait in lockstep (a collective's step, a barrier: every rank waits for the
     * slowest, so a sleeper's wake-up is on every rank's path): block only after this long, in either verdict.
     * A rank woken onto a core where another runs waits for the scheduler's tick (4 ms here), and its lateness
     * makes the others wait long enough to sleep too: at 200 us, 0.4 % of a 4-rank barrier's waits slept and
     * took its mean from 3-5 us to 10-32 us (docs/benchmarks.md, "Waits in lockstep").
     */
    private static final long LOCKSTEP_BLOCK_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /**
     * BLOCK: spin this long, then sleep. AUTO with a core per rank, after a wait that slept: the next wait is
     * likely long too (a service between requests), and a millisecond's spin would only burn a core (a rank
     * woken every 5 ms: 19 % of a core against 4 %; docs/benchmarks.md, "Seventeenth session").
     */
    private static final long BLOCK_MODE_AFTER_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
    /**
     * A yield that took longer ran another thread: a bare sched_yield took 0.2-0.4 us here, a switch to a
     * rank that makes one pass and yields back 1-3 us. On 2026-11-28 a bare yield took 1.4 us on this machine
     * (a host whose system calls cost more): there every yield counts as a switch, and AUTO, once contended,
     * stays so (where more ranks than cores start it anyway).
     */
    private static final long SWITCHED_NANOS = TimeUnit.MICROSECONDS.toNanos(1);
    /** A spinning thread that sees this much time pass between two clock reads was preempted. */
    private static final long PREEMPTED_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    /** Yields per contention judgement. */
    private static final int WINDOW = 128;
    /**
     * After this rank rang a sleeping peer, its waits yield instead of spinning for this long: the kernel may
     * queue the woken peer on this rank's core, behind the spinner (measured: a wake-up took 1 ms, the whole
     * spin phase, instead of 13-40 us).
     */
    private static final long AFTER_RING_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * Armed, the nap between the first and the second look: a store the first look missed was executed
     * before its publisher read the word, and leaves the store buffer within nanoseconds. The selector's
     * shortest timeout.
     */
    private static final long NAP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Without a doorbell, a long wait parks this long at a time. */
    private static final long PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    /** Empty spinning passes between two clock reads. */
    private static final int SPINS_PER_CLOCK_READ = 16;
    /**
     * A caller's looks at one path before its wait ({@link #startLooks}), where waits spin: this many, with a spin
     * hint between two (about 5 us here: a ping-pong's answer comes within a microsecond, and a quarter of the
     * shortest spin phase, {@link #BLOCK_MODE_AFTER_NANOS}). Counted, not timed: no clock read on the way.
     */
    static final int LOOK_SPINS = 128;
    /**
     * The same where the processor may be wanted ({@link #startLooks}): a yield between two looks, the last
     * one starting within this long of the first (a switch to another rank and back takes 1-3 us here; the
     * contended wait arms its doorbell after {@link #CONTENDED_BLOCK_AFTER_NANOS}).
     */
    static final long LOOK_YIELD_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    private final TransportOptions.Idle mode;
    private final Doorbell bell;
    private final PeerBells rung;
    /** AUTO where every rank was given a core: whether the node is oversubscribed at a time; else null. */
    private final LongPredicate node;
    /** Spin, then sleep: BLOCK, and AUTO while the scheduler can give every rank a core of its own. */
    private boolean spinThenSleep;
    /**
     * How long a spin-then-sleep wait spins: BLOCK's limit; in AUTO {@link #BLOCK_AFTER_NANOS}, or
     * {@link #BLOCK_MODE_AFTER_NANOS} after a wait that slept, until a wait ends without sleeping.
     */
    private long spinLimitNanos;
    /** This wait slept, followed a sleeping thread or parked (AUTO adapts its next spin to it). */
    private boolean slept;
    private boolean contended;
    private int yields;
    private int switched;
    /** System.nanoTime() of this wait's first empty pass, 0 outside a wait. */
    private long waitStart;
    /** Spin phase: System.nanoTime() as last read (a gap between two reads is a preemption). */
    private long lastRead;
    private int spins;
    /** True in this wait's spin phase (uncontended, or BLOCK mode). */
    private boolean spinning;
    private boolean armed;
    /** Armed, and the nap is over: the next empty pass sleeps. */
    private boolean napped;
    /** The current looks yield between them ({@link #startLooks}). */
    private boolean looksYield;
    /** Spinning looks left. */
    private int looksLeft;
    /** Yielding looks: System.nanoTime() after which no more start. */
    private long looksEnd;

    /**
     * @param rung      the peers' doorbells, which say when this rank last woke one.
     * @param contended the ranks may have to share cores ({@link TransportOptions#startsContended}): AUTO
     *                  starts contended and judges contention as its waits go; else it spins, then sleeps.
     * @param node      for AUTO where every rank was given a core ({@code contended} false), else null: whether
     *                  the node is oversubscribed, given System.nanoTime() as recently read (other processes take
     *                  the cores; the waits are then as where ranks share them).
     */
    WaitPolicy(
        final TransportOptions.Idle mode, final Doorbell bell, final PeerBells rung, final boolean contended,
        final LongPredicate node)
    {
        this.mode = mode;
        this.bell = bell;
        this.rung = rung;
        this.node = mode == TransportOptions.Idle.AUTO && !contended ? node : null;
        this.contended = contended;
        this.spinThenSleep = mode == TransportOptions.Idle.BLOCK || !contended;
        this.spinLimitNanos = mode == TransportOptions.Idle.BLOCK ? BLOCK_MODE_AFTER_NANOS : BLOCK_AFTER_NANOS;
    }

    /**
     * Waits once after an empty pass.
     *
     * @param timeoutNanos the longest a sleep may last (a health interval, or less for a caller's deadline).
     * @param lockstep     the wait is in lockstep: every rank waits for the slowest (a collective's step).
     * @return true if the thread slept or followed a sleeper (the caller then reads the clock, and checks the
     *         job's health at its next quiet pass).
     */
    boolean idle(final long timeoutNanos, final boolean lockstep)
    {
        if (armed)
        {
            return sleepArmed(timeoutNanos);
        }
        switch (mode)
        {
            case SPIN ->
            {
                Thread.onSpinWait();
                return false;
            }
            case YIELD ->
            {
                Thread.yield();
                return false;
            }
            default ->
            {
                return waitAdaptively(timeoutNanos, lockstep);
            }
        }
    }

    /**
     * After an empty look: the first naps (the next pass looks a second time), the second sleeps until rung.
     *
     * @return true if it slept (a nap is short: the caller's rate-limited health check suffices).
     */
    private boolean sleepArmed(final long timeoutNanos)
    {
        if (!napped)
        {
            armed = bell.nap(Math.min(timeoutNanos, NAP_NANOS)); // rung: disarmed, and arms again before sleeping
            napped = armed;
            return false;
        }
        armed = false;
        napped = false;
        slept = true;
        bell.sleep(timeoutNanos);
        return true;
    }

    /**
     * Starts a caller's looks at one in-bound path before it waits the general way (a blocking receive's at
     * its source): paced by {@link #pauseLook}, spun where this thread's waits start by spinning (SPIN, BLOCK,
     * AUTO where every rank has a core of its own), yielded where the processor may be wanted (YIELD, AUTO where
     * ranks may share cores, and AUTO or BLOCK within {@link #AFTER_RING_NANOS} of this rank's ring: the woken
     * peer may be queued on this core).
     *
     * @param now System.nanoTime() as last read (the health clock: maybe old, which errs towards yielding).
     */
    void startLooks(final long now)
    {
        if (node != null && !spinThenSleep)
        {
            judgeNode(now); // a ping-pong's waits may all end within their looks, and only a sample ends the yielding
        }
        looksYield = mode == TransportOptions.Idle.YIELD ||
            mode != TransportOptions.Idle.SPIN && (!spinThenSleep || rangWithin(now));
        looksLeft = LOOK_SPINS;
        looksEnd = looksYield ? System.nanoTime() + LOOK_YIELD_NANOS : 0; // a yield lasts 0.2 us or a slice: timed
    }

    /**
     * Between two looks: a spin hint or a yield ({@link #startLooks}).
     *
     * @return false once the looks are over: the caller waits the general way.
     */
    boolean pauseLook()
    {
        if (!looksYield)
        {
            Thread.onSpinWait();
            return --looksLeft > 0;
        }
        Thread.yield();
        return System.nanoTime() - looksEnd < 0;
    }

    /**
     * @return true if this rank rang a peer within {@link #AFTER_RING_NANOS} before {@code now}.
     */
    private boolean rangWithin(final long now)
    {
        final long ring = rung.lastRing();
        return ring != 0 && now - ring < AFTER_RING_NANOS; // 0: never rang
    }

    /**
     * @return true if this wait now yields the processor between passes; false if it spins (or sleeps, which
     *         the doorbell shows).
     */
    boolean yields()
    {
        return mode == TransportOptions.Idle.YIELD || mode != TransportOptions.Idle.SPIN && waitStart != 0 && !spinning;
    }

    /**
     * Ends the wait: a pass did work, or the caller's condition holds. A thread that armed and then found
     * work disarms.
     */
    void reset()
    {
        if (armed)
        {
            armed = false;
            bell.disarm();
        }
        napped = false;
        if (waitStart != 0) // a wait ended (a delivering poll outside one changes nothing: slept is only set in one)
        {
            if (mode == TransportOptions.Idle.AUTO)
            {
                spinLimitNanos = slept ? BLOCK_MODE_AFTER_NANOS : BLOCK_AFTER_NANOS; // briefly only after a sleep
            }
            slept = false;
            waitStart = 0;
        }
    }

    private boolean waitAdaptively(final long timeoutNanos, final boolean lockstep)
    {
        if (waitStart == 0)
        {
            waitStart = System.nanoTime();
            if (node != null && !spinThenSleep)
            {
                judgeNode(waitStart);
                waitStart = System.nanoTime(); // the wait's clock starts after a sample, which takes tens of microseconds
            }
            lastRead = waitStart;
            spins = 0;
            spinning = spinThenSleep || !contended;
        }
        if (spinning)
        {
            if (++spins % SPINS_PER_CLOCK_READ != 0)
            {
                Thread.onSpinWait();
                return false;
            }
            final long now = System.nanoTime();
            // NOTE: whatever its spin, a wait within AFTER_RING_NANOS of its rank's ring yields and does not arm: the
            // peer it woke likely answers within it (tried: arming after the spin left the wake-up as it was and
            // moved the ring of the answer, and its CPU, to the woken peer; docs/benchmarks.md, "Seventeenth session")
            if (rangWithin(now))
            {
                Thread.yield(); // the peer this rank just woke may be queued on this core: let it run
                lastRead = System.nanoTime();
                return false;
            }
            final long gap = now - lastRead;
            lastRead = now;
            if (gap >= PREEMPTED_NANOS && !spinThenSleep)
            {
                contended = true; // the spin was preempted: somebody else wanted this processor; a window decides on
                spinning = false;
            }
            else if (now - waitStart < (spinThenSleep ? spinLimitNanos : SPIN_NANOS))
            {
                Thread.onSpinWait();
                return false;
            }
            spinning = false; // the spin phase is over: from here on every empty pass yields
            if (node != null && spinThenSleep)
            {
                judgeNode(now); // a spinning wait asks only here: a sample on a short wait's path would lengthen it
            }
        }
        final long start = System.nanoTime();
        if (start - waitStart >= blockAfter(lockstep))
        {
            return blockOrPark(timeoutNanos);
        }
        Thread.yield();
        final long took = System.nanoTime() - start;
        switched += took >= SWITCHED_NANOS ? 1 : 0;
        if (++yields == WINDOW)
        {
            contended = switched * 8 >= WINDOW;
            yields = 0;
            switched = 0;
        }
        return false;
    }

    /**
     * AUTO where every rank was given a core: while the node is oversubscribed ({@link #node}), waits as where
     * ranks share cores, starting contended (its windows of yields judge from there); spins, then sleeps again
     * once it no longer is.
     */
    private void judgeNode(final long now)
    {
        final boolean shared = node.test(now);
        if (shared == spinThenSleep)
        {
            spinThenSleep = !shared;
            contended = shared;
            yields = 0;
            switched = 0;
        }
    }

    private long blockAfter(final boolean lockstep)
    {
        if (spinThenSleep)
        {
            return spinLimitNanos;
        }
        return lockstep ? LOCKSTEP_BLOCK_AFTER_NANOS : contended ? CONTENDED_BLOCK_AFTER_NANOS : BLOCK_AFTER_NANOS;
    }

    private boolean blockOrPark(final long timeoutNanos)
    {
        if (bell.tryArm())
        {
            armed = true; // the caller's next pass is the first look; the next empty pass naps
            napped = false;
            return false;
        }
        if (bell.isAvailable())
        {
            bell.follow(timeoutNanos); // MULTIPLE: another thread of this rank sleeps armed and wakes us
        }
        else
        {
            final boolean interrupted = Thread.interrupted(); // a park returns at once while it is set (Doorbell#select)
            LockSupport.parkNanos(Math.min(PARK_NANOS, timeoutNanos));
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
        slept = true; // a wait this long: the next spins briefly too, as after a sleep
        return true;
    }
}
