package io.sm4j.job;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The cores a job's ranks can spin on: the node's online CPUs, capped by a cgroup CPU quota (a container
 * limit). Not {@code Runtime.availableProcessors()}: that is this process's own affinity mask, and a rank
 * bound to one core (mpirun-style binding, taskset, {@code sm4j run --bind-to core}) would see 1 and make
 * every rank of a 2-rank job back off, parking for up to 500 us per wait.
 */
public final class CpuBudget
{
    private static final Path ONLINE = Path.of("/sys/devices/system/cpu/online");
    private static final Path CGROUP2_MAX = Path.of("/sys/fs/cgroup/cpu.max");
    private static final Path CGROUP1_QUOTA = Path.of("/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
    private static final Path CGROUP1_PERIOD = Path.of("/sys/fs/cgroup/cpu/cpu.cfs_period_us");

    private CpuBudget()
    {
    }

    /**
     * @return the CPU ids online on this node, ascending; this process's view if /sys cannot be read.
     */
    public static List<Integer> onlineCpus()
    {
        try
        {
            return parseCpuList(Files.readString(ONLINE));
        }
        catch (final IOException | RuntimeException ex)
        {
            final List<Integer> cpus = new ArrayList<>();
            for (int cpu = 0; cpu < Runtime.getRuntime().availableProcessors(); cpu++)
            {
                cpus.add(cpu);
            }
            return cpus;
        }
    }

    /**
     * @return the online CPUs this process may run on (its affinity: {@code taskset}, a container's cpuset), ascending:
     *         where ranks can be bound. The online CPUs if the allowed list cannot be read.
     */
    public static List<Integer> allowedCpus()
    {
        final List<Integer> online = onlineCpus();
        try
        {
            final List<Integer> allowed = new ArrayList<>(online);
            allowed.retainAll(parseCpuList(allowedList(Files.readString(Path.of("/proc/self/status")))));
            return allowed.isEmpty() ? online : allowed;
        }
        catch (final IOException | RuntimeException ex)
        {
            return online;
        }
    }

    /**
     * @return the value of the {@code Cpus_allowed_list} line of a /proc/PID/status text.
     * @throws IllegalArgumentException if there is none.
     */
    static String allowedList(final String status)
    {
        for (final String line : status.split("\n"))
        {
            if (line.startsWith("Cpus_allowed_list:"))
            {
                return line.substring("Cpus_allowed_list:".length()).trim();
            }
        }
        throw new IllegalArgumentException("no Cpus_allowed_list");
    }

    /**
     * @return online cores, capped by the cgroup's CPU quota rounded down (at least 1); read once per JVM
     * (every endpoint, and in MULTIPLE mode every thread, asks when it makes its idle strategy).
     */
    public static int cores()
    {
        return Cores.VALUE;
    }

    private static int readCores()
    {
        final int online = onlineCpus().size();
        final double quota = quotaCores();
        return quota > 0 ? Math.max(1, Math.min(online, (int)quota)) : online;
    }

    /** Lazy holder: the node's cores, read on first use. */
    private static final class Cores
    {
        static final int VALUE = readCores();
    }

    /**
     * @param list the kernel's CPU list format, e.g. {@code 0-3,8,10-11}.
     * @return every CPU id in it.
     * @throws IllegalArgumentException if the text is not a CPU list.
     */
    static List<Integer> parseCpuList(final String list)
    {
        final List<Integer> cpus = new ArrayList<>();
        for (final String part : list.trim().split(","))
        {
            final String[] range = part.split("-");
            final int from = Integer.parseInt(range[0].trim());
            final int to = range.length == 2 ? Integer.parseInt(range[1].trim()) : from;
            if (range.length > 2 || to < from)
            {
                throw new IllegalArgumentException("not a CPU list: " + list);
            }
            for (int cpu = from; cpu <= to; cpu++)
            {
                cpus.add(cpu);
            }
        }
        return cpus;
    }

    /**
     * @return cores' worth of CPU time the cgroup allows (quota / period), or 0 for no limit.
     */
    static double quotaCores()
    {
        try
        {
            if (Files.exists(CGROUP2_MAX))
            {
                return parseCgroup2Max(Files.readString(CGROUP2_MAX));
            }
            if (Files.exists(CGROUP1_QUOTA) && Files.exists(CGROUP1_PERIOD))
            {
                final long quota = Long.parseLong(Files.readString(CGROUP1_QUOTA).trim());
                final long period = Long.parseLong(Files.readString(CGROUP1_PERIOD).trim());
                return quota > 0 && period > 0 ? (double)quota / period : 0;
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // unreadable: no known limit
        }
        return 0;
    }

    /**
     * @param text cgroup v2's {@code cpu.max}: {@code "max 100000"} or {@code "<quota> <period>"}.
     * @return quota / period, or 0 for {@code max}.
     */
    static double parseCgroup2Max(final String text)
    {
        final String[] fields = text.trim().split("\\s+");
        if (fields[0].equals("max"))
        {
            return 0;
        }
        return (double)Long.parseLong(fields[0]) / Long.parseLong(fields[1]);
    }
}
