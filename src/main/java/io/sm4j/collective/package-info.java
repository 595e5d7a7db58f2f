/**
 * Collective operations (MPI's broadcast, reduce, gather, scatter, all-to-all) as algorithms over a
 * {@link io.sm4j.collective.Channel}: point-to-point on tags that user receives never match, which the
 * message layer provides. Nothing here touches shared memory or knows about requests: the algorithms are
 * binomial trees, linear gathers and pairwise exchanges, each written once over byte buffers; typed data
 * and operators ({@link io.sm4j.collective.Op}, {@link io.sm4j.collective.ByteOperator}) reduce those bytes
 * in a fixed order, so every rank and every run gets bit-identical results.
 */
package io.sm4j.collective;
