package io.sm4j.transport;

import io.sm4j.job.Environment;
import io.sm4j.job.CpuBudget;
import io.sm4j.segment.BadSettingException;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Per-rank runtime settings; unlike {@link io.sm4j.layout.LayoutParams} they need not agree across ranks.
 *
 * @param attachTimeout   how long to wait for the segment and for all ranks to attach.
 * @param lazyFreeBatch   consumed queue slots cleared together; 0 = half the queue.
 * @param idle            how to wait after a progress pass that found nothing ({@link Idle}).
 * @param launcherPid     pid of the sm4j run that supervises this rank (0: none); if it dies, the rank aborts
 *                        the job instead of waiting for peers nobody will clean up.
 * @param unexpectedBytes bytes of arrived messages no receive has matched yet that a rank keeps on its
 *                        heap (by default a quarter of the heap, at most 64 MiB); beyond it, senders wait
 *                        (back-pressure) until the rank receives.
 * @param bell            what a sleeping rank blocks on ({@link Bell}).
 * @param peerReads       whether this rank reads large messages sent from off-heap memory straight out of
 *                        their sender's process ({@link PeerReads}).
 */
public record TransportOptions(Duration attachTimeout, int lazyFreeBatch, Idle idle, long launcherPid, long unexpectedBytes,
    Bell bell, PeerReads peerReads)
{
    public static final String ATTACH_TIMEOUT_ENV = "SM4J_ATTACH_TIMEOUT_MS";
    public static final String LAZY_FREE_ENV = "SM4J_LAZY_FREE";
    public static final String IDLE_ENV = "SM4J_IDLE";
    public static final String UNEXPECTED_BYTES_ENV = "SM4J_UNEXPECTED_BYTES";
    public static final String BELL_ENV = "SM4J_DOORBELL";
    public static final String PEER_READS_ENV = "SM4J_PEER_READS";
    /** The most unexpected messages a rank keeps by default: 64 MiB, less with a heap under 256 MiB. */
    public static final long DEFAULT_UNEXPECTED_BYTES = 64L << 20;
    /** Set by {@code sm4j run} for its ranks. */
    public static final String LAUNCHER_PID_ENV = "SM4J_LAUNCHER_PID";

    /**
     * @throws BadSettingException if {@code attachTimeout} is not positive or {@code unexpectedBytes} is negative.
     */
    public TransportOptions
    {
        if (attachTimeout.isNegative() || attachTimeout.isZero())
        {
            throw new BadSettingException(ATTACH_TIMEOUT_ENV + "=" + attachTimeout.toMillis() + " (expected: > 0 ms)");
        }
        if (unexpectedBytes < 0)
        {
            throw new BadSettingException(UNEXPECTED_BYTES_ENV + "=" + unexpectedBytes + " (expected: >= 0)");
        }
    }

    /**
     * What a sleeping rank blocks on, and how its peers wake it ({@link Doorbell}).
     */
    public enum Bell
    {
        /** A futex on its doorbell word when this JVM and every rank of the job can use one, else its socket. */
        AUTO,
        /** A Unix domain socket beside the segment, on every JDK. */
        SOCKET,
        /** As AUTO, but a JVM that cannot use a futex (before JDK 22, native access off) refuses to start. */
        FUTEX
    }

    /**
     * How a large message sent from off-heap memory reaches its receiver ({@link PeerMemory}).
     */
    public enum PeerReads
    {
        /**
         * This rank sends such a message as a reference, and of those it receives reads each straight out of its
         * sender's process (process_vm_readv, else /proc/PID/mem; one copy, by this rank's core) or has it
         * streamed through the fragment pipeline (two copies, the sender's core and this one at once), whichever
         * it has measured faster lately for messages of that size; where the kernel allows no reads, the
         * pipeline. The default.
         */
        AUTO,
        /** As {@link #AUTO}, but every such message this rank receives is read where the kernel allows it. */
        ON,
        /** The fragment pipeline for every large message this rank sends or receives. */
        OFF
    }

    /**
     * How a rank waits after a progress pass that found nothing to do ({@link WaitPolicy}).
     */
    public enum Idle
    {
        /** Spin, yield, then sleep on the doorbell, deciding from what the waits show (the default). */
        AUTO,
        /** Spin only: the lowest latency while every rank has a core of its own; a waiting rank burns its core. */
        SPIN,
        /** Yield after every empty pass and never sleep: Open MPI's mpi_yield_when_idle. */
        YIELD,
        /** Spin 20 us, then sleep on the doorbell: a service that waits long and must not burn a core. */
        BLOCK
    }

    /**
     * @param ranks ranks in the job.
     * @return true if AUTO judges contention as this job's waits go, starting contended (yielding): more
     * ranks than the node's cores ({@link CpuBudget#cores()}: online cores, capped by a cgroup quota), as
     * mpirun starts an oversubscribed job, or fewer cores allowed to this process than ranks ({@code taskset}):
     * its ranks may have to share. Else, and for ranks that {@code --bind-to core} gave a core each
     * ({@link Endpoints#OWN_CORE_ENV}), AUTO spins, then sleeps ({@link WaitPolicy}).
     */
    public boolean startsContended(final int ranks)
    {
        return sharingReason(idle, ranks) != null;
    }

    /**
     * @param ranks   ranks in the job.
     * @param ownCore every rank is bound to a core of its own ({@link Endpoints#onOwnCore}): AUTO does not ask
     *                whether other processes oversubscribe the node.
     * @return {@code idle} as a job of {@code ranks} ranks uses it, e.g. "auto (spin, then sleep; yield first while
     *         other processes oversubscribe the node)".
     */
    public static String describeIdle(final Idle idle, final int ranks, final boolean ownCore)
    {
        final String name = idle.name().toLowerCase(Locale.ROOT);
        if (idle != Idle.AUTO)
        {
            return name;
        }
        final String sharing = sharingReason(idle, ranks);
        if (sharing != null)
        {
            return name + " (yield first: " + sharing + ")";
        }
        return name + (ownCore ? " (spin, then sleep: every rank on a core of its own)" :
            " (spin, then sleep; yield first while other processes oversubscribe the node)");
    }

    /**
     * For a launcher, before it starts any rank: the ranks it starts run on this JVM's JDK, with native access.
     *
     * @throws BadSettingException if {@link Bell#FUTEX} is asked and such ranks cannot call a futex.
     */
    public void checkBell()
    {
        final String reason = bell == Bell.FUTEX ? Futex.unavailableReason(false) : null;
        if (reason != null)
        {
            throw Futex.refused("ranks on this JDK", reason);
        }
    }

    /**
     * @return what ranks that sm4j starts on this JVM's JDK (with native access) sleep on under {@code bell}:
     *         "futex" (where every rank of the job can use one), or "socket", with the reason there is no futex.
     */
    public static String describeBell(final Bell bell)
    {
        final String reason = bell == Bell.SOCKET ? BELL_ENV + "=socket" : Futex.unavailableReason(false);
        return reason == null ? "futex" : "socket (" + reason + ")";
    }

    /**
     * @return why AUTO's ranks may have to share cores, or null if every rank can have one.
     */
    private static String sharingReason(final Idle idle, final int ranks)
    {
        if (idle != Idle.AUTO)
        {
            return null;
        }
        if (ranks > CpuBudget.cores())
        {
            return ranks + " ranks > " + CpuBudget.cores() + " cores";
        }
        final int allowed = Runtime.getRuntime().availableProcessors();
        // a rank the launcher bound to a core of its own, as every other rank, shares it with nobody's rank
        return allowed < ranks && !Endpoints.onOwnCore() ?
            "this process may run on " + allowed + " of " + CpuBudget.cores() + " cores" : null;
    }

    /**
     * @param queueEntries slots per FIFO.
     * @return consumed slots cleared together: the setting, or half the queue if it is 0 (a FIFO clears at most
     *         {@code queueEntries - 1} together: {@link io.sm4j.fifo.FifoConsumer}).
     * @throws BadSettingException if the setting is outside 0..queueEntries.
     */
    public int lazyFreeBatch(final int queueEntries)
    {
        if (lazyFreeBatch < 0 || lazyFreeBatch > queueEntries)
        {
            throw new BadSettingException(LAZY_FREE_ENV + "=" + lazyFreeBatch + " (expected: 1.." + queueEntries +
                ", or 0 for half the queue)");
        }
        return lazyFreeBatch == 0 ? Math.max(1, queueEntries / 2) : lazyFreeBatch;
    }

    /**
     * @return these options with {@code idle} instead.
     */
    public TransportOptions withIdle(final Idle idle)
    {
        return new TransportOptions(attachTimeout, lazyFreeBatch, idle, launcherPid, unexpectedBytes, bell, peerReads);
    }

    /**
     * @return these options with {@code peerReads} instead.
     */
    public TransportOptions withPeerReads(final PeerReads peerReads)
    {
        return new TransportOptions(attachTimeout, lazyFreeBatch, idle, launcherPid, unexpectedBytes, bell, peerReads);
    }

    public static TransportOptions defaults()
    {
        return new TransportOptions(Duration.ofSeconds(30), 0, Idle.AUTO, 0, defaultUnexpectedBytes(), Bell.AUTO, PeerReads.AUTO);
    }

    /**
     * @return the default unexpected-message budget of this JVM: a quarter of its largest heap (-Xmx), at most
     *         {@link #DEFAULT_UNEXPECTED_BYTES}; the rest is the application's.
     */
    public static long defaultUnexpectedBytes()
    {
        return Math.min(DEFAULT_UNEXPECTED_BYTES, Runtime.getRuntime().maxMemory() / 4);
    }

    /**
     * @param env environment variables ({@link #ATTACH_TIMEOUT_ENV}, {@link #LAZY_FREE_ENV}, {@link #IDLE_ENV},
     *            {@link #BELL_ENV}, {@link #PEER_READS_ENV}, ...).
     * @return defaults overridden by the environment.
     */
    public static TransportOptions fromEnvironment(final Map<String, String> env)
    {
        final TransportOptions defaults = defaults();
        return new TransportOptions(
            Duration.ofMillis(Environment.longValue(env, ATTACH_TIMEOUT_ENV, defaults.attachTimeout().toMillis())),
            Environment.intValue(env, LAZY_FREE_ENV, defaults.lazyFreeBatch()),
            Environment.enumValue(env, IDLE_ENV, defaults.idle()),
            Environment.longValue(env, LAUNCHER_PID_ENV, defaults.launcherPid()),
            Environment.longValue(env, UNEXPECTED_BYTES_ENV, defaults.unexpectedBytes()),
            Environment.enumValue(env, BELL_ENV, defaults.bell()),
            Environment.enumValue(env, PEER_READS_ENV, defaults.peerReads()));
    }
}
