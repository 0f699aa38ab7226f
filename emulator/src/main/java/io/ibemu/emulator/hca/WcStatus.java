package io.ibemu.emulator.hca;

/** {@code enum ibv_wc_status} values a {@link WorkCompletion} carries. */
public final class WcStatus {
    public static final int SUCCESS = 0;
    public static final int LOC_LEN_ERR = 1;
    public static final int LOC_QP_OP_ERR = 2;
    public static final int LOC_EEC_OP_ERR = 3;
    public static final int LOC_PROT_ERR = 4;
    public static final int WR_FLUSH_ERR = 5;
    public static final int MW_BIND_ERR = 6;
    public static final int BAD_RESP_ERR = 7;
    public static final int LOC_ACCESS_ERR = 8;
    public static final int REM_INV_REQ_ERR = 9;
    public static final int REM_ACCESS_ERR = 10;
    public static final int REM_OP_ERR = 11;
    public static final int RETRY_EXC_ERR = 12;
    public static final int RNR_RETRY_EXC_ERR = 13;
    public static final int LOC_RDD_VIOL_ERR = 14;
    public static final int REM_INV_RD_REQ_ERR = 15;
    public static final int REM_ABORT_ERR = 16;
    public static final int INV_EECN_ERR = 17;
    public static final int INV_EEC_STATE_ERR = 18;
    public static final int FATAL_ERR = 19;
    public static final int RESP_TIMEOUT_ERR = 20;
    public static final int GENERAL_ERR = 21;

    private WcStatus() {
    }
}
