package io.ibemu.emulator.uverbs.ioctl;

import io.ibemu.devfs.device.Caller;
import io.ibemu.kernel.Errno;
import io.ibemu.kernel.ProcessMemory;

import java.util.Arrays;

/**
 * RDMA_VERBS_IOCTL on a uverbs file, errno for errno as uverbs_ioctl.c serves it:
 * ib_uverbs_ioctl (header), ib_uverbs_cmd_verbs (driver id, method), ib_uverbs_run_method
 * (the attribute array, each through uverbs_set_attr and uverbs_process_attr, the mandatory
 * ones, the destroy, the handler, UHW_OUT flagged) and bundle_destroy (new objects committed or
 * aborted).
 */
public final class VerbsIoctl {

    private static final int PAGE_SIZE = 4096;
    /** Inputs longer than this are read when used, not ahead (a large one is rare and may fail). */
    private static final int READ_AHEAD_MAX = 4096;

    private VerbsIoctl() {
    }

    /** What may refuse a method after its attributes were read and before it acts (fault injection). */
    @FunctionalInterface
    public interface Gate {
        void admit(String method, Caller caller) throws Errno;
    }

    /**
     * Runs one ioctl whose header the caller passed at {@code arg} ({@code header}: the 24 bytes
     * read from there; fewer when they could not be read), {@code gate} asked before the method acts.
     */
    public static <T> void call(Uapi<T> uapi, long driverId, T target, UObjects objects, Caller caller, long arg,
                                byte[] header, Gate gate) throws Errno {
        if (header.length < IoctlHeader.SIZE) {
            throw Errno.of(Errno.EFAULT);
        }
        IoctlHeader h = IoctlHeader.decode(header);
        if (h.length() > PAGE_SIZE || h.length() != h.expectedLength()) {
            throw Errno.of(Errno.EINVAL);
        }
        if (h.reserved1() != 0 || h.reserved2() != 0) {
            throw Errno.of(Errno.EPROTONOSUPPORT);
        }
        if (h.driverId() != driverId) {
            throw Errno.of(Errno.EINVAL);
        }
        MethodSpec<T> method = uapi.method(h.objectId(), h.methodId());
        if (method == null) {
            throw Errno.of(Errno.EPROTONOSUPPORT);
        }
        AttrSpec destroy = method.destroyAttr();
        if (objects.gone() && destroy == null) {
            throw Errno.of(Errno.EIO); // uverbs_disassociate_api cleared the handler
        }
        Bundle b = new Bundle(caller, arg + IoctlHeader.SIZE, method.shape());
        boolean ok = false;
        try {
            run(method, destroy, h.numAttrs(), target, objects, b, gate);
            b.flush();
            ok = true;
        } finally {
            if (!ok) {
                flushQuietly(b); // what the kernel put_user()s before a failure stays written
            }
            finish(b, ok);
        }
    }

    private static void flushQuietly(Bundle b) {
        try {
            b.flush();
        } catch (Errno e) {
            // the call fails with its own errno already
        }
    }

    private static <T> void run(MethodSpec<T> method, AttrSpec destroy, int numAttrs, T target, UObjects objects,
                                Bundle b, Gate gate) throws Errno {
        byte[] array = numAttrs == 0 ? new byte[0] : b.read(b.userAttrs(), numAttrs * UserAttr.SIZE);
        b.attributes(array);
        UserAttr[] attrs = new UserAttr[numAttrs];
        for (int i = 0; i < numAttrs; i++) {
            attrs[i] = UserAttr.decode(array, i);
        }
        readInputsAhead(method, attrs, b);
        for (UserAttr u : attrs) {
            setAttr(method, u, objects, b);
        }
        for (AttrSpec a : method.shape().mandatory()) {
            if (!b.has(a.id())) {
                throw Errno.of(Errno.EINVAL);
            }
        }
        gate.admit(method.name(), b.caller());
        if (destroy != null) {
            objects.destroy(b.object(destroy.id()));
        }
        try {
            method.handler().run(target, b);
        } catch (Errno e) {
            // only the framework may say "not supported" (ib_uverbs_run_method's WARN_ON_ONCE)
            throw e.code() == Errno.EPROTONOSUPPORT ? Errno.of(Errno.EINVAL) : e;
        }
        if (method.hasUdata() && b.has(AttrSpec.UHW_OUT)) {
            b.setOutput(b.present(AttrSpec.UHW_OUT).user());
        }
    }

    /**
     * The pointed-to inputs (PTR_IN past 8 bytes) in one process_vm_readv, before any is checked:
     * reading has no effect the caller sees, and when one is unreadable each is read again at the
     * point the kernel copies it, so the errno and its order stay the kernel's.
     */
    private static void readInputsAhead(MethodSpec<?> method, UserAttr[] attrs, Bundle b) {
        long[] at = new long[attrs.length];
        int[] len = new int[attrs.length];
        int n = 0;
        for (UserAttr u : attrs) {
            AttrSpec spec = spec(method, u.attrId());
            boolean in = spec != null && (spec.type() == AttrType.PTR_IN || spec.type() == AttrType.ENUM_IN);
            if (in && !u.inline() && u.len() <= READ_AHEAD_MAX && n < ProcessMemory.IOVECS_MAX) {
                at[n] = u.data();
                len[n++] = u.len();
            }
        }
        if (n > 0) {
            b.readAhead(Arrays.copyOf(at, n), Arrays.copyOf(len, n));
        }
    }

    /** The method's spec of attribute {@code id}, or null (uapi_get_attr_id). */
    private static AttrSpec spec(MethodSpec<?> method, int id) {
        int slot = method.shape().slot(id);
        return slot < 0 ? null : method.shape().specs()[slot];
    }

    /** uverbs_set_attr. */
    private static void setAttr(MethodSpec<?> method, UserAttr u, UObjects objects, Bundle b) throws Errno {
        AttrSpec spec = spec(method, u.attrId());
        if (spec == null) {
            if ((u.flags() & UserAttr.MANDATORY) != 0) {
                throw Errno.of(Errno.EPROTONOSUPPORT);
            }
            return;
        }
        if (b.has(u.attrId())) {
            throw Errno.of(Errno.EINVAL);
        }
        processAttr(spec, u, objects, b);
    }

    /** uverbs_process_attr. */
    private static void processAttr(AttrSpec spec, UserAttr u, UObjects objects, Bundle b) throws Errno {
        switch (spec.type()) {
            case ENUM_IN -> {
                if (u.elemId() >= spec.elements().size()) {
                    throw Errno.of(Errno.EOPNOTSUPP);
                }
                if (u.enumReserved() != 0) {
                    throw Errno.of(Errno.EINVAL);
                }
                AttrSpec element = spec.elements().get(u.elemId());
                if (element.type() != AttrType.PTR_IN) {
                    throw Errno.of(Errno.EOPNOTSUPP);
                }
                checkPointer(element, u, true, b);
                copy(element, u, b);
            }
            case PTR_IN -> {
                checkPointer(spec, u, false, b);
                copy(spec, u, b);
            }
            case PTR_OUT -> checkLength(spec, u, false);
            case IDR, FD -> {
                if (u.attrData() != 0 || u.len() != 0) {
                    throw Errno.of(Errno.EINVAL);
                }
                if (spec.access() == Access.NEW) {
                    UObjects.Pending p = objects.allocate(spec.objectId());
                    b.put(new Bundle.Present(spec, u, null, p));
                    if (p.id() >= 0) {
                        b.writeId(u, p.id()); // the new handle, before the handler runs
                    }
                    return;
                }
                Object o = objects.lookup(spec.objectId(), spec.access(), u.data());
                b.put(new Bundle.Present(spec, u, o, null));
                return;
            }
            case RAW_FD -> {
                if (u.attrData() != 0 || u.len() != 0 || u.data() < Integer.MIN_VALUE || u.data() > Integer.MAX_VALUE) {
                    throw Errno.of(Errno.EINVAL);
                }
            }
            case IDRS_ARRAY -> throw Errno.of(Errno.EOPNOTSUPP); // no method of this tree takes one
        }
        b.put(new Bundle.Present(spec, u, null, null));
    }

    /** PTR_IN: bytes past the struct must be zero where the spec allows them (EOPNOTSUPP otherwise). */
    private static void checkPointer(AttrSpec spec, UserAttr u, boolean isEnum, Bundle b) throws Errno {
        if (u.len() > spec.maxLen() && spec.zeroTrailing() && !cleared(u, spec.maxLen(), b)) {
            throw Errno.of(Errno.EOPNOTSUPP);
        }
        checkLength(spec, u, isEnum);
    }

    /** PTR_OUT (and the tail of PTR_IN): length bounds, then attr_data.reserved. */
    private static void checkLength(AttrSpec spec, UserAttr u, boolean isEnum) throws Errno {
        if (u.len() < spec.minLen() || (!spec.zeroTrailing() && u.len() > spec.maxLen())) {
            throw Errno.of(Errno.EINVAL);
        }
        if (!isEnum && u.attrData() != 0) {
            throw Errno.of(Errno.EINVAL);
        }
    }

    /** UA_ALLOC_AND_COPY: the bytes are read now (copy_from_user), so an unreadable pointer fails here. */
    private static void copy(AttrSpec spec, UserAttr u, Bundle b) throws Errno {
        if (spec.copied() && !u.inline()) {
            b.read(u.data(), u.len());
        }
    }

    /** uverbs_is_attr_cleared. */
    private static boolean cleared(UserAttr u, int from, Bundle b) throws Errno {
        byte[] tail;
        if (u.inline()) {
            tail = Bundle.le64(u.data());
            for (int i = from; i < u.len(); i++) {
                if (tail[i] != 0) {
                    return false;
                }
            }
            return true;
        }
        tail = b.read(u.data() + from, u.len() - from);
        for (byte x : tail) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    /** bundle_destroy: new objects are committed when the method succeeded, aborted otherwise. */
    private static void finish(Bundle b, boolean commit) {
        for (Bundle.Present p : b.given()) {
            if (p != null && p.pending() != null) {
                p.pending().finish(commit);
            }
        }
    }
}
