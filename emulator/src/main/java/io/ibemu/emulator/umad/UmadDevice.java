package io.ibemu.emulator.umad;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.CharDevice;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fault.Faults;
import io.ibemu.emulator.fault.Point;
import io.ibemu.emulator.fault.ProcessFacts;
import io.ibemu.kernel.Errno;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** /dev/infiniband/umadN: one per port of a local HCA (ib_umad_add_one). */
public final class UmadDevice implements CharDevice {
    private final MadLayer layer;
    private final Port port;
    /** The open files (port->file_list), for {@link #kill}. */
    private final Set<UmadFile> files = ConcurrentHashMap.newKeySet();
    private volatile boolean killed;

    /** The instance's fault rules, consulted before each call of an open file acts. */
    private final Faults faults;

    public UmadDevice(MadLayer layer, Port port) {
        this(layer, port, new Faults());
    }

    public UmadDevice(MadLayer layer, Port port, Faults faults) {
        this.layer = layer;
        this.port = port;
        this.faults = faults;
        faults.offer(Point.UMAD, Set.of("write", "read", "ioctl"));
    }

    /** The fault point of a umad call: its errno if a rule hits it, before it acts. */
    void admit(String call, Caller caller) throws Errno {
        if (faults.none()) {
            return;
        }
        faults.failCall(Point.UMAD, call, new ProcessFacts(caller.tid(),
                Map.of("node", port.node().id(), "port", Integer.toString(port.number()))));
    }

    @Override
    public DeviceFile open(Caller caller, int openFlags) throws Errno {
        if (killed) {
            throw Errno.of(Errno.ENXIO); // ib_umad_open once port->ib_dev is NULL
        }
        UmadFile[] made = new UmadFile[1];
        made[0] = new UmadFile(layer, port, () -> files.remove(made[0]), this::admit);
        files.add(made[0]);
        return made[0];
    }

    /** ib_umad_kill_port: the HCA is going; every open file loses its agents (see UmadFile.kill). */
    public void kill() {
        killed = true;
        for (UmadFile f : files) {
            f.kill();
        }
    }
}
