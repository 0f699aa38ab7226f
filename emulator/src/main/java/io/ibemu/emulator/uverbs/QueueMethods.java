package io.ibemu.emulator.uverbs;

import io.ibemu.emulator.hca.CompletionQueue;
import io.ibemu.emulator.hca.ProtectionDomain;
import io.ibemu.emulator.hca.QpCapabilities;
import io.ibemu.emulator.hca.QpInitAttributes;
import io.ibemu.emulator.hca.QpType;
import io.ibemu.emulator.hca.QueuePair;
import io.ibemu.emulator.hca.SharedReceiveQueue;
import io.ibemu.emulator.hca.SrqAttributes;
import io.ibemu.emulator.hca.SrqType;
import io.ibemu.emulator.hca.Xrcd;
import io.ibemu.emulator.uverbs.ioctl.AttrSpec;
import io.ibemu.emulator.uverbs.ioctl.Bundle;
import io.ibemu.kernel.CStruct;
import io.ibemu.kernel.Errno;

import java.util.Arrays;

import static io.ibemu.emulator.uverbs.DeviceMethods.le;
import static io.ibemu.emulator.uverbs.ioctl.UapiIds.*;

/**
 * UVERBS_METHOD_QP_CREATE and SRQ_CREATE (uverbs_std_types_qp.c, uverbs_std_types_srq.c): the
 * kernel's checks in its order, then the same model creation and driver udata the write commands
 * use, under the handle the framework reserved.
 */
final class QueueMethods {

    private QueueMethods() {
    }

    private static final long U32_MAX = 0xffffffffL;
    private static final int FLAG_BLOCK_MULTICAST_LOOPBACK = 1 << 1;
    private static final int FLAG_SCATTER_FCS = 1 << 8;
    private static final int FLAG_CVLAN_STRIPPING = 1 << 9;
    private static final int FLAG_PCI_WRITE_END_PADDING = 1 << 11;
    private static final int FLAG_SQ_SIG_ALL = 1 << 12;
    private static final int QP_FLAGS = FLAG_BLOCK_MULTICAST_LOOPBACK | FLAG_SCATTER_FCS | FLAG_CVLAN_STRIPPING
            | FLAG_PCI_WRITE_END_PADDING | FLAG_SQ_SIG_ALL;
    /** IB_UVERBS_QPT_DRIVER: only a driver that declares it knows it; rdmavt does not. */
    private static final int QPT_DRIVER = 0xff;

    /** UVERBS_HANDLER(UVERBS_METHOD_QP_CREATE). */
    static void createQp(UverbsFile f, Bundle b) throws Errno {
        byte[] cap = copyFromOrZero(b, ATTR_CREATE_QP_CAP, Abi.QP_CAP.size());
        long userHandle = b.value(ATTR_CREATE_QP_USER_HANDLE);
        int typeCode = (int) b.constant(ATTR_CREATE_QP_TYPE, 0, U32_MAX);
        QpType type = qpType(typeCode);
        ProtectionDomain pd = null;
        CompletionQueue sendCq = null;
        CompletionQueue recvCq = null;
        Xrcd xrcd = null;
        if (type == QpType.XRC_TGT) {
            if (b.has(ATTR_CREATE_QP_RECV_CQ_HANDLE) || b.has(ATTR_CREATE_QP_SEND_CQ_HANDLE)
                    || b.has(ATTR_CREATE_QP_PD_HANDLE) || b.has(ATTR_CREATE_QP_IND_TABLE_HANDLE)) {
                throw Errno.of(Errno.EINVAL);
            }
            xrcd = modelObject(b, ATTR_CREATE_QP_XRCD_HANDLE);
        } else {
            if (type == QpType.RAW_PACKET && b.caller().uid() != 0) {
                throw Errno.of(Errno.EPERM); // capable(CAP_NET_RAW)
            }
            if (b.has(ATTR_CREATE_QP_XRCD_HANDLE) || b.has(ATTR_CREATE_QP_SRQ_HANDLE) && type == QpType.XRC_INI) {
                throw Errno.of(Errno.EINVAL);
            }
            pd = modelObject(b, ATTR_CREATE_QP_PD_HANDLE);
            // IND_TABLE_HANDLE never names an object here: the lookup failed already (no RWQ_IND_TBL)
            sendCq = modelObject(b, ATTR_CREATE_QP_SEND_CQ_HANDLE);
            if (type != QpType.XRC_INI) {
                recvCq = modelObject(b, ATTR_CREATE_QP_RECV_CQ_HANDLE);
            }
        }
        int flags = b.flags32(ATTR_CREATE_QP_FLAGS, QP_FLAGS);
        checkCreationFlags(typeCode, flags);
        boolean sourceQpn = b.has(ATTR_CREATE_QP_SOURCE_QPN); // IB_QP_CREATE_SOURCE_QPN
        SharedReceiveQueue srq = null;
        if (b.has(ATTR_CREATE_QP_SRQ_HANDLE)) {
            srq = modelObject(b, ATTR_CREATE_QP_SRQ_HANDLE);
            if ((srq.type() == SrqType.XRC) != (type == QpType.XRC_TGT)) {
                throw Errno.of(Errno.EINVAL);
            }
        }
        if (type == null || (flags & ~FLAG_SQ_SIG_ALL) != 0 || sourceQpn) {
            throw Errno.of(Errno.EOPNOTSUPP); // rvt_create_qp: no driver QP type, no create flags
        }
        CStruct c = Abi.QP_CAP;
        int maxRecvWr = (int) c.field("max_recv_wr").get(cap, 0);
        int maxRecvSge = (int) c.field("max_recv_sge").get(cap, 0);
        if (type == QpType.XRC_INI) {
            maxRecvWr = 0; // as the write path hands it to the model: an initiator has no receive queue
            maxRecvSge = 0;
        }
        QpCapabilities caps = new QpCapabilities((int) c.field("max_send_wr").get(cap, 0), maxRecvWr,
                (int) c.field("max_send_sge").get(cap, 0), maxRecvSge, (int) c.field("max_inline_data").get(cap, 0));
        QueuePair qp = f.device.hca().createQp(pd, new QpInitAttributes(type, sendCq, recvCq,
                type == QpType.XRC_TGT ? null : srq, caps, (flags & FLAG_SQ_SIG_ALL) != 0, xrcd));
        UObject<QueuePair> u = ((FileObjects.Reserved) b.created(ATTR_CREATE_QP_HANDLE)).fill(qp, userHandle);
        f.device.track(qp, f, u, ObjectMethods.eventFile(b, ATTR_CREATE_QP_EVENT_FD));
        if (type != QpType.XRC_TGT) { // ib_create_qp of an XRC target passes no udata
            driverUdata(b, f.driver().qpCreated(f.device.hca(), qp, f.queueMemory(), room(b)));
        }
        QpCapabilities granted = qp.capabilities();
        byte[] resp = new byte[c.size()];
        c.field("max_send_wr").put(resp, granted.maxSendWr());
        c.field("max_recv_wr").put(resp, granted.maxRecvWr());
        c.field("max_send_sge").put(resp, granted.maxSendSge());
        c.field("max_recv_sge").put(resp, granted.maxRecvSge());
        c.field("max_inline_data").put(resp, granted.maxInlineData());
        b.copyToStructOrZero(ATTR_CREATE_QP_RESP_CAP, resp);
        b.copyTo(ATTR_CREATE_QP_RESP_QP_NUM, le(qp.qpNum(), 4));
    }

    /** The model's type; null for IB_UVERBS_QPT_DRIVER; EINVAL for any number the switch lacks. */
    private static QpType qpType(int code) throws Errno {
        if (code == QPT_DRIVER) {
            return null;
        }
        QpType type;
        try {
            type = QpType.ofCode(code);
        } catch (IllegalArgumentException e) {
            throw Errno.of(Errno.EINVAL);
        }
        if (type == QpType.SMI || type == QpType.GSI) {
            throw Errno.of(Errno.EINVAL);
        }
        return type;
    }

    /** check_creation_flags: beyond SQ_SIG_ALL, flags only for UD and raw packet QPs (FCS and CVLAN raw only). */
    private static void checkCreationFlags(int typeCode, int flags) throws Errno {
        int rest = flags & ~FLAG_SQ_SIG_ALL;
        if (rest == 0 || typeCode == QPT_DRIVER) {
            return;
        }
        boolean raw = typeCode == QpType.RAW_PACKET.code();
        if (!raw && typeCode != QpType.UD.code()
                || (rest & (FLAG_SCATTER_FCS | FLAG_CVLAN_STRIPPING)) != 0 && !raw) {
            throw Errno.of(Errno.EINVAL);
        }
    }

    /** UVERBS_HANDLER(UVERBS_METHOD_SRQ_CREATE). */
    static void createSrq(UverbsFile f, Bundle b) throws Errno {
        ProtectionDomain pd = modelObject(b, ATTR_CREATE_SRQ_PD_HANDLE);
        int maxSge = (int) b.value(ATTR_CREATE_SRQ_MAX_SGE);
        int maxWr = (int) b.value(ATTR_CREATE_SRQ_MAX_WR);
        int limit = (int) b.value(ATTR_CREATE_SRQ_LIMIT);
        long userHandle = b.value(ATTR_CREATE_SRQ_USER_HANDLE);
        long typeCode = b.constant(ATTR_CREATE_SRQ_TYPE, 0, U32_MAX);
        boolean hasCq = typeCode == SrqType.XRC.code() || typeCode == SrqType.TAG_MATCHING.code(); // ib_srq_has_cq
        CompletionQueue cq = hasCq ? modelObject(b, ATTR_CREATE_SRQ_CQ_HANDLE) : null;
        Xrcd xrcd = null;
        SrqType type;
        if (typeCode == SrqType.XRC.code()) {
            type = SrqType.XRC;
            xrcd = modelObject(b, ATTR_CREATE_SRQ_XRCD_HANDLE);
        } else if (typeCode == SrqType.TAG_MATCHING.code()) {
            type = SrqType.TAG_MATCHING;
            b.value(ATTR_CREATE_SRQ_MAX_NUM_TAGS); // ENOENT when absent
        } else if (typeCode == SrqType.BASIC.code()) {
            type = SrqType.BASIC;
        } else {
            throw Errno.of(Errno.EINVAL);
        }
        SharedReceiveQueue srq = f.device.hca().createSrq(pd, maxWr, maxSge, limit, type, xrcd, cq);
        UObject<SharedReceiveQueue> u = ((FileObjects.Reserved) b.created(ATTR_CREATE_SRQ_HANDLE))
                .fill(srq, userHandle);
        f.device.track(srq, f, u, ObjectMethods.eventFile(b, ATTR_CREATE_SRQ_EVENT_FD));
        driverUdata(b, f.driver().srqCreated(f.device.hca(), srq, f.queueMemory(), room(b)));
        SrqAttributes a = srq.query();
        b.copyTo(ATTR_CREATE_SRQ_RESP_MAX_WR, le(a.maxWr(), 4));
        b.copyTo(ATTR_CREATE_SRQ_RESP_MAX_SGE, le(a.maxSge(), 4));
        if (type == SrqType.XRC) {
            b.copyTo(ATTR_CREATE_SRQ_RESP_SRQ_NUM, le(srq.srqNum(), 4)); // ENOENT when not asked for
        }
    }

    /** uverbs_attr_get_obj: the model object of an IDR attribute; ENOENT when it was not given. */
    @SuppressWarnings("unchecked")
    private static <T> T modelObject(Bundle b, int id) throws Errno {
        return (T) ((UObject<?>) b.object(id)).object();
    }

    /** uverbs_copy_from_or_zero: the struct's first bytes as given, the rest zero. */
    private static byte[] copyFromOrZero(Bundle b, int id, int size) throws Errno {
        return Arrays.copyOf(b.in(id), size);
    }

    /** The driver's room for its udata (UHW_OUT's length). */
    static int room(Bundle b) {
        return Math.max(b.length(AttrSpec.UHW_OUT), 0);
    }

    /**
     * The driver's create writes its udata (ib_copy_to_udata, a plain copy_to_user: the drivers
     * check the room themselves, rvt writing only with room for a u64, rxe failing without it);
     * more than the room is a driver fault here, ENOSPC, and the create is then aborted.
     */
    static void driverUdata(Bundle b, byte[] udata) throws Errno {
        if (udata.length > room(b)) {
            throw Errno.of(Errno.ENOSPC);
        }
        if (udata.length > 0) {
            b.copyTo(AttrSpec.UHW_OUT, udata);
        }
    }
}
