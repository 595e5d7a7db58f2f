package io.sm4j.segment;

import io.sm4j.layout.ControlBlockDescriptor;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Memory-ordering properties of rank registration ({@link RankRegistry#register}): a CAS of the pid word from
 * 0, a plain store of the start time, a release store of ATTACHED last. Two control blocks over off-heap memory,
 * this JVM registering rank 0. In package {@code io.sm4j.segment} because the registry's constructor is
 * package-private.
 */
public final class RankRegistryStress
{
    private static final ProcessIdentity SELF = ProcessIdentity.current();

    private RankRegistryStress()
    {
    }

    /**
     * @return the owner lines of two ranks, each on its own 128-byte pair of lines.
     */
    private static UnsafeBuffer[] controls()
    {
        final UnsafeBuffer memory = new UnsafeBuffer(BufferUtil.allocateDirectAligned(256, 128));
        return new UnsafeBuffer[]{ new UnsafeBuffer(memory, 0, 128), new UnsafeBuffer(memory, 128, 128) };
    }

    /**
     * ATTACHED publication: a reader that sees ATTACHED ({@link RankRegistry#isAttached}, acquire) sees the pid
     * ({@link RankRegistry#pidOf}) and the start time (read with {@code getLongVolatile}, as the registry's
     * liveness check reads it) of the process that registered. r1 = 1 if ATTACHED was seen, r2 = 1 if pid and
     * start time were both this JVM's. (This JVM's start time is known on Linux, so a start time not yet written
     * reads 0 and differs.)
     */
    @JCStressTest
    @Outcome(id = { "0, 0", "0, 1" }, expect = ACCEPTABLE, desc = "Not attached yet: the identity may be partly written.")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "ATTACHED seen with the pid and the start time.")
    @Outcome(expect = FORBIDDEN, desc = "ATTACHED seen without the pid or the start time.")
    @State
    public static class IdentityVisibleWithAttached
    {
        private final UnsafeBuffer[] controls = controls();
        private final RankRegistry registry = new RankRegistry("jcstress", controls);

        @Actor
        public void rank()
        {
            registry.register(0);
        }

        @Actor
        public void watcher(final II_Result r)
        {
            r.r1 = registry.isAttached(0) ? 1 : 0;
            final long pid = registry.pidOf(0);
            final long start = controls[0].getLongVolatile(ControlBlockDescriptor.START_OFFSET);
            r.r2 = pid == SELF.pid() && start == SELF.startTicks() ? 1 : 0;
        }
    }

    /**
     * A claimed rank is never taken for detached or dead: a watcher that reads the pid and then the state, in
     * {@link RankRegistry#findDeadPeer}'s order (both acquire), may find the pid without ATTACHED (the window
     * between the claim and the publication), but then the state is ABSENT, never DETACHED, and
     * {@link RankRegistry#findDeadPeer} (rank 1 watches rank 0) does not report the registering, live process as
     * dead even if its start time is not visible yet. findDeadPeer runs only in that window (it reads /proc).
     * r1 = 1 if the pid was seen (and is this JVM's; 2 if it is another), r2 = the state, r3 = findDeadPeer's
     * answer in the window, -1 otherwise.
     */
    @JCStressTest
    @Outcome(id = { "0, 0, -1", "0, 1, -1" }, expect = ACCEPTABLE,
        desc = "Pid read before the claim (the state after it): not registered yet, skipped.")
    @Outcome(id = "1, 1, -1", expect = ACCEPTABLE, desc = "Pid and ATTACHED seen.")
    @Outcome(id = "1, 0, -1", expect = ACCEPTABLE_INTERESTING,
        desc = "Pid claimed, ATTACHED not yet seen: state ABSENT, watched and found alive.")
    @Outcome(expect = FORBIDDEN, desc = "Claimed rank seen DETACHED, reported dead, or with a wrong pid.")
    @State
    public static class ClaimedRankNeverDetachedOrDead
    {
        private final UnsafeBuffer[] controls = controls();
        private final RankRegistry registry = new RankRegistry("jcstress", controls);

        @Actor
        public void rank()
        {
            registry.register(0);
        }

        @Actor
        public void watcher(final III_Result r)
        {
            final long pid = controls[0].getLongAcquire(ControlBlockDescriptor.PID_OFFSET);
            final int state = controls[0].getIntAcquire(ControlBlockDescriptor.STATE_OFFSET);
            r.r1 = pid == 0 ? 0 : pid == SELF.pid() ? 1 : 2;
            r.r2 = state;
            r.r3 = pid != 0 && state != ControlBlockDescriptor.STATE_ATTACHED ? registry.findDeadPeer(1) : -1;
        }
    }
}
