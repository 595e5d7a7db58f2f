package io.sm4j.launch;

import io.sm4j.job.CpuBudget;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.JobAbortedException;
import io.sm4j.segment.IncubatorLinker;
import io.sm4j.segment.JvmAccess;
import io.sm4j.segment.NativeCopy;
import io.sm4j.segment.Segment;
import io.sm4j.segment.SegmentFiles;
import io.sm4j.segment.Sm4jException;
import io.sm4j.segment.StaleSegments;
import io.sm4j.transport.Endpoints;
import io.sm4j.transport.TransportOptions;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Starts and supervises the N JVMs of one job over one segment.
 */
public final class JobLauncher
{
    /** Flags every rank JVM gets: Agrona 2.x needs jdk.internal.misc. */
    public static final List<String> JVM_FLAGS = List.of((JvmAccess.FLAG + " " + JvmAccess.NATIVE_ACCESS_FLAG).split(" "));

    /**
     * What to run.
     *
     * @param params    layout parameters; peers is the number of ranks.
     * @param dir       segment directory.
     * @param classpath classpath of the rank JVMs (ignored with -jar).
     * @param command   main class and arguments, or "-jar", jar, arguments.
     * @param jvmArgs   extra JVM options.
     * @param env       extra environment variables.
     * @param grace     how long the other ranks get after a failure before they are killed.
     * @param limit     wall-clock limit of the job from when every rank has attached (or from
     *                  {@link #START_UP_ALLOWANCE} after the start, if they have not), {@link Duration#ZERO}: none;
     *                  on expiry the job is
     *                  aborted like a failed rank and ends with {@link #TIMED_OUT}.
     * @param processes ranks started as JVMs, 0..processes-1; the launcher registers the others (up to
     *                  {@code params.peers()}) as idle ranks that never send, so that a segment sized for many
     *                  ranks can be measured with a few (what idle peers cost the receive scan).
     * @param binding   where the rank JVMs run.
     * @param stoppedLimit how long a rank may be stopped (SIGSTOP, a native debugger) before the job is aborted
     *                  ({@link #STOPPED}), {@link Duration#ZERO}: no limit (a warning after {@link StoppedRanks#NOTICE}).
     */
    public record Job(
        LayoutParams params, Path dir, String classpath, List<String> command, List<String> jvmArgs,
        Map<String, String> env, Duration grace, Duration limit, int processes, Binding binding, Duration stoppedLimit)
    {
        /**
         * A job without a stopped limit.
         */
        public Job(
            final LayoutParams params, final Path dir, final String classpath, final List<String> command,
            final List<String> jvmArgs, final Map<String, String> env, final Duration grace, final Duration limit,
            final int processes, final Binding binding)
        {
            this(params, dir, classpath, command, jvmArgs, env, grace, limit, processes, binding, Duration.ZERO);
        }

        /**
         * A job in which every rank is a JVM.
         */
        public Job(
            final LayoutParams params, final Path dir, final String classpath, final List<String> command,
            final List<String> jvmArgs, final Map<String, String> env, final Duration grace, final Duration limit)
        {
            this(params, dir, classpath, command, jvmArgs, env, grace, limit, params.peers(), Binding.NONE, Duration.ZERO);
        }

        public Job
        {
            if (processes < 1 || processes > params.peers())
            {
                throw new IllegalArgumentException("processes=" + processes + " (expected: 1.." + params.peers() + ")");
            }
            if (binding == Binding.CORE && !Executables.onPath("taskset"))
            {
                throw new IllegalArgumentException("--bind-to core needs taskset (util-linux), which is not on the PATH");
            }
        }
    }

    /** Exit code of a job whose ranks all exited 0 but some of whose output could not be passed on. */
    public static final int LOST_OUTPUT = 74;

    /** Start-up time not counted in a job's time limit: at most the ranks' default attach timeout. */
    public static final Duration START_UP_ALLOWANCE = Duration.ofSeconds(30);

    /** Exit code of a job that exceeded its time limit (as timeout(1) does). */
    public static final int TIMED_OUT = 124;

    /** Exit code of a job aborted because a rank was stopped past the job's stopped limit. */
    public static final int STOPPED = 125;

    private JobLauncher()
    {
    }

    /**
     * @return 0 if every rank exited 0, else the first non-zero exit code.
     */
    public static int run(final Job job, final PrintWriter out, final PrintWriter err)
    {
        final long jobId = SegmentFiles.newJobId();
        final int n = job.params().peers();
        reclaimStale(job.dir(), err);
        // before any rank starts: a bad setting is said once, here, not by every rank
        final Map<String, String> rankEnv = rankEnvironment(job);
        checkSettings(job, rankEnv);
        Segment.checkCreatable(job.params(), job.dir());
        // the shutdown hook reads this list from another thread while ranks are being started
        final List<Process> ranks = new CopyOnWriteArrayList<>();
        final List<OutputPump> pumps = new CopyOnWriteArrayList<>();
        final AtomicBoolean stopping = new AtomicBoolean();
        // registered before the first byte of the file is written: a SIGTERM or Ctrl-C while the segment is
        // being allocated removes the partial file too
        final Thread cleanup = new Thread(() ->
        {
            stopping.set(true); // the supervising thread runs on: it must not report the ranks' exits as failures
            stop(ranks, pumps, job.grace(), err);
            out.flush(); // what the pumps forwarded: the JVM halts after the hooks
            SegmentFiles.deleteQuietly(SegmentFiles.creatingPath(job.dir(), jobId));
            SegmentFiles.deleteSegment(SegmentFiles.path(job.dir(), jobId));
        });
        Runtime.getRuntime().addShutdownHook(cleanup);
        ClassDataArchive archive = ClassDataArchive.OFF;
        boolean succeeded = false;
        try
        {
            // the ranks start first and wait for the file: a launcher killed at any point after this leaves
            // processes that remove what it made (a rank that finds the launcher dead reclaims the job's files),
            // and the JVMs start up while the segment is allocated
            final List<Integer> cpus = job.binding() == Binding.CORE ? CpuBudget.allowedCpus() : List.of();
            final Path path = SegmentFiles.path(job.dir(), jobId);
            final boolean incubator = IncubatorLinker.forJvm(job.jvmArgs());
            final List<String> jvmArgs = incubator ? withIncubator(job.jvmArgs()) : job.jvmArgs();
            archive = ClassDataArchive.forJob(rankEnv, job.classpath(), jvmArgs, job.command(),
                line -> err.println("sm4j run: " + line));
            for (int rank = 0; rank < job.processes(); rank++)
            {
                final Process process = start(job, withArchive(jvmArgs, archive.jvmArgs(rank)), path, jobId, rank, cpus);
                ranks.add(process);
                pumps.add(OutputPump.start(process.getInputStream(), out, rank, "output"));
                // the warning of the module withIncubator resolves is sm4j's, not the rank's
                pumps.add(OutputPump.start(process.getErrorStream(), err, rank, "error output",
                    incubator ? IncubatorLinker.WARNING : null));
            }
            try (Segment segment = Segment.create(job.params(), job.dir(), jobId))
            {
                for (int idle = job.processes(); idle < n; idle++)
                {
                    segment.ranks().register(idle);
                }
                final int code = supervise(ranks, segment, job, err, stopping);
                succeeded = code == 0 && !stopping.get(); // a stopped job's rank 0 may have been killed in its dump
                boolean lostOutput = false;
                for (final OutputPump pump : pumps)
                {
                    pump.join(TimeUnit.SECONDS.toMillis(5));
                    lostOutput |= pump.failed();
                }
                return code == 0 && lostOutput ? LOST_OUTPUT : code;
            }
        }
        catch (final IOException ex)
        {
            throw new Sm4jException("cannot start rank JVMs: " + ex.getMessage(), ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return 130;
        }
        finally
        {
            ranks.forEach(Process::destroyForcibly);
            removeHook(cleanup);
            finishArchive(archive, succeeded);
        }
    }

    /**
     * Reads the ranks' settings ({@code SM4J_*}) from the environment they will get, as each rank will.
     *
     * @throws io.sm4j.segment.BadSettingException naming the first bad one.
     */
    private static void checkSettings(final Job job, final Map<String, String> env)
    {
        final TransportOptions options = TransportOptions.fromEnvironment(env);
        options.lazyFreeBatch(job.params().queueEntries());
        options.checkBell();
        NativeCopy.checkForRanks(env.get(NativeCopy.ENV));
        ArchiveDirectory.of(env);
    }

    /**
     * @return the environment the ranks will get, but for what the launcher sets per job and rank.
     */
    private static Map<String, String> rankEnvironment(final Job job)
    {
        final Map<String, String> env = new java.util.HashMap<>(System.getenv());
        env.putAll(job.env());
        env.remove(TransportOptions.LAUNCHER_PID_ENV); // the launcher sets it
        return env;
    }

    /**
     * Removes the segments in {@code dir} whose jobs are dead (killed launchers and ranks), saying so.
     */
    private static void reclaimStale(final Path dir, final PrintWriter err)
    {
        try
        {
            for (final StaleSegments.Entry stale : StaleSegments.reclaim(dir, false))
            {
                err.println("sm4j run: removed stale segment " + stale.path() + " (" + stale.state() + ", " +
                    String.format(java.util.Locale.ROOT, "%,d", stale.size()) + " bytes: " + stale.verdict() + ")");
            }
        }
        catch (final IOException ex)
        {
            err.println("sm4j run: cannot look for stale segments in " + dir + ": " + ex.getMessage());
        }
    }

    /**
     * The launcher is shutting down before its job ended (SIGINT, SIGTERM, SIGHUP): forwards SIGTERM to the
     * ranks still running so that their own shutdown hooks run, waits up to {@code grace}, kills the rest,
     * and says what happened.
     */
    private static void stop(final List<Process> ranks, final List<OutputPump> pumps, final Duration grace, final PrintWriter err)
    {
        final List<Integer> running = new ArrayList<>();
        for (int rank = 0; rank < ranks.size(); rank++)
        {
            if (ranks.get(rank).isAlive())
            {
                running.add(rank);
                // SIGTERM through the handle: Process.destroy would also close the pipes, losing what the rank's
                // shutdown hooks print
                ranks.get(rank).toHandle().destroy();
            }
        }
        if (running.isEmpty())
        {
            return;
        }
        err.println("sm4j run: interrupted (SIGINT, SIGTERM or SIGHUP): sent SIGTERM to rank(s) " + running +
            "; killing any still running after " + grace.toMillis() + " ms");
        final long deadline = System.nanoTime() + grace.toNanos();
        final List<Integer> killed = new ArrayList<>();
        try
        {
            for (final int rank : running)
            {
                if (!ranks.get(rank).waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS))
                {
                    killed.add(rank);
                    ranks.get(rank).destroyForcibly();
                }
            }
            final long printed = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            for (final OutputPump pump : pumps)
            {
                // what the ranks printed while stopping
                pump.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(printed - System.nanoTime())));
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            ranks.forEach(Process::destroyForcibly);
        }
        err.println(killed.isEmpty() ? "sm4j run: every rank stopped" :
            "sm4j run: killed rank(s) " + killed + " after the " + grace.toMillis() + " ms grace period");
        err.flush();
    }

    /**
     * Dumps or drops the job's class data archive ({@link ClassDataArchive#finish}): whatever happens there, the job's
     * result stands.
     */
    private static void finishArchive(final ClassDataArchive archive, final boolean succeeded)
    {
        try
        {
            archive.finish(succeeded);
        }
        catch (final RuntimeException ignore)
        {
            // a cache: the next job tries again
        }
    }

    private static void removeHook(final Thread hook)
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException ignore)
        {
            // the JVM is already shutting down: the hook runs
        }
    }

    /**
     * @param classpath classpath (ignored when {@code command} starts with -jar).
     * @param jvmArgs   extra JVM options.
     * @param command   main class and arguments, or "-jar", jar, arguments, or none (a JVM run for its options).
     * @return the command line of a JVM that can load Agrona: this JVM's java, {@link #JVM_FLAGS}, then the rest.
     */
    public static List<String> javaCommand(final String classpath, final List<String> jvmArgs, final List<String> command)
    {
        final List<String> line = new ArrayList<>();
        line.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        line.addAll(JVM_FLAGS);
        line.addAll(jvmArgs);
        if (command.isEmpty() || !command.get(0).equals("-jar"))
        {
            line.add("-cp");
            line.add(classpath);
        }
        line.addAll(command);
        return line;
    }

    /**
     * @return a JDK 17 rank's JVM options: first the incubating foreign linker's module, with which it reads its
     *         peers' large messages by process_vm_readv ({@link IncubatorLinker#forJvm}), then {@code jvmArgs}.
     */
    private static List<String> withIncubator(final List<String> jvmArgs)
    {
        final List<String> args = new ArrayList<>(List.of(IncubatorLinker.FLAG));
        args.addAll(jvmArgs);
        return args;
    }

    private static List<String> withArchive(final List<String> jvmArgs, final List<String> archiveArgs)
    {
        if (archiveArgs.isEmpty())
        {
            return jvmArgs;
        }
        final List<String> args = new ArrayList<>(archiveArgs);
        args.addAll(jvmArgs);
        return args;
    }

    /**
     * @param jvmArgs the ranks' JVM options: the job's, and what sm4j adds.
     * @param cpus    the CPUs to bind ranks to in turn, empty for no binding.
     */
    private static Process start(
        final Job job, final List<String> jvmArgs, final Path segment, final long jobId, final int rank, final List<Integer> cpus)
        throws IOException
    {
        final List<String> line = new ArrayList<>();
        if (!cpus.isEmpty())
        {
            line.addAll(List.of("taskset", "-c", Integer.toString(cpus.get(rank % cpus.size()))));
        }
        line.addAll(javaCommand(job.classpath(), jvmArgs, job.command()));
        final ProcessBuilder builder = new ProcessBuilder(line);
        builder.environment().putAll(job.env());
        builder.environment().remove(Endpoints.OWN_CORE_ENV); // inherited (a launcher started from a bound rank): not this job's binding
        if (!cpus.isEmpty() && job.processes() <= cpus.size())
        {
            // every rank has a core of its own: AUTO need not judge contention from its waits (a bound rank is
            // allowed one core, fewer than the ranks, and would otherwise wait by yielding)
            builder.environment().put(Endpoints.OWN_CORE_ENV, Integer.toString(cpus.get(rank)));
        }
        builder.environment().put(Endpoints.SEGMENT_ENV, segment.toString());
        builder.environment().put(Endpoints.RANK_ENV, Integer.toString(rank));
        builder.environment().put(Endpoints.SIZE_ENV, Integer.toString(job.params().peers()));
        builder.environment().put(Endpoints.JOB_ID_ENV, SegmentFiles.jobIdText(jobId));
        builder.environment().put(TransportOptions.LAUNCHER_PID_ENV, Long.toString(ProcessHandle.current().pid()));
        builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        return builder.start();
    }

    /**
     * Waits for all ranks; on the first failure (or when the job's time limit passes) marks the job ABORTED,
     * waits the grace period, kills the rest.
     */
    private static int supervise(
        final List<Process> ranks, final Segment segment, final Job job, final PrintWriter err, final AtomicBoolean stopping)
        throws InterruptedException
    {
        // the limit counts from the moment every rank has attached: JVM start-up on a loaded machine is not the
        // job's time; a job whose ranks do not all attach within START_UP_ALLOWANCE is timed from then on
        final long started = System.nanoTime();
        long deadline = Long.MAX_VALUE;
        int firstFailure = 0;
        // the rank that recorded its own failure as the job's abort before the first failing exit: its code is the job's
        int rootRank = -1;
        long killAt = Long.MAX_VALUE;
        final boolean[] done = new boolean[ranks.size()];
        int remaining = ranks.size();
        try (StoppedRanks stopped = new StoppedRanks(ranks, segment, job.stoppedLimit()))
        {
            while (remaining > 0)
            {
                boolean waited = false;
                for (int rank = 0; rank < ranks.size(); rank++)
                {
                    if (done[rank])
                    {
                        continue;
                    }
                    // one pass waits 10 ms on the first rank still running, and only looks at the others: a pass of
                    // 10 ms per rank took 0.64 s at 64 ranks, by which the time limit and the kills came late
                    final boolean exited = waited ? !ranks.get(rank).isAlive() : ranks.get(rank).waitFor(10, TimeUnit.MILLISECONDS);
                    waited = true;
                    if (!exited)
                    {
                        continue;
                    }
                    done[rank] = true;
                    remaining--;
                    final int code = ranks.get(rank).exitValue();
                    if (code != 0 && rank == rootRank)
                    {
                        firstFailure = code;
                    }
                    if (code != 0 && firstFailure == 0 && !stopping.get())
                    {
                        firstFailure = code;
                        final JobAbortedException recorded = recordedAbort(segment, err);
                        if (recorded != null && recorded.abortingRank() >= 0)
                        {
                            // the first failure was recorded in the segment: a rank that threw, or that found a peer dead;
                            // a rank exiting first is usually one that reacted to it
                            err.println("sm4j run: rank " + rank + " exited with code " + code + "; the job was aborted by rank " +
                                recorded.abortingRank() + ": " + recorded.reason());
                            // a rank that threw is the cause: its exit, if later and non-zero, replaces this code (a rank
                            // that found a peer dead is not: the dead one's code, usually this one, stays)
                            rootRank = recorded.isOwnFailure() ? recorded.abortingRank() : -1;
                            if (recorded.exitCode() > 0 && recorded.exitCode() < 256)
                            {
                                firstFailure = recorded.exitCode(); // a rank's abort(code, reason), as mpirun after MPI_Abort
                            }
                            killAt = System.nanoTime() + job.grace().toNanos();
                        }
                        else
                        {
                            killAt = abort(segment, "rank " + rank + " exited with code " + code, job.grace(), err);
                        }
                    }
                }
                if (deadline == Long.MAX_VALUE && !job.limit().isZero() &&
                    (System.nanoTime() - started > START_UP_ALLOWANCE.toNanos() || allAttached(segment)))
                {
                    deadline = System.nanoTime() + job.limit().toNanos();
                }
                if (firstFailure == 0 && remaining > 0 && System.nanoTime() - deadline > 0)
                {
                    firstFailure = TIMED_OUT;
                    killAt = abort(segment, "time limit of " + job.limit().toSeconds() + " s passed with " +
                        stillRunning(done, segment) + " still running", job.grace(), err);
                }
                final String stoppedTooLong = firstFailure == 0 ? stopped.check(System.nanoTime(), done, err) : null;
                if (stoppedTooLong != null)
                {
                    firstFailure = STOPPED;
                    killAt = abort(segment, stoppedTooLong, job.grace(), err);
                }
                if (System.nanoTime() - killAt > 0)
                {
                    for (int rank = 0; rank < ranks.size(); rank++)
                    {
                        if (!done[rank] && ranks.get(rank).isAlive())
                        {
                            err.println("sm4j run: killing rank " + rank + " after the " + job.grace().toMillis() + " ms grace period");
                            ranks.get(rank).destroyForcibly();
                        }
                    }
                    killAt = Long.MAX_VALUE;
                }
            }
        }
        return firstFailure;
    }

    /**
     * @return true once every rank has registered; false if the header can no longer be read.
     */
    private static boolean allAttached(final Segment segment)
    {
        try
        {
            segment.checkIntact();
            return segment.ranks().missing().isEmpty();
        }
        catch (final Sm4jException | InternalError error)
        {
            return false; // truncated: the ranks fail, and the launcher reports it when they exit
        }
    }

    /** Marks the job ABORTED and returns when the survivors are to be killed. */
    private static long abort(final Segment segment, final String reason, final Duration grace, final PrintWriter err)
    {
        err.println("sm4j run: " + reason + "; aborting the job");
        try
        {
            segment.abort(-1, reason);
        }
        catch (final Sm4jException truncated)
        {
            err.println("sm4j run: cannot mark the job aborted: " + truncated.getMessage());
        }
        catch (final InternalError error)
        {
            err.println("sm4j run: cannot mark the job aborted: " + segment.fault(error).getMessage());
        }
        return System.nanoTime() + grace.toNanos();
    }

    /**
     * @return the abort a rank or the launcher recorded in the segment, or null if the job is not aborted (or
     *         its header can no longer be read, which is said).
     */
    private static JobAbortedException recordedAbort(final Segment segment, final PrintWriter err)
    {
        try
        {
            segment.checkIntact();
            segment.checkNotAborted();
            return null;
        }
        catch (final JobAbortedException aborted)
        {
            return aborted;
        }
        catch (final InternalError error)
        {
            err.println("sm4j run: cannot read the job's state: " + segment.fault(error).getMessage());
            return null;
        }
        catch (final Sm4jException unreadable)
        {
            err.println("sm4j run: cannot read the job's state: " + unreadable.getMessage());
            return null;
        }
    }

    /**
     * Names the ranks still running and when each last waited inside sm4j (its heartbeat): a rank that
     * waited recently is blocked in sm4j, one that has not for long is busy in the application (or busy
     * receiving: the heartbeat is written only while waiting). Compares System.nanoTime() across
     * processes, which on Linux is one clock (CLOCK_MONOTONIC).
     */
    private static String stillRunning(final boolean[] done, final Segment segment)
    {
        final StringBuilder text = new StringBuilder();
        final long now = System.nanoTime(); // a heartbeat written after this read is "0 ms ago", not negative
        for (int rank = 0; rank < done.length; rank++)
        {
            if (!done[rank])
            {
                final long heartbeat = segment.ranks().lastHeartbeat(rank);
                text.append(text.length() == 0 ? "rank " : ", rank ").append(rank).append(heartbeat == 0 ?
                    " (never attached)" : " (last waited in sm4j " + TimeUnit.NANOSECONDS.toMillis(Math.max(0, now - heartbeat)) + " ms ago)");
            }
        }
        return text.toString();
    }
}
