package io.ibemu.emulator.hca;

import com.kenai.jffi.MemoryIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;

/**
 * The memory of a live process, as the HCA reaches it by DMA: reads and writes through
 * process_vm_readv/process_vm_writev (no copy per packet: direct buffers go to the kernel as
 * they are), the REG_MR mapping check from /proc/PID/maps, and the RLIMIT_MEMLOCK of
 * /proc/PID/limits (none for a process with CAP_IPC_LOCK, as ib_umem_get skips the check).
 */
public final class ProcessHostMemory implements HostMemory {

    /** Public because jnr-ffi implements it from a class loader of its own. */
    public interface Calls {
        long syscall(long number, long a, long b, long c, long d, long e, long f);
    }

    private static final boolean AARCH64 = "aarch64".equals(System.getProperty("os.arch"));
    private static final long SYS_PROCESS_VM_READV = AARCH64 ? 270 : 310;
    private static final long SYS_PROCESS_VM_WRITEV = AARCH64 ? 271 : 311;
    private static final int CAP_IPC_LOCK = 14;
    private static final MemoryIO MEMORY = MemoryIO.getInstance();
    private static volatile Calls calls;

    private final int pid;

    public ProcessHostMemory(int pid) {
        this.pid = pid;
    }

    public int pid() {
        return pid;
    }

    private static Calls calls() {
        Calls c = calls;
        if (c == null) {
            c = LibraryLoader.create(Calls.class).failImmediately().load("c");
            calls = c;
        }
        return c;
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
        ByteBuffer direct = buf.isDirect() ? buf : ByteBuffer.allocateDirect(length);
        if (!buf.isDirect() && toProcess) {
            direct.put(buf.duplicate()).flip();
        }
        long base = MEMORY.getDirectBufferAddress(direct) + direct.position();
        ByteBuffer iov = ByteBuffer.allocateDirect(32);
        long iovs = MEMORY.getDirectBufferAddress(iov);
        int done = 0;
        while (done < length) {
            MEMORY.putAddress(iovs, base + done);
            MEMORY.putLong(iovs + 8, length - done);
            MEMORY.putAddress(iovs + 16, address + done);
            MEMORY.putLong(iovs + 24, length - done);
            long n = calls().syscall(toProcess ? SYS_PROCESS_VM_WRITEV : SYS_PROCESS_VM_READV, pid, iovs, 1,
                    iovs + 16, 1, 0);
            if (n <= 0) {
                throw new MemoryFault(String.format("pid %d: %s of %d bytes at 0x%x failed after %d", pid,
                        toProcess ? "write" : "read", length, address, done));
            }
            done += (int) n;
        }
        if (!buf.isDirect() && !toProcess) {
            buf.duplicate().put(direct.duplicate().position(0).limit(length));
        }
        buf.position(buf.position() + length);
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
