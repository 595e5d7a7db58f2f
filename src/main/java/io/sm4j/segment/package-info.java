/**
 * The per-node segment file: exclusive creation (space check, every page allocated up front), mapping in
 * sections, the header's readiness and job state, rank registration and detachment, and abort. Offsets
 * come from {@link io.sm4j.layout.SegmentLayout} only.
 */
package io.sm4j.segment;
