package io.ibemu.emulator.hca;

/** The attribute mask of modify_qp / query_qp: {@code enum ib_qp_attr_mask} (IB_QP_*) bits. */
public final class QpAttributeMask {
    public static final int STATE = 1;
    public static final int CUR_STATE = 1 << 1;
    public static final int EN_SQD_ASYNC_NOTIFY = 1 << 2;
    public static final int ACCESS_FLAGS = 1 << 3;
    public static final int PKEY_INDEX = 1 << 4;
    public static final int PORT = 1 << 5;
    public static final int QKEY = 1 << 6;
    public static final int AV = 1 << 7;
    public static final int PATH_MTU = 1 << 8;
    public static final int TIMEOUT = 1 << 9;
    public static final int RETRY_CNT = 1 << 10;
    public static final int RNR_RETRY = 1 << 11;
    public static final int RQ_PSN = 1 << 12;
    public static final int MAX_QP_RD_ATOMIC = 1 << 13;
    public static final int ALT_PATH = 1 << 14;
    public static final int MIN_RNR_TIMER = 1 << 15;
    public static final int SQ_PSN = 1 << 16;
    public static final int MAX_DEST_RD_ATOMIC = 1 << 17;
    public static final int PATH_MIG_STATE = 1 << 18;
    public static final int CAP = 1 << 19;
    public static final int DEST_QPN = 1 << 20;
    public static final int RATE_LIMIT = 1 << 25;
    /** Every bit modify_qp knows (IB_QP_ATTR_STANDARD_BITS). */
    public static final int ALL = (1 << 21) - 1 | RATE_LIMIT;

    private QpAttributeMask() {
    }

    /** The names of the bits set, for messages ("AV|PATH_MTU"). */
    public static String describe(int mask) {
        String[] names = {"STATE", "CUR_STATE", "EN_SQD_ASYNC_NOTIFY", "ACCESS_FLAGS", "PKEY_INDEX", "PORT", "QKEY",
            "AV", "PATH_MTU", "TIMEOUT", "RETRY_CNT", "RNR_RETRY", "RQ_PSN", "MAX_QP_RD_ATOMIC", "ALT_PATH",
            "MIN_RNR_TIMER", "SQ_PSN", "MAX_DEST_RD_ATOMIC", "PATH_MIG_STATE", "CAP", "DEST_QPN", "bit21", "bit22",
            "bit23", "bit24", "RATE_LIMIT"};
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 32; i++) {
            if ((mask & (1 << i)) != 0) {
                b.append(b.length() == 0 ? "" : "|").append(i < names.length ? names[i] : "bit" + i);
            }
        }
        return b.length() == 0 ? "0" : b.toString();
    }
}
