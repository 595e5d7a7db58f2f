/**
 * The memory-consumption report: how much shared memory a job of n ranks needs, per category and per
 * layout policy, in the RFC's table form, for one n or a sweep (CSV, JSON, PNG chart). Our own figures
 * come from {@link io.sm4j.layout.SegmentLayout}; {@link io.sm4j.report.OmpiV13Model} reproduces Open
 * MPI 1.3.0's accounting to validate the method against the RFC's published table.
 */
package io.sm4j.report;
