package io.ibemu.emulator.hca;

import io.ibemu.kernel.Errno;

import java.util.HashMap;
import java.util.Map;

/**
 * Memory registration of one HCA, as rxe_mr.c and rdmavt's lkey table keep it: the access and
 * range checks of reg_mr and rereg_mr, the pinning charged to the owner's RLIMIT_MEMLOCK
 * (ib_umem_get), the key allocation shared by regions and windows, and the lookup of a region by
 * lkey or rkey on the data path. Guarded by the model lock, as every verbs object.
 */
final class MemoryRegistration {

    private final Hca hca;
    private final Map<Integer, MemoryRegion> mrs = new HashMap<>();
    private final Map<Integer, MemoryWindow> mws = new HashMap<>();
    private final Map<Integer, Long> pinnedByPid = new HashMap<>();
    private int nextKey = 1;

    MemoryRegistration(Hca hca) {
        this.hca = hca;
    }

    /**
     * reg_mr: registers {@code [start, start + length)} of the owner's memory as HCA virtual
     * addresses from {@code iova}.
     *
     * @throws Errno EINVAL: length 0, unknown access bits, remote write/atomic without local
     *     write, start and iova in different page offsets; EOPNOTSUPP: on-demand paging; EFAULT:
     *     a page of the range not mapped with the access asked (ib_umem_get); ENOMEM: beyond the
     *     owner's RLIMIT_MEMLOCK or max_mr
     */
    MemoryRegion register(ProtectionDomain pd, long start, long length, long iova, int access,
            HostMemory memory) throws Errno {
        synchronized (hca.lock()) {
            hca.live(pd);
            checkMr(start, length, iova, access, memory);
            if (mrs.size() >= Hca.MAX_MR) {
                throw Errno.of(Errno.ENOMEM);
            }
            long pinned = pin(pd.owner(), start, length, memory);
            MemoryRegion mr = new MemoryRegion(pd, start, length, iova, access, newKey(), memory, pinned);
            mrs.put(mr.lkey(), mr);
            pd.users++;
            return mr;
        }
    }

    private static void checkMr(long start, long length, long iova, int access, HostMemory memory) throws Errno {
        if ((access & Access.ON_DEMAND) != 0) {
            throw Errno.of(Errno.EOPNOTSUPP);
        }
        // ib_check_mr_access: remote write/atomic need local write
        if ((access & ~Access.SUPPORTED) != 0 || length <= 0
                || (access & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 && (access & Access.LOCAL_WRITE) == 0
                || ((start ^ iova) & (memory.pageSize() - 1)) != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        if (!memory.isMapped(start, length, Access.writable(access))) {
            throw Errno.of(Errno.EFAULT);
        }
    }

    /** Charges whole pages to the owner's locked memory (ib_umem_get's pinned_vm check). */
    private long pin(VerbsOwner owner, long start, long length, HostMemory memory) throws Errno {
        long page = memory.pageSize();
        long bytes = ((start + length + page - 1) / page - start / page) * page;
        long limit = memory.pinnedLimit();
        long now = pinnedByPid.getOrDefault(owner.pid(), 0L);
        if (limit >= 0 && now + bytes > limit) {
            throw Errno.of(Errno.ENOMEM);
        }
        pinnedByPid.put(owner.pid(), now + bytes);
        return bytes;
    }

    private void unpin(VerbsOwner owner, long bytes) {
        pinnedByPid.computeIfPresent(owner.pid(), (k, v) -> v - bytes <= 0 ? null : v - bytes);
    }

    /** Bytes of registered memory charged to {@code pid}. */
    long pinnedBytes(int pid) {
        synchronized (hca.lock()) {
            return pinnedByPid.getOrDefault(pid, 0L);
        }
    }

    private int newKey() {
        // key = index << 8 | 8-bit tag, as rdmavt's lkey table forms keys; never 0 (the reserved DMA key)
        while (true) {
            int index = nextKey++ & 0xFFFFFF;
            int key = index << 8 | (index & 0xFF);
            if (index != 0 && !mrs.containsKey(key) && !mws.containsKey(key)) {
                return key;
            }
        }
    }

    /**
     * rereg_mr: changes the translation ({@link Hca#REREG_TRANS}: start, length, iova, memory), the
     * PD ({@link Hca#REREG_PD}) and/or the access ({@link Hca#REREG_ACCESS}) of a region, keeping its
     * keys. Returns the region that replaces {@code mr} (the old object is dead).
     *
     * @throws Errno EINVAL: no or unknown flags, bad values as for reg_mr; EFAULT, ENOMEM as reg_mr
     */
    MemoryRegion reregister(MemoryRegion mr, int flags, ProtectionDomain pd, long start, long length,
            long iova, int access, HostMemory memory) throws Errno {
        synchronized (hca.lock()) {
            if (mrs.get(mr.lkey()) != mr || flags == 0 || (flags & ~(Hca.REREG_TRANS | Hca.REREG_PD | Hca.REREG_ACCESS)) != 0) {
                throw Errno.of(Errno.EINVAL);
            }
            ProtectionDomain newPd = (flags & Hca.REREG_PD) != 0 ? pd : mr.pd();
            hca.live(newPd);
            boolean trans = (flags & Hca.REREG_TRANS) != 0;
            long s = trans ? start : mr.start();
            long len = trans ? length : mr.length();
            long va = trans ? iova : mr.iova();
            HostMemory mem = trans ? memory : mr.memory();
            int acc = (flags & Hca.REREG_ACCESS) != 0 ? access : mr.access();
            checkMr(s, len, va, acc, mem);
            unpin(mr.pd().owner(), mr.pinned);
            long pinned;
            try {
                pinned = pin(newPd.owner(), s, len, mem);
            } catch (Errno e) {
                pin(mr.pd().owner(), mr.start(), mr.length(), mr.memory());
                throw e;
            }
            MemoryRegion next = new MemoryRegion(newPd, s, len, va, acc, mr.lkey(), mem, pinned);
            mr.pd().users--;
            newPd.users++;
            mrs.put(next.lkey(), next);
            return next;
        }
    }

    /** dereg_mr. @throws Errno EBUSY while type-2 windows are bound to it; EINVAL if not registered */
    void deregister(MemoryRegion mr) throws Errno {
        synchronized (hca.lock()) {
            if (mrs.get(mr.lkey()) != mr) {
                throw Errno.of(Errno.EINVAL);
            }
            if (mr.boundWindows > 0) {
                throw Errno.of(Errno.EBUSY);
            }
            mrs.remove(mr.lkey());
            unpin(mr.pd().owner(), mr.pinned);
            mr.pd().users--;
        }
    }

    /** The live region with key {@code key}; null when none (lkey/rkey lookup of the data path). */
    MemoryRegion region(int key) {
        return mrs.get(key);
    }

    /** alloc_mw. @throws Errno EINVAL for a type other than 1 or 2 */
    MemoryWindow allocMw(ProtectionDomain pd, int type) throws Errno {
        synchronized (hca.lock()) {
            hca.live(pd);
            if (type != 1 && type != 2) {
                throw Errno.of(Errno.EINVAL);
            }
            MemoryWindow mw = new MemoryWindow(pd, type, newKey());
            mws.put(mw.rkey(), mw);
            pd.users++;
            return mw;
        }
    }

    /** dealloc_mw: a bound window lets its region go. @throws Errno EINVAL if not allocated */
    void dealloc(MemoryWindow mw) throws Errno {
        synchronized (hca.lock()) {
            if (mws.get(mw.rkey) != mw) {
                throw Errno.of(Errno.EINVAL);
            }
            mws.remove(mw.rkey);
            mw.unbind();
            mw.pd().users--;
        }
    }

    /**
     * A BIND_MW work request of {@code qp} (rxe_bind_mw, rxe_check_bind_mw): SUCCESS, or
     * MW_BIND_ERR with the window unchanged. Type 1: in the QP's PD, any state, length 0
     * unbinds. Type 2: free, in the QP's PD, a region and a length. The region: the window's
     * PD, MW_BIND access, not zero-based, LOCAL_WRITE where the window grants remote write or
     * atomics, the range inside it. The window keeps its index and takes the new rkey's key byte.
     */
    int bind(QueuePair qp, MwBind b) {
        MemoryWindow mw = mws.get(b.mwRkey());
        if (mw == null || mw.pd() != qp.pd() || (b.access() & Access.ZERO_BASED) != 0) {
            return WcStatus.MW_BIND_ERR;
        }
        MemoryRegion mr = null;
        if (b.length() != 0) {
            mr = mrs.get(b.mrLkey());
            if (mr == null) {
                return WcStatus.MW_BIND_ERR;
            }
        }
        if (mw.type() == 2 && (mw.bound || mr == null)) {
            return WcStatus.MW_BIND_ERR;
        }
        if (mr != null) {
            boolean remoteWrites = (b.access() & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0;
            if (mr.pd() != mw.pd() || (mr.access() & Access.ZERO_BASED) != 0 || (mr.access() & Access.MW_BIND) == 0
                    || remoteWrites && (mr.access() & Access.LOCAL_WRITE) == 0
                    || b.addr() < mr.iova() || b.length() > mr.length() || b.addr() - mr.iova() > mr.length() - b.length()) {
                return WcStatus.MW_BIND_ERR;
            }
        }
        mw.unbind();
        mws.remove(mw.rkey);
        mw.rkey = mw.rkey & ~0xFF | b.newRkey() & 0xFF; // rxe_do_bind_mw takes only the key byte
        mws.put(mw.rkey, mw);
        if (mr != null) {
            mr.boundWindows++;
            mw.mr = mr;
            mw.addr = b.addr();
            mw.length = b.length();
            mw.access = b.access();
            mw.qp = mw.type() == 2 ? qp : null;
            mw.bound = mw.type() == 2;
        }
        return WcStatus.SUCCESS;
    }

    /**
     * LOCAL_INV, or a SEND_WITH_INV's remote invalidation (rxe_invalidate_mw): a bound type 2
     * window of the QP's PD goes free. False for a key of no window, a type 1 window, or one
     * not bound (the model has no fast-registration MRs to invalidate).
     */
    boolean invalidate(QueuePair qp, int rkey) {
        MemoryWindow mw = mws.get(rkey);
        if (mw == null || mw.type() != 2 || !mw.bound || mw.pd() != qp.pd()) {
            return false;
        }
        mw.unbind();
        mw.bound = false;
        return true;
    }

    /** A window's grant of remote access: the region and host address of {@code len} bytes at {@code va}. */
    record Target(MemoryRegion mr, long host) {
    }

    /**
     * rxe_check_rkey: the region behind {@code rkey} for {@code len} bytes at {@code va} with
     * {@code access}, from {@code qp} whose memory lives in {@code pd}; null when refused. An
     * MR key needs the region's own access; a window's key, the window's access and range (a
     * type 2 window only from the QP it is bound to).
     */
    Target remote(QueuePair qp, ProtectionDomain pd, int rkey, long va, long len, int access) {
        MemoryRegion mr = mrs.get(rkey);
        if (mr != null) {
            long host = mr.pd() == pd ? mr.translate(va, len, access) : -1;
            return host < 0 ? null : new Target(mr, host);
        }
        MemoryWindow mw = mws.get(rkey);
        if (mw == null || mw.mr == null || mw.pd() != pd || mw.type() == 2 && mw.qp != qp
                || (mw.access & access) != access || len < 0 || va < mw.addr || len > mw.length
                || va - mw.addr > mw.length - len) {
            return null;
        }
        long host = mw.mr.translate(va, len, 0);
        return host < 0 ? null : new Target(mw.mr, host);
    }

    /** Live regions. */
    int regions() {
        return mrs.size();
    }

    /** Live windows. */
    int windows() {
        return mws.size();
    }
}
