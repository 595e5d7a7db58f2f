package io.sm4j.message;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every send form against every receive form, each over every buffer kind, with the bytes checked: blocking,
 * nonblocking and persistent, of {@code byte[]} (whole and with an offset), heap and direct {@code ByteBuffer}
 * (from a position that does not move) and {@code DirectBuffer} with an offset.
 */
@Timeout(60)
class EvenApiTest extends TwoCommunicators
{
    /** Bytes a message carries: eager, so a blocking send returns before its receive in this one thread. */
    private static final int LENGTH = 37;
    /** Where a buffer's message starts: an offset or a position of its own. */
    private static final int AT = 5;
    /** What a receive buffer holds outside the message's room, which no receive may touch. */
    private static final byte SENTINEL = 0x5A;

    private interface Send
    {
        /**
         * @return the request to complete after the receive (null: the send is done).
         */
        Request send(Communicator from, int tag, byte[] data);
    }

    private interface Receive
    {
        /**
         * @return what was received, its status checked.
         */
        byte[] receive(Communicator to, int tag);
    }

    private record Form<T>(String name, T form)
    {
        @Override
        public String toString()
        {
            return name;
        }
    }

    @Test
    void everySendFormShouldReachEveryReceiveFormWithItsBytes()
    {
        int tag = 0;
        for (final Form<Send> send : sends())
        {
            for (final Form<Receive> receive : receives())
            {
                final byte[] data = new byte[LENGTH];
                for (int i = 0; i < LENGTH; i++)
                {
                    data[i] = (byte)(31 * tag + i);
                }
                final Request sent = send.form().send(rank0, tag, data);
                final byte[] received = receive.form().receive(rank1, tag);
                if (sent != null)
                {
                    assertEquals(LENGTH, sent.await().length(), send + " -> " + receive);
                }
                assertArrayEquals(data, received, send + " -> " + receive);
                tag++;
            }
        }
        assertEquals(15 * 15, tag);
    }

    private static List<Form<Send>> sends()
    {
        return List.of(
            new Form<>("send(byte[])", (c, tag, data) -> blocking(() -> c.send(1, tag, data))),
            new Form<>("send(byte[], offset, length)", (c, tag, data) -> blocking(() -> c.send(1, tag, padded(data), AT, LENGTH))),
            new Form<>("send(heap ByteBuffer)", (c, tag, data) -> blocking(() -> sendBuffer(c, tag, heap(data)))),
            new Form<>("send(direct ByteBuffer)", (c, tag, data) -> blocking(() -> sendBuffer(c, tag, direct(data)))),
            new Form<>("send(DirectBuffer, offset, length)", (c, tag, data) -> blocking(() -> c.send(1, tag, unsafe(data), AT, LENGTH))),
            new Form<>("isend(byte[])", (c, tag, data) -> c.isend(1, tag, data)),
            new Form<>("isend(byte[], offset, length)", (c, tag, data) -> c.isend(1, tag, padded(data), AT, LENGTH)),
            new Form<>("isend(heap ByteBuffer)", (c, tag, data) -> unmoved(heap(data), b -> c.isend(1, tag, b))),
            new Form<>("isend(direct ByteBuffer)", (c, tag, data) -> unmoved(direct(data), b -> c.isend(1, tag, b))),
            new Form<>("isend(DirectBuffer, offset, length)", (c, tag, data) -> c.isend(1, tag, unsafe(data), AT, LENGTH)),
            new Form<>("sendInit(byte[])", (c, tag, data) -> started(c.sendInit(1, tag, data))),
            new Form<>("sendInit(byte[], offset, length)", (c, tag, data) -> started(c.sendInit(1, tag, padded(data), AT, LENGTH))),
            new Form<>("sendInit(heap ByteBuffer)", (c, tag, data) -> unmoved(heap(data), b -> started(c.sendInit(1, tag, b)))),
            new Form<>("sendInit(direct ByteBuffer)", (c, tag, data) -> unmoved(direct(data), b -> started(c.sendInit(1, tag, b)))),
            new Form<>("sendInit(DirectBuffer, offset, length)", (c, tag, data) -> started(c.sendInit(1, tag, unsafe(data), AT, LENGTH))));
    }

    private static List<Form<Receive>> receives()
    {
        return List.of(
            new Form<>("recv(byte[])", (c, tag) ->
            {
                final byte[] in = new byte[LENGTH];
                checked(c.recv(0, tag, in), tag);
                return in;
            }),
            new Form<>("recv(byte[], offset, length)", (c, tag) ->
            {
                final byte[] in = sentinels();
                checked(c.recv(0, tag, in, AT, LENGTH), tag);
                return window(in);
            }),
            new Form<>("recv(heap ByteBuffer)", (c, tag) -> intoBuffer(ByteBuffer.wrap(sentinels()), b -> c.recv(0, tag, b), tag)),
            new Form<>("recv(direct ByteBuffer)", (c, tag) -> intoBuffer(ByteBuffer.allocateDirect(LENGTH + 2 * AT).put(sentinels()), b -> c.recv(0, tag, b), tag)),
            new Form<>("recv(MutableDirectBuffer, offset, length)", (c, tag) ->
                intoUnsafe(b -> c.recv(0, tag, b, AT, LENGTH), tag)),
            new Form<>("irecv(byte[])", (c, tag) ->
            {
                final byte[] in = new byte[LENGTH];
                checked(c.irecv(0, tag, in).await(), tag);
                return in;
            }),
            new Form<>("irecv(byte[], offset, length)", (c, tag) ->
            {
                final byte[] in = sentinels();
                checked(c.irecv(0, tag, in, AT, LENGTH).await(), tag);
                return window(in);
            }),
            new Form<>("irecv(heap ByteBuffer)", (c, tag) ->
                intoBuffer(ByteBuffer.wrap(sentinels()), b -> c.irecv(0, tag, b).await(), tag)),
            new Form<>("irecv(direct ByteBuffer)", (c, tag) ->
                intoBuffer(ByteBuffer.allocateDirect(LENGTH + 2 * AT).put(sentinels()), b -> c.irecv(0, tag, b).await(), tag)),
            new Form<>("irecv(MutableDirectBuffer, offset, length)", (c, tag) ->
                intoUnsafe(b -> c.irecv(0, tag, b, AT, LENGTH).await(), tag)),
            new Form<>("recvInit(byte[])", (c, tag) ->
            {
                final byte[] in = new byte[LENGTH];
                checked(started(c.recvInit(0, tag, in)).await(), tag);
                return in;
            }),
            new Form<>("recvInit(byte[], offset, length)", (c, tag) ->
            {
                final byte[] in = sentinels();
                checked(started(c.recvInit(0, tag, in, AT, LENGTH)).await(), tag);
                return window(in);
            }),
            new Form<>("recvInit(heap ByteBuffer)", (c, tag) ->
                intoBuffer(ByteBuffer.wrap(sentinels()), b -> started(c.recvInit(0, tag, b)).await(), tag)),
            new Form<>("recvInit(direct ByteBuffer)", (c, tag) ->
                intoBuffer(ByteBuffer.allocateDirect(LENGTH + 2 * AT).put(sentinels()), b -> started(c.recvInit(0, tag, b)).await(), tag)),
            new Form<>("recvInit(MutableDirectBuffer, offset, length)", (c, tag) ->
                intoUnsafe(b -> started(c.recvInit(0, tag, b, AT, LENGTH)).await(), tag)));
    }

    private static Request blocking(final Runnable send)
    {
        send.run();
        return null;
    }

    private static Request started(final Request request)
    {
        request.start();
        return request;
    }

    private static void sendBuffer(final Communicator c, final int tag, final ByteBuffer buffer)
    {
        unmoved(buffer, b ->
        {
            c.send(1, tag, b);
            return null;
        });
    }

    /**
     * Calls {@code call} with {@code buffer} and checks that its position and limit stayed where they were.
     */
    private static Request unmoved(final ByteBuffer buffer, final java.util.function.Function<ByteBuffer, Request> call)
    {
        final int position = buffer.position();
        final int limit = buffer.limit();
        final Request request = call.apply(buffer);
        assertEquals(position, buffer.position(), "the send moved the buffer's position");
        assertEquals(limit, buffer.limit(), "the send moved the buffer's limit");
        return request;
    }

    private static byte[] padded(final byte[] data)
    {
        final byte[] padded = new byte[LENGTH + 2 * AT];
        Arrays.fill(padded, (byte)-1);
        System.arraycopy(data, 0, padded, AT, LENGTH);
        return padded;
    }

    private static ByteBuffer heap(final byte[] data)
    {
        return ByteBuffer.wrap(padded(data)).position(AT).limit(AT + LENGTH);
    }

    private static ByteBuffer direct(final byte[] data)
    {
        final ByteBuffer direct = ByteBuffer.allocateDirect(LENGTH + 2 * AT);
        direct.put(padded(data)).position(AT).limit(AT + LENGTH);
        return direct;
    }

    private static UnsafeBuffer unsafe(final byte[] data)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(LENGTH + 2 * AT));
        buffer.putBytes(0, padded(data));
        return buffer;
    }

    private static byte[] intoBuffer(final ByteBuffer buffer, final java.util.function.Function<ByteBuffer, Status> receive, final int tag)
    {
        buffer.position(AT).limit(AT + LENGTH);
        checked(receive.apply(buffer), tag);
        assertEquals(AT, buffer.position(), "the receive moved the buffer's position");
        assertEquals(AT + LENGTH, buffer.limit(), "the receive moved the buffer's limit");
        final byte[] all = new byte[LENGTH + 2 * AT];
        buffer.duplicate().clear().get(all);
        return window(all);
    }

    private static byte[] intoUnsafe(final java.util.function.Function<MutableDirectBuffer, Status> receive, final int tag)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(sentinels());
        checked(receive.apply(buffer), tag);
        return window(buffer.byteArray());
    }

    /**
     * @return a receive buffer of {@link #AT} bytes, the message's room and {@link #AT} more, every byte
     *         {@link #SENTINEL}.
     */
    private static byte[] sentinels()
    {
        final byte[] all = new byte[LENGTH + 2 * AT];
        Arrays.fill(all, SENTINEL);
        return all;
    }

    /**
     * @return the message's room in a receive buffer of {@link #sentinels}, whose margins must be untouched.
     */
    private static byte[] window(final byte[] all)
    {
        for (int i = 0; i < all.length; i++)
        {
            if (i < AT || i >= AT + LENGTH)
            {
                assertEquals(SENTINEL, all[i], "the receive wrote outside its window, at " + i);
            }
        }
        return Arrays.copyOfRange(all, AT, AT + LENGTH);
    }

    private static void checked(final Status status, final int tag)
    {
        assertEquals(new Status(0, tag, LENGTH), status);
    }
}
