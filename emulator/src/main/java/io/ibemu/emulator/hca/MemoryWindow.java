package io.ibemu.emulator.hca;

/**
 * A memory window (IBA 10.6.7): type 1 or 2, with an rkey of its own. Allocation and
 * deallocation are modelled; binding (ibv_bind_mw / BIND_MW work requests) is not, so a window
 * grants no remote access.
 */
public final class MemoryWindow {
    private final ProtectionDomain pd;
    private final int type;
    private final int rkey;

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

    public int rkey() {
        return rkey;
    }
}
