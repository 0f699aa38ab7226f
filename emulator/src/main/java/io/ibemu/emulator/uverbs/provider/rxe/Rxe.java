package io.ibemu.emulator.uverbs.provider.rxe;

import io.ibemu.emulator.uverbs.provider.UverbsSge;
import io.ibemu.emulator.uverbs.provider.UverbsWc;
import io.ibemu.kernel.CStruct;

/**
 * rxe's driver ABI ({@code include/uapi/rdma/rdma_user_rxe.h}), declared once: the queue header
 * every ring starts with, the send and receive WQEs the program writes, the {@code mminfo} each
 * create answers with, and the element sizes {@code rxe_queue_init} derives from them.
 */
final class Rxe {

    private Rxe() {
    }

    /** RDMA_DRIVER_RXE of enum rdma_driver_id. */
    static final int DRIVER_ID = 14;
    /** RXE_UVERBS_ABI_VERSION: the provider takes 1 and 2 on 64-bit machines. */
    static final int ABI_VERSION = 2;

    /** struct rxe_queue_buf: indices each in a cache line of its own, then data[]. */
    static final CStruct QUEUE_BUF = CStruct.named("rxe_queue_buf")
            .u32("log2_elem_size").u32("index_mask").pad(4, 30)
            .u32("producer_index").pad(4, 31)
            .u32("consumer_index").pad(4, 31).build();
    static final int LOG2_ELEM_SIZE = QUEUE_BUF.field("log2_elem_size").offset();
    static final int INDEX_MASK = QUEUE_BUF.field("index_mask").offset();
    static final int PRODUCER = QUEUE_BUF.field("producer_index").offset();
    static final int CONSUMER = QUEUE_BUF.field("consumer_index").offset();
    static final int DATA = QUEUE_BUF.size();

    /** struct mminfo: where the program maps a queue, and how much. */
    static final CStruct MMINFO = CStruct.named("mminfo").u64("offset").u32("size").u32("pad").build();

    /** struct rxe_dma_info: the SGEs (or the inline bytes) follow it. */
    static final CStruct DMA = CStruct.named("rxe_dma_info").u32("length").u32("resid").u32("cur_sge")
            .u32("num_sge").u32("sge_offset").u32("reserved").build();

    /** struct rxe_send_wr's union, by member: each a view at the union's start. */
    static final CStruct WR_RDMA = CStruct.named("rxe_send_wr.wr.rdma").u64("remote_addr").u32("rkey")
            .u32("reserved").build();
    static final CStruct WR_ATOMIC = CStruct.named("rxe_send_wr.wr.atomic").u64("remote_addr")
            .u64("compare_add").u64("swap").u32("rkey").u32("reserved").build();
    static final CStruct WR_UD = CStruct.named("rxe_send_wr.wr.ud").u32("remote_qpn").u32("remote_qkey")
            .u16("pkey_index").u16("reserved").u32("ah_num").pad(4, 4).bytes("av", 88).build();
    static final CStruct WR_MW = CStruct.named("rxe_send_wr.wr.mw").u64("addr").u64("length").u32("mr_lkey")
            .u32("mw_rkey").u32("rkey").u32("access").build();
    /** The union's size: its largest member, ud (with the rxe_av old providers filled). */
    static final int WR_UNION = 120;

    /** struct rxe_send_wqe: rxe_send_wr, the requester's state, then rxe_dma_info and its SGEs. */
    static final CStruct SEND_WQE = CStruct.named("rxe_send_wqe")
            .u64("wr.wr_id").u32("wr.reserved").u32("wr.opcode").u32("wr.send_flags").u32("wr.ex")
            .bytes("wr.wr", WR_UNION)
            .u32("status").u32("state").u64("iova").u32("mask").u32("first_psn").u32("last_psn")
            .u32("ack_length").u32("ssn").u32("has_rd_atomic").struct("dma", DMA).build();
    /** struct rxe_recv_wqe. */
    static final CStruct RECV_WQE = CStruct.named("rxe_recv_wqe").u64("wr_id").u32("reserved").u32("padding")
            .struct("dma", DMA).build();

    /** rxe's per-create responses (udata out), after the core structs. */
    static final CStruct CREATE_CQ_RESP = CStruct.named("rxe_create_cq_resp").struct("mi", MMINFO).build();
    static final CStruct CREATE_QP_RESP = CStruct.named("rxe_create_qp_resp").struct("rq_mi", MMINFO)
            .struct("sq_mi", MMINFO).build();
    static final CStruct CREATE_SRQ_RESP = CStruct.named("rxe_create_srq_resp").struct("mi", MMINFO)
            .u32("srq_num").u32("reserved").build();
    static final CStruct CREATE_AH_RESP = CStruct.named("rxe_create_ah_resp").u32("ah_num").u32("reserved").build();
    /** rxe_modify_srq_cmd (udata in): where the new queue's mminfo goes. */
    static final CStruct MODIFY_SRQ_CMD = CStruct.named("rxe_modify_srq_cmd").u64("mmap_info_addr").build();

    /**
     * The kernel's struct rxe_cqe is a union of ib_wc and ib_uverbs_wc, so its size is ib_wc's
     * (72 bytes on 6.1's x86_64), padded as every element is: 128. The program only reads the
     * ib_uverbs_wc at the slot's start and learns the stride from log2_elem_size.
     */
    static final int KERNEL_CQE = 72;

    /** rxe_queue_init: at least a cache line, a power of two. */
    static int elementSize(int bytes) {
        return Integer.highestOneBit(Math.max(64, bytes) - 1) << 1;
    }

    /** rxe_queue_init: num_elem + 1 slots rounded up to a power of two (one always empty). */
    static int slots(int entries) {
        return entries < 1 ? 1 : Integer.highestOneBit(entries) << 1;
    }

    /** rxe_qp_init_req: the send WQE's room is max_sge SGEs or max_inline bytes, whichever is larger. */
    static int sendWqeBytes(int maxSge, int maxInline) {
        return SEND_WQE.size() + Math.max(maxSge * UverbsSge.SIZE, maxInline);
    }

    /** rcv_wqe_size. */
    static int recvWqeBytes(int maxSge) {
        return RECV_WQE.size() + maxSge * UverbsSge.SIZE;
    }

    static {
        if (SEND_WQE.size() != 208 || RECV_WQE.size() != 40 || DATA != 384 || UverbsWc.SIZE > KERNEL_CQE) {
            throw new AssertionError("rdma_user_rxe.h layouts");
        }
    }
}
