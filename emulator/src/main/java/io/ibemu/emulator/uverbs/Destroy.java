package io.ibemu.emulator.uverbs;

import io.ibemu.emulator.hca.AddressHandle;
import io.ibemu.emulator.hca.CompletionQueue;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.hca.MemoryRegion;
import io.ibemu.emulator.hca.MemoryWindow;
import io.ibemu.emulator.hca.ProtectionDomain;
import io.ibemu.emulator.hca.QueuePair;
import io.ibemu.emulator.hca.SharedReceiveQueue;
import io.ibemu.emulator.hca.Xrcd;
import io.ibemu.kernel.Errno;

/**
 * Destroying one object of a file (uverbs_destroy_uobject): the model object goes (EBUSY while
 * others use it), then its handle, its unread events and its place in the device's event routing.
 */
final class Destroy {

    private Destroy() {
    }

    /** uobj_perform_destroy / uobj_get_destroy: by handle, ENOENT or EINVAL when it names no such object. */
    static UObject<?> byHandle(Command c, ObjectType type, long handle) throws Errno {
        UObject<?> u = c.file.objects.get(type, handle);
        object(c.file, u, false);
        return u;
    }

    static void object(UverbsFile file, UObject<?> u, boolean closing) throws Errno {
        Hca hca = file.device.hca();
        Object o = u.object();
        switch (u.type()) {
            case PD -> hca.dealloc((ProtectionDomain) o);
            case MR -> hca.deregister((MemoryRegion) o);
            case MW -> hca.dealloc((MemoryWindow) o);
            case CQ -> hca.destroy((CompletionQueue) o);
            case QP -> {
                if (closing) {
                    hca.release((QueuePair) o); // detaches its multicast groups first (ib_uverbs_cleanup_ufile)
                } else {
                    hca.destroy((QueuePair) o);
                }
            }
            case SRQ -> hca.destroy((SharedReceiveQueue) o);
            case AH -> {
                hca.destroy((AddressHandle) o);
                file.driver().ahDestroyed((AddressHandle) o);
            }
            case XRCD -> {
                Xrcd x = (Xrcd) o;
                // ib_uxrcd_object.refcnt: the SRQs and QPs made through this handle hold it
                if (!file.objects.newestFirst(v -> uses(v, x)).isEmpty()) {
                    throw Errno.of(Errno.EBUSY);
                }
                file.device.closeXrcd(x);
            }
        }
        file.objects.remove(u);
        file.device.untrack(o);
        file.asyncFiles.values().forEach(f -> f.forget(u));
        if (u.type() == ObjectType.CQ) {
            file.channels.values().forEach(ch -> ch.forget(u));
        }
    }

    private static boolean uses(UObject<?> u, Xrcd x) {
        return (u.object() instanceof SharedReceiveQueue s && s.xrcd() == x)
                || (u.object() instanceof QueuePair q && q.xrcd() == x);
    }

    /** A new object's response could not be written: the kernel aborts the uobject (uobj_alloc_abort). */
    static void respondOrAbort(Command c, UObject<?> u, byte[] resp) throws Errno {
        respondOrAbort(c, u, resp, () -> Command.NOTHING);
    }

    /** The driver's part of a create: its udata response, or the errno that undoes the create. */
    @FunctionalInterface
    interface DriverPart {
        byte[] run() throws Errno;
    }

    /**
     * As {@link #respondOrAbort(Command, UObject, byte[])}, the driver's part run and its udata
     * written first, as the driver's create does before uverbs writes the core response.
     */
    static void respondOrAbort(Command c, UObject<?> u, byte[] resp, DriverPart driver) throws Errno {
        try {
            c.respondDriver(driver.run());
            c.respond(resp);
        } catch (Errno e) {
            try {
                object(c.file, u, true);
            } catch (Errno ignored) {
                c.file.objects.remove(u);
            }
            throw e;
        }
    }
}
