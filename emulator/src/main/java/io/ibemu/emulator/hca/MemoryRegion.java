package io.ibemu.emulator.hca;

/**
 * A registered memory region (IBA 10.6): {@code length} bytes of a process's memory at host
 * address {@code start}, addressed by work requests as {@code iova}.. (the HCA virtual address),
 * with local key and remote key and the {@link Access} rights given at registration. The bytes
 * move through its {@link HostMemory}.
 */
public final class MemoryRegion {
    private final ProtectionDomain pd;
    private final long start;
    private final long length;
    private final long iova;
    private final int access;
    private final int key;
    private final HostMemory memory;
    /** Bytes charged to the owner's RLIMIT_MEMLOCK (whole pages). */
    final long pinned;
    /** Type-2 memory windows bound to it; under the model lock. */
    int boundWindows;

    MemoryRegion(ProtectionDomain pd, long start, long length, long iova, int access, int key, HostMemory memory,
            long pinned) {
        this.pd = pd;
        this.start = start;
        this.length = length;
        this.iova = iova;
        this.access = access;
        this.key = key;
        this.memory = memory;
        this.pinned = pinned;
    }

    public ProtectionDomain pd() {
        return pd;
    }

    /** The local key SGEs name (lkey == rkey here, as rdmavt's MRs have). */
    public int lkey() {
        return key;
    }

    public int rkey() {
        return key;
    }

    public long start() {
        return start;
    }

    public long length() {
        return length;
    }

    public long iova() {
        return iova;
    }

    public int access() {
        return access;
    }

    HostMemory memory() {
        return memory;
    }

    /**
     * The host address of {@code [va, va + len)} when it lies inside the region and the region
     * grants {@code needed} access bits; -1 otherwise (rvt_lkey_ok / rvt_rkey_ok).
     */
    long translate(long va, long len, int needed) {
        if ((access & needed) != needed || len < 0 || va < iova || len > length || va - iova > length - len) {
            return -1;
        }
        return start + (va - iova);
    }
}
