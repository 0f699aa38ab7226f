package io.ibemu.emulator.rdmacm;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.CharDevice;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.emulator.fault.Faults;
import io.ibemu.emulator.ipoib.NetNamespace;
import io.ibemu.emulator.fault.Point;
import io.ibemu.emulator.fault.ProcessFacts;
import io.ibemu.kernel.Errno;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * {@code /dev/infiniband/rdma_cm}, ucma.c's misc device ({@code ucma_misc}: mode 0666, a dynamic
 * minor under MISC_MAJOR, node "infiniband/rdma_cm"): each open is a {@link UcmaFile}; the
 * context ids of all its files share one table.
 */
public final class RdmaCmDevice implements CharDevice {
    public static final String NAME = "rdma_cm";
    /** MISC_MAJOR. */
    public static final int MAJOR = 10;
    /**
     * A dynamic misc minor: 6.1's misc_register hands them out counting down from 127, so the
     * number depends on what registered first; this one is free on the hosts seen (ls /sys/dev/char).
     */
    public static final int MINOR = 125;
    public static final int MODE = 0666;
    /** RDMA_USER_CM_ABI_VERSION, shown in /sys/class/misc/rdma_cm/abi_version and GET_CHARDEV. */
    public static final int ABI_VERSION = Ucma.ABI_VERSION;

    final ContextTable contexts = new ContextTable();
    /** multicast_table: every join of every file, the lowest free id from 0. */
    private final java.util.TreeMap<Integer, UcmaMulticast> multicasts = new java.util.TreeMap<>();
    final RdmaCm cm;
    /** The instance's fault rules ({@code on=ucma:NAME}), consulted before a command acts. */
    private final Faults faults;

    public RdmaCmDevice(RdmaCm cm) {
        this(cm, new Faults());
    }

    public RdmaCmDevice(RdmaCm cm, Faults faults) {
        this.cm = cm;
        this.faults = faults;
        faults.offer(Point.UCMA, Arrays.stream(UcmaCommands.TABLE).filter(Objects::nonNull).map(UcmaCommand::name)
                .collect(Collectors.toSet()));
    }

    /** The fault point of a ucma command: its errno if a rule hits it, before the handler acts. */
    void admit(UcmaCommand command, Caller caller) throws Errno {
        if (!faults.none()) {
            faults.failCall(Point.UCMA, command.name(), new ProcessFacts(caller.tid(), Map.of()));
        }
    }

    @Override
    public DeviceFile open(Caller caller, int openFlags) {
        return new UcmaFile(this, NetNamespace.of(caller.tid()));
    }

    synchronized UcmaMulticast newMulticast(long uid, UcmaContext c, SockAddr addr) {
        int id = ContextTable.lowestFree(multicasts);
        UcmaMulticast mc = new UcmaMulticast(id, uid, c, addr);
        multicasts.put(id, mc);
        return mc;
    }

    /** The join {@code id} of {@code file}: ENOENT for none, EINVAL for another file's. */
    synchronized UcmaMulticast multicast(UcmaFile file, int id) throws io.ibemu.kernel.Errno {
        UcmaMulticast mc = multicasts.get(id);
        if (mc == null) {
            throw io.ibemu.kernel.Errno.of(io.ibemu.kernel.Errno.ENOENT);
        }
        if (mc.context.file != file) {
            throw io.ibemu.kernel.Errno.of(io.ibemu.kernel.Errno.EINVAL);
        }
        return mc;
    }

    /** ucma_cleanup_multicast: a destroyed context's joins leave the table. */
    synchronized void removeMulticasts(UcmaContext c) {
        multicasts.values().removeIf(mc -> mc.context == c);
    }

    synchronized void removeMulticast(UcmaMulticast mc) {
        multicasts.remove(mc.id, mc);
    }

    /** How many ids the open files hold, for {@code ctl objects}. */
    public int idCount() {
        return contexts.size();
    }
}
