package io.sm4j.transport;

import io.sm4j.layout.ControlBlockDescriptor;
import io.sm4j.layout.FragmentDescriptor;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentHeaderDescriptor;
import io.sm4j.layout.SegmentLayout;
import io.sm4j.segment.Sm4jException;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A peer that writes garbage into shared memory: seeded cases each forge one word (a FIFO queue word, a
 * returned fragment's word, a fragment header, a fast box record or its owner, a head, tail or credit
 * word, a control block, the segment header) from a random moment on, rewriting it before every poll (as a
 * hostile process would keep doing; a word written once is mostly overwritten by its owner before anyone
 * reads it), while rank 0 streams messages to rank 1, both polling. Every case must end with the traffic done or an {@link Sm4jException} (the job aborted as
 * corrupt), never another exception (an index outside a view is a read outside the segment), an
 * {@link Error}, a crash, or a hang. {@value #CASES} cases by default; {@code -Dstress} runs
 * {@value #STRESS_CASES}, {@code -Dstress=N} runs N.
 */
class HostileMemoryTest
{
    private static final int CASES = 300;
    private static final int STRESS_CASES = 5000;
    private static final int MESSAGES = 200;

    enum Target
    {
        HEADER, CONTROL_BLOCK, QUEUE, RETURN_QUEUE, HEAD, TAIL, CREDIT, EAGER_FRAGMENT_HEADER, MAX_FRAGMENT_HEADER,
        FAST_BOX_RECORD, FAST_BOX_OWNER
    }

    @Test
    @Timeout(600)
    void forgedWordsShouldEndInAnSm4jExceptionOrNothingNeverAnythingElse() throws IOException
    {
        final String stress = System.getProperty("stress");
        final int cases = stress == null ? CASES : stress.isEmpty() ? STRESS_CASES : Integer.parseInt(stress);
        final Map<Target, int[]> outcomes = new EnumMap<>(Target.class); // [cases, aborted]
        for (int seed = 0; seed < cases; seed++)
        {
            final Random random = new Random(seed);
            final Target target = Target.values()[random.nextInt(Target.values().length)];
            final boolean aborted = runCase(seed, random, target);
            final int[] counts = outcomes.computeIfAbsent(target, t -> new int[2]);
            counts[0]++;
            counts[1] += aborted ? 1 : 0;
        }
        System.out.println("hostile memory, " + cases + " cases [cases, ended in Sm4jException]: " + format(outcomes));
        // the forgery must reach the code under test: most kinds of forged word are detected in some case
        final long detecting = outcomes.values().stream().filter(counts -> counts[1] > 0).count();
        assertTrue(detecting >= outcomes.size() / 2, "forgeries detected in only " + detecting + " targets: " + format(outcomes));
    }

    /**
     * @return true if the case ended in an Sm4jException.
     */
    private static boolean runCase(final int seed, final Random random, final Target target) throws IOException
    {
        final TwoRanks job = new TwoRanks(LayoutParams.defaults(2));
        MappedByteBuffer file = null;
        boolean aborted = false;
        try
        {
            final int forgeAt = random.nextInt(MESSAGES);
            file = mapWhole(job.segment.path(), job.segment.layout().totalBytes());
            final Forgery forgery = Forgery.pick(new UnsafeBuffer(file), job.segment.layout(), random, target);
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[job.rank0.maxFragmentPayload()]);
            final SendClaim claim = new SendClaim();
            final FragmentHandler reader = fragment ->
                fragment.buffer().getBytes(fragment.offset(), new byte[fragment.length()]); // reads every byte
            // bounded: a forged credit or box owner may starve the sender for good, which is no error of the
            // transport (a receiver that never frees room looks the same): the case then just ends
            for (int sent = 0, round = 0; sent < MESSAGES && round < 20 * MESSAGES; round++)
            {
                final boolean max = random.nextInt(8) == 0;
                final int length = random.nextInt((max ? job.rank0.maxFragmentPayload() : job.rank0.maxPayload()) + 1);
                if ((max ? job.rank0.tryClaimMax(1, length, claim) : job.rank0.tryClaim(1, length, claim)) == Endpoint.CLAIMED)
                {
                    claim.buffer().putBytes(0, payload, 0, length);
                    claim.commit();
                    sent++;
                }
                if (sent >= forgeAt)
                {
                    forgery.write(); // after the owner's writes, before the reader's
                }
                job.rank1.poll(reader, 16);
                job.rank0.poll(reader, 16);
            }
            // the header and the control blocks are read by the health check, every 100 ms: run through two
            final long ticks0 = job.rank0.ticks();
            final long ticks1 = job.rank1.ticks();
            while ((target == Target.HEADER || target == Target.CONTROL_BLOCK) &&
                (job.rank0.ticks() - ticks0 < 2 || job.rank1.ticks() - ticks1 < 2))
            {
                forgery.write();
                job.rank1.poll(reader, 16);
                job.rank0.poll(reader, 16);
                job.rank1.idle();
                job.rank1.endWait(); // a pass, not a wait: rank 0 is polled by this thread too, so never sleep
            }
        }
        catch (final Sm4jException expected)
        {
            aborted = true;
        }
        catch (final RuntimeException | Error ex)
        {
            fail("seed " + seed + ", forged " + target + ": " + ex, ex);
        }
        finally
        {
            if (file != null)
            {
                IoUtil.unmap(file);
            }
            closeQuietly(job, seed, target);
        }
        return aborted;
    }

    /** Maps the segment file as another process would: its own mapping of the whole file. */
    private static MappedByteBuffer mapWhole(final Path path, final long length) throws IOException
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
        }
    }

    /** Closing after a forgery may report it again; anything but an Sm4jException is a failure. */
    private static void closeQuietly(final TwoRanks job, final int seed, final Target target) throws IOException
    {
        try
        {
            job.close();
        }
        catch (final Sm4jException reported)
        {
            job.segment.close();
        }
        catch (final RuntimeException | Error ex)
        {
            fail("seed " + seed + ", forged " + target + ", on close: " + ex, ex);
        }
    }

    /**
     * One forged 4- or 8-byte word at an aligned position of a target.
     */
    private record Forgery(UnsafeBuffer view, int at, boolean wide, long value)
    {
        /**
         * @param file the whole segment, mapped by the forger itself (as another process maps it).
         */
        static Forgery pick(final UnsafeBuffer file, final SegmentLayout layout, final Random random, final Target target)
        {
            final long offset;
            final int length;
            switch (target)
            {
                case HEADER -> { offset = layout.headerOffset(); length = SegmentHeaderDescriptor.LENGTH; }
                case CONTROL_BLOCK ->
                {
                    offset = layout.controlBlockOffset(random.nextInt(2));
                    length = ControlBlockDescriptor.OWNER_LENGTH;
                }
                case QUEUE -> { offset = layout.queueOffset(0, 1); length = (int)layout.queueLength(); }
                case RETURN_QUEUE -> { offset = layout.queueOffset(1, 0); length = (int)layout.queueLength(); }
                case HEAD -> { offset = layout.headOffset(0, 1); length = Long.BYTES; }
                case TAIL -> { offset = layout.tailOffset(0, 1); length = Long.BYTES; }
                case CREDIT -> { offset = layout.creditOffset(0, 1); length = Long.BYTES; }
                case EAGER_FRAGMENT_HEADER ->
                {
                    offset = layout.eagerFragmentOffset(0, random.nextInt(layout.eagerFragmentCount()));
                    length = FragmentDescriptor.HEADER_LENGTH;
                }
                case MAX_FRAGMENT_HEADER ->
                {
                    offset = layout.maxFragmentOffset(0, random.nextInt(layout.maxFragmentCount()));
                    length = FragmentDescriptor.HEADER_LENGTH;
                }
                case FAST_BOX_RECORD ->
                {
                    offset = layout.fastBoxRingOffset(1, random.nextInt(layout.fastBoxCount()));
                    length = 512; // the records a short run uses
                }
                case FAST_BOX_OWNER ->
                {
                    offset = layout.fastBoxOwnerOffset(1, random.nextInt(layout.fastBoxCount()));
                    length = Integer.BYTES;
                }
                default -> throw new IllegalStateException(target.name());
            }
            final boolean wide = length >= Long.BYTES && random.nextBoolean();
            final int width = wide ? Long.BYTES : Integer.BYTES;
            return new Forgery(new UnsafeBuffer(file, (int)offset, length), random.nextInt(length / width) * width, wide,
                forgedValue(random, layout));
        }

        void write()
        {
            if (wide)
            {
                view.putLongVolatile(at, value);
            }
            else
            {
                view.putIntVolatile(at, (int)value);
            }
        }
    }

    /** Values that break assumptions: extremes, signs, offsets just inside and outside the segment. */
    private static long forgedValue(final Random random, final SegmentLayout layout)
    {
        return switch (random.nextInt(9))
        {
            case 0 -> 0;
            case 1 -> -1;
            case 2 -> Integer.MAX_VALUE;
            case 3 -> Integer.MIN_VALUE;
            case 4 -> Long.MAX_VALUE;
            case 5 -> layout.totalBytes() - random.nextInt(64);
            case 6 -> layout.poolRegionOffset(random.nextInt(2)) + random.nextInt(4096);
            case 7 -> random.nextInt(1 << 16);
            default -> random.nextLong();
        };
    }

    private static String format(final Map<Target, int[]> outcomes)
    {
        final StringBuilder text = new StringBuilder();
        outcomes.forEach((target, counts) -> text.append(target).append(' ').append(counts[0]).append('/').append(counts[1]).append("  "));
        return text.toString().trim();
    }
}
