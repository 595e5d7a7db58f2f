/**
 * What a rank knows of its job, below the transport: the health check (heartbeat, abort, dead peers, dead
 * launcher: {@link io.sm4j.job.HealthMonitor}), what a rank asks of its job and does to it between sends (is a
 * peer attached, was the job aborted, abort it: {@link io.sm4j.job.RankJob}), the report of an uncaught
 * failure to the launcher ({@link io.sm4j.job.AbortReporter}), the cores the job may use
 * ({@link io.sm4j.job.CpuBudget}) and whether other processes oversubscribe them
 * ({@link io.sm4j.job.CpuContention}), the launcher's environment variables ({@link io.sm4j.job.Environment}),
 * and the rank's counters in the segment that {@code sm4j stat} reads ({@link io.sm4j.job.RankCounters}).
 * Nothing here sends or receives.
 */
package io.sm4j.job;
