package io.ibemu.emulator.uverbs;

import io.ibemu.emulator.hca.CompletionQueue;
import io.ibemu.emulator.hca.WorkCompletion;
import io.ibemu.kernel.CField;
import io.ibemu.kernel.CStruct;
import io.ibemu.kernel.Errno;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/** Completion queues: create (both), resize, destroy, poll and arm (uverbs_cmd.c). */
final class CqCommands {
    private static final int WC_SIZE = Abi.WC.size();
    private static final int POLL_HEADER = Abi.POLL_CQ_RESP.size();
    // POLL_CQ and REQ_NOTIFY_CQ run per message: their members are looked up once
    private static final CField POLL_CQ_HANDLE = Abi.POLL_CQ.field("cq_handle");
    private static final CField POLL_NE = Abi.POLL_CQ.field("ne");
    private static final CField POLL_COUNT = Abi.POLL_CQ_RESP.field("count");
    private static final CField NOTIFY_CQ_HANDLE = Abi.REQ_NOTIFY_CQ.field("cq_handle");
    private static final CField NOTIFY_SOLICITED = Abi.REQ_NOTIFY_CQ.field("solicited_only");
    private static final CField WC_WR_ID = Abi.WC.field("wr_id");
    private static final CField WC_STATUS = Abi.WC.field("status");
    private static final CField WC_OPCODE = Abi.WC.field("opcode");
    private static final CField WC_VENDOR_ERR = Abi.WC.field("vendor_err");
    private static final CField WC_BYTE_LEN = Abi.WC.field("byte_len");
    private static final CField WC_EX = Abi.WC.field("ex");
    private static final CField WC_QP_NUM = Abi.WC.field("qp_num");
    private static final CField WC_SRC_QP = Abi.WC.field("src_qp");
    private static final CField WC_FLAGS = Abi.WC.field("wc_flags");
    private static final CField WC_PKEY_INDEX = Abi.WC.field("pkey_index");
    private static final CField WC_SLID = Abi.WC.field("slid");
    private static final CField WC_SL = Abi.WC.field("sl");
    private static final CField WC_DLID_PATH_BITS = Abi.WC.field("dlid_path_bits");
    private static final CField WC_PORT_NUM = Abi.WC.field("port_num");

    private CqCommands() {
    }

    static void createCq(Command c) throws Errno {
        create(c, Abi.CREATE_CQ, "");
    }

    /** ib_uverbs_ex_create_cq: no comp_mask bits are known, the reserved word must be zero. */
    static void exCreateCq(Command c) throws Errno {
        if (c.u("comp_mask") != 0 || c.u("reserved") != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        if (c.u("flags") != 0) {
            throw Errno.of(Errno.EOPNOTSUPP); // no completion timestamps, no overrun ignoring
        }
        create(c, Abi.EX_CREATE_CQ, "base.");
    }

    /** create_cq: comp_vector in range, the channel a completion channel of this context (EBADF otherwise). */
    private static void create(Command c, CStruct request, String prefix) throws Errno {
        if (c.u("comp_vector") >= c.file.device.hca().numCompVectors()) {
            throw Errno.of(Errno.EINVAL);
        }
        int channelFd = c.u32("comp_channel");
        EventFile channel = null;
        if (channelFd >= 0) {
            channel = c.file.channels.get(channelFd);
            if (channel == null || channel.isReleased()) {
                throw Errno.of(Errno.EBADF);
            }
        }
        Pending<CompletionQueue> cq = newCq(c.file, c.caller, c.u32("cqe"), c.u32("comp_vector"), channel);
        UObject<CompletionQueue> u = cq.own(c.file.objects.add(ObjectType.CQ, cq.object(), c.u("user_handle")));
        byte[] resp = c.newResponse();
        c.spec.response().field(prefix + "cq_handle").put(resp, u.handle());
        c.spec.response().field(prefix + "cqe").put(resp, cq.object().cqe());
        if (c.spec.extended()) {
            c.put(resp, "response_length", Math.min(c.outLength, resp.length));
        }
        Destroy.respondOrAbort(c, u, resp,
                () -> c.file.driver().cqCreated(c.file.device.hca(), cq.object(), c.file.queueMemory(),
                        c.udataOutLength));
    }

    /** A model CQ whose handle is given after it exists ({@link #own}); its completions go to {@code channel}. */
    record Pending<T>(T object, UverbsFile file, AtomicReference<UObject<T>> self) {
        /** The handle now names the object: events can be routed to it. */
        UObject<T> own(UObject<T> u) {
            return own(u, null);
        }

        /** As {@link #own(UObject)}, its async events to {@code events} (CQ_CREATE's EVENT_FD) when not null. */
        UObject<T> own(UObject<T> u, EventFile events) {
            self.set(u);
            file.device.track(object, file, u, events);
            return u;
        }
    }

    /** The model side of create_cq, for the write command and CQ_CREATE alike. */
    static Pending<CompletionQueue> newCq(UverbsFile f, io.ibemu.devfs.device.Caller caller, int cqe, int vector,
                                          EventFile channel) throws Errno {
        AtomicReference<UObject<CompletionQueue>> self = new AtomicReference<>();
        CompletionQueue cq = f.device.hca().createCq(Owners.of(caller), f.driver().cqEntries(cqe,
                f.device.hca().attributes().maxCqe()), vector,
                channel == null ? q -> { } : q -> {
                    UObject<CompletionQueue> u = self.get();
                    if (u != null) {
                        channel.completion(u);
                    }
                });
        return new Pending<>(cq, f, self);
    }

    static void resizeCq(Command c) throws Errno {
        CompletionQueue cq = c.file.objects.read(ObjectType.CQ, c.u("cq_handle"));
        c.file.device.hca().resize(cq, c.file.driver().cqEntries(c.u32("cqe"),
                c.file.device.hca().attributes().maxCqe()));
        c.respondDriver(c.file.driver().cqResized(c.file.device.hca(), cq, c.file.queueMemory(), c.udataOutLength));
        byte[] resp = c.newResponse();
        c.put(resp, "cqe", cq.cqe());
        c.respond(resp);
    }

    /** ib_uverbs_destroy_cq: the response counts the events the process read of this CQ. */
    static void destroyCq(Command c) throws Errno {
        UObject<?> u = Destroy.byHandle(c, ObjectType.CQ, c.u("cq_handle"));
        byte[] resp = c.newResponse();
        c.put(resp, "comp_events_reported", u.compEventsReported());
        c.put(resp, "async_events_reported", u.asyncEventsReported());
        c.respond(resp);
    }

    /** ib_uverbs_poll_cq: up to ne completions after the count header; each is consumed once polled. */
    static void pollCq(Command c) throws Errno {
        CompletionQueue cq = c.file.objects.read(ObjectType.CQ, c.at(POLL_CQ_HANDLE, 0));
        if (cq.shared()) {
            throw Errno.of(Errno.EINVAL); // rvt_poll_cq: the program polls a mapped CQ itself
        }
        int max = (int) Math.min(c.at(POLL_NE, 0), 1 << 16);
        List<WorkCompletion> wcs = cq.poll(max);
        byte[] out = new byte[POLL_HEADER + wcs.size() * WC_SIZE];
        POLL_COUNT.put(out, wcs.size());
        for (int i = 0; i < wcs.size(); i++) {
            encode(wcs.get(i), out, POLL_HEADER + i * WC_SIZE);
        }
        c.respondAt(c.response, out, out.length);
    }

    /** copy_wc_to_user. */
    private static void encode(WorkCompletion wc, byte[] out, int base) {
        WC_WR_ID.put(out, base, wc.wrId());
        WC_STATUS.put(out, base, wc.status());
        WC_OPCODE.put(out, base, wc.opcode());
        WC_VENDOR_ERR.put(out, base, wc.vendorErr());
        WC_BYTE_LEN.put(out, base, wc.byteLen() & 0xffffffffL);
        WC_EX.put(out, base, wc.immData() & 0xffffffffL);
        WC_QP_NUM.put(out, base, wc.qpNum());
        WC_SRC_QP.put(out, base, wc.srcQp());
        WC_FLAGS.put(out, base, wc.wcFlags());
        WC_PKEY_INDEX.put(out, base, wc.pkeyIndex());
        WC_SLID.put(out, base, wc.slid());
        WC_SL.put(out, base, wc.sl());
        WC_DLID_PATH_BITS.put(out, base, wc.dlidPathBits());
        WC_PORT_NUM.put(out, base, 0);
    }

    static void reqNotifyCq(Command c) throws Errno {
        CompletionQueue cq = c.file.objects.read(ObjectType.CQ, c.at(NOTIFY_CQ_HANDLE, 0));
        cq.requestNotify(c.at(NOTIFY_SOLICITED, 0) != 0);
    }
}
