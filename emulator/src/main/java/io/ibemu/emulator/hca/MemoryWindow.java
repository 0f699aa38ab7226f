package io.ibemu.emulator.hca;

/**
 * A memory window (IBA 10.6.7): type 1 or 2, with an rkey of its own, bound by BIND_MW work
 * requests to a range of a region (rxe_mw.c: a type 1 window is valid from its allocation and
 * bound to its PD; a type 2 window is free until bound, then bound to the QP that bound it,
 * and free again when invalidated). Mutable state is guarded by the model lock.
 */
public final class MemoryWindow {
    private final ProtectionDomain pd;
    private final int type;
    int rkey;
    /** The region bound, or null (never bound, unbound by a zero-length bind, or invalidated). */
    MemoryRegion mr;
    long addr;
    long length;
    int access;
    /** A type 2 window's QP while bound. */
    QueuePair qp;
    /** A type 2 window between its bind and its invalidation (rxe's RXE_MW_STATE_VALID). */
    boolean bound;

    MemoryWindow(ProtectionDomain pd, int type, int rkey) {
        this.pd = pd;
        this.type = type;
        this.rkey = rkey;
    }

    public ProtectionDomain pd() {
        return pd;
    }

    /** 1 or 2 (IB_MW_TYPE_1, IB_MW_TYPE_2). */
    public int type() {
        return type;
    }

    /** The rkey: the allocation's, then each bind's. */
    public int rkey() {
        synchronized (pd.hca().lock()) {
            return rkey;
        }
    }

    /** Releases the bound region (a new bind, an invalidation, the window's dealloc). */
    void unbind() {
        if (mr != null) {
            mr.boundWindows--;
        }
        mr = null;
        qp = null;
        addr = 0;
        length = 0;
        access = 0;
    }
}
