package io.ibemu.emulator.hca;

import com.kenai.jffi.MemoryIO;
import io.ibemu.kernel.ProcessVm;
import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The memory of a live process, as the HCA reaches it by DMA: reads and writes through
 * process_vm_readv/process_vm_writev (no copy per packet: direct buffers go to the kernel as
 * they are), the REG_MR mapping check from /proc/PID/maps, and the RLIMIT_MEMLOCK of
 * /proc/PID/limits (none for a process with CAP_IPC_LOCK, as ib_umem_get skips the check).
 */
public final class ProcessHostMemory implements HostMemory {

    private static final int CAP_IPC_LOCK = 14;
    private static final MemoryIO MEMORY = MemoryIO.getInstance();

    private final int pid;

    public ProcessHostMemory(int pid) {
        this.pid = pid;
    }

    public int pid() {
        return pid;
    }

    @Override
    public void read(long address, ByteBuffer dst) throws MemoryFault {
        transfer(address, dst, false);
    }

    @Override
    public void write(long address, ByteBuffer src) throws MemoryFault {
        transfer(address, src, true);
    }

    private void transfer(long address, ByteBuffer buf, boolean toProcess) throws MemoryFault {
        int length = buf.remaining();
        if (length == 0) {
            return;
        }
        ByteBuffer scratch = Scratch.of(buf.isDirect() ? 0 : length);
        long iovs = MEMORY.getDirectBufferAddress(scratch);
        long base;
        if (buf.isDirect()) {
            base = MEMORY.getDirectBufferAddress(buf) + buf.position();
        } else {
            base = iovs + Scratch.IOVECS;
            if (toProcess) {
                MEMORY.putByteArray(base, buf.array(), buf.arrayOffset() + buf.position(), length);
            }
        }
        int done = 0;
        while (done < length) {
            MEMORY.putAddress(iovs, base + done);
            MEMORY.putLong(iovs + 8, length - done);
            MEMORY.putAddress(iovs + 16, address + done);
            MEMORY.putLong(iovs + 24, length - done);
            long n = toProcess ? ProcessVm.writev(pid, iovs, 1, iovs + 16, 1) : ProcessVm.readv(pid, iovs, 1, iovs + 16, 1);
            if (n <= 0) {
                throw new MemoryFault(String.format("pid %d: %s of %d bytes at 0x%x failed after %d", pid,
                        toProcess ? "write" : "read", length, address, done));
            }
            done += (int) n;
        }
        if (!buf.isDirect() && !toProcess) {
            MEMORY.getByteArray(base, buf.array(), buf.arrayOffset() + buf.position(), length);
        }
        Reference.reachabilityFence(scratch); // a one-off buffer must outlive the calls that use its address
        Reference.reachabilityFence(buf);
        buf.position(buf.position() + length);
    }

    /**
     * The calling thread's native scratch: two iovecs, then room to stage a heap buffer's bytes
     * (no direct buffer allocated per transfer: allocateDirect zeroes and is freed only by GC).
     */
    private static final class Scratch {
        static final int IOVECS = 32;
        /** Larger heap transfers get a buffer of their own rather than one kept per thread. */
        private static final int KEPT = 256 << 10;
        private static final ThreadLocal<ByteBuffer> KEPT_BUFFER = new ThreadLocal<>();

        static ByteBuffer of(int staged) {
            int size = IOVECS + staged;
            if (size > KEPT) {
                return ByteBuffer.allocateDirect(size);
            }
            ByteBuffer b = KEPT_BUFFER.get();
            if (b == null || b.capacity() < size) {
                b = ByteBuffer.allocateDirect(Math.max(size, 4096));
                KEPT_BUFFER.set(b);
            }
            return b;
        }
    }

    /** Every page of the range in mappings that are readable (and writable when asked), without gaps. */
    @Override
    public boolean isMapped(long start, long length, boolean writable) {
        long end = start + length;
        long covered = start;
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Integer.toString(pid), "maps"))) {
                int dash = line.indexOf('-');
                int space = line.indexOf(' ');
                long from = Long.parseUnsignedLong(line.substring(0, dash), 16);
                long to = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
                String perms = line.substring(space + 1, space + 5);
                if (Long.compareUnsigned(to, covered) <= 0 || Long.compareUnsigned(from, covered) > 0) {
                    continue;
                }
                if (perms.charAt(0) != 'r' || writable && perms.charAt(1) != 'w') {
                    return false;
                }
                covered = to;
                if (Long.compareUnsigned(covered, end) >= 0) {
                    return true;
                }
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return false;
    }

    @Override
    public long pinnedLimit() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Integer.toString(pid), "status"))) {
                if (line.startsWith("CapEff:")
                        && (Long.parseUnsignedLong(line.substring(7).strip(), 16) & (1L << CAP_IPC_LOCK)) != 0) {
                    return -1;
                }
            }
            List<String> limits = Files.readAllLines(Path.of("/proc", Integer.toString(pid), "limits"));
            for (String line : limits) {
                if (line.startsWith("Max locked memory")) {
                    String soft = line.substring("Max locked memory".length()).strip().split("\\s+")[0];
                    return soft.equals("unlimited") ? -1 : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }
}
