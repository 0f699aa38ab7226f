package io.ibemu.emulator.hca;

/** {@code enum ib_uverbs_wr_opcode} / ibv_wr_opcode and the send flags of a {@link SendWorkRequest}. */
public final class WrOpcode {
    public static final int RDMA_WRITE = 0;
    public static final int RDMA_WRITE_WITH_IMM = 1;
    public static final int SEND = 2;
    public static final int SEND_WITH_IMM = 3;
    public static final int RDMA_READ = 4;
    public static final int ATOMIC_CMP_AND_SWP = 5;
    public static final int ATOMIC_FETCH_AND_ADD = 6;
    public static final int LOCAL_INV = 7;
    public static final int BIND_MW = 8;
    public static final int SEND_WITH_INV = 9;

    /** ibv_send_flags. */
    public static final int FLAG_FENCE = 1;
    public static final int FLAG_SIGNALED = 1 << 1;
    public static final int FLAG_SOLICITED = 1 << 2;
    public static final int FLAG_INLINE = 1 << 3;

    private WrOpcode() {
    }

    /** The completion opcode a requester reports for a send opcode. */
    static int completionOpcode(int wrOpcode) {
        return switch (wrOpcode) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case RDMA_READ -> WcOpcode.RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> WcOpcode.COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD -> WcOpcode.FETCH_ADD;
            case BIND_MW -> WcOpcode.BIND_MW;
            case LOCAL_INV -> WcOpcode.LOCAL_INV;
            default -> WcOpcode.SEND;
        };
    }

    static boolean isAtomic(int wrOpcode) {
        return wrOpcode == ATOMIC_CMP_AND_SWP || wrOpcode == ATOMIC_FETCH_AND_ADD;
    }
}
