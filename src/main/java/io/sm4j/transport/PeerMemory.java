package io.sm4j.transport;

import io.sm4j.segment.Downcalls;
import io.sm4j.segment.IncubatorLinker;
import io.sm4j.segment.RankRegistry;
import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

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
 * JDK 22+, and on JDK 17 where the JVM resolved the incubating foreign linker (as {@code sm4j run} gives its
 * ranks), by {@code process_vm_readv} ({@link VmRead}), as vader, straight into the receive buffer if it is off
 * the heap; else through Linux's {@code /proc/PID/mem}, read as a file (a kernel page in between: slower). A
 * receive buffer on the heap, or a read of the file, goes through a scratch buffer of this rank's, a piece at a
 * time (a read of the file into an array would have the JDK allocate a direct buffer as long as the message).
 * <p>
 * The kernel allows it where this process may trace the peer: the same user, and under Yama's
 * {@code ptrace_scope} 1 only a parent, so sibling ranks may not (no rank then offers or reads:
 * {@link #describeForRanks}). A peer is first checked to be the process its rank recorded (pid and start
 * time: a pid reused by a process of the same user would be read instead). A peer that cannot be read is
 * remembered, and its large messages go through the pipeline; so does one whose read fails (the peer exited, or
 * the address is no longer mapped): a read reports, it never faults.
 */
public final class PeerMemory implements AutoCloseable
{
    /**
     * Large messages from this many bytes on are sent for the receiver to read ({@code RGET}). Below it the
     * pipeline's first chunk travels with the RNDV, and reading costs as much as it saves (docs/benchmarks.md,
     * "Large messages read out of the sender's process": 8 KiB measured).
     */
    public static final int MIN_BYTES = 16 << 10;
    /** A read into the heap, or of the peer's file, goes through this much at a time. */
    private static final int SCRATCH_BYTES = 256 << 10;
    private static final int FAILED = 0;
    private static final int BY_VM = 1;
    private static final int BY_FILE = 2;
    private final RankRegistry ranks;
    /** Null if this JVM cannot call process_vm_readv: then every read goes through the peer's file. */
    private final VmRead vm = VmRead.create();
    private final FileChannel[] files;
    /** Peers found to be not what their rank recorded, or whose file cannot be opened: never read again. */
    private final boolean[] refused;
    /** Peers checked to be the process their rank recorded. */
    private final boolean[] checked;
    /** Peers process_vm_readv failed on, whose file served instead (a policy may allow one and not the other). */
    private final boolean[] noVm;
    private ByteBuffer scratch;
    private long scratchAddress;
    private long vmBytes;
    private long fileBytes;
    /** {@link TransportOptions.PeerReads#AUTO}: a receiver reads only the messages it chooses to ({@link #isChosen}). */
    private final boolean chosen;

    PeerMemory(final RankRegistry ranks, final int size, final boolean chosen)
    {
        this.chosen = chosen;
        this.ranks = ranks;
        this.files = new FileChannel[size];
        this.refused = new boolean[size];
        this.checked = new boolean[size];
        this.noVm = new boolean[size];
    }

    /**
     * For a launcher or a benchmark, before its ranks start (on this JVM's JDK, with native access and, on JDK 17,
     * the incubating linker: {@link IncubatorLinker#FLAG}).
     *
     * @return how those ranks read each other's large messages where they do ({@link #whyNot} is null):
     *         "process_vm_readv" or "/proc/PID/mem".
     */
    public static String describeForRanks()
    {
        return Downcalls.unavailableReason(false) == null || IncubatorLinker.forThisJdk() ? "process_vm_readv" : "/proc/PID/mem";
    }

    /**
     * @return why a rank with {@code setting} neither offers its large messages to be read nor reads its peers'
     *         ("SM4J_PEER_READS=off", a Yama restriction, no /proc), or null if it does both.
     */
    public static String whyNot(final TransportOptions.PeerReads setting)
    {
        if (setting == TransportOptions.PeerReads.OFF)
        {
            return TransportOptions.PEER_READS_ENV + "=off";
        }
        if (!readsItself())
        {
            return "no /proc/self/mem to read";
        }
        final String scope = yamaScope();
        return scope == null || scope.equals("0") ? null : "Yama ptrace_scope " + scope + ": only a parent may read a process";
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
     * @return true if this process can read its own memory as a file: Linux with {@code /proc} mounted, and no
     *         policy that refuses a process its own file.
     */
    private static boolean readsItself()
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
     * {@code offset} (any kind of buffer). Synchronized: ranks' threads in MULTIPLE mode share the files and the
     * scratch buffer.
     *
     * @return false if they could not all be read (the caller has them sent otherwise; {@code into} may hold part).
     */
    public synchronized boolean read(final int rank, final long address, final MutableDirectBuffer into, final int offset, final int length)
    {
        final int way = copy(rank, address, into, offset, length);
        if (way == BY_VM)
        {
            vmBytes += length;
        }
        else if (way == BY_FILE)
        {
            fileBytes += length;
        }
        return way != FAILED;
    }

    /**
     * Whether this rank can read {@code rank}'s process: reads the 8 bytes at {@code address} there, which hold
     * {@code address} itself where the peer put its own address (not counted in {@link #bytesRead}).
     *
     * @return true if they could be read and hold {@code address}.
     */
    public synchronized boolean holdsItsAddress(final int rank, final long address)
    {
        final UnsafeBuffer word = new UnsafeBuffer(ByteBuffer.allocateDirect(Long.BYTES)); // off the heap: read into directly
        final boolean fileOpen = files[rank] != null;
        final boolean holds = address > 0 && copy(rank, address, word, 0, Long.BYTES) != FAILED && word.getLong(0) == address;
        if (!fileOpen && files[rank] != null)
        {
            forget(rank); // opened for this check alone: a rank need not keep a file of every peer open
        }
        return holds;
    }

    /**
     * @return {@link #BY_VM} or {@link #BY_FILE}, the way the bytes were copied, or {@link #FAILED}.
     */
    private int copy(final int rank, final long address, final MutableDirectBuffer into, final int offset, final int length)
    {
        if (!isItsRanks(rank))
        {
            return FAILED;
        }
        if (vm != null && !noVm[rank] && readByVm(ranks.pidOf(rank), address, into, offset, length))
        {
            return BY_VM;
        }
        final FileChannel file = fileOf(rank);
        if (file == null)
        {
            return FAILED;
        }
        try
        {
            if (!throughScratch(file, 0, address, into, offset, length))
            {
                return FAILED;
            }
        }
        catch (final IOException ex)
        {
            forget(rank); // a channel closed by an interrupt is opened again next time
            return FAILED;
        }
        noVm[rank] = vm != null; // the file served where the system call did not: take the file from now on
        return BY_FILE;
    }

    /**
     * @return how this rank has read its peers' processes so far: "process_vm_readv", "/proc/PID/mem" or both;
     *         before its first read, how it will try first.
     */
    public synchronized String describe()
    {
        if (vmBytes > 0 && fileBytes > 0)
        {
            return "process_vm_readv and /proc/PID/mem";
        }
        return vmBytes > 0 || fileBytes == 0 && vm != null ? "process_vm_readv" : "/proc/PID/mem";
    }

    /**
     * @return true if the receiver chooses, message by message, between a read and the pipeline
     *         ({@link TransportOptions.PeerReads#AUTO}); false if it reads every message it can
     *         ({@link TransportOptions.PeerReads#ON}).
     */
    public boolean isChosen()
    {
        return chosen;
    }

    /**
     * @return bytes of messages this rank has read out of its peers' processes (for tests and diagnostics).
     */
    public synchronized long bytesRead()
    {
        return vmBytes + fileBytes;
    }

    /**
     * @return true if {@code rank}'s process is the one it recorded, as checked on the first read from it (a file
     *         opened after the check stays bound to that process; a pid the system call names again could be
     *         reused only once the rank has died, which the health check reports).
     */
    private boolean isItsRanks(final int rank)
    {
        if (!checked[rank] && !refused[rank])
        {
            refused[rank] = !ranks.isProcessAlive(rank);
            checked[rank] = true;
        }
        return !refused[rank];
    }

    /**
     * By {@code process_vm_readv}: into the buffer's own memory if it is off the heap, else through the scratch
     * buffer.
     */
    private boolean readByVm(final long pid, final long address, final MutableDirectBuffer into, final int offset, final int length)
    {
        if (into.byteArray() == null)
        {
            return vm.read(pid, address, into.addressOffset() + offset, length);
        }
        try
        {
            return throughScratch(null, pid, address, into, offset, length);
        }
        catch (final IOException unexpected)
        {
            return false; // only the file throws
        }
    }

    /**
     * Reads {@code length} bytes at {@code address} into {@code into} a scratch buffer's length at a time: from
     * {@code file} if not null, else by process_vm_readv from process {@code pid}.
     */
    private boolean throughScratch(
        final FileChannel file, final long pid, final long address, final MutableDirectBuffer into, final int offset, final int length)
        throws IOException
    {
        if (scratch == null)
        {
            scratch = ByteBuffer.allocateDirect(SCRATCH_BYTES);
            scratchAddress = BufferUtil.address(scratch);
        }
        for (int done = 0; done < length; )
        {
            final int chunk = Math.min(SCRATCH_BYTES, length - done);
            if (file == null ? !vm.read(pid, address + done, scratchAddress, chunk) : !readFully(file, address + done, scratch.clear().limit(chunk)))
            {
                return false;
            }
            into.putBytes(offset + done, scratch, 0, chunk);
            done += chunk;
        }
        return true;
    }

    private static boolean readFully(final FileChannel file, final long address, final ByteBuffer into) throws IOException
    {
        while (into.hasRemaining())
        {
            // 0 or -1: the process is gone (its memory with it)
            if (file.read(into, address + into.position()) <= 0)
            {
                return false;
            }
        }
        return true;
    }

    private FileChannel fileOf(final int rank)
    {
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
