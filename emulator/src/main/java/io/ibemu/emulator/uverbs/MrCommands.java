package io.ibemu.emulator.uverbs;

import io.ibemu.emulator.hca.HostMemory;
import io.ibemu.emulator.hca.MemoryRegion;
import io.ibemu.emulator.hca.MemoryWindow;
import io.ibemu.emulator.hca.ProtectionDomain;
import io.ibemu.kernel.Errno;

/** Memory regions and windows (ib_uverbs_reg_mr, _rereg_mr, _alloc_mw and their destroys). */
final class MrCommands {
    private static final long PAGE_MASK = ~4095L;
    // enum ib_access_flags
    private static final int LOCAL_WRITE = 1;
    private static final int REMOTE_WRITE = 1 << 1;
    private static final int REMOTE_ATOMIC = 1 << 3;
    private static final int ON_DEMAND = 1 << 6;
    private static final int FLUSH = (1 << 8) | (1 << 9);
    /** IB_ACCESS_SUPPORTED: the bits up to IB_ACCESS_HUGETLB's and the optional range 20..29. */
    private static final int SUPPORTED = ((1 << 10) - 1) | (((1 << 10) - 1) << 20);
    /** IB_ACCESS_OPTIONAL: hints (relaxed ordering) a driver may ignore, as rdmavt does. */
    private static final int OPTIONAL = ((1 << 10) - 1) << 20;
    // enum ib_mr_rereg_flags
    private static final int REREG_TRANS = 1;
    private static final int REREG_PD = 1 << 1;
    private static final int REREG_ACCESS = 1 << 2;
    private static final int REREG_SUPPORTED = (1 << 3) - 1;
    // enum ib_mw_type
    private static final int MW_TYPE_1 = 1;
    private static final int MW_TYPE_2 = 2;

    private MrCommands() {
    }

    /** ib_check_mr_access. */
    static void checkAccess(int flags) throws Errno {
        if ((flags & (REMOTE_ATOMIC | REMOTE_WRITE)) != 0 && (flags & LOCAL_WRITE) == 0) {
            throw Errno.of(Errno.EINVAL);
        }
        if ((flags & ~SUPPORTED) != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        if ((flags & (ON_DEMAND | FLUSH)) != 0) {
            throw Errno.of(Errno.EOPNOTSUPP); // no ODP, no persistent-memory flush on this device
        }
    }

    static void regMr(Command c) throws Errno {
        long start = c.u("start");
        long iova = c.u("hca_va");
        if ((start & ~PAGE_MASK) != (iova & ~PAGE_MASK)) {
            throw Errno.of(Errno.EINVAL);
        }
        int access = c.u32("access_flags");
        checkAccess(access);
        access &= ~OPTIONAL; // sent once GET_CONTEXT reports IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS
        ProtectionDomain pd = c.file.objects.read(ObjectType.PD, c.u("pd_handle"));
        MemoryRegion mr = c.file.device.hca().registerMr(pd, start, c.u("length"), iova, access, memoryOf(c));
        UObject<MemoryRegion> u = c.file.objects.add(ObjectType.MR, mr, 0);
        byte[] resp = c.newResponse();
        c.put(resp, "mr_handle", u.handle());
        c.put(resp, "lkey", mr.lkey() & 0xffffffffL);
        c.put(resp, "rkey", mr.rkey() & 0xffffffffL);
        Destroy.respondOrAbort(c, u, resp);
    }

    /** ib_uverbs_rereg_mr: the region keeps its handle; new keys come back. */
    static void reregMr(Command c) throws Errno {
        int flags = c.u32("flags");
        long start = c.u("start");
        long iova = c.u("hca_va");
        long length = c.u("length");
        if (flags == 0) {
            throw Errno.of(Errno.EINVAL);
        }
        if ((flags & ~REREG_SUPPORTED) != 0) {
            throw Errno.of(Errno.EOPNOTSUPP);
        }
        if ((flags & REREG_TRANS) != 0 && (start & ~PAGE_MASK) != (iova & ~PAGE_MASK)) {
            throw Errno.of(Errno.EINVAL);
        }
        UObject<MemoryRegion> u = c.file.objects.get(ObjectType.MR, c.u("mr_handle"));
        int access = c.u32("access_flags");
        if ((flags & REREG_ACCESS) != 0) {
            checkAccess(access);
        }
        access &= ~OPTIONAL;
        ProtectionDomain pd = null;
        if ((flags & REREG_PD) != 0) {
            pd = c.file.objects.read(ObjectType.PD, c.u("pd_handle"));
        }
        MemoryRegion mr = c.file.device.hca().reregisterMr(u.object(), flags, pd, start, length, iova, access,
                memoryOf(c));
        c.file.objects.replace(u, mr);
        byte[] resp = c.newResponse();
        c.put(resp, "lkey", mr.lkey() & 0xffffffffL);
        c.put(resp, "rkey", mr.rkey() & 0xffffffffL);
        c.respond(resp);
    }

    static void deregMr(Command c) throws Errno {
        Destroy.byHandle(c, ObjectType.MR, c.u("mr_handle"));
    }

    static void allocMw(Command c) throws Errno {
        ProtectionDomain pd = c.file.objects.read(ObjectType.PD, c.u("pd_handle"));
        int type = (int) c.u("mw_type");
        if (type != MW_TYPE_1 && type != MW_TYPE_2) {
            throw Errno.of(Errno.EINVAL);
        }
        MemoryWindow mw = c.file.device.hca().allocMw(pd, type);
        UObject<MemoryWindow> u = c.file.objects.add(ObjectType.MW, mw, 0);
        byte[] resp = c.newResponse();
        c.put(resp, "mw_handle", u.handle());
        c.put(resp, "rkey", mw.rkey() & 0xffffffffL);
        Destroy.respondOrAbort(c, u, resp);
    }

    static void deallocMw(Command c) throws Errno {
        Destroy.byHandle(c, ObjectType.MW, c.u("mw_handle"));
    }

    /** The registering process's memory: what the HCA pins and reaches by DMA. */
    private static HostMemory memoryOf(Command c) {
        return c.file.device.memoryOf(Owners.of(c.caller));
    }
}
