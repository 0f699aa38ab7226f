package io.ibemu.emulator.uverbs.provider;

import io.ibemu.emulator.hca.WorkCompletion;
import io.ibemu.kernel.CField;
import io.ibemu.kernel.CStruct;

/**
 * {@code struct ib_uverbs_wc}, the completion as a mapped CQ ring holds it: rdmavt's {@code
 * rvt_cq_wc} and rxe's user {@code rxe_cqe} both store these bytes, the same that poll_cq's
 * copy_wc_to_user writes (port_num 0 as there).
 */
public final class UverbsWc {
    public static final CStruct LAYOUT = CStruct.named("ib_uverbs_wc")
            .u64("wr_id").u32("status").u32("opcode").u32("vendor_err").u32("byte_len").u32("ex")
            .u32("qp_num").u32("src_qp").u32("wc_flags").u16("pkey_index").u16("slid").u8("sl")
            .u8("dlid_path_bits").u8("port_num").u8("reserved").build();
    public static final int SIZE = LAYOUT.size();
    private static final CField WR_ID = LAYOUT.field("wr_id");
    private static final CField STATUS = LAYOUT.field("status");
    private static final CField OPCODE = LAYOUT.field("opcode");
    private static final CField VENDOR_ERR = LAYOUT.field("vendor_err");
    private static final CField BYTE_LEN = LAYOUT.field("byte_len");
    private static final CField EX = LAYOUT.field("ex");
    private static final CField QP_NUM = LAYOUT.field("qp_num");
    private static final CField SRC_QP = LAYOUT.field("src_qp");
    private static final CField WC_FLAGS = LAYOUT.field("wc_flags");
    private static final CField PKEY_INDEX = LAYOUT.field("pkey_index");
    private static final CField SLID = LAYOUT.field("slid");
    private static final CField SL = LAYOUT.field("sl");
    private static final CField DLID_PATH_BITS = LAYOUT.field("dlid_path_bits");

    private UverbsWc() {
    }

    /** {@code wc} as {@link #SIZE} bytes into {@code out}. */
    public static void encode(WorkCompletion wc, byte[] out) {
        WR_ID.put(out, wc.wrId());
        STATUS.put(out, wc.status());
        OPCODE.put(out, wc.opcode());
        VENDOR_ERR.put(out, wc.vendorErr());
        BYTE_LEN.put(out, wc.byteLen() & 0xffffffffL);
        EX.put(out, wc.immData() & 0xffffffffL);
        QP_NUM.put(out, wc.qpNum());
        SRC_QP.put(out, wc.srcQp());
        WC_FLAGS.put(out, wc.wcFlags());
        PKEY_INDEX.put(out, wc.pkeyIndex());
        SLID.put(out, wc.slid());
        SL.put(out, wc.sl());
        DLID_PATH_BITS.put(out, wc.dlidPathBits());
        out[SIZE - 2] = 0;
        out[SIZE - 1] = 0;
    }

    public static WorkCompletion decode(byte[] in) {
        return new WorkCompletion(WR_ID.get(in, 0), (int) STATUS.get(in, 0), (int) OPCODE.get(in, 0),
                (int) VENDOR_ERR.get(in, 0), (int) BYTE_LEN.get(in, 0), (int) EX.get(in, 0), (int) QP_NUM.get(in, 0),
                (int) SRC_QP.get(in, 0), (int) WC_FLAGS.get(in, 0), (int) PKEY_INDEX.get(in, 0),
                (int) SLID.get(in, 0), (int) SL.get(in, 0), (int) DLID_PATH_BITS.get(in, 0));
    }
}
