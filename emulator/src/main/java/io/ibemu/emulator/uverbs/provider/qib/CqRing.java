package io.ibemu.emulator.uverbs.provider.qib;

import io.ibemu.kernel.CField;
import io.ibemu.emulator.hca.CompletionRing;
import io.ibemu.emulator.hca.WorkCompletion;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A CQ's {@code rvt_cq_wc} in memory the program maps: the model produces at head as
 * rvt_cq_enter does (entry first, then head with release order, the kernel's smp_wmb), the
 * program's ipath_poll_cq consumes at tail (acquire on head, then the entry). Indices the
 * program may have scribbled on are clamped as the kernel clamps them.
 */
final class CqRing implements CompletionRing {
    static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int ENTRY = Rvt.WC.size();
    private static final int QUEUE = Rvt.CQ_WC.size();
    private static final CField WR_ID = Rvt.WC.field("wr_id");
    private static final CField STATUS = Rvt.WC.field("status");
    private static final CField OPCODE = Rvt.WC.field("opcode");
    private static final CField VENDOR_ERR = Rvt.WC.field("vendor_err");
    private static final CField BYTE_LEN = Rvt.WC.field("byte_len");
    private static final CField EX = Rvt.WC.field("ex");
    private static final CField QP_NUM = Rvt.WC.field("qp_num");
    private static final CField SRC_QP = Rvt.WC.field("src_qp");
    private static final CField WC_FLAGS = Rvt.WC.field("wc_flags");
    private static final CField PKEY_INDEX = Rvt.WC.field("pkey_index");
    private static final CField SLID = Rvt.WC.field("slid");
    private static final CField SL = Rvt.WC.field("sl");
    private static final CField DLID_PATH_BITS = Rvt.WC.field("dlid_path_bits");

    private final ByteBuffer ring;
    /** ibcq.cqe: the last slot's index (cqe + 1 slots). */
    private final int cqe;
    private final byte[] entry = new byte[ENTRY]; // under the model lock

    CqRing(ByteBuffer ring, int cqe) {
        this.ring = ring;
        this.cqe = cqe;
    }

    private int clamp(int index) {
        return Integer.compareUnsigned(index, cqe) > 0 ? cqe : index;
    }

    private int next(int index) {
        return index >= cqe ? 0 : index + 1;
    }

    @Override
    public boolean offer(WorkCompletion wc) {
        int head = clamp((int) INT.get(ring, Rvt.CQ_HEAD));
        int next = next(head);
        if (next == clamp((int) INT.getAcquire(ring, Rvt.CQ_TAIL))) {
            return false;
        }
        encode(wc, entry);
        ring.put(QUEUE + head * ENTRY, entry);
        INT.setRelease(ring, Rvt.CQ_HEAD, next);
        return true;
    }

    @Override
    public List<WorkCompletion> poll(int max) {
        int tail = clamp((int) INT.get(ring, Rvt.CQ_TAIL));
        int head = clamp((int) INT.getAcquire(ring, Rvt.CQ_HEAD));
        List<WorkCompletion> out = new ArrayList<>();
        while (tail != head && out.size() < max) {
            ring.get(QUEUE + tail * ENTRY, entry);
            out.add(decode(entry));
            tail = next(tail);
        }
        INT.setRelease(ring, Rvt.CQ_TAIL, tail);
        return out;
    }

    @Override
    public int outstanding() {
        int head = clamp((int) INT.getAcquire(ring, Rvt.CQ_HEAD));
        int tail = clamp((int) INT.getAcquire(ring, Rvt.CQ_TAIL));
        return head >= tail ? head - tail : head + cqe + 1 - tail;
    }

    /** The bytes ib_uverbs_poll_cq's copy_wc_to_user would give (port_num 0 as there). */
    static void encode(WorkCompletion wc, byte[] out) {
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
        out[ENTRY - 2] = 0;
        out[ENTRY - 1] = 0;
    }

    static WorkCompletion decode(byte[] in) {
        return new WorkCompletion(WR_ID.get(in, 0), (int) STATUS.get(in, 0), (int) OPCODE.get(in, 0),
                (int) VENDOR_ERR.get(in, 0), (int) BYTE_LEN.get(in, 0), (int) EX.get(in, 0), (int) QP_NUM.get(in, 0),
                (int) SRC_QP.get(in, 0), (int) WC_FLAGS.get(in, 0), (int) PKEY_INDEX.get(in, 0),
                (int) SLID.get(in, 0), (int) SL.get(in, 0), (int) DLID_PATH_BITS.get(in, 0));
    }
}
