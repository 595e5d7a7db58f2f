/**
 * Benchmarks across real JVMs: rank programs started by {@code sm4j run} (or {@code sm4j demo}) that
 * measure latency with HdrHistogram and print OSU-style tables.
 */
package io.sm4j.bench;
