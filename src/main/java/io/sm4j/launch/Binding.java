package io.sm4j.launch;

import io.sm4j.job.CpuBudget;

/**
 * Where the launcher places rank JVMs, as mpirun's {@code --bind-to}.
 */
public enum Binding
{
    /** The scheduler places and moves ranks freely. */
    NONE,
    /**
     * Rank r runs on the r-th core this process may use (modulo their count: the online cores within its affinity,
     * a container's cpuset or a {@code taskset}), through {@code taskset -c}: a rank is never migrated, so two
     * spinning ranks never share a core for a scheduler tick while another is idle.
     */
    CORE;

    /**
     * @return true if each of {@code processes} rank JVMs runs on a core no other rank of the job is bound to.
     */
    public boolean ownCores(final int processes)
    {
        return this == CORE && processes <= CpuBudget.allowedCpus().size();
    }
}
