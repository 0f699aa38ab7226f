package io.ibemu.emulator.uverbs.provider.rxe;

import io.ibemu.devfs.device.Caller;
import io.ibemu.emulator.hca.AddressHandle;
import io.ibemu.emulator.hca.CompletionQueue;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.hca.QpCapabilities;
import io.ibemu.emulator.hca.QpType;
import io.ibemu.emulator.hca.QueuePair;
import io.ibemu.emulator.hca.SharedReceiveQueue;
import io.ibemu.emulator.hca.SrqAttributes;
import io.ibemu.emulator.uverbs.provider.Driver;
import io.ibemu.emulator.uverbs.provider.QueueMemory;
import io.ibemu.kernel.CStruct;
import io.ibemu.kernel.Errno;

import java.util.HashMap;
import java.util.Map;

/**
 * rxe's driver half (drivers/infiniband/sw/rxe/rxe_verbs.c): every CQ, QP and SRQ a program
 * creates with room for rxe's response lives in rxe_queues it maps (rxe_queue_init's sizes), the
 * response giving each queue's {@code mminfo}; send queues included, so post_send is a doorbell.
 * AHs get a number (rxe's ah_pool index) that UD send WQEs carry instead of an address vector.
 * A create without that room (a raw probe) keeps the model's own queues and the write() path.
 */
public final class RxeDriver implements Driver {
    /** RXE_MIN_AH_INDEX..RXE_MAX_AH_INDEX: the ah_pool's numbers, handed out cyclically. */
    private static final int MIN_AH = 1;
    private static final int MAX_AH = 0xFFFF;

    private final Map<Integer, AddressHandle> ahs = new HashMap<>(); // guarded by itself
    private final Map<AddressHandle, Integer> ahNumbers = new HashMap<>(); // guarded by ahs
    private int nextAh = MIN_AH; // guarded by ahs

    public static int driverId() {
        return Rxe.DRIVER_ID;
    }

    public static int abiVersion() {
        return Rxe.ABI_VERSION;
    }

    private static boolean maps(QueueMemory memory, int udataOut, CStruct resp) {
        return memory != null && udataOut >= resp.size();
    }

    /** A queue of {@code entries} usable slots of {@code bytes} each, and its mminfo into {@code resp}. */
    private static RxeQueue queue(QueueMemory memory, int entries, int bytes, CStruct layout, byte[] resp, String mi)
            throws Errno {
        int slots = Rxe.slots(entries);
        int element = Rxe.elementSize(bytes);
        QueueMemory.Region r = memory.allocate(RxeQueue.bytes(slots, element));
        layout.field(mi + ".offset").put(resp, r.offset());
        // rxe_create_mmap_info: the size given is PAGE_ALIGN(buf_size) (checked on 6.1's rxe)
        layout.field(mi + ".size").put(resp, (r.size() + (long) QueueMemory.PAGE - 1) & -QueueMemory.PAGE);
        return new RxeQueue(r.buffer(), slots, element);
    }

    /**
     * rxe_queue_init: cqe + 1 slots rounded up to a power of two, all but one usable; a size the
     * device allows stays allowed (rxe_cq_chk_attr checks the size asked, before the rounding).
     */
    @Override
    public int cqEntries(int cqe, int maxCqe) {
        return cqe < 1 || cqe > maxCqe ? cqe : Math.min(Rxe.slots(cqe) - 1, maxCqe);
    }

    /**
     * rxe_qp_to_init: QUERY_QP reports the queues' own counts (slots - 1), where CREATE_QP
     * answered what was asked (checked on 6.1's rxe).
     */
    @Override
    public QpCapabilities qpQueried(QueuePair qp, QpCapabilities cap) {
        boolean rq = qp.srq() == null && qp.type() != QpType.XRC_TGT && qp.type() != QpType.XRC_INI;
        return new QpCapabilities(Rxe.slots(cap.maxSendWr()) - 1, rq ? Rxe.slots(cap.maxRecvWr()) - 1 : cap.maxRecvWr(),
                cap.maxSendSge(), cap.maxRecvSge(), cap.maxInlineData());
    }

    /** rxe_create_cq / rxe_cq_from_init: the CQ's queue, its cqe + 1 slots rounded to a power of two. */
    @Override
    public byte[] cqCreated(Hca hca, CompletionQueue cq, QueueMemory memory, int udataOut) throws Errno {
        if (!maps(memory, udataOut, Rxe.CREATE_CQ_RESP)) {
            return new byte[0];
        }
        byte[] resp = new byte[Rxe.CREATE_CQ_RESP.size()];
        RxeQueue q = queue(memory, cq.cqe(), Rxe.KERNEL_CQE, Rxe.CREATE_CQ_RESP, resp, "mi");
        hca.shareCompletionRing(cq, new CompletionQueueRing(q));
        return resp;
    }

    /** rxe_resize_cq: a new queue at a new offset (rxe_resize_cq_resp), the waiting completions copied. */
    @Override
    public byte[] cqResized(Hca hca, CompletionQueue cq, QueueMemory memory, int udataOut) throws Errno {
        if (!cq.shared()) {
            return new byte[0];
        }
        return cqCreated(hca, cq, memory, udataOut);
    }

    /** rxe_qp_init_req and rxe_qp_init_resp: the send queue, and the receive queue unless an SRQ serves. */
    @Override
    public byte[] qpCreated(Hca hca, QueuePair qp, QueueMemory memory, int udataOut) throws Errno {
        if (!maps(memory, udataOut, Rxe.CREATE_QP_RESP) || qp.type() == QpType.XRC_TGT) {
            return new byte[0];
        }
        QpCapabilities cap = qp.capabilities();
        byte[] resp = new byte[Rxe.CREATE_QP_RESP.size()];
        if (qp.srq() == null) {
            RxeQueue rq = queue(memory, cap.maxRecvWr(), Rxe.recvWqeBytes(cap.maxRecvSge()),
                    Rxe.CREATE_QP_RESP, resp, "rq_mi");
            hca.shareReceiveRing(qp, new ReceiveQueueRing(rq, cap.maxRecvSge()));
        }
        RxeQueue sq = queue(memory, cap.maxSendWr(), Rxe.sendWqeBytes(cap.maxSendSge(), cap.maxInlineData()),
                Rxe.CREATE_QP_RESP, resp, "sq_mi");
        hca.shareSendRing(qp, new SendQueueRing(sq, qp.type() == QpType.UD, n -> ah(n, qp)));
        return resp;
    }

    /** rxe_get_av: the AH of {@code number}, if it is in the QP's PD. */
    private AddressHandle ah(int number, QueuePair qp) {
        synchronized (ahs) {
            AddressHandle ah = ahs.get(number);
            return ah != null && ah.pd() == qp.pd() ? ah : null;
        }
    }

    /** rxe_query_srq: the queue's own count (slots - 1), where CREATE_SRQ answered what was asked. */
    @Override
    public int srqQueried(int maxWr) {
        return Rxe.slots(maxWr) - 1;
    }

    /** rxe_create_srq: the SRQ's queue and its number. */
    @Override
    public byte[] srqCreated(Hca hca, SharedReceiveQueue srq, QueueMemory memory, int udataOut) throws Errno {
        if (!maps(memory, udataOut, Rxe.CREATE_SRQ_RESP)) {
            return new byte[0];
        }
        byte[] resp = new byte[Rxe.CREATE_SRQ_RESP.size()];
        shareSrqQueue(hca, srq, memory, resp);
        Rxe.CREATE_SRQ_RESP.field("srq_num").put(resp, srq.srqNum());
        return resp;
    }

    private static void shareSrqQueue(Hca hca, SharedReceiveQueue srq, QueueMemory memory, byte[] resp)
            throws Errno {
        SrqAttributes a = srq.query();
        RxeQueue q = queue(memory, a.maxWr(), Rxe.recvWqeBytes(a.maxSge()), Rxe.CREATE_SRQ_RESP, resp, "mi");
        hca.shareReceiveRing(srq, new ReceiveQueueRing(q, a.maxSge()));
    }

    /**
     * rxe_modify_srq with IB_SRQ_MAX_WR on a mapped SRQ: a new queue (rxe_queue_resize, the
     * waiting WRs moved into it), its mminfo written where rxe_modify_srq_cmd.mmap_info_addr points.
     */
    @Override
    public void srqModified(Hca hca, SharedReceiveQueue srq, int mask, QueueMemory memory, byte[] udataIn,
            Caller caller) throws Errno {
        if ((mask & SrqAttributes.MASK_MAX_WR) == 0 || memory == null || !srq.sharedRing()) {
            return;
        }
        if (udataIn.length < Rxe.MODIFY_SRQ_CMD.size()) {
            throw Errno.of(Errno.EINVAL); // rxe_modify_srq: udata->inlen < sizeof(cmd)
        }
        long address = Rxe.MODIFY_SRQ_CMD.field("mmap_info_addr").get(udataIn, 0);
        byte[] resp = new byte[Rxe.CREATE_SRQ_RESP.size()];
        shareSrqQueue(hca, srq, memory, resp);
        byte[] mi = new byte[Rxe.MMINFO.size()];
        System.arraycopy(resp, Rxe.CREATE_SRQ_RESP.field("mi.offset").offset(), mi, 0, mi.length);
        try {
            caller.writeMemory(address, mi);
        } catch (Errno e) {
            throw Errno.of(Errno.EFAULT);
        }
    }

    /** rxe_create_ah: the AH's pool number, which the provider puts in UD send WQEs. */
    @Override
    public byte[] ahCreated(Hca hca, AddressHandle ah, int udataOut) throws Errno {
        if (udataOut < Rxe.CREATE_AH_RESP.size()) {
            return new byte[0];
        }
        int number;
        synchronized (ahs) {
            if (ahs.size() >= MAX_AH - MIN_AH + 1) {
                throw Errno.of(Errno.ENOMEM);
            }
            while (ahs.containsKey(nextAh)) {
                nextAh = nextAh >= MAX_AH ? MIN_AH : nextAh + 1;
            }
            number = nextAh;
            nextAh = nextAh >= MAX_AH ? MIN_AH : nextAh + 1;
            ahs.put(number, ah);
            ahNumbers.put(ah, number);
        }
        byte[] resp = new byte[Rxe.CREATE_AH_RESP.size()];
        Rxe.CREATE_AH_RESP.field("ah_num").put(resp, number);
        return resp;
    }

    @Override
    public void ahDestroyed(AddressHandle ah) {
        synchronized (ahs) {
            Integer number = ahNumbers.remove(ah);
            if (number != null) {
                ahs.remove(number);
            }
        }
    }
}
