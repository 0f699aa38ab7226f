package io.ibemu.emulator.uverbs;

import io.ibemu.devfs.Errno;
import io.ibemu.emulator.abi.CStruct;
import io.ibemu.emulator.hca.CompletionQueue;
import io.ibemu.emulator.hca.WorkCompletion;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/** Completion queues: create (both), resize, destroy, poll and arm (uverbs_cmd.c). */
final class CqCommands {
    private static final int WC_SIZE = Abi.WC.size();
    private static final int POLL_HEADER = Abi.POLL_CQ_RESP.size();

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
        AtomicReference<UObject<CompletionQueue>> self = new AtomicReference<>();
        EventFile events = channel;
        CompletionQueue cq = c.file.device.hca().createCq(Owners.of(c.caller), c.u32("cqe"), c.u32("comp_vector"),
                events == null ? q -> { } : q -> {
                    UObject<CompletionQueue> u = self.get();
                    if (u != null) {
                        events.completion(u);
                    }
                });
        UObject<CompletionQueue> u = c.file.objects.add(ObjectType.CQ, cq, c.u("user_handle"));
        self.set(u);
        c.file.device.track(cq, c.file, u);
        byte[] resp = c.newResponse();
        c.spec.response().field(prefix + "cq_handle").put(resp, u.handle());
        c.spec.response().field(prefix + "cqe").put(resp, cq.cqe());
        if (c.spec.extended()) {
            c.put(resp, "response_length", Math.min(c.outLength, resp.length));
        }
        Destroy.respondOrAbort(c, u, resp);
    }

    static void resizeCq(Command c) throws Errno {
        CompletionQueue cq = c.file.objects.read(ObjectType.CQ, c.u("cq_handle"));
        c.file.device.hca().resize(cq, c.u32("cqe"));
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
        CompletionQueue cq = c.file.objects.read(ObjectType.CQ, c.u("cq_handle"));
        int max = (int) Math.min(c.u("ne"), 1 << 16);
        List<WorkCompletion> wcs = cq.poll(max);
        byte[] out = new byte[POLL_HEADER + wcs.size() * WC_SIZE];
        Abi.POLL_CQ_RESP.field("count").put(out, wcs.size());
        for (int i = 0; i < wcs.size(); i++) {
            encode(wcs.get(i), out, POLL_HEADER + i * WC_SIZE);
        }
        c.respondAt(c.response, out, out.length);
    }

    /** copy_wc_to_user. */
    private static void encode(WorkCompletion wc, byte[] out, int base) {
        CStruct s = Abi.WC;
        s.field("wr_id").put(out, base, wc.wrId());
        s.field("status").put(out, base, wc.status());
        s.field("opcode").put(out, base, wc.opcode());
        s.field("vendor_err").put(out, base, wc.vendorErr());
        s.field("byte_len").put(out, base, wc.byteLen() & 0xffffffffL);
        s.field("ex").put(out, base, wc.immData() & 0xffffffffL);
        s.field("qp_num").put(out, base, wc.qpNum());
        s.field("src_qp").put(out, base, wc.srcQp());
        s.field("wc_flags").put(out, base, wc.wcFlags());
        s.field("pkey_index").put(out, base, wc.pkeyIndex());
        s.field("slid").put(out, base, wc.slid());
        s.field("sl").put(out, base, wc.sl());
        s.field("dlid_path_bits").put(out, base, wc.dlidPathBits());
        s.field("port_num").put(out, base, 0);
    }

    static void reqNotifyCq(Command c) throws Errno {
        CompletionQueue cq = c.file.objects.read(ObjectType.CQ, c.u("cq_handle"));
        cq.requestNotify(c.u("solicited_only") != 0);
    }
}
