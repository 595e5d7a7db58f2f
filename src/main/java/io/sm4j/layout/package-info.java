/**
 * Where every byte of the per-node segment goes: pure arithmetic over {@link io.sm4j.layout.LayoutParams}.
 * <p>
 * Owns {@link io.sm4j.layout.SegmentLayout} (the one place offsets are computed), the binary
 * {@code *Descriptor} classes of each shared structure, and the parameter validation. Imports no other
 * sm4j package: the segment, transport, report and tests all call into it.
 */
package io.sm4j.layout;
