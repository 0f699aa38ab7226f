package io.ibemu.emulator.uverbs;

import io.ibemu.kernel.Errno;
import io.ibemu.emulator.hca.CompletionQueue;
import io.ibemu.emulator.hca.MemoryRegion;
import io.ibemu.emulator.uverbs.ioctl.Bundle;

import static io.ibemu.emulator.uverbs.DeviceMethods.le;
import static io.ibemu.emulator.uverbs.ioctl.UapiIds.*;

/**
 * The ioctl methods of the object types (uverbs_std_types_{cq,qp,srq,mr}.c) beyond the plain
 * destroys: the destroy responses, counted as the write() path counts them, and QUERY_MR.
 */
final class ObjectMethods {

    private ObjectMethods() {
    }

    /** IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION | IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN. */
    private static final long CQ_FLAGS = 3;

    /**
     * UVERBS_METHOD_CQ_CREATE: the inputs, the flags (known bits, then refused by the driver as
     * rdmavt does), the vector, then the CQ under the handle reserved for it.
     */
    static void createCq(UverbsFile f, Bundle b) throws Errno {
        int vector = (int) b.value(ATTR_CREATE_CQ_COMP_VECTOR);
        int cqe = (int) b.value(ATTR_CREATE_CQ_CQE);
        long userHandle = b.value(ATTR_CREATE_CQ_USER_HANDLE);
        int flags = b.flags32(ATTR_CREATE_CQ_FLAGS, CQ_FLAGS);
        EventFile channel = b.has(ATTR_CREATE_CQ_COMP_CHANNEL)
                ? (EventFile) b.object(ATTR_CREATE_CQ_COMP_CHANNEL) : null;
        if (Integer.toUnsignedLong(vector) >= f.device.hca().numCompVectors()) {
            throw Errno.of(Errno.EINVAL);
        }
        if (flags != 0) {
            throw Errno.of(Errno.EOPNOTSUPP); // rvt_create_cq: no timestamps, no overrun ignoring
        }
        CqCommands.Pending<CompletionQueue> cq = CqCommands.newCq(f, b.caller(), cqe, vector, channel);
        FileObjects.Reserved handle = (FileObjects.Reserved) b.created(ATTR_CREATE_CQ_HANDLE);
        cq.own(handle.fill(cq.object(), userHandle), eventFile(b, ATTR_CREATE_CQ_EVENT_FD));
        // the driver's create writes its udata (UHW_OUT) first: rvt_create_cq's mmap offset
        QueueMethods.driverUdata(b, f.driver().cqCreated(f.device.hca(), cq.object(), f.queueMemory(),
                QueueMethods.room(b)));
        b.copyTo(ATTR_CREATE_CQ_RESP_CQE, le(cq.object().cqe(), 4));
    }

    /** ib_uverbs_get_async_event: the async event file an EVENT_FD attribute names, or null (the default). */
    static EventFile eventFile(Bundle b, int id) throws Errno {
        return b.has(id) ? (EventFile) b.object(id) : null;
    }

    /** UVERBS_METHOD_CQ_DESTROY: the CQ is gone already; the events the process read of it. */
    static void cqDestroyed(UverbsFile f, Bundle b) throws Errno {
        UObject<?> u = (UObject<?>) b.object(ATTR_DESTROY_HANDLE);
        byte[] resp = new byte[Abi.DESTROY_CQ_RESP.size()];
        Abi.DESTROY_CQ_RESP.field("comp_events_reported").put(resp, u.compEventsReported());
        Abi.DESTROY_CQ_RESP.field("async_events_reported").put(resp, u.asyncEventsReported());
        b.copyTo(ATTR_DESTROY_RESP, resp);
    }

    /** UVERBS_METHOD_QP_DESTROY and SRQ_DESTROY: the async events the process read of it. */
    static void eventsDestroyed(UverbsFile f, Bundle b) throws Errno {
        UObject<?> u = (UObject<?>) b.object(ATTR_DESTROY_HANDLE);
        b.copyTo(ATTR_DESTROY_RESP, le(u.asyncEventsReported(), 4));
    }

    /** UVERBS_METHOD_ADVISE_MR: in the tree whatever the driver, which has no advise_mr (ODP prefetch). */
    static void adviseMr(UverbsFile f, Bundle b) throws Errno {
        throw Errno.of(Errno.EOPNOTSUPP);
    }

    /** UVERBS_METHOD_REG_DMABUF_MR: no reg_user_mr_dmabuf (no dma-buf importer); the new handle is dropped. */
    static void regDmabufMr(UverbsFile f, Bundle b) throws Errno {
        throw Errno.of(Errno.EOPNOTSUPP);
    }

    /** UVERBS_METHOD_QUERY_MR: the keys, the length and (when asked for) the iova. */
    static void queryMr(UverbsFile f, Bundle b) throws Errno {
        MemoryRegion mr = (MemoryRegion) ((UObject<?>) b.object(ATTR_QUERY_MR_HANDLE)).object();
        b.copyTo(ATTR_QUERY_MR_RESP_LKEY, le(mr.lkey(), 4));
        b.copyTo(ATTR_QUERY_MR_RESP_RKEY, le(mr.rkey(), 4));
        b.copyTo(ATTR_QUERY_MR_RESP_LENGTH, le(mr.length(), 8));
        DeviceMethods.optional(b, ATTR_QUERY_MR_RESP_IOVA, le(mr.iova(), 8));
    }
}
