package io.sm4j.it;

import io.sm4j.job.CpuBudget;
import io.sm4j.job.HealthMonitor;
import io.sm4j.layout.DoorbellDescriptor;
import io.sm4j.message.Communicator;
import io.sm4j.message.Request;
import io.sm4j.segment.JobAbortedException;
import io.sm4j.segment.Segment;
import io.sm4j.segment.Sm4jException;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.Endpoints;
import io.sm4j.transport.TransportOptions;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Rank programs for the waiting tests ({@link WaitTest}); the first argument picks one:
 * <ul>
 *   <li>{@code wake N}: rank 0 sends N messages to rank 1, each timed to land while rank 1 arms its doorbell
 *       (rank 0 watches rank 1's doorbell word in the segment and sends once it reads ARMED, at once or a
 *       moment later); rank 1 answers each. Rank 1 prints the messages it received, its sleeps and how many
 *       ended by timeout; rank 0 how many of those timeouts its own late sends could explain: a send made
 *       100 ms or more after rank 1's answer (this rank descheduled) excuses one per 100 ms.</li>
 *   <li>{@code quiet MILLIS}: rank 1 waits in recv while rank 0 sends nothing for MILLIS ms, then one
 *       message; rank 1 prints the CPU its process used meanwhile and how soon it woke.</li>
 *   <li>{@code allpairs ROUNDS FLOOD}: on two cores only, every rank sends to every other (8 B to 32 KiB,
 *       isend/irecv), a barrier per round, then every rank floods rank 0 with FLOOD messages of 1 KiB while rank
 *       0 sleeps 1 s before it receives; every byte is checked.</li>
 *   <li>{@code killpeer}: rank 1 waits in recv from rank 2, which kills itself with SIGKILL once it sees rank
 *       1's doorbell armed (rank 1 is falling asleep); rank 1 prints the error it got and how long after it
 *       began to wait.</li>
 *   <li>{@code attach SEGMENT RANK SIZE}: joins a segment made by the test (no launcher), prints its pid,
 *       then every rank but the last waits to receive from the last, which waits forever.</li>
 * </ul>
 */
public final class WaitApp
{
    private static final int TAG = 3;

    private WaitApp()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        switch (args[0])
        {
            case "wake" -> wake(Integer.parseInt(args[1]));
            case "quiet" -> quiet(Long.parseLong(args[1]));
            case "allpairs" -> allPairs(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            case "killpeer" -> killPeer();
            case "attach" -> attach(Path.of(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]));
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    private static void wake(final int messages)
    {
        // rank 1 cannot wait before every rank has attached: its first wait starts after this
        long answered = System.nanoTime();
        final Endpoint endpoint = Endpoints.attachFromEnvironment();
        try (Communicator comm = new Communicator(endpoint);
            Segment view = Segment.attach(Path.of(System.getenv(Endpoints.SEGMENT_ENV)), Duration.ofSeconds(5)))
        {
            final byte[] buffer = new byte[8];
            final UnsafeBuffer stamp = new UnsafeBuffer(buffer); // rank 1's answers carry when it sent them
            if (comm.rank() == 0)
            {
                final UnsafeBuffer bell = view.views().bell(1);
                int armed = 0;
                int slow = 0;
                int napped = 0;
                int held = 0;
                for (int i = 0; i < messages; i++)
                {
                    final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
                    while (!armed(bell) && System.nanoTime() - deadline < 0)
                    {
                        Thread.onSpinWait();
                    }
                    final long seen = System.nanoTime();
                    armed += armed(bell) ? 1 : 0;
                    spinNanos(ThreadLocalRandom.current().nextInt(3) * 1_000L); // on the arm, or a little after it
                    comm.send(1, TAG, buffer);
                    // rank 1 began to wait after it sent its answer, and each of its sleeps lasts 100 ms at most
                    // (HealthMonitor.INTERVAL_NANOS): so many of them can have ended by timeout before this message
                    // rang, if this rank was held up (descheduled) that long; a lost wake-up does not slow the send,
                    // only the answer, so it cannot excuse itself here
                    held += (int)((System.nanoTime() - answered) / HealthMonitor.INTERVAL_NANOS);
                    comm.recv(1, TAG, buffer);
                    answered = stamp.getLong(0);
                    final long took = System.nanoTime() - seen;
                    slow += took >= TimeUnit.MILLISECONDS.toNanos(50) ? 1 : 0;
                    // found by rank 1's second look, after its nap, rather than by a ring (or this rank was held up)
                    napped += took >= TimeUnit.MILLISECONDS.toNanos(1) ? 1 : 0;
                }
                System.out.println("rank 0 sent " + messages + " messages, " + armed + " of them to an armed rank 1, " +
                    napped + " round trips slower than 1 ms, " + slow + " round trips slower than 50 ms, " + held +
                    " sleeps its sends held up could excuse");
            }
            else
            {
                int received = 0;
                for (int i = 0; i < messages; i++)
                {
                    comm.recv(0, TAG, buffer);
                    received++;
                    stamp.putLong(0, System.nanoTime()); // System.nanoTime() is the machine's monotonic clock
                    comm.send(0, TAG, buffer);
                }
                final Endpoint.WaitCounters counters = endpoint.waitCounters();
                System.out.println("rank 1 received " + received + " messages, slept " + counters.sleeps() +
                    " times, " + counters.timedOut() + " sleeps timed out, " + counters.onFutex() + " blocks on a futex");
            }
        }
    }

    /**
     * @return true if the rank of this doorbell word is armed, for its socket or for a futex wait.
     */
    private static boolean armed(final UnsafeBuffer bell)
    {
        final long state = bell.getLongVolatile(0);
        return state == DoorbellDescriptor.ARMED || state == DoorbellDescriptor.ARMED_FUTEX;
    }

    private static void quiet(final long millis) throws InterruptedException
    {
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            final UnsafeBuffer message = new UnsafeBuffer(new byte[8]);
            comm.barrier();
            // one round trip first: the timed send below is then not the rank's first (class loading, interpreter)
            final int peer = 1 - comm.rank();
            if (comm.rank() == 0)
            {
                comm.send(peer, TAG, message, 0, 8);
                comm.recv(peer, TAG, message, 0, 8);
            }
            else
            {
                comm.recv(peer, TAG, message, 0, 8);
                comm.send(peer, TAG, message, 0, 8);
            }
            if (comm.rank() == 0)
            {
                Thread.sleep(millis); // the scenario: nothing is sent for this long
                message.putLong(0, System.nanoTime());
                comm.send(1, TAG, message, 0, 8);
            }
            else
            {
                final com.sun.management.OperatingSystemMXBean os =
                    (com.sun.management.OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean();
                final long cpuBefore = os.getProcessCpuTime();
                final long before = System.nanoTime();
                comm.recv(0, TAG, message, 0, 8);
                final long arrived = System.nanoTime();
                final long cpu = os.getProcessCpuTime() - cpuBefore;
                System.out.println("rank 1 waited " + TimeUnit.NANOSECONDS.toMillis(arrived - before) + " ms using " +
                    TimeUnit.NANOSECONDS.toMillis(cpu) + " ms of CPU, woken " +
                    TimeUnit.NANOSECONDS.toMicros(arrived - message.getLong(0)) + " us after the send");
            }
        }
    }

    /**
     * Confines every thread of this JVM to two cores before it attaches (through {@code taskset}, where the
     * machine has more): the job then has more ranks than cores on any machine, as on the 2-core one it was
     * written on, and its ranks start yielding. Says how many processors it may use.
     */
    private static void onTwoCores() throws Exception
    {
        final List<Integer> allowed = CpuBudget.allowedCpus(); // a container's cpuset may not hold CPUs 0 and 1
        if (allowed.size() > 2)
        {
            final Process taskset = new ProcessBuilder("taskset", "-a", "-p", "-c", allowed.get(0) + "," + allowed.get(1),
                Long.toString(ProcessHandle.current().pid())).redirectErrorStream(true).start();
            final String said = new String(taskset.getInputStream().readAllBytes());
            if (taskset.waitFor() != 0)
            {
                throw new IllegalStateException("taskset failed: " + said);
            }
        }
        System.out.println("processors: " + Runtime.getRuntime().availableProcessors());
    }

    private static void allPairs(final int rounds, final int flood) throws Exception
    {
        onTwoCores();
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            final int rank = comm.rank();
            final int size = comm.size();
            for (int round = 0; round < rounds; round++)
            {
                final int length = 8 << (2 * (round % 7)); // 8 B .. 32 KiB: eager and rendezvous
                final List<Request> requests = new ArrayList<>();
                final byte[][] in = new byte[size][length];
                final byte[] out = new byte[length];
                java.util.Arrays.fill(out, (byte)(rank * 31 + round));
                for (int peer = 0; peer < size; peer++)
                {
                    if (peer != rank)
                    {
                        requests.add(comm.irecv(peer, TAG, in[peer], 0, length));
                    }
                }
                for (int peer = 0; peer < size; peer++)
                {
                    if (peer != rank)
                    {
                        requests.add(comm.isend(peer, TAG, out, 0, length));
                    }
                }
                requests.forEach(Request::await);
                for (int peer = 0; peer < size; peer++)
                {
                    for (int i = 0; peer != rank && i < length; i++)
                    {
                        if (in[peer][i] != (byte)(peer * 31 + round))
                        {
                            throw new IllegalStateException("round " + round + ": byte " + i + " from rank " + peer + " is wrong");
                        }
                    }
                }
                comm.barrier();
            }
            final byte[] message = new byte[1024];
            if (rank == 0)
            {
                Thread.sleep(1000); // the scenario: the senders fill what rank 0 can hold and wait for room
                final long[] next = new long[size];
                for (int i = 0; i < flood * (size - 1); i++)
                {
                    final int source = comm.recv(Communicator.ANY_SOURCE, TAG, message).source();
                    final long sequence = new UnsafeBuffer(message).getLong(0);
                    if (sequence != next[source]++)
                    {
                        throw new IllegalStateException("from rank " + source + ": message " + sequence + " out of order");
                    }
                }
            }
            else
            {
                final UnsafeBuffer buffer = new UnsafeBuffer(message);
                for (int i = 0; i < flood; i++)
                {
                    buffer.putLong(0, i);
                    comm.send(0, TAG, message);
                }
            }
            comm.barrier();
            System.out.println("rank " + rank + ": " + rounds + " all-pairs rounds and the flood ok");
        }
    }

    private static void killPeer() throws Exception
    {
        try (Communicator comm = Communicator.attachFromEnvironment();
            Segment view = Segment.attach(Path.of(System.getenv(Endpoints.SEGMENT_ENV)), Duration.ofSeconds(5)))
        {
            comm.barrier();
            if (comm.rank() == 2)
            {
                final UnsafeBuffer bell = view.views().bell(1);
                while (!armed(bell))
                {
                    Thread.onSpinWait(); // until rank 1 falls asleep in its recv
                }
                Procs.signal("-KILL", Long.toString(ProcessHandle.current().pid()));
                Thread.sleep(60_000); // never reached
            }
            else if (comm.rank() == 1)
            {
                final long start = System.nanoTime();
                try
                {
                    comm.recv(2, TAG, new byte[8]);
                    System.out.println("rank 1 received from a dead rank");
                }
                catch (final Sm4jException ex)
                {
                    System.out.println("rank 1 saw after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) +
                        " ms: " + ex.getMessage());
                }
            }
            else
            {
                try
                {
                    comm.recv(2, TAG, new byte[8]);
                }
                catch (final JobAbortedException ex)
                {
                    // rank 0 only waits with the others
                }
            }
        }
        catch (final JobAbortedException ex)
        {
            // closing after the abort
        }
    }

    private static void attach(final Path segment, final int rank, final int size)
    {
        try (Communicator comm = Communicator.attach(segment, rank, size, TransportOptions.defaults()))
        {
            System.out.println("rank " + rank + " attached, pid " + ProcessHandle.current().pid());
            if (rank == size - 1)
            {
                comm.recv(0, TAG, new byte[8]); // never sent: this rank is killed while it waits
            }
            final long start = System.nanoTime();
            try
            {
                comm.recv(size - 1, TAG, new byte[8]);
            }
            catch (final Sm4jException ex)
            {
                System.out.println("rank " + rank + " saw after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) +
                    " ms: " + ex.getMessage());
            }
        }
        catch (final JobAbortedException ex)
        {
            // closing after the abort
        }
    }

    private static void spinNanos(final long nanos)
    {
        final long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0)
        {
            Thread.onSpinWait();
        }
    }
}
