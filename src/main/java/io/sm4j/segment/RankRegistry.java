package io.sm4j.segment;

import io.sm4j.layout.ControlBlockDescriptor;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;

import static io.sm4j.layout.ControlBlockDescriptor.*;

/**
 * The ranks of a job as their control blocks' owner lines record them ({@link ControlBlockDescriptor}):
 * who has registered, with which process, who has detached, and who has died.
 * <p>
 * A rank claims its block by a CAS of the pid word from 0, writes its start time, and release-stores
 * ATTACHED last. The pid comes first so that a rank that dies between the two is still seen: it has a pid,
 * no live process and no DETACHED state.
 * <p>
 * Liveness costs O(1) per check at any n: a rank watches only the {@value #WATCHED} registered ranks that
 * follow it on the ring (skipping detached ones), so every rank has {@value #WATCHED} watchers, and a death
 * is published to everyone by the abort it causes. Each watched rank costs one read of /proc.
 */
public final class RankRegistry
{
    /** Neighbours each rank watches. */
    static final int WATCHED = 2;

    private final String path;
    private final UnsafeBuffer[] controls;
    /** Per rank, the process last seen registered: looked up once per pid, not per check. */
    private final WatchedProcess[] processes;

    RankRegistry(final String path, final UnsafeBuffer[] controls)
    {
        this.path = path;
        this.controls = controls;
        this.processes = new WatchedProcess[controls.length];
    }

    /**
     * Claims {@code rank}'s control block for this process.
     *
     * @throws Sm4jException if another process holds the rank.
     */
    public void register(final int rank)
    {
        register(rank, () -> { });
    }

    /**
     * As {@link #register(int)}, running {@code claimed} once the rank is this process's and before it is marked
     * ATTACHED (whose release publishes what it stores): a process refused the rank stores nothing.
     */
    public void register(final int rank, final Runnable claimed)
    {
        final UnsafeBuffer control = control(rank);
        final ProcessIdentity self = ProcessIdentity.current();
        if (!control.compareAndSetLong(PID_OFFSET, 0, self.pid()))
        {
            throw new Sm4jException("rank " + rank + " is already attached (pid " + control.getLongVolatile(PID_OFFSET) +
                ", state " + control.getIntVolatile(STATE_OFFSET) + ") in " + path);
        }
        control.putLong(START_OFFSET, self.startTicks());
        heartbeat(rank);
        claimed.run();
        // NOTE: release: pid and start time (and what claimed stored) are visible to whoever acquires ATTACHED
        control.putIntRelease(STATE_OFFSET, STATE_ATTACHED);
    }

    /**
     * Records that {@code rank} waited in sm4j now (read by the launcher to name busy ranks).
     */
    public void heartbeat(final int rank)
    {
        control(rank).putLongRelease(HEARTBEAT_OFFSET, System.nanoTime());
    }

    /**
     * @return System.nanoTime() of {@code rank}'s last health check while waiting, 0 if never.
     */
    public long lastHeartbeat(final int rank)
    {
        return control(rank).getLongAcquire(HEARTBEAT_OFFSET);
    }

    /**
     * @return the ranks that have not registered (a rank that already detached has).
     */
    public List<Integer> missing()
    {
        final List<Integer> missing = new ArrayList<>();
        for (int r = 0; r < controls.length; r++)
        {
            if (controls[r].getIntAcquire(STATE_OFFSET) == STATE_ABSENT)
            {
                missing.add(r);
            }
        }
        return missing;
    }

    /**
     * @return a rank that {@code self} watches (the next {@value #WATCHED} registered, undetached ranks on
     *         the ring) whose process is gone without detaching, or -1.
     */
    public int findDeadPeer(final int self)
    {
        final int n = controls.length;
        int watched = 0;
        for (int step = 1; step < n && watched < WATCHED; step++)
        {
            final int r = (self + step) % n;
            final UnsafeBuffer control = controls[r];
            final long pid = control.getLongAcquire(PID_OFFSET);
            if (pid == 0 || control.getIntAcquire(STATE_OFFSET) == STATE_DETACHED)
            {
                continue;
            }
            watched++;
            // NOTE: the state is read again after the process is found gone: a rank that detached and exited
            // between the two reads stored DETACHED before it exited, so the second read sees it
            if (!isAlive(r, pid) && control.getIntAcquire(STATE_OFFSET) != STATE_DETACHED)
            {
                return r;
            }
        }
        return -1;
    }

    /**
     * @return how many ranks have claimed their control block (alive or not, detached or not).
     */
    int registeredCount()
    {
        int registered = 0;
        for (final UnsafeBuffer control : controls)
        {
            registered += control.getLongAcquire(PID_OFFSET) != 0 ? 1 : 0;
        }
        return registered;
    }

    /**
     * @return how many registered ranks have a live process and have not detached.
     */
    int liveCount()
    {
        int live = 0;
        for (int r = 0; r < controls.length; r++)
        {
            final long pid = controls[r].getLongAcquire(PID_OFFSET);
            if (pid != 0 && controls[r].getIntAcquire(STATE_OFFSET) != STATE_DETACHED && isAlive(r, pid))
            {
                live++;
            }
        }
        return live;
    }

    /**
     * Liveness through a process watched per rank, so a check allocates nothing. It is watched only if it
     * started when the rank recorded (a reused pid reads as dead); its /proc file, kept open, then says dead
     * once it is reaped (whatever later reuses the pid) or a zombie ({@link WatchedProcess}). Synchronized: in MULTIPLE mode two threads' health checks may look a rank
     * up at once, and one must not close the file the other reads (a closed file reads as dead).
     */
    private synchronized boolean isAlive(final int rank, final long pid)
    {
        WatchedProcess process = processes[rank];
        if (process == null || process.pid() != pid)
        {
            final ProcessHandle handle = new ProcessIdentity(pid, controls[rank].getLongVolatile(START_OFFSET)).handle().orElse(null);
            if (handle == null)
            {
                return ProcessIdentity.listedButUnreadable(pid); // looked up again at the next check
            }
            if (process != null)
            {
                process.close();
            }
            process = WatchedProcess.of(handle);
            processes[rank] = process;
        }
        return process.isRunning();
    }

    /**
     * Stops watching: closes the processes' /proc files.
     */
    synchronized void close()
    {
        for (final WatchedProcess process : processes)
        {
            if (process != null)
            {
                process.close();
            }
        }
    }

    /**
     * @return true while {@code rank} is registered and has not detached.
     */
    public boolean isAttached(final int rank)
    {
        return control(rank).getIntAcquire(STATE_OFFSET) == STATE_ATTACHED;
    }

    /**
     * @return "absent" (never registered), "attached" or "detached".
     */
    public String stateOf(final int rank)
    {
        final int state = control(rank).getIntAcquire(STATE_OFFSET);
        return state == STATE_ATTACHED ? "attached" : state == STATE_DETACHED ? "detached" : "absent";
    }

    /**
     * @return true if {@code rank} recorded a process that is alive (pid and start time; a zombie is dead).
     */
    public boolean isProcessAlive(final int rank)
    {
        final long pid = pidOf(rank);
        return pid != 0 && isAlive(rank, pid);
    }

    public long pidOf(final int rank)
    {
        return control(rank).getLongAcquire(PID_OFFSET);
    }

    /**
     * Marks {@code rank} detached.
     */
    void detach(final int rank)
    {
        control(rank).putIntRelease(STATE_OFFSET, STATE_DETACHED);
    }

    private UnsafeBuffer control(final int rank)
    {
        if (rank < 0 || rank >= controls.length)
        {
            throw new IllegalArgumentException("rank=" + rank + " (expected: 0.." + (controls.length - 1) + ")");
        }
        return controls[rank];
    }
}
