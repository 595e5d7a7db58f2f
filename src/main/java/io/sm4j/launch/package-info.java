/**
 * {@code sm4j run}: creates the job's segment, starts one JVM per rank with the rank, size, segment path and
 * job id in its environment, forwards their output prefixed by rank, aborts the job when a rank fails, and
 * removes the segment at the end.
 */
package io.sm4j.launch;
