package io.ibemu.emulator.uverbs;

import io.ibemu.emulator.hca.AhAttributes;
import io.ibemu.emulator.hca.CompletionQueue;
import io.ibemu.emulator.hca.GlobalRoute;
import io.ibemu.emulator.hca.ProtectionDomain;
import io.ibemu.emulator.hca.QpAttributeMask;
import io.ibemu.emulator.hca.QpAttributes;
import io.ibemu.emulator.hca.QpCapabilities;
import io.ibemu.emulator.hca.QpInitAttributes;
import io.ibemu.emulator.hca.QpState;
import io.ibemu.emulator.hca.QpType;
import io.ibemu.emulator.hca.QueuePair;
import io.ibemu.emulator.hca.SharedReceiveQueue;
import io.ibemu.emulator.hca.SrqType;
import io.ibemu.emulator.hca.Xrcd;
import io.ibemu.kernel.CStruct;
import io.ibemu.kernel.Errno;

/** Queue pairs: create (both), open, query, modify (both), destroy, multicast attach (uverbs_cmd.c). */
final class QpCommands {
    /** IB_QP_ATTR_STANDARD_BITS: GENMASK(20, 0). */
    private static final int STANDARD_BITS = (1 << 21) - 1;
    private static final int CREATE_QP_SUP_COMP_MASK = 1; // IB_UVERBS_CREATE_QP_MASK_IND_TABLE

    private QpCommands() {
    }

    static void createQp(Command c) throws Errno {
        create(c, "");
    }

    /** ib_uverbs_ex_create_qp: comp_mask within what the kernel knows; no RSS tables or create flags here. */
    static void exCreateQp(Command c) throws Errno {
        if ((c.u("comp_mask") & ~CREATE_QP_SUP_COMP_MASK) != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        if (c.u("comp_mask") != 0 || c.u("create_flags") != 0) {
            throw Errno.of(Errno.EOPNOTSUPP);
        }
        create(c, "base.");
    }

    /** create_qp: the lookups and their EINVALs in the kernel's order, then the model. */
    private static void create(Command c, String respPrefix) throws Errno {
        int typeCode = (int) c.u("qp_type");
        QpType type;
        try {
            type = QpType.ofCode(typeCode);
        } catch (IllegalArgumentException e) {
            throw Errno.of(Errno.EINVAL); // create_qp's switch: any other type
        }
        if (type == QpType.RAW_PACKET && c.caller.uid() != 0) {
            throw Errno.of(Errno.EPERM);
        }
        if (type == QpType.SMI || type == QpType.GSI) {
            throw Errno.of(Errno.EINVAL); // QP0/QP1 are the kernel's own: not in create_qp's switch
        }
        ObjectTable t = c.file.objects;
        ProtectionDomain pd = null;
        Xrcd xrcd = null;
        SharedReceiveQueue srq = null;
        CompletionQueue scq = null;
        CompletionQueue rcq = null;
        int maxRecvWr = c.u32("max_recv_wr");
        int maxRecvSge = c.u32("max_recv_sge");
        if (type == QpType.XRC_TGT) {
            xrcd = t.read(ObjectType.XRCD, c.u("pd_handle"));
        } else {
            if (type == QpType.XRC_INI) {
                maxRecvWr = 0;
                maxRecvSge = 0;
            } else {
                if (c.u("is_srq") != 0) {
                    srq = t.read(ObjectType.SRQ, c.u("srq_handle"));
                    if (srq.type() == SrqType.XRC) {
                        throw Errno.of(Errno.EINVAL);
                    }
                }
                if (c.u("recv_cq_handle") != c.u("send_cq_handle")) {
                    rcq = t.read(ObjectType.CQ, c.u("recv_cq_handle"));
                }
            }
            scq = t.read(ObjectType.CQ, c.u("send_cq_handle"));
            if (type != QpType.XRC_INI) {
                rcq = rcq != null ? rcq : scq;
            }
            pd = t.read(ObjectType.PD, c.u("pd_handle"));
        }
        QpCapabilities cap = new QpCapabilities(c.u32("max_send_wr"), maxRecvWr, c.u32("max_send_sge"), maxRecvSge,
                c.u32("max_inline_data"));
        QpInitAttributes init = new QpInitAttributes(type, scq, rcq, srq, cap, c.u("sq_sig_all") != 0, xrcd);
        QueuePair qp = c.file.device.hca().createQp(pd, init);
        UObject<QueuePair> u = c.file.objects.add(ObjectType.QP, qp, c.u("user_handle"));
        c.file.device.track(qp, c.file, u);
        respondCreated(c, u, respPrefix,
                () -> c.file.driver().qpCreated(c.file.device.hca(), qp, c.file.queueMemory(), c.udataOutLength));
    }

    /** ib_uverbs_create_qp_resp: the handle, the QPN and the capabilities the device granted. */
    private static void respondCreated(Command c, UObject<QueuePair> u, String p, Destroy.DriverPart driver)
            throws Errno {
        QueuePair qp = u.object();
        QpCapabilities cap = qp.capabilities();
        CStruct r = c.spec.response();
        byte[] resp = c.newResponse();
        r.field(p + "qp_handle").put(resp, u.handle());
        r.field(p + "qpn").put(resp, qp.qpNum());
        r.field(p + "max_send_wr").put(resp, cap.maxSendWr());
        r.field(p + "max_recv_wr").put(resp, cap.maxRecvWr());
        r.field(p + "max_send_sge").put(resp, cap.maxSendSge());
        r.field(p + "max_recv_sge").put(resp, cap.maxRecvSge());
        r.field(p + "max_inline_data").put(resp, cap.maxInlineData());
        if (c.spec.extended()) {
            c.put(resp, "response_length", Math.min(c.outLength, resp.length));
        }
        Destroy.respondOrAbort(c, u, resp, driver);
    }

    /** ib_uverbs_open_qp: an XRC target QP of a shared XRC domain, by number. */
    static void openQp(Command c) throws Errno {
        if (c.u("qp_type") != QpType.XRC_TGT.code()) {
            throw Errno.of(Errno.EINVAL);
        }
        Xrcd xrcd = c.file.objects.read(ObjectType.XRCD, c.u("pd_handle"));
        QueuePair qp = c.file.device.hca().openQp(xrcd, c.u32("qpn"));
        UObject<QueuePair> u = c.file.objects.add(ObjectType.QP, qp, c.u("user_handle"));
        c.file.device.track(qp, c.file, u);
        respondCreated(c, u, "", () -> Command.NOTHING);
    }

    static void queryQp(Command c) throws Errno {
        QueuePair qp = c.file.objects.read(ObjectType.QP, c.u("qp_handle"));
        QpAttributes a = c.file.device.hca().query(qp);
        byte[] resp = c.newResponse();
        CStruct r = Abi.QUERY_QP_RESP;
        putDest(r, resp, "dest.", a.ah());
        putDest(r, resp, "alt_dest.", a.altAh());
        QpCapabilities cap = c.file.driver().qpQueried(qp, a.cap() != null ? a.cap() : qp.capabilities());
        c.put(resp, "max_send_wr", cap.maxSendWr());
        c.put(resp, "max_recv_wr", cap.maxRecvWr());
        c.put(resp, "max_send_sge", cap.maxSendSge());
        c.put(resp, "max_recv_sge", cap.maxRecvSge());
        c.put(resp, "max_inline_data", cap.maxInlineData());
        c.put(resp, "qkey", a.qkey() & 0xffffffffL);
        c.put(resp, "rq_psn", a.rqPsn());
        c.put(resp, "sq_psn", a.sqPsn());
        c.put(resp, "dest_qp_num", a.destQpNum());
        c.put(resp, "qp_access_flags", a.qpAccessFlags());
        c.put(resp, "pkey_index", a.pkeyIndex());
        c.put(resp, "alt_pkey_index", a.altPkeyIndex());
        c.put(resp, "qp_state", a.qpState().code());
        c.put(resp, "cur_qp_state", a.curQpState().code());
        c.put(resp, "path_mtu", a.pathMtu());
        c.put(resp, "path_mig_state", a.pathMigState());
        c.put(resp, "sq_draining", a.sqDraining() ? 1 : 0);
        c.put(resp, "max_rd_atomic", a.maxRdAtomic());
        c.put(resp, "max_dest_rd_atomic", a.maxDestRdAtomic());
        c.put(resp, "min_rnr_timer", a.minRnrTimer());
        c.put(resp, "port_num", a.portNum());
        c.put(resp, "timeout", a.timeout());
        c.put(resp, "retry_cnt", a.retryCnt());
        c.put(resp, "rnr_retry", a.rnrRetry());
        c.put(resp, "alt_port_num", a.altPortNum());
        c.put(resp, "alt_timeout", a.altTimeout());
        c.put(resp, "sq_sig_all", qp.sqSigAll() ? 1 : 0);
        c.respond(resp);
    }

    private static void putDest(CStruct r, byte[] resp, String p, AhAttributes ah) {
        if (ah == null) {
            return;
        }
        r.field(p + "dlid").put(resp, ah.dlid());
        r.field(p + "sl").put(resp, ah.sl());
        r.field(p + "src_path_bits").put(resp, ah.srcPathBits());
        r.field(p + "static_rate").put(resp, ah.staticRate());
        r.field(p + "port_num").put(resp, ah.portNum());
        GlobalRoute grh = ah.grh();
        r.field(p + "is_global").put(resp, grh != null ? 1 : 0);
        if (grh != null) {
            r.field(p + "dgid").putBytes(resp, grh.dgid());
            r.field(p + "flow_label").put(resp, grh.flowLabel());
            r.field(p + "sgid_index").put(resp, grh.sgidIndex());
            r.field(p + "hop_limit").put(resp, grh.hopLimit());
            r.field(p + "traffic_class").put(resp, grh.trafficClass());
        }
    }

    static void modifyQp(Command c) throws Errno {
        modify(c, "", STANDARD_BITS);
    }

    /** ib_uverbs_ex_modify_qp: also the rate limit. */
    static void exModifyQp(Command c) throws Errno {
        modify(c, "base.", STANDARD_BITS | QpAttributeMask.RATE_LIMIT);
        byte[] resp = c.newResponse();
        c.put(resp, "response_length", Math.min(c.outLength, resp.length));
        c.respond(resp);
    }

    /** modify_qp: mask and value checks of the core, then ib_modify_qp_is_ok and the rest in the model. */
    private static void modify(Command c, String p, int allowedBits) throws Errno {
        CStruct s = c.spec.request();
        int mask = (int) s.field(p + "attr_mask").get(c.in, 0);
        if ((mask & ~allowedBits) != 0) {
            throw Errno.of(Errno.EOPNOTSUPP);
        }
        QueuePair qp = c.file.objects.read(ObjectType.QP, s.field(p + "qp_handle").get(c.in, 0));
        int ports = c.file.device.hca().attributes().physPortCnt();
        int port = (int) s.field(p + "port_num").get(c.in, 0);
        if ((mask & QpAttributeMask.PORT) != 0 && (port < 1 || port > ports)) {
            throw Errno.of(Errno.EINVAL);
        }
        AhAttributes ah = dest(c, s, p + "dest.");
        if ((mask & QpAttributeMask.AV) != 0 && (ah.portNum() < 1 || ah.portNum() > ports)) {
            throw Errno.of(Errno.EINVAL);
        }
        AhAttributes alt = dest(c, s, p + "alt_dest.");
        if ((mask & QpAttributeMask.ALT_PATH) != 0 && (alt.portNum() < 1 || alt.portNum() > ports)) {
            throw Errno.of(Errno.EINVAL);
        }
        int state = (int) s.field(p + "qp_state").get(c.in, 0);
        int curState = (int) s.field(p + "cur_qp_state").get(c.in, 0);
        if (((mask & QpAttributeMask.CUR_STATE) != 0 && curState > QpState.ERR.code())
                || ((mask & QpAttributeMask.STATE) != 0 && state > QpState.ERR.code())) {
            throw Errno.of(Errno.EINVAL);
        }
        QpAttributes.Builder b = QpAttributes.builder()
                .qpState(QpState.ofCode(Math.min(state, QpState.ERR.code())))
                .curQpState(QpState.ofCode(Math.min(curState, QpState.ERR.code())))
                .pathMtu((int) s.field(p + "path_mtu").get(c.in, 0))
                .pathMigState((int) s.field(p + "path_mig_state").get(c.in, 0))
                .qkey((int) s.field(p + "qkey").get(c.in, 0))
                .rqPsn((int) s.field(p + "rq_psn").get(c.in, 0))
                .sqPsn((int) s.field(p + "sq_psn").get(c.in, 0))
                .destQpNum((int) s.field(p + "dest_qp_num").get(c.in, 0))
                .qpAccessFlags((int) s.field(p + "qp_access_flags").get(c.in, 0))
                .ah(ah).altAh(alt)
                .pkeyIndex((int) s.field(p + "pkey_index").get(c.in, 0))
                .altPkeyIndex((int) s.field(p + "alt_pkey_index").get(c.in, 0))
                .enSqdAsyncNotify(s.field(p + "en_sqd_async_notify").get(c.in, 0) != 0)
                .maxRdAtomic((int) s.field(p + "max_rd_atomic").get(c.in, 0))
                .maxDestRdAtomic((int) s.field(p + "max_dest_rd_atomic").get(c.in, 0))
                .minRnrTimer((int) s.field(p + "min_rnr_timer").get(c.in, 0))
                .portNum(port)
                .timeout((int) s.field(p + "timeout").get(c.in, 0))
                .retryCnt((int) s.field(p + "retry_cnt").get(c.in, 0))
                .rnrRetry((int) s.field(p + "rnr_retry").get(c.in, 0))
                .altPortNum((int) s.field(p + "alt_port_num").get(c.in, 0))
                .altTimeout((int) s.field(p + "alt_timeout").get(c.in, 0));
        if (c.spec.extended()) {
            b.rateLimit((int) c.u("rate_limit"));
        }
        c.file.device.hca().modify(qp, b.build(), mask);
    }

    /** An ib_uverbs_qp_dest as address-vector attributes. */
    private static AhAttributes dest(Command c, CStruct s, String p) {
        GlobalRoute grh = null;
        if (s.field(p + "is_global").get(c.in, 0) != 0) {
            grh = new GlobalRoute(s.field(p + "dgid").slice(c.in), (int) s.field(p + "flow_label").get(c.in, 0),
                    (int) s.field(p + "sgid_index").get(c.in, 0), (int) s.field(p + "hop_limit").get(c.in, 0),
                    (int) s.field(p + "traffic_class").get(c.in, 0));
        }
        return new AhAttributes((int) s.field(p + "dlid").get(c.in, 0), (int) s.field(p + "sl").get(c.in, 0),
                (int) s.field(p + "src_path_bits").get(c.in, 0), (int) s.field(p + "static_rate").get(c.in, 0),
                (int) s.field(p + "port_num").get(c.in, 0), grh);
    }

    static void destroyQp(Command c) throws Errno {
        UObject<?> u = Destroy.byHandle(c, ObjectType.QP, c.u("qp_handle"));
        byte[] resp = c.newResponse();
        c.put(resp, "events_reported", u.asyncEventsReported());
        c.respond(resp);
    }

    static void attachMcast(Command c) throws Errno {
        QueuePair qp = c.file.objects.read(ObjectType.QP, c.u("qp_handle"));
        c.file.device.hca().attachMulticast(qp, c.bytes("gid"), (int) c.u("mlid"));
    }

    static void detachMcast(Command c) throws Errno {
        QueuePair qp = c.file.objects.read(ObjectType.QP, c.u("qp_handle"));
        c.file.device.hca().detachMulticast(qp, c.bytes("gid"), (int) c.u("mlid"));
    }
}
