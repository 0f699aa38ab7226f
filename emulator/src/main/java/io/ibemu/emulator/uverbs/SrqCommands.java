package io.ibemu.emulator.uverbs;

import io.ibemu.emulator.hca.CompletionQueue;
import io.ibemu.emulator.hca.ProtectionDomain;
import io.ibemu.emulator.hca.SharedReceiveQueue;
import io.ibemu.emulator.hca.SrqAttributes;
import io.ibemu.emulator.hca.SrqType;
import io.ibemu.emulator.hca.Xrcd;
import io.ibemu.kernel.Errno;

/** Shared receive queues, basic and XRC (ib_uverbs_create_srq, _create_xsrq, _modify, _query, _destroy). */
final class SrqCommands {

    private SrqCommands() {
    }

    static void createSrq(Command c) throws Errno {
        create(c, SrqType.BASIC, null, null);
    }

    /** __uverbs_create_xsrq: an XRC SRQ names its XRC domain and CQ; a tag-matching one is not offered. */
    static void createXsrq(Command c) throws Errno {
        int typeCode = c.u32("srq_type");
        if (typeCode == SrqType.BASIC.code()) {
            create(c, SrqType.BASIC, null, null);
            return;
        }
        if (typeCode != SrqType.XRC.code()) {
            throw Errno.of(Errno.EOPNOTSUPP);
        }
        Xrcd xrcd = c.file.objects.read(ObjectType.XRCD, c.u("xrcd_handle"));
        CompletionQueue cq = c.file.objects.read(ObjectType.CQ, c.u("cq_handle"));
        create(c, SrqType.XRC, xrcd, cq);
    }

    private static void create(Command c, SrqType type, Xrcd xrcd, CompletionQueue cq) throws Errno {
        ProtectionDomain pd = c.file.objects.read(ObjectType.PD, c.u("pd_handle"));
        SharedReceiveQueue srq = c.file.device.hca().createSrq(pd, c.u32("max_wr"), c.u32("max_sge"),
                c.u32("srq_limit"), type, xrcd, cq);
        UObject<SharedReceiveQueue> u = c.file.objects.add(ObjectType.SRQ, srq, c.u("user_handle"));
        c.file.device.track(srq, c.file, u);
        SrqAttributes a = srq.query();
        byte[] resp = c.newResponse();
        c.put(resp, "srq_handle", u.handle());
        c.put(resp, "max_wr", a.maxWr());
        c.put(resp, "max_sge", a.maxSge());
        c.put(resp, "srqn", type == SrqType.XRC ? srq.srqNum() : 0);
        Destroy.respondOrAbort(c, u, resp,
                () -> c.file.driver().srqCreated(c.file.device.hca(), srq, c.file.queueMemory(), c.udataOutLength));
    }

    static void modifySrq(Command c) throws Errno {
        SharedReceiveQueue srq = c.file.objects.read(ObjectType.SRQ, c.u("srq_handle"));
        c.file.device.hca().modify(srq, c.u32("max_wr"), c.u32("srq_limit"), c.u32("attr_mask"));
        c.file.driver().srqModified(c.file.device.hca(), srq, c.u32("attr_mask"), c.file.queueMemory(), c.udataIn,
                c.caller);
    }

    static void querySrq(Command c) throws Errno {
        SharedReceiveQueue srq = c.file.objects.read(ObjectType.SRQ, c.u("srq_handle"));
        SrqAttributes a = srq.query();
        byte[] resp = c.newResponse();
        c.put(resp, "max_wr", c.file.driver().srqQueried(a.maxWr()));
        c.put(resp, "max_sge", a.maxSge());
        c.put(resp, "srq_limit", a.limit());
        c.respond(resp);
    }

    static void destroySrq(Command c) throws Errno {
        UObject<?> u = Destroy.byHandle(c, ObjectType.SRQ, c.u("srq_handle"));
        byte[] resp = c.newResponse();
        c.put(resp, "events_reported", u.asyncEventsReported());
        c.respond(resp);
    }
}
