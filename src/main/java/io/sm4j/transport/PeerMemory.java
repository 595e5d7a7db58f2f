package io.sm4j.transport;

import io.sm4j.segment.Downcalls;
import io.sm4j.segment.IncubatorLinker;
import io.sm4j.segment.RankRegistry;
import org.agrona.MutableDirectBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads what a peer rank's process holds at an address: the receiver of a large message sent from off-heap
 * memory copies it once, straight out of the sender's buffer, as Open MPI's vader does with CMA, instead of the
 * fragment pipeline's two copies, the first of which writes lines the receiver holds (docs/benchmarks.md). On
 * JDK 22+, and on JDK 17 where the JVM resolved the incubating foreign linker (as {@code sm4j run} gives its ranks),
 * by {@code process_vm_readv} ({@link VmRead}), as vader; else through Linux's {@code /proc/PID/mem}, read as a
 * file (a kernel page in between: slower, still one copy of this process's).
 * <p>
 * The kernel allows it where this process may trace the peer: the same user, and under Yama's
 * {@code ptrace_scope} 1 only a parent, so sibling ranks may not. A peer whose file cannot be opened is
 * remembered, and its large messages go through the pipeline; so does one whose read fails (the peer exited, or
 * the address is no longer mapped): a read reports, it never faults. A peer's file, once open, stays bound to
 * that process, whatever later takes its pid.
 */
public final class PeerMemory implements AutoCloseable
{
    /**
     * Large messages from this many bytes on are sent for the receiver to read ({@code RGET}). Below it the
     * pipeline's first chunk travels with the RNDV and the read's system call costs more than it saves
     * (docs/benchmarks.md, "Large messages read from the sender's process").
     */
    public static final int MIN_BYTES = 16 << 10;
    /** A read into memory that is neither a direct ByteBuffer nor an array goes through this much at a time. */
    private static final int SCRATCH_BYTES = 256 << 10;
    private final RankRegistry ranks;
    /** Null before JDK 22 or without native access: then every read goes through the peer's file. */
    private final VmRead vm = VmRead.create();
    private final FileChannel[] files;
    private final boolean[] refused;
    /** Peers process_vm_readv failed on, whose file served instead (a policy may allow one and not the other). */
    private final boolean[] noVm;
    private ByteBuffer scratch;
    private long bytesRead;

    PeerMemory(final RankRegistry ranks, final int size)
    {
        this.ranks = ranks;
        this.files = new FileChannel[size];
        this.refused = new boolean[size];
        this.noVm = new boolean[size];
    }

    /**
     * For a launcher or a benchmark, before its ranks start (on this JVM's JDK, with native access and, on JDK 17,
 * the incubating linker: {@link IncubatorLinker#FLAG}).
     *
     * @return how those ranks read each other's large messages under {@code setting}: "process_vm_readv" or
     *         "/proc/PID/mem", or why they do not ("... off", a Yama restriction, no /proc).
     */
    public static String describeForRanks(final TransportOptions.PeerReads setting)
    {
        if (setting == TransportOptions.PeerReads.OFF)
        {
            return "not at all (" + TransportOptions.PEER_READS_ENV + "=off)";
        }
        if (!available())
        {
            return "not at all (no /proc/self/mem to read)";
        }
        final String scope = yamaScope();
        if (scope != null && !scope.equals("0"))
        {
            return "not at all (Yama ptrace_scope " + scope + ": only a parent may read a process)";
        }
        return Downcalls.unavailableReason(false) == null || IncubatorLinker.forThisJdk() ? "process_vm_readv" : "/proc/PID/mem";
    }

    /**
     * @return Yama's ptrace_scope, or null without Yama.
     */
    private static String yamaScope()
    {
        try
        {
            return Files.readString(Path.of("/proc/sys/kernel/yama/ptrace_scope")).trim();
        }
        catch (final IOException | SecurityException ex)
        {
            return null;
        }
    }

    /**
     * @return true if this process can read its own memory this way: Linux with {@code /proc} mounted, and no
     *         policy that refuses a process its own file.
     */
    static boolean available()
    {
        try (FileChannel self = FileChannel.open(Path.of("/proc/self/mem"), StandardOpenOption.READ))
        {
            return self.isOpen();
        }
        catch (final IOException | UnsupportedOperationException | SecurityException ex)
        {
            return false;
        }
    }

    /**
     * Copies {@code length} bytes at {@code address} of rank {@code rank}'s process into {@code into} at
     * {@code offset} (any kind of buffer). Synchronized: ranks' threads in MULTIPLE mode share the files.
     *
     * @return false if they could not all be read (the caller has them sent otherwise; {@code into} may hold part).
     */
    public synchronized boolean read(final int rank, final long address, final MutableDirectBuffer into, final int offset, final int length)
    {
        if (vm != null && !noVm[rank] && readByVm(rank, address, into, offset, length))
        {
            bytesRead += length;
            return true;
        }
        final FileChannel file = fileOf(rank);
        if (file == null)
        {
            return false;
        }
        try
        {
            if (!readInto(file, address, into, offset, length))
            {
                return false;
            }
        }
        catch (final IOException ex)
        {
            forget(rank); // a channel closed by an interrupt is opened again next time
            return false;
        }
        noVm[rank] = vm != null; // the file served where the system call did not: take the file from now on
        bytesRead += length;
        return true;
    }

    /**
     * By {@code process_vm_readv}: into the buffer's own memory if it has an address, else through the scratch
     * buffer.
     */
    private boolean readByVm(final int rank, final long address, final MutableDirectBuffer into, final int offset, final int length)
    {
        final long pid = ranks.pidOf(rank);
        if (into.byteArray() == null)
        {
            return vm.read(pid, address, into.addressOffset() + offset, length);
        }
        for (int done = 0; done < length; )
        {
            final int chunk = Math.min(SCRATCH_BYTES, length - done);
            if (!vm.read(pid, address + done, scratchAddress(), chunk))
            {
                return false;
            }
            into.putBytes(offset + done, scratch, 0, chunk);
            done += chunk;
        }
        return true;
    }

    /**
     * @return how this rank reads a peer's process: "process_vm_readv" (JDK 22+ with native access) or
     *         "/proc/PID/mem".
     */
    public String describe()
    {
        return vm != null ? "process_vm_readv" : "/proc/PID/mem";
    }

    /**
     * @return bytes of messages this rank has read out of its peers' processes (for tests and diagnostics).
     */
    public synchronized long bytesRead()
    {
        return bytesRead;
    }

    private boolean readInto(final FileChannel file, final long address, final MutableDirectBuffer into, final int offset, final int length)
        throws IOException
    {
        final ByteBuffer direct = into.byteBuffer();
        if (direct != null && direct.isDirect())
        {
            final int at = into.wrapAdjustment() + offset;
            return readFully(file, address, direct.duplicate().limit(at + length).position(at));
        }
        final byte[] array = into.byteArray();
        if (array != null)
        {
            // the JDK reads through its own cached direct buffer and copies into the array
            return readFully(file, address, ByteBuffer.wrap(array, into.wrapAdjustment() + offset, length));
        }
        return readThroughScratch(file, address, into, offset, length);
    }

    private boolean readThroughScratch(
        final FileChannel file, final long address, final MutableDirectBuffer into, final int offset, final int length)
        throws IOException
    {
        scratchAddress();
        for (int done = 0; done < length; )
        {
            final int chunk = Math.min(SCRATCH_BYTES, length - done);
            if (!readFully(file, address + done, scratch.clear().limit(chunk)))
            {
                return false;
            }
            into.putBytes(offset + done, scratch, 0, chunk);
            done += chunk;
        }
        return true;
    }

    /**
     * @return the address of the scratch buffer, allocated on first use.
     */
    private long scratchAddress()
    {
        if (scratch == null)
        {
            scratch = ByteBuffer.allocateDirect(SCRATCH_BYTES);
        }
        return org.agrona.BufferUtil.address(scratch);
    }

    private static boolean readFully(final FileChannel file, final long address, final ByteBuffer into) throws IOException
    {
        final int start = into.position();
        while (into.hasRemaining())
        {
            // 0 or -1: the process is gone (its memory with it)
            if (file.read(into, address + into.position() - start) <= 0)
            {
                return false;
            }
        }
        return true;
    }

    private FileChannel fileOf(final int rank)
    {
        if (refused[rank])
        {
            return null;
        }
        if (files[rank] == null)
        {
            try
            {
                files[rank] = FileChannel.open(Path.of("/proc", Long.toString(ranks.pidOf(rank)), "mem"), StandardOpenOption.READ);
            }
            catch (final IOException | SecurityException ex)
            {
                refused[rank] = true; // not allowed to trace it: the pipeline, for good
                return null;
            }
        }
        return files[rank];
    }

    private void forget(final int rank)
    {
        try
        {
            files[rank].close();
        }
        catch (final IOException ignored)
        {
            // a read already failed: nothing more to report
        }
        files[rank] = null;
    }

    @Override
    public synchronized void close()
    {
        for (int rank = 0; rank < files.length; rank++)
        {
            if (files[rank] != null)
            {
                forget(rank);
            }
        }
    }
}
