package io.sm4j.cli;

import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentLayout;
import io.sm4j.report.MemoryModel;
import io.sm4j.report.MemoryTable;
import io.sm4j.report.OmpiFileSizes;
import io.sm4j.report.OmpiV13Model;
import io.sm4j.report.Sweep;
import io.sm4j.report.SweepChart;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code sm4j report}: how much shared memory a job needs, per category and per layout policy.
 */
@Command(name = "report", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Prints how much shared memory a job of N ranks needs, per category and layout policy.",
        "",
        "The table has the RFC's form (units of 10^6 bytes), followed by the file sizes Open MPI 1.3.0 and 1.8 " +
            "would have used and the exact size sm4j creates. With --sweep, writes the totals for a range of N as " +
            "CSV or JSON plus a PNG chart.",
        "" },
    footer = {
        "", "Examples:",
        "  sm4j report -n 1024",
        "  sm4j report -n 1024 --eager-limit 256 --queue-entries 16 --max-frag 8192",
        "  sm4j report -n 1024 --profile ompi-1.3",
        "  sm4j report --sweep 2..1024 --format csv --out target/memory-sweep" })
final class ReportCommand implements Callable<Integer>
{
    enum Profile
    {
        sm4j, ompi_1_3
    }

    enum Format
    {
        csv, json
    }

    @Spec
    CommandSpec spec;

    @Mixin
    LayoutOptions layout;

    @Option(names = { "-n", "--ranks", "--peers" }, paramLabel = "N", description = "Ranks on the node.")
    Integer peers;

    @Option(names = "--profile", paramLabel = "PROFILE", converter = ProfileConverter.class,
        description = "Whose structures to count: sm4j (default) or ompi-1.3 (Open MPI 1.3.0's sizes and its eager limit, 4096 unless --eager-limit is given, to check against the RFC).")
    Profile profile = Profile.sm4j;

    @Option(names = "--sweep", paramLabel = "FROM..TO", description = "Sweep the rank count over a range instead of one -n.")
    String sweep;

    @Option(names = "--format", paramLabel = "FORMAT", description = "Sweep data format: csv or json (default: ${DEFAULT-VALUE}).")
    Format format = Format.csv;

    @Option(names = "--out", paramLabel = "PREFIX",
        description = "Where the sweep goes, required with --sweep: writes PREFIX.csv (or .json) and PREFIX.png.")
    Path out;

    @Override
    public Integer call() throws IOException
    {
        final MemoryModel model = profile == Profile.ompi_1_3 ? new OmpiV13Model() : MemoryModel.SM4J;
        final boolean sweeping = sweep != null;
        OptionChecks.requireWith(spec.commandLine().getParseResult().hasMatchedOption("--format"), "--format", sweeping, "--sweep");
        OptionChecks.requireWith(out != null, "--out", sweeping, "--sweep");
        if (sweeping)
        {
            if (peers != null)
            {
                throw new IllegalArgumentException("-n " + peers + " cannot be combined with --sweep " + sweep +
                    " (the sweep sets the rank count)");
            }
            if (out == null)
            {
                throw new IllegalArgumentException("--sweep needs --out PREFIX (the sweep writes PREFIX." + format +
                    " and PREFIX.png)");
            }
            return writeSweep(model);
        }
        if (peers == null)
        {
            throw new IllegalArgumentException("-n N is required (or --sweep FROM..TO --out PREFIX)");
        }
        final LayoutParams params = layout.toParams(peers, eagerLimit());
        final long created = SegmentLayout.compute(params).totalBytes();
        final String table = MemoryTable.of(params, model).render();
        final PrintWriter stdout = spec.commandLine().getOut();
        stdout.println(describe(params));
        stdout.println("units of 10^6 bytes");
        stdout.println();
        stdout.print(table);
        stdout.println();
        stdout.printf("Open MPI 1.3.0 default file  min(512 MiB, max(128 MiB, n x 32 MiB)) %,22d bytes%n",
            OmpiFileSizes.v130Default(params.peers()));
        stdout.printf("Open MPI 1.8 computed file   (raised to 128 MiB)                  %,22d bytes%n",
            OmpiFileSizes.v18Formula(params, layout.eagerLimitOr(OmpiV13Model.EAGER_LIMIT)));
        stdout.printf("sm4j creates                 (%s, %s)%s %,22d bytes%n", params.policy(), params.threadMode(),
            " ".repeat(Math.max(0, 35 - params.policy().name().length() - params.threadMode().name().length())),
            created);
        return 0;
    }

    private int writeSweep(final MemoryModel model) throws IOException
    {
        final String[] range = sweep.split("\\.\\.", -1);
        if (range.length != 2)
        {
            throw new IllegalArgumentException("--sweep " + sweep + ": expected FROM..TO, e.g. 2..1024");
        }
        final int from = parsePeers(range[0]);
        final int to = parsePeers(range[1]);
        if (from < 1 || to < from || to > LayoutParams.MAX_PEERS)
        {
            throw new IllegalArgumentException("--sweep " + sweep + ": expected FROM..TO with 1 <= FROM <= TO <= " +
                LayoutParams.MAX_PEERS);
        }
        final int eagerLimit = eagerLimit();
        final Sweep result = Sweep.run(n -> layout.toParams(n, eagerLimit), layout.eagerLimitOr(OmpiV13Model.EAGER_LIMIT),
            model, from, to);
        final Path data = Path.of(out + "." + format.name());
        final Path png = Path.of(out + ".png");
        OptionChecks.createDirectoryOf("--out", out);
        try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(data)))
        {
            if (format == Format.csv)
            {
                result.writeCsv(writer);
            }
            else
            {
                result.writeJson(writer);
            }
        }
        SweepChart.write(result, "shared memory per job, " + (profile == Profile.sm4j ? "sm4j" : "Open MPI 1.3") +
            " structures, n = " + from + ".." + to, png);
        spec.commandLine().getOut().println("wrote " + result.points().size() + " peer counts to " + data + " and " + png);
        return 0;
    }

    /**
     * @return the eager limit unless {@code --eager-limit} says otherwise: Open MPI 1.3's for its profile.
     */
    private int eagerLimit()
    {
        return profile == Profile.ompi_1_3 ? OmpiV13Model.EAGER_LIMIT : LayoutParams.DEFAULT_EAGER_LIMIT;
    }

    private static int parsePeers(final String text)
    {
        try
        {
            return Integer.parseInt(text.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("--sweep bound '" + text + "' is not an integer (expected: FROM..TO)");
        }
    }

    private String describe(final LayoutParams p)
    {
        return String.format("%s memory report: n=%d, eager limit %d, max fragment %d, CB queue %d entries, " +
                "%d eager fragments per peer, %d max fragments per rank, cacheline %d, %s threads%s",
            profile == Profile.sm4j ? "sm4j" : "Open MPI 1.3.0 (profile ompi-1.3)", p.peers(), p.eagerLimit(),
            p.maxFragSize(), p.queueEntries(), p.eagerFragsPerPeer(), p.maxFragsPerRank(), p.cacheline(), p.threadMode(),
            profile == Profile.sm4j ? String.format(", %d collective regions of %d bytes per rank",
                p.collectiveContexts(), p.collectiveBufferSize()) : "");
    }

    static final class ProfileConverter implements picocli.CommandLine.ITypeConverter<Profile>
    {
        @Override
        public Profile convert(final String value)
        {
            return switch (value)
            {
                case "sm4j" -> Profile.sm4j;
                case "ompi-1.3" -> Profile.ompi_1_3;
                default -> throw new picocli.CommandLine.TypeConversionException(
                    value + " (expected: sm4j or ompi-1.3)");
            };
        }
    }
}
