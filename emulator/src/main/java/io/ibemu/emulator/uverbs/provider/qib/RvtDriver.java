package io.ibemu.emulator.uverbs.provider.qib;

import io.ibemu.devfs.device.Caller;
import io.ibemu.kernel.Errno;
import io.ibemu.emulator.hca.CompletionQueue;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.hca.QpCapabilities;
import io.ibemu.emulator.hca.QueuePair;
import io.ibemu.emulator.hca.SharedReceiveQueue;
import io.ibemu.emulator.hca.SrqAttributes;
import io.ibemu.emulator.uverbs.provider.Driver;
import io.ibemu.emulator.uverbs.provider.QueueMemory;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * qib's driver half, which is rdmavt's: a create whose udata has room for a u64 gets its queue
 * in mapped memory and that u64 is the mmap offset (rvt_create_cq, rvt_create_qp,
 * rvt_create_srq); ipathverbs gives that room at driver ABI 2 and none at ABI 1, where every
 * queue stays the model's own. A QP on an SRQ answers offset 0; one with max_recv_wr 0 still
 * gets its one-slot ring, as rvt_create_qp makes it.
 */
public final class RvtDriver implements Driver {
    /** RDMA_DRIVER_QIB of enum rdma_driver_id. */
    public static final int QIB_DRIVER_ID = 16;
    private static final int OFFSET = Long.BYTES;

    private static byte[] offset(long offset) {
        return ByteBuffer.allocate(OFFSET).order(ByteOrder.LITTLE_ENDIAN).putLong(0, offset).array();
    }

    private static boolean maps(QueueMemory memory, int udataOut) {
        return memory != null && udataOut >= OFFSET;
    }

    @Override
    public byte[] cqCreated(Hca hca, CompletionQueue cq, QueueMemory memory, int udataOut) throws Errno {
        if (!maps(memory, udataOut)) {
            return new byte[0];
        }
        QueueMemory.Region r = memory.allocate(Rvt.cqBytes(cq.cqe()));
        hca.shareCompletionRing(cq, new CqRing(r.buffer(), cq.cqe()));
        return offset(r.offset());
    }

    /** rvt_resize_cq: a new ring at a new offset, the waiting completions copied into it. */
    @Override
    public byte[] cqResized(Hca hca, CompletionQueue cq, QueueMemory memory, int udataOut) throws Errno {
        if (!maps(memory, udataOut) || !cq.shared()) {
            return new byte[0];
        }
        return cqCreated(hca, cq, memory, udataOut);
    }

    @Override
    public byte[] qpCreated(Hca hca, QueuePair qp, QueueMemory memory, int udataOut) throws Errno {
        if (!maps(memory, udataOut)) {
            return new byte[0];
        }
        QpCapabilities cap = qp.capabilities();
        if (qp.srq() != null) {
            return offset(0);
        }
        // max_recv_wr 0 still has its ring (one slot, never filled): ipathverbs maps it
        int slots = cap.maxRecvWr() + 1;
        QueueMemory.Region r = memory.allocate(Rvt.rqBytes(slots, cap.maxRecvSge()));
        hca.shareReceiveRing(qp, new ReceiveQueueRing(r.buffer(), slots, cap.maxRecvSge()));
        return offset(r.offset());
    }

    @Override
    public byte[] srqCreated(Hca hca, SharedReceiveQueue srq, QueueMemory memory, int udataOut) throws Errno {
        if (!maps(memory, udataOut)) {
            return new byte[0];
        }
        return offset(shareSrqRing(hca, srq, memory).offset());
    }

    private static QueueMemory.Region shareSrqRing(Hca hca, SharedReceiveQueue srq, QueueMemory memory)
            throws Errno {
        SrqAttributes a = srq.query();
        int slots = a.maxWr() + 1;
        QueueMemory.Region r = memory.allocate(Rvt.rqBytes(slots, a.maxSge()));
        hca.shareReceiveRing(srq, new ReceiveQueueRing(r.buffer(), slots, a.maxSge()));
        return r;
    }

    /**
     * rvt_modify_srq with IB_SRQ_MAX_WR on a mapped SRQ: the udata carries the address of a u64
     * (ipath_modify_srq_cmd.offset_addr) that receives the new ring's offset; the WRs waiting
     * move into the new ring.
     */
    @Override
    public void srqModified(Hca hca, SharedReceiveQueue srq, int mask, QueueMemory memory, byte[] udataIn,
            Caller caller) throws Errno {
        if ((mask & SrqAttributes.MASK_MAX_WR) == 0 || memory == null || udataIn.length < OFFSET
                || !srq.sharedRing()) {
            return;
        }
        long address = ByteBuffer.wrap(udataIn).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        QueueMemory.Region r = shareSrqRing(hca, srq, memory);
        try {
            caller.writeMemory(address, offset(r.offset()));
        } catch (Errno e) {
            throw Errno.of(Errno.EFAULT);
        }
    }
}
