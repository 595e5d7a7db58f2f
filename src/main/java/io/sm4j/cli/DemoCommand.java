package io.sm4j.cli;

import io.sm4j.bench.PingPong;
import io.sm4j.launch.JobLauncher;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.SegmentFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code sm4j demo}: the main job in one command, a two-JVM ping-pong and the memory report.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {
        "Runs a latency benchmark between two JVMs, then prints the memory report for N ranks.",
        "",
        "The benchmark goes through the message layer (sm4j run -n 2 -- io.sm4j.bench.PingPong message ITERATIONS: " +
            "tagged send/recv, eager and rendezvous sizes) over a fresh segment.",
        "" })
final class DemoCommand implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    @Option(names = "--iterations", paramLabel = "N", description = "Round trips per payload size; sizes above 64 KiB run a hundredth (default: ${DEFAULT-VALUE}).")
    int iterations = 100_000;

    @Option(names = { "-n", "--ranks", "--peers" }, paramLabel = "N", description = "Ranks for the memory report (default: ${DEFAULT-VALUE}).")
    int peers = 1024;

    @Override
    public Integer call()
    {
        final LayoutParams params = LayoutParams.defaults(2);
        Arguments.requireRange("--iterations", iterations, 1, Integer.MAX_VALUE, "");
        final int code = JobLauncher.run(new JobLauncher.Job(params,
                SegmentFiles.directory(null, spec.commandLine().getErr()::println), System.getProperty("java.class.path"),
                List.of(PingPong.class.getName(), "message", Integer.toString(iterations)), List.of(), Map.of(), Duration.ofSeconds(5),
                Duration.ZERO),
            spec.commandLine().getOut(), spec.commandLine().getErr());
        if (code != 0)
        {
            return code;
        }
        spec.commandLine().getOut().println();
        return spec.root().commandLine().execute("report", "-n", Integer.toString(peers));
    }
}
