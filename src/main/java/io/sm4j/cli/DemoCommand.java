package io.sm4j.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code sm4j demo}: the main job in one command, the latency benchmark with its baselines and the memory
 * report.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {
        "Runs the latency benchmark between two JVMs next to other transports, then prints the memory report for N ranks.",
        "",
        "The same as 'sm4j bench latency --compare -m 0:MAX --chart TMP/sm4j-demo-latency.png' followed by " +
            "'sm4j report -n N': the latency table ends with a summary at 8 B, 4 KiB and 1 MiB (medians, robust to a " +
            "stall) and names the chart.",
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
        final Path chart = Path.of(System.getProperty("java.io.tmpdir"), "sm4j-demo-latency.png");
        final int code = spec.root().commandLine().execute("bench", "latency", "--compare", "-m", "0:" + maxSize,
            "--chart", chart.toString());
        if (code != 0)
        {
            return code;
        }
        final PrintWriter out = spec.commandLine().getOut();
        out.println("# the summary above compares medians; every size, every transport: " + chart);
        out.println();
        return spec.root().commandLine().execute("report", "-n", Integer.toString(peers));
    }
}
