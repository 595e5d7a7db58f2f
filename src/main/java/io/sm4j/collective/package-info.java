/**
 * Collective operations (MPI's barrier, broadcast, reduce, gather, scatter, all-to-all, scans and their "v"
 * forms) in two ways, chosen per call by its length: through the communicator's collective region in the
 * segment where one is laid out ({@code SharedCollectives} over a
 * {@code SharedRegion}: each rank posts into slots of its own and the others read them in
 * place, per-rank step words on lines of their own), or as algorithms over a
 * {@link io.sm4j.collective.Channel}: point-to-point on tags that user receives never match, which the
 * message layer provides (binomial trees, rings and pairwise exchanges, each written once over byte buffers).
 * Nothing here knows about requests. Typed data and operators ({@link io.sm4j.collective.Op},
 * {@link io.sm4j.collective.ByteOperator}) reduce those bytes in a fixed order, so every rank and every run
 * gets bit-identical results.
 */
package io.sm4j.collective;
