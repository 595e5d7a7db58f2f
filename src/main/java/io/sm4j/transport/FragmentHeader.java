package io.sm4j.transport;

import io.sm4j.layout.FragmentDescriptor;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Writes a {@link FragmentDescriptor} header and its payload, in a fragment or in a fast box's inline record,
 * with plain stores: the caller's publish (a queue slot or the record's commit word) is the release.
 */
final class FragmentHeader
{
    private FragmentHeader()
    {
    }

    /**
     * Writes everything but the length word, which is the commit word in a fast box.
     */
    static void writeBody(
        final MutableDirectBuffer buffer, final int index, final int sender, final int type, final int tag,
        final long sequence, final long aux, final DirectBuffer payload, final int offset, final int length)
    {
        buffer.putInt(index + FragmentDescriptor.SENDER_OFFSET, sender);
        buffer.putInt(index + FragmentDescriptor.TYPE_OFFSET, type);
        buffer.putInt(index + FragmentDescriptor.TAG_OFFSET, tag);
        buffer.putLong(index + FragmentDescriptor.SEQUENCE_OFFSET, sequence);
        buffer.putLong(index + FragmentDescriptor.AUX_OFFSET, aux);
        buffer.putBytes(index + FragmentDescriptor.HEADER_LENGTH, payload, offset, length);
    }

    static void write(
        final MutableDirectBuffer buffer, final int index, final int sender, final int type, final int tag,
        final long sequence, final long aux, final DirectBuffer payload, final int offset, final int length)
    {
        buffer.putInt(index + FragmentDescriptor.LENGTH_OFFSET, length);
        writeBody(buffer, index, sender, type, tag, sequence, aux, payload, offset, length);
    }
}
