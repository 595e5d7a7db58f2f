package io.sm4j.job;

import io.sm4j.it.IdleChoiceApp;
import io.sm4j.launch.Executables;
import io.sm4j.launch.JobLauncher;
import io.sm4j.transport.Endpoints;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class CpuBudgetTest
{
    @Test
    void shouldParseTheKernelsCpuLists()
    {
        assertEquals(List.of(0, 1), CpuBudget.parseCpuList("0-1\n"));
        assertEquals(List.of(0, 1, 2, 3, 8, 10, 11), CpuBudget.parseCpuList("0-3,8,10-11"));
        assertThrows(IllegalArgumentException.class, () -> CpuBudget.parseCpuList("3-1"));
    }

    /**
     * Where ranks are bound: the online CPUs within this process's affinity (a container's cpuset, a taskset), as
     * /proc/self/status lists them; the whole node's online CPUs named CPUs a confined process may not use.
     */
    @Test
    void shouldBindWithinThisProcesssAffinity()
    {
        assertEquals("2-3", CpuBudget.allowedList("Name:\tjava\nCpus_allowed:\tc\nCpus_allowed_list:\t2-3\nMems_allowed:\t1\n"));
        assertThrows(IllegalArgumentException.class, () -> CpuBudget.allowedList("Name:\tjava\n"));
    }

    /**
     * A JVM that taskset confines to the last online CPU binds there and nowhere else (the node's other CPUs are
     * online but not its own).
     */
    @Test
    @Timeout(60)
    void aConfinedJvmShouldBeAllowedItsCpuOnly() throws IOException, InterruptedException
    {
        final List<Integer> online = CpuBudget.onlineCpus();
        final int last = online.get(online.size() - 1);
        assertEquals("[" + last + "]\n", runConfined(last, Map.of(), AllowedCpus.class.getName()));
    }

    /** Prints {@link CpuBudget#allowedCpus()}. */
    public static final class AllowedCpus
    {
        private AllowedCpus()
        {
        }

        public static void main(final String[] args)
        {
            System.out.println(CpuBudget.allowedCpus());
        }
    }

    @Test
    void shouldReadACgroupQuotaAsCores()
    {
        assertEquals(0, CpuBudget.parseCgroup2Max("max 100000\n"));
        assertEquals(1.5, CpuBudget.parseCgroup2Max("150000 100000"));
    }

    @Test
    void nodeCoresShouldBeOnlineCpusAtMost()
    {
        assertTrue(CpuBudget.cores() >= 1 && CpuBudget.cores() <= CpuBudget.onlineCpus().size());
    }

    /**
     * A rank bound to one core (taskset, --bind-to core) of a 2-rank job on 2 cores: the node's cores are
     * still counted right (issue 10: availableProcessors() made both ranks back off, 305 us one-way), and
     * since its ranks may have to share a core, AUTO judges contention from its waits (a rank alone on its
     * core finds itself uncontended within 128 yields) instead of spinning blindly.
     */
    @Test
    @Timeout(60)
    void aJvmBoundToOneCoreShouldJudgeContentionFromItsWaits() throws IOException, InterruptedException
    {
        assertEquals("auto (yield first: this process may run on 1 of " + CpuBudget.cores() + " cores)\n",
            runConfined(0, Map.of(), IdleChoiceApp.class.getName(), "2"));
    }

    /**
     * The same rank bound by the launcher's {@code --bind-to core} when every rank has a core of its own
     * (it sets {@link Endpoints#OWN_CORE_ENV}): nobody else's rank shares its core, so AUTO spins, then sleeps,
     * as with a core per rank (yielding cost bound ranks 0.55 us one-way at 8 B instead of 0.28).
     */
    @Test
    @Timeout(60)
    void aJvmBoundToACoreOfItsOwnShouldSpinThenSleep() throws IOException, InterruptedException
    {
        assertEquals("auto (spin, then sleep: every rank on a core of its own)\n",
            runConfined(0, Map.of(Endpoints.OWN_CORE_ENV, "0"), IdleChoiceApp.class.getName(), "2"));
    }

    /**
     * @return what {@code main} (a class on this classpath) with {@code args} prints in a JVM that taskset confines
     *         to {@code cpu}, with {@code env} added.
     */
    private static String runConfined(final int cpu, final Map<String, String> env, final String... main)
        throws IOException, InterruptedException
    {
        assumeTrue(Executables.onPath("taskset") && CpuBudget.cores() >= 2, "needs taskset and 2 cores");
        final List<String> command = new ArrayList<>(List.of("taskset", "-c", Integer.toString(cpu)));
        command.addAll(JobLauncher.javaCommand(System.getProperty("java.class.path"), List.of(), List.of(main)));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        final Process process = builder.start();
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        return out;
    }
}
