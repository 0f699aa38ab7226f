package io.ibemu.emulator.hca;

/** {@code enum ib_uverbs_wc_opcode} / ibv_wc_opcode: what a {@link WorkCompletion} completed. */
public final class WcOpcode {
    public static final int SEND = 0;
    public static final int RDMA_WRITE = 1;
    public static final int RDMA_READ = 2;
    public static final int COMP_SWAP = 3;
    public static final int FETCH_ADD = 4;
    public static final int BIND_MW = 5;
    public static final int LOCAL_INV = 6;
    public static final int RECV = 128;
    public static final int RECV_RDMA_WITH_IMM = 129;
    /** ibv_wc_flags: the receive buffer's first 40 bytes hold the packet's GRH. */
    public static final int FLAG_GRH = 1;
    /** ibv_wc_flags: immData is valid. */
    public static final int FLAG_WITH_IMM = 2;
    /**
     * IB_WC_WITH_INVALIDATE (the kernel's 1 << 2, which uverbs and rxe hand over unchanged;
     * libibverbs' IBV_WC_WITH_INV is 1 << 3): a SEND_WITH_INV invalidated the rkey in ex.
     */
    public static final int FLAG_WITH_INV = 4;

    private WcOpcode() {
    }
}
