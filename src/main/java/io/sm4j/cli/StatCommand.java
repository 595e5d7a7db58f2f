package io.sm4j.cli;

import io.sm4j.layout.CountersDescriptor;
import io.sm4j.segment.JobStats;
import io.sm4j.segment.SegmentFiles;
import io.sm4j.segment.Sm4jException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.sm4j.layout.CountersDescriptor.BOX_SENDS;
import static io.sm4j.layout.CountersDescriptor.BYTES_RECEIVED;
import static io.sm4j.layout.CountersDescriptor.BYTES_SENT;
import static io.sm4j.layout.CountersDescriptor.FIFO_SENDS;
import static io.sm4j.layout.CountersDescriptor.MESSAGES_RECEIVED;
import static io.sm4j.layout.CountersDescriptor.MESSAGES_SENT;
import static io.sm4j.layout.CountersDescriptor.ROOM_WAIT_NANOS;
import static io.sm4j.layout.CountersDescriptor.UNEXPECTED_BYTES;
import static io.sm4j.layout.CountersDescriptor.UNEXPECTED_LIMIT;

/**
 * {@code sm4j stat}: shows jobs from outside, read-only, as AeronStat shows a media driver.
 */
@Command(name = "stat", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Shows jobs from outside, read-only: their state and, per rank, its process, activity and counters.",
        "",
        "For each segment file (one job, running or dead): the job's state and, per rank, its process, whether " +
            "it is alive, what it is doing and its counters.",
        "",
        "ACTIVITY is running (in its own code), spinning or yielding (waiting inside sm4j), sleeping (on its " +
            "doorbell, using no CPU) or - (not attached); BEAT is how long ago the rank last checked the job's " +
            "health inside sm4j. Counters: messages and bytes sent and received (arrived, matched or not), fragments " +
            "sent inline in a fast box (BOX) or by FIFO word or box reference (FIFO), time sends waited for " +
            "credit, pool or box room (ROOM WAIT), and the unexpected-message bytes kept against the budget.",
        "",
        "The file is read with plain reads, never mapped or written: safe on any job, and a file truncated " +
            "meanwhile cannot fault it.",
        "" },
    footer = { "", "Examples:", "  sm4j stat", "  sm4j stat /dev/shm/sm4j-alice-1f2e3d.seg --watch 1",
        "  sm4j stat --dir /tmp/sm4j --format json" })
final class StatCommand implements Callable<Integer>
{
    /** Longest --watch interval: an hour. */
    private static final double MAX_WATCH_SECONDS = 3600;
    /** Below it a watch would re-read and print in a busy loop. */
    private static final double MIN_WATCH_SECONDS = 0.01;

    enum Format
    {
        TEXT, JSON
    }

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "SEGMENT", description = "A segment file (default: every job in --dir).")
    Path segment;

    @Option(names = "--dir", paramLabel = "DIR",
        description = "Where to look for jobs (default: $SM4J_DIR, else /dev/shm, else java.io.tmpdir).")
    Path dir;

    @Option(names = "--watch", paramLabel = "SECONDS",
        description = "Show again every SECONDS (e.g. 0.5) until interrupted, or, for one SEGMENT, until its job ends.")
    double watchSeconds;

    @Option(names = "--format", paramLabel = "text|json", description = "Output format (default: ${DEFAULT-VALUE}).")
    Format format = Format.TEXT;

    @Override
    public Integer call() throws IOException
    {
        if (watchSeconds < 0 || watchSeconds > MAX_WATCH_SECONDS || Double.isNaN(watchSeconds) ||
            watchSeconds > 0 && watchSeconds < MIN_WATCH_SECONDS)
        {
            throw new IllegalArgumentException("--watch must be 0 or between " + MIN_WATCH_SECONDS + " and " + (int)MAX_WATCH_SECONDS +
                " seconds, not " + watchSeconds);
        }
        if (segment != null && dir != null)
        {
            throw new IllegalArgumentException("give a SEGMENT or --dir, not both");
        }
        final PrintWriter out = spec.commandLine().getOut();
        // a read-only command: a --dir it may not write to is fine
        final Path directory = segment != null ? null : dir != null ? existingDirectory(dir, "--dir") :
            existingDirectory(SegmentFiles.readableDirectory(), "the segment directory ($SM4J_DIR, else /dev/shm)");
        boolean seen = false; // the one SEGMENT was read once: its disappearance is the job's end
        while (true)
        {
            final List<JobStats.Job> jobs = new ArrayList<>();
            if (segment != null)
            {
                try
                {
                    jobs.add(JobStats.read(segment));
                    seen = true;
                }
                catch (final Sm4jException ex)
                {
                    if (seen && !Files.exists(segment))
                    {
                        // JSON output stays one JSON document per line: the end goes to stderr there
                        (format == Format.JSON ? spec.commandLine().getErr() : out).println(segment + ": gone (the job has ended)");
                        return 0;
                    }
                    spec.commandLine().getErr().println("sm4j stat: " + ex.getMessage());
                    return 1;
                }
            }
            show(out, directory, jobs);
            if (watchSeconds == 0)
            {
                return 0;
            }
            LockSupport.parkNanos((long)(watchSeconds * TimeUnit.SECONDS.toNanos(1)));
        }
    }

    private static Path existingDirectory(final Path dir, final String what)
    {
        if (!Files.isDirectory(dir))
        {
            throw new IllegalArgumentException(what + " " + dir + " is not a directory");
        }
        return dir;
    }

    /**
     * Shows the jobs once: the SEGMENT's, read by the caller into {@code jobs}, or every job in
     * {@code directory} (null with a SEGMENT).
     */
    private void show(final PrintWriter out, final Path directory, final List<JobStats.Job> jobs) throws IOException
    {
        for (final Path path : directory == null ? List.<Path>of() : JobStats.segments(directory))
        {
            try
            {
                jobs.add(JobStats.read(path));
            }
            catch (final Sm4jException ex)
            {
                if (Files.exists(path)) // else its job ended while we looked
                {
                    spec.commandLine().getErr().println("sm4j stat: " + ex.getMessage());
                }
            }
        }
        if (format == Format.JSON)
        {
            out.println(json(jobs));
        }
        else if (jobs.isEmpty())
        {
            out.println("no sm4j jobs in " + directory);
        }
        else
        {
            if (watchSeconds > 0)
            {
                out.println("-- " + LocalTime.now().truncatedTo(ChronoUnit.SECONDS));
            }
            jobs.forEach(job -> text(job, out));
        }
        out.flush();
    }

    private static void text(final JobStats.Job job, final PrintWriter out)
    {
        out.println(job.path() + ": " + job.state() + (job.abort() == null ? "" : " (" + job.abort() + ")") + ", " +
            job.ranks().size() + " ranks");
        out.printf(Locale.ROOT, "%4s %8s %-8s %-5s %-8s %8s %12s %15s %12s %15s %12s %12s %12s %s%n", "RANK", "PID", "STATE",
            "ALIVE", "ACTIVITY", "BEAT(ms)", "MSGS SENT", "BYTES SENT", "MSGS RECV", "BYTES RECV", "BOX", "FIFO",
            "ROOM WAIT(ms)", "UNEXPECTED / BUDGET");
        for (final JobStats.Rank rank : job.ranks())
        {
            final long[] c = rank.counters();
            out.printf(Locale.ROOT, "%4d %8s %-8s %-5s %-8s %8s %,12d %,15d %,12d %,15d %,12d %,12d %,12.1f %,d / %,d%n",
                rank.rank(), rank.pid() == 0 ? "-" : Long.toString(rank.pid()), rank.state(), rank.alive() ? "yes" : "no",
                rank.activity(), rank.heartbeatMs() < 0 ? "-" : Long.toString(rank.heartbeatMs()), c[MESSAGES_SENT],
                c[BYTES_SENT], c[MESSAGES_RECEIVED], c[BYTES_RECEIVED], c[BOX_SENDS], c[FIFO_SENDS], c[ROOM_WAIT_NANOS] / 1e6,
                c[UNEXPECTED_BYTES], c[UNEXPECTED_LIMIT]);
        }
    }

    private static String json(final List<JobStats.Job> jobs)
    {
        final StringBuilder json = new StringBuilder("[");
        for (final JobStats.Job job : jobs)
        {
            json.append(json.length() > 1 ? "," : "").append("{\"segment\":").append(quote(job.path().toString()))
                .append(",\"state\":").append(quote(job.state())).append(",\"abort\":")
                .append(job.abort() == null ? "null" : quote(job.abort())).append(",\"ranks\":[");
            for (final JobStats.Rank rank : job.ranks())
            {
                json.append(rank.rank() > 0 ? "," : "").append("{\"rank\":").append(rank.rank()).append(",\"pid\":").append(rank.pid())
                    .append(",\"state\":").append(quote(rank.state())).append(",\"alive\":").append(rank.alive())
                    .append(",\"activity\":").append(quote(rank.activity())).append(",\"heartbeat_ms\":").append(rank.heartbeatMs());
                for (int c = 0; c < CountersDescriptor.COUNT; c++)
                {
                    json.append(",\"").append(CountersDescriptor.NAMES.get(c)).append("\":").append(rank.counters()[c]);
                }
                json.append('}');
            }
            json.append("]}");
        }
        return json.append(']').toString();
    }

    /**
     * @return {@code text} as a JSON string: quotes, backslashes and control characters escaped.
     */
    private static String quote(final String text)
    {
        final StringBuilder quoted = new StringBuilder("\"");
        for (final char c : text.toCharArray())
        {
            if (c == '"' || c == '\\')
            {
                quoted.append('\\').append(c);
            }
            else if (c < 0x20)
            {
                quoted.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
            }
            else
            {
                quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }
}
