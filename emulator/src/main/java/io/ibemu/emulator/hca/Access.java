package io.ibemu.emulator.hca;

/** Memory access flags, {@code enum ibv_access_flags} / IB_ACCESS_* (include/rdma/ib_verbs.h). */
public final class Access {
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    public static final int REMOTE_ATOMIC = 1 << 3;
    public static final int MW_BIND = 1 << 4;
    public static final int ZERO_BASED = 1 << 5;
    public static final int ON_DEMAND = 1 << 6;
    /** The bits REG_MR accepts here (no ODP, no relaxed ordering: this device offers neither). */
    static final int SUPPORTED = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC | MW_BIND | ZERO_BASED;

    private Access() {
    }

    /** ib_access_writable: the access flags for which ib_umem_get pins pages for writing. */
    static boolean writable(int access) {
        return (access & (LOCAL_WRITE | REMOTE_WRITE | REMOTE_ATOMIC | MW_BIND)) != 0;
    }
}
