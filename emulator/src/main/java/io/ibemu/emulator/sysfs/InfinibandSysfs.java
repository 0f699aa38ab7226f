package io.ibemu.emulator.sysfs;

import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.uverbs.UverbsDevice;
import io.ibemu.sysfs.SysDir;

import java.util.List;

/**
 * Lays the local HCAs out in a sysfs tree as the kernel does: class directories of symlinks
 * into /sys/devices, a PCI-like parent per HCA carrying the ids providers bind by, and live
 * attributes read from the fabric model at every open.
 */
public final class InfinibandSysfs {
    /** IB_UMAD_MAJOR; issm minors follow the umad ones at IB_UMAD_MAX_PORTS. */
    public static final int UMAD_MAJOR = 231;
    public static final int ISSM_MINOR_BASE = 64;
    public static final String PCI_ROOT = "pci0000:00";
    /** IB_USER_MAD_ABI_VERSION and IB_USER_VERBS_ABI_VERSION. */
    private static final int UMAD_ABI_VERSION = 5;
    private static final int VERBS_ABI_VERSION = 6;
    /** PCI class 0x0c06: serial bus controller, InfiniBand. */
    private static final int PCI_CLASS_INFINIBAND = 0x0c0600;

    private final Fabric fabric;
    private final SysDir root;

    public InfinibandSysfs(Fabric fabric, SysDir root) {
        this.fabric = fabric;
        this.root = root;
    }

    public void build(List<LocalHca> hcas) {
        SysDir classes = root.dir("class");
        classes.dir("infiniband");
        classes.dir("infiniband_mad").attribute("abi_version", () -> SysfsFormat.line(UMAD_ABI_VERSION));
        classes.dir("infiniband_verbs").attribute("abi_version", () -> SysfsFormat.line(VERBS_ABI_VERSION));
        for (LocalHca hca : hcas) {
            add(hca);
        }
    }

    /** The device path relative to /sys/class/X/ entries. */
    private static String devicePath(LocalHca hca) {
        return "../../devices/" + PCI_ROOT + "/" + hca.pciSlot();
    }

    private void add(LocalHca hca) {
        SysDir pci = root.dir("devices").dir(PCI_ROOT).dir(hca.pciSlot());
        pciDevice(pci, hca);
        SysDir ib = pci.dir("infiniband").dir(hca.name());
        ibDevice(ib, hca);
        root.dir("class").dir("infiniband").link(hca.name(), devicePath(hca) + "/infiniband/" + hca.name());
        SysDir mad = pci.dir("infiniband_mad");
        for (int p = 1; p <= hca.node().portCount(); p++) {
            int umad = hca.umadIndex(p);
            charDevice(mad.dir("umad" + umad), hca, p, "umad" + umad, umad);
            charDevice(mad.dir("issm" + umad), hca, p, "issm" + umad, ISSM_MINOR_BASE + umad);
            SysDir madClass = root.dir("class").dir("infiniband_mad");
            madClass.link("umad" + umad, devicePath(hca) + "/infiniband_mad/umad" + umad);
            madClass.link("issm" + umad, devicePath(hca) + "/infiniband_mad/issm" + umad);
        }
        String uverbs = "uverbs" + hca.index();
        verbsDevice(pci.dir("infiniband_verbs").dir(uverbs), hca, uverbs);
        root.dir("class").dir("infiniband_verbs").link(uverbs, devicePath(hca) + "/infiniband_verbs/" + uverbs);
    }

    /**
     * The verbs provider profile: rdma-core's ipathverbs binds QLogic 0x1077:0x7322 and does its
     * whole data path with write(), so every parent carries these ids, whatever NodeInfo's
     * VendorID/DeviceID (the topology's vendid=/devid=) say at the MAD level.
     */
    private static final int PCI_VENDOR_QLOGIC = 0x1077;
    private static final int PCI_DEVICE_IBA7322 = 0x7322;

    private void pciDevice(SysDir pci, LocalHca hca) {
        Node node = hca.node();
        int vendor = PCI_VENDOR_QLOGIC;
        int device = PCI_DEVICE_IBA7322;
        String modalias = String.format("pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X%n", vendor, device, vendor,
                device, PCI_CLASS_INFINIBAND >>> 16, (PCI_CLASS_INFINIBAND >>> 8) & 0xff, PCI_CLASS_INFINIBAND & 0xff);
        pci.attribute("vendor", () -> String.format("0x%04x%n", vendor));
        pci.attribute("device", () -> String.format("0x%04x%n", device));
        pci.attribute("subsystem_vendor", () -> String.format("0x%04x%n", vendor));
        pci.attribute("subsystem_device", () -> String.format("0x%04x%n", device));
        pci.attribute("class", () -> String.format("0x%06x%n", PCI_CLASS_INFINIBAND));
        pci.attribute("revision", () -> String.format("0x%02x%n", node.revision() & 0xff));
        pci.attribute("numa_node", () -> "-1\n");
        pci.attribute("modalias", () -> modalias);
        pci.attribute("uevent", () -> String.format("PCI_CLASS=%X%nPCI_ID=%04X:%04X%nPCI_SUBSYS_ID=%04X:%04X%n"
                        + "PCI_SLOT_NAME=%s%nMODALIAS=%s", PCI_CLASS_INFINIBAND, vendor, device, vendor, device,
                hca.pciSlot(), modalias));
    }

    private void ibDevice(SysDir dir, LocalHca hca) {
        Node node = hca.node();
        dir.attribute("node_type", () -> SysfsFormat.nodeType(node.type().code()));
        dir.attribute("node_guid", () -> SysfsFormat.guid(node.guid()));
        dir.attribute("sys_image_guid", () -> SysfsFormat.guid(node.systemImageGuid()));
        dir.bytesAttribute("node_desc", 0644, () -> showNodeDescription(node), value -> storeNodeDescription(node, value));
        dir.attribute("fw_ver", () -> SysfsFormat.line(hca.identity().fwVersion()));
        dir.attribute("hca_type", () -> SysfsFormat.line(hca.identity().hcaType()));
        dir.attribute("hw_rev", () -> SysfsFormat.line(hca.identity().hwRevision()));
        dir.attribute("board_id", () -> SysfsFormat.line(hca.identity().boardId()));
        dir.attribute("uevent", () -> "NAME=" + hca.name() + "\n");
        dir.link("device", "../../../" + hca.pciSlot());
        dir.link("subsystem", "../../../../../class/infiniband");
        SysDir ports = dir.dir("ports");
        for (int p = 1; p <= node.portCount(); p++) {
            port(ports.dir(Integer.toString(p)), node.port(p));
        }
    }

    /** node_desc_show: "%.64s\n", the bytes up to the first NUL. */
    private static byte[] showNodeDescription(Node node) {
        byte[] desc = node.descriptionBytes();
        int n = 0;
        while (n < desc.length && desc[n] != 0) {
            n++;
        }
        byte[] shown = java.util.Arrays.copyOf(desc, n + 1);
        shown[n] = '\n';
        return shown;
    }

    /**
     * node_desc_store: what ib_modify_device(IB_DEVICE_MODIFY_NODE_DESC) does, 64 bytes at most,
     * taken as bytes (a byte 0xFF stays 0xFF). One trailing newline is dropped, as `echo` adds it.
     */
    private void storeNodeDescription(Node node, byte[] value) {
        int n = value.length > 0 && value[value.length - 1] == '\n' ? value.length - 1 : value.length;
        synchronized (fabric.lock()) {
            node.setDescription(java.util.Arrays.copyOf(value, n));
        }
    }

    private void port(SysDir dir, Port port) {
        dir.attribute("state", () -> SysfsFormat.portState(port.state().code()));
        dir.attribute("phys_state", () -> SysfsFormat.physState(port.physicalState().code()));
        dir.attribute("lid", () -> SysfsFormat.hex(port.lid()));
        dir.attribute("lid_mask_count", () -> SysfsFormat.line(port.lmc()));
        dir.attribute("sm_lid", () -> SysfsFormat.hex(port.smLid()));
        dir.attribute("sm_sl", () -> SysfsFormat.line(port.smSl()));
        dir.attribute("cap_mask", () -> String.format("0x%08x%n", port.capabilityMask()));
        dir.attribute("rate", () -> SysfsFormat.rate(port.activeWidth().lanes(), port.activeSpeed().name()));
        dir.attribute("link_layer", () -> "InfiniBand\n");
        SysDir gids = dir.dir("gids");
        long[] guids = port.guids();
        for (int i = 0; i < guids.length; i++) {
            int index = i;
            gids.attribute(Integer.toString(i), () -> SysfsFormat.gid(port.subnetPrefix(), port.guids()[index]));
        }
        SysDir pkeys = dir.dir("pkeys");
        int tableSize = port.pkeys().length;
        for (int i = 0; i < tableSize; i++) {
            int index = i;
            pkeys.attribute(Integer.toString(i), () -> String.format("0x%04x%n", port.pkeys()[index]));
        }
        PortCounterFiles.add(dir.dir("counters"), port);
    }

    /** uverbs_main.c's device: ibdev and abi_version beside the char device's dev and uevent. */
    private void verbsDevice(SysDir dir, LocalHca hca, String name) {
        int minor = UverbsDevice.BASE_MINOR + hca.index();
        dir.attribute("ibdev", () -> SysfsFormat.line(hca.name()));
        dir.attribute("abi_version", () -> SysfsFormat.line(UverbsDevice.DRIVER_ABI_VERSION));
        dir.attribute("dev", () -> UverbsDevice.MAJOR + ":" + minor + "\n");
        dir.attribute("uevent", () -> "MAJOR=" + UverbsDevice.MAJOR + "\nMINOR=" + minor + "\nDEVNAME=infiniband/" + name + "\n");
        dir.link("device", "../../../" + hca.pciSlot());
        dir.link("subsystem", "../../../../../class/infiniband_verbs");
    }

    private void charDevice(SysDir dir, LocalHca hca, int port, String name, int minor) {
        dir.attribute("ibdev", () -> SysfsFormat.line(hca.name()));
        dir.attribute("port", () -> SysfsFormat.line(port));
        dir.attribute("dev", () -> UMAD_MAJOR + ":" + minor + "\n");
        dir.attribute("uevent", () -> "MAJOR=" + UMAD_MAJOR + "\nMINOR=" + minor + "\nDEVNAME=infiniband/" + name + "\n");
        dir.link("device", "../../../" + hca.pciSlot());
        dir.link("subsystem", "../../../../../class/infiniband_mad");
    }
}
