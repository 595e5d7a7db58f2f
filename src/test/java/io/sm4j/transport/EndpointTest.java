package io.sm4j.transport;

import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.Segment;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Two endpoints of one segment in one JVM, for the API's contract and its bad-input errors (multi-process
 * behaviour is covered by the tests in io.sm4j.it).
 */
@Timeout(60)
class EndpointTest
{
    private Path dir;
    private Segment segment;
    private Endpoint rank0;
    private Endpoint rank1;

    @BeforeEach
    void openTwoRanks() throws IOException
    {
        dir = Files.createTempDirectory(Path.of("/dev/shm"), "sm4j-endpoint-test-");
        segment = Segment.create(LayoutParams.builder(2).queueEntries(8).build(), dir, 11);
        final CompletableFuture<Endpoint> other =
            CompletableFuture.supplyAsync(() -> Endpoint.open(segment, 1, TransportOptions.defaults(), false));
        rank0 = Endpoint.open(segment, 0, TransportOptions.defaults(), false);
        rank1 = other.join();
    }

    @AfterEach
    void close() throws IOException
    {
        rank0.close();
        rank1.close();
        segment.close();
        assertFalse(Files.exists(segment.path()));
        Files.delete(dir);
    }

    @Test
    void shouldDeliverPayloadAndHeaderFieldsZeroCopy()
    {
        final byte[] payload = { 1, 2, 3, 4, 5 };
        rank0.send(1, 9, 42, 7L, 99L, new UnsafeBuffer(payload), 1, 3);
        rank0.send(1, ByteBuffer.wrap(new byte[]{ 8 }));
        final List<String> seen = new ArrayList<>();
        final byte[] copy = new byte[3];
        int delivered = 0;
        while (delivered < 2)
        {
            delivered += rank1.poll(f ->
            {
                if (f.length() == 3)
                {
                    f.buffer().getBytes(f.offset(), copy);
                }
                seen.add(f.source() + "/" + f.type() + "/" + f.tag() + "/" + f.sequence() + "/" + f.aux() + "/" + f.length());
            }, 10);
        }
        assertEquals(List.of("0/9/42/7/99/3", "0/0/0/0/0/1"), seen);
        assertArrayEquals(new byte[]{ 2, 3, 4 }, copy);
    }

    @Test
    void shouldRejectBadArgumentsBeforeTouchingSharedMemory()
    {
        final int max = rank0.maxPayload();
        assertEquals("length=" + (max + 1) + " exceeds maxPayload=" + max + " (eagerLimit=4096 less the 32-byte header)",
            assertThrows(IllegalArgumentException.class, () -> rank0.send(1, new byte[max + 1])).getMessage());
        assertEquals("dest=0 (expected: 0..1, not this rank 0)",
            assertThrows(IllegalArgumentException.class, () -> rank0.send(0, new byte[1])).getMessage());
        assertEquals("dest=2 (expected: 0..1, not this rank 0)",
            assertThrows(IllegalArgumentException.class, () -> rank0.send(2, new byte[1])).getMessage());
        assertThrows(NullPointerException.class, () -> rank0.send(1, (byte[])null));
        assertEquals("offset=2 length=5 capacity=4",
            assertThrows(IndexOutOfBoundsException.class, () -> rank0.send(1, new UnsafeBuffer(new byte[4]), 2, 5)).getMessage());
        assertEquals("rank=2 (expected: 0..1)",
            assertThrows(IllegalArgumentException.class, () -> Endpoint.open(segment, 2, TransportOptions.defaults(), false))
                .getMessage());
    }

    @Test
    void shouldRejectSendingAfterClose()
    {
        rank0.close();
        assertEquals("endpoint of rank 0 is closed",
            assertThrows(IllegalStateException.class, () -> rank0.send(1, new byte[1])).getMessage());
    }
}
