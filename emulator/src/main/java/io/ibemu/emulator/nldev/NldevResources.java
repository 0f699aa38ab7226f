package io.ibemu.emulator.nldev;

import io.ibemu.devfs.netlink.MessageWriter;
import io.ibemu.devfs.netlink.NetlinkFamily.Dump;
import io.ibemu.devfs.netlink.NetlinkFamily.Failure;
import io.ibemu.devfs.netlink.NetlinkFamily.Outcome;
import io.ibemu.devfs.netlink.NetlinkFamily.Reply;
import io.ibemu.devfs.netlink.NetlinkInput;
import io.ibemu.devfs.netlink.NetlinkMessage;
import io.ibemu.emulator.hca.CompletionQueue;
import io.ibemu.emulator.hca.MemoryRegion;
import io.ibemu.emulator.hca.ProtectionDomain;
import io.ibemu.emulator.hca.QpAttributes;
import io.ibemu.emulator.hca.QpType;
import io.ibemu.emulator.hca.QueuePair;
import io.ibemu.emulator.uverbs.ObjectType;
import io.ibemu.emulator.uverbs.UverbsDevice;
import io.ibemu.kernel.Errno;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Resource tracking (restrack) as nldev.c reports it: the summary, and per type the entries of
 * fill_res_{qp,cq,mr,pd,ctx}_entry. User objects come from the uverbs files' object tables; the
 * kernel's own are ib_mad's per port (a PD, a CQ, QP0 and QP1, named "ib_core"), which a real
 * device has as soon as it is registered, so their ids come first.
 */
final class NldevResources {

    private static final String KERNEL = "ib_core";
    /** ib_mad_port_open: (mad_sendq_size + mad_recvq_size) * 2 with QP0. */
    private static final int MAD_CQE = (128 + 512) * 2;
    /** IB_POLL_UNBOUND_WORKQUEUE: how ib_mad's CQ is polled. */
    private static final int POLL_UNBOUND_WORKQUEUE = 2;
    private static final int QP_STATE_RTS = 3;

    /** One restrack type as fill_entries describes it, with how to list and fill its entries. */
    private enum Kind {
        QP(NldevCommand.RES_QP_GET, NldevAttribute.RES_QP, NldevAttribute.RES_QP_ENTRY, NldevAttribute.RES_LQPN,
                false, ObjectType.QP),
        CQ(NldevCommand.RES_CQ_GET, NldevAttribute.RES_CQ, NldevAttribute.RES_CQ_ENTRY, NldevAttribute.RES_CQN,
                true, ObjectType.CQ),
        MR(NldevCommand.RES_MR_GET, NldevAttribute.RES_MR, NldevAttribute.RES_MR_ENTRY, NldevAttribute.RES_MRN,
                true, ObjectType.MR),
        PD(NldevCommand.RES_PD_GET, NldevAttribute.RES_PD, NldevAttribute.RES_PD_ENTRY, NldevAttribute.RES_PDN,
                true, ObjectType.PD),
        CTX(NldevCommand.RES_CTX_GET, NldevAttribute.RES_CTX, NldevAttribute.RES_CTX_ENTRY, NldevAttribute.RES_CTXN,
                true, null),
        CM_ID(NldevCommand.RES_CM_ID_GET, NldevAttribute.RES_CM_ID, NldevAttribute.RES_CM_ID_ENTRY,
                NldevAttribute.RES_CM_IDN, false, null);

        final NldevCommand command;
        final NldevAttribute table;
        final NldevAttribute entry;
        final NldevAttribute id;
        /** NLDEV_PER_DEV: a doit names no port. */
        final boolean perDevice;
        final ObjectType objects;

        Kind(NldevCommand command, NldevAttribute table, NldevAttribute entry, NldevAttribute id, boolean perDevice,
                ObjectType objects) {
            this.command = command;
            this.table = table;
            this.entry = entry;
            this.id = id;
            this.perDevice = perDevice;
            this.objects = objects;
        }

        static Kind of(NldevCommand c) {
            for (Kind k : values()) {
                if (k.command == c) {
                    return k;
                }
            }
            throw new IllegalArgumentException(c.name());
        }
    }

    /** One entry: its id, port (0: none), and what fills its attributes given CAP_NET_ADMIN. */
    private record Entry(int id, int port, BiConsumer<MessageWriter, Boolean> fill) {
    }

    /** fill_res_info: pd, cq, qp, cm_id, mr, ctx, srq in restrack order. */
    byte[] summary(MessageWriter w, UverbsDevice d) {
        Nldev.handle(w, d).nest(NldevAttribute.RES_SUMMARY.number);
        String[] names = {"pd", "cq", "qp", "cm_id", "mr", "ctx", "srq"};
        long[] counts = {
            entries(Kind.PD, d).size(), entries(Kind.CQ, d).size(), entries(Kind.QP, d).size(), 0,
            entries(Kind.MR, d).size(), entries(Kind.CTX, d).size(), d.resources(ObjectType.SRQ).size()};
        for (int i = 0; i < names.length; i++) {
            w.nest(NldevAttribute.RES_SUMMARY_ENTRY.number)
                    .string(NldevAttribute.RES_SUMMARY_ENTRY_NAME.number, names[i])
                    .u64(NldevAttribute.RES_SUMMARY_ENTRY_CURR.number, counts[i]).end();
        }
        return w.end().build();
    }

    /** res_get_common_doit: one entry by id (and port for a QP). */
    Outcome get(NldevCommand cmd, Nldev.Request r, UverbsDevice d) {
        Kind kind = Kind.of(cmd);
        if (!r.has(kind.id)) {
            return Failure.of(Errno.EINVAL);
        }
        long port = 0;
        if (r.has(NldevAttribute.PORT_INDEX)) {
            port = r.u32(NldevAttribute.PORT_INDEX);
            if (port < 1 || port > Nldev.ports(d)) {
                return Failure.of(Errno.EINVAL);
            }
        }
        if ((port != 0) == kind.perDevice) {
            return Failure.of(Errno.EINVAL);
        }
        long id = r.u32(kind.id);
        for (Entry e : entries(kind, d)) {
            if (e.id() == id) {
                if (port != 0 && e.port() != port) {
                    return Failure.of(Errno.EAGAIN); // fill_res_qp_entry of another port
                }
                MessageWriter w = Nldev.handle(r.reply(cmd, 0), d);
                e.fill().accept(w, r.sender().netAdmin());
                return new Reply(List.of(w.build()));
            }
        }
        return Failure.of(Errno.ENOENT); // rdma_restrack_get_byid
    }

    /** res_get_common_dumpit: the device's entries in nests, as many messages as a dump round holds. */
    Outcome dump(NldevCommand cmd, Nldev.Request r, UverbsDevice d) {
        Kind kind = Kind.of(cmd);
        long port = 0;
        if (r.has(NldevAttribute.PORT_INDEX)) {
            port = r.u32(NldevAttribute.PORT_INDEX);
            if (port < 1 || port > Nldev.ports(d)) {
                return new Dump(List.of(), -Errno.EINVAL);
            }
        }
        List<byte[]> messages = new ArrayList<>();
        MessageWriter w = null;
        for (Entry e : entries(kind, d)) {
            if (kind == Kind.QP && port != 0 && e.port() != port) {
                continue;
            }
            MessageWriter one = new MessageWriter(0, 0, 0, 0).nest(kind.entry.number);
            e.fill().accept(one, r.sender().netAdmin());
            byte[] entry = body(one.end().build());
            if (w != null && w.size() + entry.length + 4 > NetlinkInput.GOODSIZE) {
                messages.add(w.end().build());
                w = null;
            }
            if (w == null) {
                w = Nldev.handle(r.reply(cmd, NetlinkMessage.NLM_F_MULTI), d).nest(kind.table.number);
            }
            w.raw(entry);
        }
        if (w != null) {
            messages.add(w.end().build());
        }
        return new Dump(messages, 0);
    }

    private static byte[] body(byte[] message) {
        return Arrays.copyOfRange(message, NetlinkMessage.HEADER, message.length);
    }

    /** The entries of {@code kind} on {@code d}, kernel's first, by id. */
    private List<Entry> entries(Kind kind, UverbsDevice d) {
        List<Entry> list = new ArrayList<>();
        int ports = Nldev.ports(d);
        switch (kind) {
            case QP -> {
                for (int p = 1; p <= ports; p++) {
                    list.add(kernelQp(0, p));
                    list.add(kernelQp(1, p));
                }
                for (UverbsDevice.Resource res : d.resources(ObjectType.QP)) {
                    Entry e = userQp(d, (QueuePair) res.object());
                    if (e != null) {
                        list.add(e);
                    }
                }
                list.sort((a, b) -> Integer.compare(a.id(), b.id()));
            }
            case CQ -> {
                for (int p = 1; p <= ports; p++) {
                    int id = p - 1;
                    list.add(new Entry(id, 0, (w, admin) -> w.u32(NldevAttribute.RES_CQE.number, MAD_CQE)
                            .u64(NldevAttribute.RES_USECNT.number, 4)
                            .u8(NldevAttribute.RES_POLL_CTX.number, POLL_UNBOUND_WORKQUEUE)
                            .u8(NldevAttribute.DEV_DIM.number, 0)
                            .u32(NldevAttribute.RES_CQN.number, id)
                            .string(NldevAttribute.RES_KERN_NAME.number, KERNEL)));
                }
                for (UverbsDevice.Resource res : d.resources(ObjectType.CQ)) {
                    CompletionQueue cq = (CompletionQueue) res.object();
                    list.add(new Entry(res.id(), 0, (w, admin) -> w.u32(NldevAttribute.RES_CQE.number, cq.cqe())
                            .u64(NldevAttribute.RES_USECNT.number, cq.users())
                            .u8(NldevAttribute.DEV_DIM.number, 0)
                            .u32(NldevAttribute.RES_CQN.number, res.id())
                            .u32(NldevAttribute.RES_CTXN.number, res.contextId())
                            .u32(NldevAttribute.RES_PID.number, cq.owner().pid())));
                }
            }
            case MR -> {
                for (UverbsDevice.Resource res : d.resources(ObjectType.MR)) {
                    MemoryRegion mr = (MemoryRegion) res.object();
                    list.add(new Entry(res.id(), 0, (w, admin) -> {
                        if (admin) {
                            w.u32(NldevAttribute.RES_RKEY.number, mr.rkey() & 0xffffffffL)
                                    .u32(NldevAttribute.RES_LKEY.number, mr.lkey() & 0xffffffffL);
                        }
                        w.u64(NldevAttribute.RES_MRLEN.number, mr.length())
                                .u32(NldevAttribute.RES_MRN.number, res.id())
                                .u32(NldevAttribute.RES_PDN.number, pdn(d, mr.pd()))
                                .u32(NldevAttribute.RES_PID.number, mr.pd().owner().pid());
                    }));
                }
            }
            case PD -> {
                for (int p = 1; p <= ports; p++) {
                    int id = p - 1;
                    list.add(new Entry(id, 0, (w, admin) -> {
                        if (admin) {
                            w.u32(NldevAttribute.RES_LOCAL_DMA_LKEY.number, 0);
                        }
                        w.u64(NldevAttribute.RES_USECNT.number, 2)
                                .u32(NldevAttribute.RES_PDN.number, id)
                                .string(NldevAttribute.RES_KERN_NAME.number, KERNEL);
                    }));
                }
                for (UverbsDevice.Resource res : d.resources(ObjectType.PD)) {
                    ProtectionDomain pd = (ProtectionDomain) res.object();
                    list.add(new Entry(res.id(), 0, (w, admin) -> {
                        if (admin) {
                            w.u32(NldevAttribute.RES_LOCAL_DMA_LKEY.number, 0);
                        }
                        w.u64(NldevAttribute.RES_USECNT.number, pd.users())
                                .u32(NldevAttribute.RES_PDN.number, res.id())
                                .u32(NldevAttribute.RES_CTXN.number, res.contextId())
                                .u32(NldevAttribute.RES_PID.number, pd.owner().pid());
                    }));
                }
            }
            case CTX -> {
                for (UverbsDevice.ContextEntry c : d.contexts()) {
                    list.add(new Entry(c.id(), 0, (w, admin) -> w.u32(NldevAttribute.RES_CTXN.number, c.id())
                            .u32(NldevAttribute.RES_PID.number, c.ownerPid())));
                }
            }
            case CM_ID -> {
                // no rdma_cm: no connection ids
            }
        }
        return list;
    }

    /** QP0 (SMI) or QP1 (GSI) of a port, as ib_mad opens them: RTS, PSN 0. */
    private static Entry kernelQp(int qpn, int port) {
        // rdma_restrack_add: an SMI/GSI QP's id carries its port above the QPN
        return new Entry(qpn | port << 24, port, (w, admin) -> w.u32(NldevAttribute.PORT_INDEX.number, port)
                .u32(NldevAttribute.RES_LQPN.number, qpn)
                .u32(NldevAttribute.RES_SQ_PSN.number, 0)
                .u8(NldevAttribute.RES_TYPE.number, qpn == 0 ? QpType.SMI.code() : QpType.GSI.code())
                .u8(NldevAttribute.RES_STATE.number, QP_STATE_RTS)
                .string(NldevAttribute.RES_KERN_NAME.number, KERNEL));
    }

    /** fill_res_qp_entry of a user QP: its attributes queried now. */
    private Entry userQp(UverbsDevice d, QueuePair qp) {
        QpAttributes a;
        try {
            a = d.hca().query(qp);
        } catch (Errno e) {
            return null;
        }
        QpType t = qp.type();
        boolean connected = t == QpType.RC || t == QpType.UC;
        boolean migrates = connected || t == QpType.XRC_INI || t == QpType.XRC_TGT;
        return new Entry(qp.qpNum(), a.portNum(), (w, admin) -> {
            if (a.portNum() != 0) {
                w.u32(NldevAttribute.PORT_INDEX.number, a.portNum());
            }
            w.u32(NldevAttribute.RES_LQPN.number, qp.qpNum());
            if (connected) {
                w.u32(NldevAttribute.RES_RQPN.number, a.destQpNum()).u32(NldevAttribute.RES_RQ_PSN.number, a.rqPsn());
            }
            w.u32(NldevAttribute.RES_SQ_PSN.number, a.sqPsn());
            if (migrates) {
                w.u8(NldevAttribute.RES_PATH_MIG_STATE.number, a.pathMigState());
            }
            w.u8(NldevAttribute.RES_TYPE.number, t.code())
                    .u8(NldevAttribute.RES_STATE.number, a.qpState().ordinal());
            if (qp.pd() != null) {
                w.u32(NldevAttribute.RES_PDN.number, pdn(d, qp.pd()));
            }
            w.u32(NldevAttribute.RES_PID.number, owner(qp));
        });
    }

    private static int owner(QueuePair qp) {
        if (qp.pd() != null) {
            return qp.pd().owner().pid();
        }
        return qp.xrcd() != null ? qp.xrcd().owner().pid() : 0;
    }

    private static int pdn(UverbsDevice d, ProtectionDomain pd) {
        for (UverbsDevice.Resource res : d.resources(ObjectType.PD)) {
            if (res.object() == pd) {
                return res.id();
            }
        }
        return 0;
    }
}
