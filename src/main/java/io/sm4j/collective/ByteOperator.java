package io.sm4j.collective;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A user's reduction operator over bytes (MPI_Op_create): it must be associative; it need not be
 * commutative, since reductions combine in rank order.
 */
@FunctionalInterface
public interface ByteOperator
{
    /**
     * Combines {@code length} bytes: {@code left} becomes {@code left (+) right}, where {@code left} holds
     * the lower ranks' contribution and {@code right} the higher ranks'.
     */
    void apply(MutableDirectBuffer left, int leftOffset, DirectBuffer right, int rightOffset, int length);
}
