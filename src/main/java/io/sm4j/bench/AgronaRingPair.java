package io.sm4j.bench;

import org.agrona.IoUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;

/**
 * The Java state of the art as a baseline: two Agrona {@link OneToOneRingBuffer}s (one per direction) in a
 * file mapped by both JVMs. A message longer than the ring's largest record travels in several records;
 * the receiver copies each record into its receive buffer, as sm4j's receiver copies fragments.
 */
final class AgronaRingPair implements PairTransport
{
    /** Bytes of one ring's data area; its largest record is an eighth of it (1 MiB). */
    static final int RING_CAPACITY = 8 << 20;
    private static final int RING_LENGTH = RING_CAPACITY + RingBufferDescriptor.TRAILER_LENGTH;
    private static final int MSG_TYPE = 1;

    private final MappedByteBuffer mapping;
    private final OneToOneRingBuffer outbound;
    private final OneToOneRingBuffer inbound;
    private final int maxRecord;
    private final UnsafeBuffer out = PairTransport.messageBuffer();
    private final UnsafeBuffer in = PairTransport.messageBuffer();
    private final org.agrona.concurrent.MessageHandler copyIn = this::copyIn;
    private int received;
    private int records;

    private AgronaRingPair(final MappedByteBuffer mapping, final int rank)
    {
        this.mapping = mapping;
        final UnsafeBuffer first = new UnsafeBuffer(mapping, 0, RING_LENGTH);
        final UnsafeBuffer second = new UnsafeBuffer(mapping, RING_LENGTH, RING_LENGTH);
        outbound = new OneToOneRingBuffer(rank == 0 ? first : second);
        inbound = new OneToOneRingBuffer(rank == 0 ? second : first);
        maxRecord = outbound.maxMsgLength();
    }

    /**
     * Rank 0 creates the file (zero-filled, as a fresh ring must be) before it accepts the control
     * connection, so rank 1 maps it only once it exists.
     */
    static void createFile(final Path file) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.setLength(2L * RING_LENGTH);
        }
    }

    static AgronaRingPair map(final Path file, final int rank)
    {
        return new AgronaRingPair(IoUtil.mapExistingFile(file.toFile(), "agrona ring pair"), rank);
    }

    @Override
    public String name()
    {
        return "agrona";
    }

    @Override
    public void send(final int length)
    {
        int offset = 0;
        do
        {
            final int chunk = Math.min(maxRecord, length - offset);
            while (!outbound.write(MSG_TYPE, out, offset, chunk))
            {
                Thread.onSpinWait();
            }
            offset += chunk;
        }
        while (offset < length);
    }

    @Override
    public void receive(final int length)
    {
        received = 0;
        records = 0;
        while (received < length || records == 0)
        {
            if (inbound.read(copyIn, 1) == 0)
            {
                Thread.onSpinWait();
            }
        }
    }

    private void copyIn(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        in.putBytes(received, buffer, index, length);
        received += length;
        records++;
    }

    @Override
    public void close()
    {
        IoUtil.unmap(mapping);
    }
}
