package io.sm4j.cli;

import io.sm4j.bench.BenchSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code sm4j demo}: the main job in one command, the memory report and the latency benchmark with its
 * baselines, ending with the benchmark's summary.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {
        "Prints the memory report for N ranks, then runs the latency benchmark between two JVMs next to other " +
            "transports.",
        "",
        "The same as 'sm4j report -n N' followed by 'sm4j bench latency --compare -m 0:MAX --chart " +
            "TMP/sm4j-demo-latency.png': it ends with the benchmark's summary at 8 B, 4 KiB and 1 MiB (medians, " +
            "robust to a stall) and the chart's path.",
        "" })
final class DemoCommand implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    @Option(names = "--max", paramLabel = "BYTES", description = "Largest message of the latency run (default: ${DEFAULT-VALUE}).")
    int maxSize = 1 << 20;

    @Option(names = { "-n", "--ranks", "--peers" }, paramLabel = "N", description = "Ranks for the memory report (default: ${DEFAULT-VALUE}).")
    int peers = 1024;

    @Override
    public Integer call()
    {
        // checked before the report prints: an error then names what the user typed, not the bench's -m
        OptionChecks.requireRange("--max", maxSize, 0, BenchSpec.MAX_SIZE, " bytes");
        final int reported = spec.root().commandLine().execute("report", "-n", Integer.toString(peers));
        if (reported != 0)
        {
            return reported;
        }
        final PrintWriter out = spec.commandLine().getOut();
        out.println();
        final Path chart = Path.of(System.getProperty("java.io.tmpdir"), "sm4j-demo-latency.png");
        return spec.root().commandLine().execute("bench", "latency", "--compare", "-m", "0:" + maxSize,
            "--chart", chart.toString());
    }
}
