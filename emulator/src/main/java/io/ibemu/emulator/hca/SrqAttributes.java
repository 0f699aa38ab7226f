package io.ibemu.emulator.hca;

/** ibv_srq_attr: depth, SGEs per receive, and the limit that arms SRQ_LIMIT_REACHED (0: disarmed). */
public record SrqAttributes(int maxWr, int maxSge, int limit) {
    /** modify_srq mask bits (IB_SRQ_MAX_WR, IB_SRQ_LIMIT). */
    public static final int MASK_MAX_WR = 1;
    public static final int MASK_LIMIT = 2;
}
