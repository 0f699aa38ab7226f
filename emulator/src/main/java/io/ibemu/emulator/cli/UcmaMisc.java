package io.ibemu.emulator.cli;

import io.ibemu.devfs.DeviceDirectory;
import io.ibemu.devfs.ns.MountNamespace;
import io.ibemu.emulator.fault.Faults;
import io.ibemu.emulator.nldev.Nldev;
import io.ibemu.emulator.rdmacm.RdmaCm;
import io.ibemu.emulator.rdmacm.RdmaCmDevice;
import io.ibemu.emulator.sysfs.InfinibandSysfs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * ucma's misc device, one for the machine (ucma_init: misc_register of /dev/infiniband/rdma_cm,
 * its abi_version file, the ib_client's get_global_nl_info): everything the daemon shows of it,
 * in one place. CUSE cannot register a number under MISC_MAJOR (misc owns the region), so under
 * that backend there is none, and every step here does nothing.
 */
final class UcmaMisc {
    private static final String DIR = "devices/virtual/misc/" + RdmaCmDevice.NAME;

    /** The char device, or null where the backend cannot offer it. */
    private final RdmaCmDevice device;

    private UcmaMisc(RdmaCmDevice device) {
        this.device = device;
    }

    /** Adds the char device to {@code devices}, or says once why the backend has none. */
    static UcmaMisc register(DeviceDirectory devices, RdmaCm cma, Faults faults) {
        if (devices.backend() == DeviceDirectory.Backend.CUSE) {
            System.err.println("ibemu: --backend cuse: no /dev/infiniband/rdma_cm (CUSE cannot take a misc "
                    + "minor under major 10); use --backend fuse for the RDMA CM");
            return new UcmaMisc(null);
        }
        RdmaCmDevice device = new RdmaCmDevice(cma, faults);
        devices.addCharDevice(RdmaCmDevice.NAME, RdmaCmDevice.MAJOR, RdmaCmDevice.MINOR, RdmaCmDevice.MODE, device);
        return new UcmaMisc(device);
    }

    /** Its class device in the tree: /sys/devices/virtual/misc/rdma_cm with dev, abi_version and uevent. */
    void addSysfs(InfinibandSysfs sysfs) {
        if (device != null) {
            sysfs.miscDevice(RdmaCmDevice.NAME, RdmaCmDevice.MINOR, "infiniband/" + RdmaCmDevice.NAME,
                    RdmaCmDevice.MODE, Map.of("abi_version", () -> RdmaCmDevice.ABI_VERSION + "\n"));
        }
    }

    /** That directory shown over the real /sys, and /sys/class/misc's link to it. */
    void graft(Path sysDir) throws IOException {
        if (device != null) {
            MountNamespace.graft(sysDir.resolve(DIR), Path.of("/sys").resolve(DIR));
            MountNamespace.symlink(Path.of("/sys/class/misc", RdmaCmDevice.NAME), "../../" + DIR);
        }
    }

    /** What nldev's GET_CHARDEV answers for the client "rdma_cm". */
    List<Nldev.GlobalChardev> chardevs() {
        return device == null ? List.of() : List.of(new Nldev.GlobalChardev("rdma_cm", RdmaCmDevice.MAJOR,
                RdmaCmDevice.MINOR, RdmaCmDevice.ABI_VERSION, RdmaCmDevice.NAME));
    }

    /** `ctl objects`' last line: the RDMA CM ids the device's files hold. */
    void countIds(Map<String, Map<String, Integer>> counts) {
        if (device != null) {
            counts.put(RdmaCmDevice.NAME, Map.of("cm_id", device.idCount()));
        }
    }
}
