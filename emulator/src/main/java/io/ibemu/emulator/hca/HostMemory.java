package io.ibemu.emulator.hca;

import java.nio.ByteBuffer;

/**
 * The memory of the process that registered a region: what the HCA reaches by DMA. Addresses
 * are the process's virtual addresses. {@link ProcessHostMemory} is the real one (another
 * process, through process_vm_readv/writev); tests use one over byte arrays.
 */
public interface HostMemory {

    /** Reads {@code dst.remaining()} bytes from {@code address} into {@code dst}, advancing its position. */
    void read(long address, ByteBuffer dst) throws MemoryFault;

    /** Writes {@code src.remaining()} bytes to {@code address}, advancing {@code src}'s position. */
    void write(long address, ByteBuffer src) throws MemoryFault;

    /**
     * Whether every page of {@code [start, start + length)} is mapped readable, and writable when
     * {@code writable} (ib_umem_get pins with FOLL_WRITE for writable access).
     */
    boolean isMapped(long start, long length, boolean writable);

    /**
     * The RLIMIT_MEMLOCK soft limit in bytes the registering process may pin, or -1 when it
     * has no limit (unlimited, or CAP_IPC_LOCK: ib_umem_get does not check then).
     */
    long pinnedLimit();

    /** The page size pinning is counted in. */
    default int pageSize() {
        return 4096;
    }
}
