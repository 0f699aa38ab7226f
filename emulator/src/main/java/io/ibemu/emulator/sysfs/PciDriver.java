package io.ibemu.emulator.sysfs;

import java.util.List;
import java.util.Optional;

/**
 * Which kernel driver binds a PCI function of the emulated HCA's ids: a few rows of the
 * drivers' pci_device_id tables (qib_init.c, mlx4/main.c, mlx5/main.c), enough for the
 * profiles ibemu presents; rdma-core's udev rules key on the name (DRIVERS=="ib_qib").
 */
record PciDriver(int vendor, int device, String name) {

    private static final List<PciDriver> TABLE = List.of(
            new PciDriver(0x1fc1, 0x0010, "ib_qib"),
            new PciDriver(0x1077, 0x7220, "ib_qib"),
            new PciDriver(0x1077, 0x7322, "ib_qib"),
            new PciDriver(0x15b3, 0x1003, "mlx4_core"),
            new PciDriver(0x15b3, 0x1007, "mlx4_core"),
            new PciDriver(0x15b3, 0x1011, "mlx5_core"),
            new PciDriver(0x15b3, 0x1013, "mlx5_core"),
            new PciDriver(0x15b3, 0x1015, "mlx5_core"),
            new PciDriver(0x15b3, 0x1017, "mlx5_core"),
            new PciDriver(0x15b3, 0x1019, "mlx5_core"),
            new PciDriver(0x15b3, 0x101b, "mlx5_core"),
            new PciDriver(0x15b3, 0x101d, "mlx5_core"),
            new PciDriver(0x8086, 0x24f0, "hfi1"));

    /** The driver a kernel would bind to vendor:device; empty leaves the function unbound. */
    static Optional<String> of(int vendor, int device) {
        return TABLE.stream().filter(d -> d.vendor == vendor && d.device == device).map(PciDriver::name).findFirst();
    }
}
