package io.sm4j.collective;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A predefined {@link Op} over one {@link ElementType} ({@link Op#over}). It combines element by element, so
 * a vector may be cut between any two elements and its parts combined apart: the region's long reductions
 * slice only vectors of these ({@link SharedCollectives#reduces}); a user's {@link ByteOperator} sees whole
 * vectors.
 */
final class ElementOperator implements ByteOperator
{
    private final Op op;
    private final ElementType type;

    ElementOperator(final Op op, final ElementType type)
    {
        this.op = op;
        this.type = type;
    }

    /**
     * @return the bytes of one element: a vector may be cut at any multiple of them.
     */
    int elementBytes()
    {
        return type.bytes;
    }

    @Override
    public void apply(
        final MutableDirectBuffer left, final int leftOffset, final DirectBuffer right, final int rightOffset, final int length)
    {
        op.combine(type, left, leftOffset, right, rightOffset, length);
    }
}
