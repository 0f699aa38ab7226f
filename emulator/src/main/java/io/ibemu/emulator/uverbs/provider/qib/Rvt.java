package io.ibemu.emulator.uverbs.provider.qib;

import io.ibemu.emulator.uverbs.provider.UverbsSge;
import io.ibemu.emulator.uverbs.provider.UverbsWc;
import io.ibemu.kernel.CStruct;

/**
 * The rdmavt queue layouts that qib shares with ipathverbs at driver ABI 2
 * ({@code include/rdma/rdmavt_cq.h}, {@code rdmavt_qp.h}; the provider's {@code ipathverbs.h}
 * mirrors them): a CQ ring of {@code ib_uverbs_wc} entries after a head and a tail index, a
 * receive ring of variable-size WQEs after the same two indices. The producer writes head, the
 * consumer tail: for a CQ the kernel produces, for a receive queue the program does.
 */
final class Rvt {

    private Rvt() {
    }

    /** struct rvt_cq_wc / ipath_cq_wc: u32 head, u32 tail, then uqueue[] (8-aligned). */
    static final CStruct CQ_WC = CStruct.named("rvt_cq_wc").u32("head").u32("tail").build();
    static final int CQ_HEAD = CQ_WC.field("head").offset();
    static final int CQ_TAIL = CQ_WC.field("tail").offset();
    /** struct rvt_rwq / ipath_rwq: u32 head (the program's), u32 tail (the HCA's), then wq[]. */
    static final CStruct RWQ = CStruct.named("rvt_rwq").u32("head").u32("tail").build();
    static final int RQ_HEAD = RWQ.field("head").offset();
    static final int RQ_TAIL = RWQ.field("tail").offset();
    /** struct rvt_rwqe / ipath_rwqe: wr_id, num_sge, padding, then num_sge ib_sge. */
    static final CStruct RWQE = CStruct.named("rvt_rwqe").u64("wr_id").u8("num_sge").pad(1, 7).build();

    /** The CQ ring's bytes for {@code cqe} entries: cqe + 1 slots, one always empty. */
    static int cqBytes(int cqe) {
        return CQ_WC.size() + UverbsWc.SIZE * (cqe + 1);
    }

    /** One receive WQE's bytes for {@code maxSge} SGEs. */
    static int rwqeBytes(int maxSge) {
        return RWQE.size() + UverbsSge.SIZE * maxSge;
    }

    /** The receive ring's bytes: {@code slots} WQEs (max_wr + 1). */
    static int rqBytes(int slots, int maxSge) {
        return RWQ.size() + rwqeBytes(maxSge) * slots;
    }
}
