package io.sm4j.transport;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Per-rank runtime settings; unlike {@link io.sm4j.layout.LayoutParams} they need not agree across ranks.
 *
 * @param attachTimeout   how long to wait for the segment and for all ranks to attach.
 * @param lazyFreeBatch   consumed queue slots cleared together; 0 = half the queue.
 * @param idle            how to wait: AUTO spins while ranks {@code <=} processors and backs off otherwise.
 * @param launcherPid     pid of the sm4j run that supervises this rank (0: none); if it dies, the rank aborts
 *                        the job instead of waiting for peers nobody will clean up.
 * @param unexpectedBytes bytes of arrived messages no receive has matched yet that a rank keeps on its
 *                        heap; beyond it, senders wait (back-pressure) until the rank receives.
 */
public record TransportOptions(Duration attachTimeout, int lazyFreeBatch, Idle idle, long launcherPid, long unexpectedBytes)
{
    public static final String ATTACH_TIMEOUT_ENV = "SM4J_ATTACH_TIMEOUT_MS";
    public static final String LAZY_FREE_ENV = "SM4J_LAZY_FREE";
    public static final String IDLE_ENV = "SM4J_IDLE";
    public static final String UNEXPECTED_BYTES_ENV = "SM4J_UNEXPECTED_BYTES";
    /** 64 MiB of unexpected messages per rank. */
    public static final long DEFAULT_UNEXPECTED_BYTES = 64L << 20;
    /** Set by {@code sm4j run} for its ranks. */
    public static final String LAUNCHER_PID_ENV = "SM4J_LAUNCHER_PID";

    /**
     * @throws IllegalArgumentException if {@code unexpectedBytes} is negative.
     */
    public TransportOptions
    {
        if (unexpectedBytes < 0)
        {
            throw new IllegalArgumentException(UNEXPECTED_BYTES_ENV + "=" + unexpectedBytes + " (expected: >= 0)");
        }
    }

    /**
     * Waiting strategies (Agrona idle strategies).
     */
    public enum Idle
    {
        AUTO, SPIN, BACKOFF
    }

    /**
     * @param ranks ranks in the job.
     * @return a fresh idle strategy (they hold per-thread state): busy spin for SPIN, or for AUTO while
     * every rank can have a core of the node ({@link CpuBudget#cores()}: online cores, capped by a cgroup
     * quota; not this process's affinity, which a rank bound to one core would see as 1); otherwise back
     * off, spinning, then yielding, then parking up to 500 us, so oversubscribed ranks leave the
     * processors to the ranks that have work.
     */
    public IdleStrategy idleStrategy(final int ranks)
    {
        final boolean spin = idle == Idle.SPIN || idle == Idle.AUTO && ranks <= CpuBudget.cores();
        return spin ? new BusySpinIdleStrategy() :
            new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MICROSECONDS.toNanos(500));
    }

    /**
     * @param queueEntries slots per FIFO.
     * @return consumed slots cleared together: the setting, or half the queue if it is 0.
     * @throws IllegalArgumentException if the setting is outside 0..queueEntries.
     */
    public int lazyFreeBatch(final int queueEntries)
    {
        if (lazyFreeBatch < 0 || lazyFreeBatch > queueEntries)
        {
            throw new IllegalArgumentException(LAZY_FREE_ENV + "=" + lazyFreeBatch + " (expected: 1.." + queueEntries +
                ", or 0 for half the queue)");
        }
        return lazyFreeBatch == 0 ? Math.max(1, queueEntries / 2) : lazyFreeBatch;
    }

    public static TransportOptions defaults()
    {
        return new TransportOptions(Duration.ofSeconds(30), 0, Idle.AUTO, 0, DEFAULT_UNEXPECTED_BYTES);
    }

    /**
     * @param env environment variables ({@link #ATTACH_TIMEOUT_ENV}, {@link #LAZY_FREE_ENV}, {@link #IDLE_ENV}).
     * @return defaults overridden by the environment.
     */
    public static TransportOptions fromEnvironment(final Map<String, String> env)
    {
        final TransportOptions defaults = defaults();
        return new TransportOptions(
            Duration.ofMillis(Environment.longValue(env, ATTACH_TIMEOUT_ENV, defaults.attachTimeout().toMillis())),
            env.containsKey(LAZY_FREE_ENV) ? Environment.intValue(env, LAZY_FREE_ENV) : defaults.lazyFreeBatch(),
            Environment.enumValue(env, IDLE_ENV, defaults.idle()),
            Environment.longValue(env, LAUNCHER_PID_ENV, defaults.launcherPid()),
            Environment.longValue(env, UNEXPECTED_BYTES_ENV, defaults.unexpectedBytes()));
    }
}
