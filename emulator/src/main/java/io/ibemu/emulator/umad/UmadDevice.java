package io.ibemu.emulator.umad;

import io.ibemu.devfs.Caller;
import io.ibemu.devfs.CharDevice;
import io.ibemu.devfs.DeviceFile;
import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.fabric.Port;

/** /dev/infiniband/umadN: one per port of a local HCA (ib_umad_add_one). */
public final class UmadDevice implements CharDevice {
    private final MadLayer layer;
    private final Port port;

    public UmadDevice(MadLayer layer, Port port) {
        this.layer = layer;
        this.port = port;
    }

    @Override
    public DeviceFile open(Caller caller, int openFlags) {
        return new UmadFile(layer, port);
    }
}
