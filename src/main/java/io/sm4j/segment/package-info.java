/**
 * The per-node segment file: exclusive creation (space check, every page allocated up front), mapping in
 * sections, the header's readiness and job state, rank registration and detachment, and abort. Offsets
 * come from {@link io.sm4j.layout.SegmentLayout} only. Copies into and out of it: {@link io.sm4j.segment.NativeCopy}
 * (large ones, by {@code memcpy} where chosen) and {@link io.sm4j.segment.Buffers} (range checks of callers' buffers,
 * and short copies by words).
 */
package io.sm4j.segment;
