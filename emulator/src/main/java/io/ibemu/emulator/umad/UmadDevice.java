package io.ibemu.emulator.umad;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.CharDevice;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.kernel.Errno;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** /dev/infiniband/umadN: one per port of a local HCA (ib_umad_add_one). */
public final class UmadDevice implements CharDevice {
    private final MadLayer layer;
    private final Port port;
    /** The open files (port->file_list), for {@link #kill}. */
    private final Set<UmadFile> files = ConcurrentHashMap.newKeySet();
    private volatile boolean killed;

    public UmadDevice(MadLayer layer, Port port) {
        this.layer = layer;
        this.port = port;
    }

    @Override
    public DeviceFile open(Caller caller, int openFlags) throws Errno {
        if (killed) {
            throw Errno.of(Errno.ENXIO); // ib_umad_open once port->ib_dev is NULL
        }
        UmadFile[] made = new UmadFile[1];
        made[0] = new UmadFile(layer, port, () -> files.remove(made[0]));
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
