package io.sm4j.message;

import io.sm4j.segment.SegmentFiles;
import io.sm4j.segment.Sm4jException;
import io.sm4j.transport.TransportOptions;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A job of N ranks as threads of this JVM, in one call: for tests, and for using the API inside one
 * process. It creates the segment, runs each rank's body on a thread of its own with its own
 * {@link Communicator}, and removes every file of the job when they are done.
 * <pre>{@code
 * ThreadJob.run(4, comm -> {
 *     double[] sum = new double[1];
 *     comm.allReduce(new double[]{ comm.rank() }, sum, Op.SUM);
 * });
 * }</pre>
 * A rank whose body throws aborts the job with its failure as the cause, so the other ranks' waits end at
 * once with that cause (not with "the peer has detached"); {@link #run} then throws it.
 */
public final class ThreadJob
{
    private ThreadJob()
    {
    }

    /**
     * One rank's work: it gets its own communicator, attached and closed around the call.
     */
    @FunctionalInterface
    public interface RankBody
    {
        void run(Communicator comm) throws Exception;
    }

    /**
     * As {@link #run(Path, int, RankBody)} in the default directory ({@code $SM4J_DIR}, else /dev/shm, else
     * java.io.tmpdir).
     */
    public static void run(final int size, final RankBody body) throws InterruptedException
    {
        run(null, size, body);
    }

    /**
     * Runs {@code body} as ranks 0..size-1 of a new job in {@code dir}, each on a thread of its own, and
     * returns when every rank has finished; the job's files are gone then, whatever happened.
     *
     * @throws Sm4jException            "rank R of N failed: ..." with the first rank's failure as its cause,
     *                                  the others' (the job's abort, as they saw it) suppressed.
     * @throws InterruptedException     if this thread is interrupted while it waits: the job is aborted (every
     *                                  rank's sm4j call then throws), the rank threads are interrupted, and
     *                                  the files are removed once they have stopped.
     * @throws IllegalArgumentException for a bad size or directory, before any thread starts.
     */
    public static void run(final Path dir, final int size, final RankBody body) throws InterruptedException
    {
        run(dir, size, TransportOptions.defaults(), body);
    }

    /**
     * As {@link #run(Path, int, RankBody)}, each rank attached with {@code options} (how it waits, its
     * unexpected-message budget, ...) instead of the defaults.
     */
    public static void run(final Path dir, final int size, final TransportOptions options, final RankBody body)
        throws InterruptedException
    {
        if (body == null || options == null)
        {
            throw new NullPointerException(body == null ? "body is null" : "options is null");
        }
        final Path segment = Communicator.createSegment(dir, size);
        final Ranks ranks = new Ranks(size);
        final AtomicReference<Failure> first = new AtomicReference<>();
        final List<Throwable> others = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        try
        {
            for (int rank = 0; rank < size; rank++)
            {
                final int r = rank;
                final Thread thread = new Thread(() -> runRank(segment, r, options, body, ranks, first, others), "sm4j-rank-" + r);
                threads.add(thread);
                thread.start();
            }
            join(threads, ranks);
        }
        finally
        {
            SegmentFiles.deleteSegment(segment); // gone already unless a rank failed before the last close
        }
        final Failure failure = first.get();
        if (failure != null)
        {
            final Sm4jException thrown = new Sm4jException("rank " + failure.rank + " of " + size + " failed: " + failure.cause,
                failure.cause);
            synchronized (others)
            {
                others.forEach(thrown::addSuppressed);
            }
            throw thrown;
        }
    }

    private static void runRank(
        final Path segment, final int rank, final TransportOptions options, final RankBody body, final Ranks ranks,
        final AtomicReference<Failure> first, final List<Throwable> others)
    {
        try (Communicator comm = Communicator.attach(segment, rank, ranks.comms.length(), options))
        {
            try
            {
                ranks.attached(rank, comm);
                body.run(comm);
            }
            catch (final Throwable failure)
            {
                if (first.compareAndSet(null, new Failure(rank, failure)))
                {
                    comm.abortFor(failure); // before this rank's close detaches it: the failure is the cause
                }
                throw failure;
            }
        }
        catch (final Throwable failure)
        {
            if (first.compareAndSet(null, new Failure(rank, failure)) || first.get().cause == failure)
            {
                return;
            }
            synchronized (others)
            {
                others.add(failure);
            }
        }
    }

    private static void join(final List<Thread> threads, final Ranks ranks) throws InterruptedException
    {
        try
        {
            for (final Thread thread : threads)
            {
                thread.join();
            }
        }
        catch (final InterruptedException ex)
        {
            ranks.stop(); // sm4j's waits do not end by an interrupt: the abort ends them, at once
            threads.forEach(Thread::interrupt); // for the bodies' own waits
            for (final Thread thread : threads)
            {
                thread.join();
            }
            throw ex;
        }
    }

    /**
     * The ranks' communicators once attached, and whether the job was stopped: a rank that attaches after
     * {@link #stop} aborts the job itself.
     */
    private static final class Ranks
    {
        /** The abort's reason. */
        static final String INTERRUPTED = "ThreadJob.run was interrupted";
        final AtomicReferenceArray<Communicator> comms;
        private volatile boolean stopped;

        Ranks(final int size)
        {
            comms = new AtomicReferenceArray<>(size);
        }

        void attached(final int rank, final Communicator comm)
        {
            // NOTE: volatile stores and loads on both sides (Dekker): stop() sees this rank's communicator, or this
            // rank sees stopped, or both
            comms.set(rank, comm);
            if (stopped)
            {
                comm.abortJob(INTERRUPTED);
            }
        }

        void stop()
        {
            stopped = true;
            for (int rank = 0; rank < comms.length(); rank++)
            {
                final Communicator comm = comms.get(rank);
                try
                {
                    if (comm != null)
                    {
                        comm.abortJob(INTERRUPTED);
                        return; // the job's abort reaches every rank
                    }
                }
                catch (final RuntimeException closed)
                {
                    // this rank has finished and closed its communicator: another one aborts
                }
            }
        }
    }

    private record Failure(int rank, Throwable cause)
    {
    }
}
