package io.ibemu.kernel;

import com.kenai.jffi.MemoryIO;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;

/**
 * Another process's memory, through process_vm_readv/process_vm_writev on its thread id. Data
 * passes through a per-thread native scratch buffer that holds the two iovecs in front.
 */
public final class ProcessMemory {

    private static final MemoryIO MEMORY = MemoryIO.getInstance();

    private static final int IOVECS = 32;
    /** Remote ranges one {@link #writeAll}/{@link #readAll} takes (well below UIO_MAXIOV). */
    public static final int IOVECS_MAX = 64;
    /** Pages tried per process_vm_writev by {@link #writable} (below UIO_MAXIOV, 1024). */
    private static final int TOUCHES = 256;
    /** The smallest page size: a larger one only means more bytes tried than needed. */
    private static final long PAGE = 4096;
    // larger transfers get a buffer of their own rather than a scratch buffer kept per thread
    private static final int KEPT_SCRATCH = 256 * 1024;
    private static final ThreadLocal<Scratch> SCRATCH = new ThreadLocal<>();

    /** A direct buffer and its address, asked of the JVM once (a JNI call each time otherwise). */
    private record Scratch(ByteBuffer buffer, long address) {
        static Scratch of(int size) {
            ByteBuffer b = ByteBuffer.allocateDirect(size);
            return new Scratch(b, MEMORY.getDirectBufferAddress(b));
        }
    }

    private ProcessMemory() {
    }

    /** Copies {@code length} bytes of {@code data} from {@code offset} to the thread's memory at {@code address}. */
    public static void write(int tid, long address, byte[] data, int offset, int length) throws Errno {
        if (length == 0) {
            return;
        }
        Scratch scratch = scratch(length);
        long base = scratch.address();
        MEMORY.putByteArray(base + IOVECS, data, offset, length);
        iovecs(base, address, length);
        long done = ProcessVm.writev(tid, base, 1, base + 16, 1);
        Reference.reachabilityFence(scratch); // a one-off buffer must outlive the call that uses its address
        check(done, length);
    }

    /** {@code length} bytes of the thread's memory at {@code address}; EFAULT unless all are readable. */
    public static byte[] read(int tid, long address, int length) throws Errno {
        byte[] data = new byte[length];
        if (length == 0) {
            return data;
        }
        Scratch scratch = scratch(length);
        long base = scratch.address();
        iovecs(base, address, length);
        long done = ProcessVm.readv(tid, base, 1, base + 16, 1);
        check(done, length);
        MEMORY.getByteArray(base + IOVECS, data, 0, length);
        Reference.reachabilityFence(scratch);
        return data;
    }

    /**
     * Copies each {@code data[i]} to the thread's memory at {@code addresses[i]}, in order, in one
     * process_vm_writev (up to {@value #IOVECS_MAX} ranges). Like the kernel's copy_to_user()s one
     * after another, it stops at the first range it cannot write whole.
     *
     * @return how many leading ranges were written whole
     */
    public static int writeAll(int tid, long[] addresses, byte[][] data) {
        int n = addresses.length;
        if (n > IOVECS_MAX) {
            throw new IllegalArgumentException(n + " ranges");
        }
        long total = 0;
        for (byte[] d : data) {
            total += d.length;
        }
        Scratch scratch = scratch(Math.toIntExact(n * 16L + total));
        long base = scratch.address();
        long bytes = base + IOVECS + n * 16L;
        long at = bytes;
        for (int i = 0; i < n; i++) {
            MEMORY.putByteArray(at, data[i], 0, data[i].length);
            at += data[i].length;
            MEMORY.putAddress(base + IOVECS + i * 16L, addresses[i]);
            MEMORY.putLong(base + IOVECS + i * 16L + 8, data[i].length);
        }
        MEMORY.putAddress(base, bytes);
        MEMORY.putLong(base + 8, total);
        long done = ProcessVm.writev(tid, base, 1, base + IOVECS, n);
        Reference.reachabilityFence(scratch);
        return wholeRanges(done, data);
    }

    /**
     * The thread's memory at each {@code addresses[i]}, {@code lengths[i]} bytes, in one
     * process_vm_readv; null unless every range was read whole (the caller then reads them one by
     * one where a failure must show).
     */
    public static byte[][] readAll(int tid, long[] addresses, int[] lengths) {
        int n = addresses.length;
        if (n > IOVECS_MAX) {
            throw new IllegalArgumentException(n + " ranges");
        }
        long total = 0;
        for (int length : lengths) {
            total += length;
        }
        Scratch scratch = scratch(Math.toIntExact(n * 16L + total));
        long base = scratch.address();
        long bytes = base + IOVECS + n * 16L;
        for (int i = 0; i < n; i++) {
            MEMORY.putAddress(base + IOVECS + i * 16L, addresses[i]);
            MEMORY.putLong(base + IOVECS + i * 16L + 8, lengths[i]);
        }
        MEMORY.putAddress(base, bytes);
        MEMORY.putLong(base + 8, total);
        long done = total == 0 ? 0 : ProcessVm.readv(tid, base, 1, base + IOVECS, n);
        if (done != total) {
            return null;
        }
        byte[][] out = new byte[n][];
        long at = bytes;
        for (int i = 0; i < n; i++) {
            out[i] = new byte[lengths[i]];
            MEMORY.getByteArray(at, out[i], 0, lengths[i]);
            at += lengths[i];
        }
        Reference.reachabilityFence(scratch);
        return out;
    }

    private static int wholeRanges(long done, byte[][] data) {
        int whole = 0;
        for (byte[] d : data) {
            if (done < d.length) {
                break;
            }
            done -= d.length;
            whole++;
        }
        return whole;
    }

    /**
     * Whether the thread's {@code length} bytes at {@code address} are all writable, tried by
     * writing a zero byte into each page they span: for a buffer whose next read will overwrite
     * exactly those bytes (a check that must not take the data it guards).
     */
    public static boolean writable(int tid, long address, int length) {
        long at = address;
        long end = address + length;
        while (at < end) {
            Scratch scratch = scratch(TOUCHES * 17);
            long local = scratch.address();
            long remote = local + 16;
            long zeros = remote + TOUCHES * 16L;
            int n = 0;
            for (; at < end && n < TOUCHES; at = (at | PAGE - 1) + 1, n++) {
                MEMORY.putAddress(remote + n * 16L, at);
                MEMORY.putLong(remote + n * 16L + 8, 1);
            }
            MEMORY.setMemory(zeros, n, (byte) 0);
            MEMORY.putAddress(local, zeros);
            MEMORY.putLong(local + 8, n);
            if (ProcessVm.writev(tid, local, 1, remote, n) != n) {
                return false;
            }
        }
        return true;
    }

    private static void iovecs(long base, long remote, int length) {
        MEMORY.putAddress(base, base + IOVECS);
        MEMORY.putLong(base + 8, length);
        MEMORY.putAddress(base + 16, remote);
        MEMORY.putLong(base + 24, length);
    }

    private static void check(long done, int length) throws Errno {
        if (done < 0) {
            int errno = ProcessVm.errno();
            throw Errno.of(errno == 0 ? Errno.EFAULT : errno);
        }
        if (done != length) {
            throw Errno.of(Errno.EFAULT);
        }
    }

    private static Scratch scratch(int length) {
        int size = IOVECS + length;
        if (size > KEPT_SCRATCH) {
            return Scratch.of(size);
        }
        Scratch kept = SCRATCH.get();
        if (kept == null || kept.buffer().capacity() < size) {
            kept = Scratch.of(Math.max(size, 4096));
            SCRATCH.set(kept);
        }
        return kept;
    }
}
