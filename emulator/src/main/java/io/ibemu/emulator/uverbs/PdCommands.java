package io.ibemu.emulator.uverbs;

import io.ibemu.emulator.hca.AddressHandle;
import io.ibemu.emulator.hca.AhAttributes;
import io.ibemu.emulator.hca.GlobalRoute;
import io.ibemu.emulator.hca.ProtectionDomain;
import io.ibemu.emulator.hca.Xrcd;
import io.ibemu.kernel.CStruct;
import io.ibemu.kernel.Errno;

/** Protection domains, address handles and XRC domains (uverbs_cmd.c). */
final class PdCommands {

    private PdCommands() {
    }

    static void allocPd(Command c) throws Errno {
        ProtectionDomain pd = c.file.device.hca().allocPd(Owners.of(c.caller));
        UObject<ProtectionDomain> u = c.file.objects.add(ObjectType.PD, pd, 0);
        byte[] resp = c.newResponse();
        c.put(resp, "pd_handle", u.handle());
        Destroy.respondOrAbort(c, u, resp);
    }

    static void deallocPd(Command c) throws Errno {
        Destroy.byHandle(c, ObjectType.PD, c.u("pd_handle"));
    }

    /** ib_uverbs_create_ah: an unknown PD is EINVAL, as is a port the device lacks. */
    static void createAh(Command c) throws Errno {
        AhAttributes attr = ahAttributes(c, Abi.CREATE_AH, "attr.");
        // ib_uverbs_create_ah: rdma_is_port_valid before the PD's lookup
        if (attr.portNum() < 1 || attr.portNum() > c.file.device.hca().attributes().physPortCnt()) {
            throw Errno.of(Errno.EINVAL);
        }
        ProtectionDomain pd = c.file.objects.read(ObjectType.PD, c.u("pd_handle"));
        AddressHandle ah = c.file.device.hca().createAh(pd, attr);
        UObject<AddressHandle> u = c.file.objects.add(ObjectType.AH, ah, c.u("user_handle"));
        byte[] resp = c.newResponse();
        c.put(resp, "ah_handle", u.handle());
        // rxe_create_ah's udata: the AH's number, which UD send WQEs carry
        Destroy.respondOrAbort(c, u, resp,
                () -> c.file.driver().ahCreated(c.file.device.hca(), ah, c.udataOutLength));
    }

    /** An ib_uverbs_ah_attr inside a request, at {@code prefix}. */
    static AhAttributes ahAttributes(Command c, CStruct s, String prefix) {
        GlobalRoute grh = null;
        if (s.field(prefix + "is_global").get(c.in, 0) != 0) {
            grh = new GlobalRoute(s.field(prefix + "grh.dgid").slice(c.in),
                    (int) s.field(prefix + "grh.flow_label").get(c.in, 0),
                    (int) s.field(prefix + "grh.sgid_index").get(c.in, 0),
                    (int) s.field(prefix + "grh.hop_limit").get(c.in, 0),
                    (int) s.field(prefix + "grh.traffic_class").get(c.in, 0));
        }
        return new AhAttributes((int) s.field(prefix + "dlid").get(c.in, 0), (int) s.field(prefix + "sl").get(c.in, 0),
                (int) s.field(prefix + "src_path_bits").get(c.in, 0),
                (int) s.field(prefix + "static_rate").get(c.in, 0), (int) s.field(prefix + "port_num").get(c.in, 0),
                grh);
    }

    static void destroyAh(Command c) throws Errno {
        Destroy.byHandle(c, ObjectType.AH, c.u("ah_handle"));
    }

    /**
     * ib_uverbs_open_xrcd: fd -1 makes a private domain; otherwise the domain is shared by every
     * opener of the same inode, created only with O_CREAT and refused with O_EXCL when it exists.
     */
    static void openXrcd(Command c) throws Errno {
        int fd = c.u32("fd");
        int oflags = c.u32("oflags");
        Xrcd xrcd = c.file.device.openXrcd(c.caller, fd, oflags);
        UObject<Xrcd> u = c.file.objects.add(ObjectType.XRCD, xrcd, 0);
        byte[] resp = c.newResponse();
        c.put(resp, "xrcd_handle", u.handle());
        Destroy.respondOrAbort(c, u, resp);
    }

    static void closeXrcd(Command c) throws Errno {
        Destroy.byHandle(c, ObjectType.XRCD, c.u("xrcd_handle"));
    }
}
