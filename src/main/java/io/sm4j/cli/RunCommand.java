package io.sm4j.cli;

import io.sm4j.launch.Binding;
import io.sm4j.launch.JobLauncher;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.SegmentFiles;
import io.sm4j.transport.TransportOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code sm4j run}: starts N JVMs over one segment.
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Starts N JVMs (ranks) of one job over a new shared-memory segment and waits for them.",
        "",
        "Creates a segment sized for N ranks, starts N JVMs running the given main class (or -jar app.jar), " +
            "forwards their output prefixed by rank, and returns the first non-zero exit code (or the code a rank " +
            "passed to abort(code, reason), if it is 1..255; 124: --timeout, 125: --stopped-limit). If a rank fails, " +
            "the job is marked ABORTED (every rank's next call fails) and the rest are killed after a grace " +
            "period. The segment file is removed at the end.",
        "",
        "Each rank joins with Communicator.attachFromEnvironment(), which reads:",
        "  SM4J_SEGMENT  segment file path      SM4J_RANK    0..N-1",
        "  SM4J_SIZE     N                      SM4J_JOB_ID  job id (hex)",
        "",
        "A rank keeps at most SM4J_UNEXPECTED_BYTES of messages no receive has taken yet (default: a quarter " +
            "of its heap, -Xmx, at most 64 MiB); beyond it the senders wait. Settings (SM4J_*) are checked once, " +
            "before any rank starts. SIGINT or SIGTERM is passed on to the ranks as SIGTERM; those still running " +
            "after the grace period are killed.",
        "",
        "A sleeping rank blocks on a futex when every rank runs on JDK 22 or later (the ranks get " +
            "--enable-native-access=ALL-UNNAMED), else on a Unix socket beside the segment (SM4J_DOORBELL=auto, " +
            "socket or futex; default auto).",
        "",
        "A message of 16 KiB or more sent from off-heap memory (a direct ByteBuffer) is read by its receiver " +
            "straight out of the sender's process with process_vm_readv, one copy (on JDK 17 the ranks get " +
            "--add-modules=jdk.incubator.foreign for it), or streamed through the fragment pipeline, two copies " +
            "on two cores at once, whichever the receiver has measured faster lately for that size " +
            "(SM4J_PEER_READS=auto; on: always read), where the kernel lets ranks read each other (no Yama ptrace " +
            "restriction); else, or with SM4J_PEER_READS=off, it goes through the fragment pipeline.",
        "",
        "Ranks whose classpath is all jars share their classes through a class data archive (AppCDS) that the " +
            "launcher makes after the first such job from the classes its rank 0 loaded, kept per JDK, jars and " +
            "JVM options in SM4J_CDS (auto: $XDG_CACHE_HOME/sm4j/cds or ~/.cache/sm4j/cds; off; or an absolute " +
            "directory): later jobs start about a quarter sooner.",
        "" },
    footer = { "", "Examples:",
        "  sm4j run -n 2 -cp app.jar -- com.example.PingPong 1000",
        "  sm4j run -n 4 -- -jar app.jar --iterations 10" })
final class RunCommand implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    @Mixin
    LayoutOptions layout;

    /** Longest --timeout: a year. */
    static final long MAX_TIMEOUT_SECONDS = 365L * 24 * 3600;
    /** Longest --grace: an hour. */
    static final long MAX_GRACE_MILLIS = 3_600_000L;

    @Option(names = { "-n", "--ranks" }, required = true, paramLabel = "N", description = "Ranks (JVMs) to start.")
    int ranks;

    @Option(names = "--dir", paramLabel = "DIR",
        description = "Segment directory (default: $SM4J_DIR, else /dev/shm, else java.io.tmpdir).")
    Path dir;

    @Option(names = { "-cp", "--classpath" }, paramLabel = "PATH",
        description = "Classpath of the rank JVMs, in addition to sm4j itself (not with -jar).")
    String classpath;

    @Option(names = "--jvm-arg", paramLabel = "OPTION", description = "Extra JVM option for every rank (repeatable).")
    List<String> jvmArgs = new ArrayList<>();

    @Option(names = "--grace", paramLabel = "MILLIS",
        description = "Time the other ranks get after one fails, before they are killed (default: ${DEFAULT-VALUE}).")
    long graceMillis = 5000;

    @Option(names = "--timeout", paramLabel = "SECONDS",
        description = "Abort the job if it runs longer than this, counted from when every rank has attached (JVM " +
            "start-up is not counted, up to 30 s); exit code 124 (default: no limit).")
    long timeoutSeconds;

    @Option(names = "--stopped-limit", paramLabel = "SECONDS",
        description = "Abort the job (exit code 125) if a rank stays stopped (SIGSTOP, Ctrl-Z, a native debugger) or " +
            "frozen inside an sm4j wait (its heartbeat stops: a Java debugger, a long GC pause) this long; a rank held " +
            "up for 2 s is always named in a warning (default: no limit).")
    long stoppedLimitSeconds;

    @Option(names = "--bind-to", paramLabel = "core|none",
        description = "Pin rank r to the r-th CPU this process may use (the online CPUs within its affinity or cpuset, modulo their count) with taskset, as mpirun --bind-to core; with no more ranks than cores, idle auto then spins and sleeps as with a core per rank (default: ${DEFAULT-VALUE}).")
    Binding binding = Binding.NONE;

    @Option(names = "--idle", paramLabel = "MODE",
        description = {"How a rank waits for a message, room or a peer (SM4J_IDLE; default: $SM4J_IDLE, else auto):",
            "  auto   while every rank can have a core (ranks <= cores, and not confined to fewer): spin, then " +
                "sleep on the rank's doorbell once a wait lasts 1 ms (20 us after a wait that slept); else decide from what the waits show: " +
                "contended, yield at once and sleep after 200 us; uncontended, spin 2 us, yield, sleep after 1 ms " +
                "(more ranks than cores start contended, as mpirun does); a collective's step or a barrier, where " +
                "every rank waits for the slowest, yields 5 ms before it sleeps",
            "  spin   only spin: lowest latency with a core per rank; a waiting rank burns its core",
            "  yield  yield after every empty pass, never sleep (Open MPI's mpi_yield_when_idle)",
            "  block  sleep after 20 us: services that wait long and must not burn a core"})
    TransportOptions.Idle idle;

    @Parameters(paramLabel = "COMMAND", arity = "1..*",
        description = "Main class and its arguments, or -jar app.jar and its arguments.")
    List<String> command;

    @Override
    public Integer call()
    {
        final LayoutParams params = layout.toParams(ranks);
        OptionChecks.requireRange("--timeout", timeoutSeconds, 0, MAX_TIMEOUT_SECONDS, " seconds");
        OptionChecks.requireRange("--grace", graceMillis, 0, MAX_GRACE_MILLIS, " ms");
        OptionChecks.requireRange("--stopped-limit", stoppedLimitSeconds, 0, MAX_TIMEOUT_SECONDS, " seconds");
        if (command.get(0).equals("-jar"))
        {
            if (command.size() < 2)
            {
                throw new IllegalArgumentException("-jar needs a jar file");
            }
            if (classpath != null)
            {
                throw new IllegalArgumentException("-cp " + classpath + " would be ignored with -jar (a jar's " +
                    "Class-Path manifest entry sets its classpath)");
            }
        }
        final String self = selfClasspath();
        final String cp = classpath == null ? self : classpath + File.pathSeparator + self;
        final Path segmentDir = SegmentFiles.directory(dir, spec.commandLine().getErr()::println);
        final Map<String, String> env = idle == null ? Map.of() : Map.of(TransportOptions.IDLE_ENV, idle.name());
        return JobLauncher.run(new JobLauncher.Job(params, segmentDir, cp, command, jvmArgs, env,
            Duration.ofMillis(graceMillis), Duration.ofSeconds(timeoutSeconds), ranks, binding,
            Duration.ofSeconds(stoppedLimitSeconds)), spec.commandLine().getOut(),
            spec.commandLine().getErr());
    }

    private static String selfClasspath()
    {
        return System.getProperty("java.class.path");
    }
}
