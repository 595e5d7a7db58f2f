/**
 * The byte transport between ranks (Open MPI's BTL level): an {@link io.sm4j.transport.Endpoint} per rank
 * sends fragments up to the eager limit to a peer and polls its in-bound FIFOs, handing each fragment to a
 * handler as a read-only, zero-copy view. Matching, tags and large messages belong to the message layer.
 */
package io.sm4j.transport;
