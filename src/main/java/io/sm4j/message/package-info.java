/**
 * The message layer (Open MPI's PML, ob1 over the sm BTL): tagged point-to-point messages with MPI's
 * matching and non-overtaking rules, eager and rendezvous protocols, nonblocking requests, probe and a
 * barrier, over a {@link io.sm4j.transport.Endpoint}. All state here is process-local.
 */
package io.sm4j.message;
