package io.ibemu.emulator.sysfs;

import io.ibemu.emulator.cm.Cm;
import io.ibemu.emulator.cm.CmCounters;
import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.uverbs.ProviderProfile;
import io.ibemu.emulator.uverbs.UverbsDevice;
import io.ibemu.sysfstree.SysDir;
import io.ibemu.udev.Kobject;
import io.ibemu.udev.UeventAction;
import io.ibemu.udev.UeventFile;
import io.ibemu.udev.Uevents;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Lays the local HCAs out in a sysfs tree as the kernel does: class directories of symlinks
 * into /sys/devices, a PCI function per HCA carrying the ids providers bind by and the driver
 * udev rules match, each device with its {@code uevent} file and {@code subsystem} link, the
 * driver and /sys/dev/char links udevadm resolves, and live attributes read from the fabric
 * model at every open. The tree's root mirrors /sys: the daemon grafts its entries there.
 * The functions are not listed in /sys/bus/pci/devices: libpci (perftest, lspci) reads the
 * {@code resource} and {@code config} files of every device listed there, which they lack.
 */
public final class InfinibandSysfs {
    /** IB_UMAD_MAJOR; issm minors follow the umad ones at IB_UMAD_MAX_PORTS. */
    public static final int UMAD_MAJOR = 231;
    public static final int ISSM_MINOR_BASE = 64;
    public static final String PCI_ROOT = "pci0000:00";
    /** IB_USER_MAD_ABI_VERSION and IB_USER_VERBS_ABI_VERSION. */
    private static final int UMAD_ABI_VERSION = 5;
    private static final int VERBS_ABI_VERSION = 6;
    /** Relative paths to /sys from a root port, an HCA's function, and a device below it. */
    private static final String FROM_ROOT_PORT = "../../../";
    private static final String FROM_FUNCTION = "../../../../";
    private static final String FROM_CLASS_DEVICE = "../../../../../../";
    /** An Intel Xeon E5 PCIe root port (8086:3c08), as QLE7340s sat behind; portdrv binds it. */
    private static final int ROOT_PORT_VENDOR = 0x8086;
    private static final int ROOT_PORT_DEVICE = 0x3c08;
    private static final String PCIEPORT = "pcieport";
    /** uverbs_devnode gives its nodes mode 0666, which dev_uevent reports as DEVMODE. */
    private static final String UVERBS_DEVMODE = "0666";

    private final Fabric fabric;
    private final SysDir root;
    private final Uevents uevents;
    /** The Communication Manager whose counters the ports show, or null. */
    private final Cm cm;
    /** Every device in the order the kernel registers them, for the add events; by HCA name. */
    private final Map<String, List<Registered>> registered = new LinkedHashMap<>();
    /** The links below the tree's root each HCA added outside its own directories (bus/, dev/char/). */
    private final Map<String, List<String>> outsideLinks = new LinkedHashMap<>();
    /** The HCA being laid out by {@link #add}. */
    private String adding;

    private final ProviderProfile provider;

    private record Registered(Kobject device, boolean bound) {
    }

    public InfinibandSysfs(Fabric fabric, SysDir root, Uevents uevents, ProviderProfile provider) {
        this(fabric, root, uevents, provider, null);
    }

    /**
     * {@code provider}: whose driver ABI the verbs devices' abi_version names. With {@code cm}: each
     * port's CM counters as ib_cm shows them ({@code ports/N/cm_tx_msgs/...}).
     */
    public InfinibandSysfs(Fabric fabric, SysDir root, Uevents uevents, ProviderProfile provider, Cm cm) {
        this.provider = provider;
        this.fabric = fabric;
        this.root = root;
        this.uevents = uevents;
        this.cm = cm;
    }

    /**
     * Raises the uevents the kernel raised while the devices appeared (device_add's "add", and
     * driver_bound's "bind" for the root port and the PCI function), once the tree is visible.
     */
    public synchronized void announce() {
        for (String hca : registered.keySet()) {
            announce(hca);
        }
    }

    /** The add (and bind) events of one HCA's devices, in registration order. */
    public synchronized void announce(String hca) {
        for (Registered r : registered.getOrDefault(hca, List.of())) {
            uevents.raise(r.device(), UeventAction.ADD);
            if (r.bound()) {
                uevents.raise(r.device(), UeventAction.BIND);
            }
        }
    }

    /**
     * The events of a hot unplug, children first (ib_unregister_device's class devices, then
     * the function's unbind and removal, then its slot's root port, which goes with the card
     * here): raised while the directories still exist, so the rules can read them.
     */
    public synchronized void announceRemoval(String hca) {
        List<Registered> devices = new ArrayList<>(registered.getOrDefault(hca, List.of()));
        java.util.Collections.reverse(devices);
        for (Registered r : devices) {
            if (r.bound()) {
                uevents.raise(r.device(), UeventAction.UNBIND);
            }
            uevents.raise(r.device(), UeventAction.REMOVE);
        }
    }

    /** Paths below the tree's root (e.g. "dev/char/231:0") of the links {@code hca} has outside /sys/devices and /sys/class. */
    public synchronized List<String> outsideLinks(String hca) {
        return List.copyOf(outsideLinks.getOrDefault(hca, List.of()));
    }

    /** Takes the HCA's directories and links out of the tree (after its removal events). */
    public synchronized void remove(LocalHca hca) {
        for (String path : outsideLinks.getOrDefault(hca.name(), List.of())) {
            int slash = path.lastIndexOf('/');
            SysDir dir = root;
            for (String part : path.substring(0, slash).split("/")) {
                dir = dir.dir(part);
            }
            dir.remove(path.substring(slash + 1));
        }
        SysDir classes = root.dir("class");
        classes.dir("infiniband").remove(hca.name());
        for (int p = 1; p <= hca.node().portCount(); p++) {
            classes.dir("infiniband_mad").remove("umad" + hca.umadIndex(p));
            classes.dir("infiniband_mad").remove("issm" + hca.umadIndex(p));
        }
        classes.dir("infiniband_verbs").remove("uverbs" + hca.index());
        root.dir("devices").dir(PCI_ROOT).remove(rootPort(hca.pciSlot()));
        registered.remove(hca.name());
        outsideLinks.remove(hca.name());
    }

    /** The function's devpath, e.g. "/devices/pci0000:00/0000:00:10.0/0000:10:00.0". */
    private static String pciDevpath(LocalHca hca) {
        return "/devices/" + functionPath(hca);
    }

    /** Below /sys/devices: the root port, then the HCA's function on the bus behind it. */
    public static String functionPath(LocalHca hca) {
        return PCI_ROOT + "/" + rootPort(hca.pciSlot()) + "/" + hca.pciSlot();
    }

    /**
     * The PCIe root port an add-in HCA sits behind, as on a real server: function
     * "0000:BB:00.0" hangs from port "0000:00:BB.0", whose secondary bus is BB.
     */
    public static String rootPort(String pciSlot) {
        if (!pciSlot.matches("0000:\\p{XDigit}{2}:00\\.0")) {
            throw new IllegalArgumentException("an HCA's slot is 0000:BB:00.0: " + pciSlot);
        }
        return "0000:00:" + pciSlot.substring(5, 7) + ".0";
    }

    /**
     * device_rename of an infiniband class device (ib_device_rename): its directory under the PCI
     * function and its /sys/class/infiniband link move to {@code newName}, the name everything
     * else reads changes, and a "move" uevent with DEVPATH_OLD is raised (kobject_rename).
     * Returns 0, or EEXIST when a device of that name exists, as the kernel does.
     */
    public synchronized int rename(LocalHca hca, String newName) {
        String old = hca.name();
        if (old.equals(newName)) {
            return 0;
        }
        SysDir classDir = root.dir("class").dir("infiniband");
        SysDir parent = root.dir("devices").dir(PCI_ROOT).dir(rootPort(hca.pciSlot())).dir(hca.pciSlot())
                .dir("infiniband");
        if (classDir.names().contains(newName) || !parent.rename(old, newName)) {
            return 17; // EEXIST
        }
        hca.rename(newName);
        classDir.remove(old);
        classDir.link(newName, devicePath(hca) + "/infiniband/" + newName);
        Kobject moved = new Kobject(pciDevpath(hca) + "/infiniband/" + newName, "infiniband",
                () -> Map.of("NAME", hca.name()));
        UeventFile.add(parent.subdir(newName).orElseThrow(), moved, uevents);
        uevents.raise(moved, UeventAction.MOVE, Map.of("DEVPATH_OLD", pciDevpath(hca) + "/infiniband/" + old));
        return 0;
    }

    /** A device directory's uevent file and subsystem link; registered for announce(). */
    private void device(SysDir dir, Kobject device, String subsystemLink, boolean bound) {
        UeventFile.add(dir, device, uevents);
        dir.link("subsystem", subsystemLink);
        registered.computeIfAbsent(adding, k -> new ArrayList<>()).add(new Registered(device, bound));
    }

    public synchronized void build(List<LocalHca> hcas) {
        SysDir classes = root.dir("class");
        classes.dir("infiniband");
        classes.dir("infiniband_mad").attribute("abi_version", () -> SysfsFormat.line(UMAD_ABI_VERSION));
        classes.dir("infiniband_verbs").attribute("abi_version", () -> SysfsFormat.line(VERBS_ABI_VERSION));
        for (LocalHca hca : hcas) {
            add(hca);
        }
    }

    /** MISC_MAJOR. */
    public static final int MISC_MAJOR = 10;

    /**
     * A misc class device (misc_register, e.g. ucma's rdma_cm): /sys/devices/virtual/misc/NAME with
     * dev, the driver's attributes and a uevent (MAJOR, MINOR, DEVNAME, DEVMODE), linked from
     * /sys/class/misc and /sys/dev/char.
     */
    public synchronized void miscDevice(String name, int minor, String devname, int mode,
                                        Map<String, java.util.function.Supplier<String>> attributes) {
        adding = name;
        SysDir dir = root.dir("devices").dir("virtual").dir("misc").dir(name);
        dir.attribute("dev", () -> MISC_MAJOR + ":" + minor + "\n");
        attributes.forEach(dir::attribute);
        Map<String, String> vars = new LinkedHashMap<>();
        vars.put("MAJOR", Integer.toString(MISC_MAJOR));
        vars.put("MINOR", Integer.toString(minor));
        vars.put("DEVNAME", devname);
        vars.put("DEVMODE", String.format("%04o", mode));
        device(dir, new Kobject("/devices/virtual/misc/" + name, "misc", () -> vars), "../../../../class/misc", false);
        PowerFiles.unsupported(dir);
        root.dir("class").dir("misc").link(name, "../../devices/virtual/misc/" + name);
        root.dir("dev").dir("char").link(MISC_MAJOR + ":" + minor, "../../devices/virtual/misc/" + name);
        adding = null;
    }

    /** The device path relative to /sys/class/X/ entries. */
    private static String devicePath(LocalHca hca) {
        return "../../devices/" + functionPath(hca);
    }

    /** Lays out one HCA (at start, or hot-plugged); its events come with {@link #announce(String)}. */
    public synchronized void add(LocalHca hca) {
        adding = hca.name();
        SysDir port = root.dir("devices").dir(PCI_ROOT).dir(rootPort(hca.pciSlot()));
        rootPortDevice(port, hca);
        SysDir pci = port.dir(hca.pciSlot());
        pciDevice(pci, hca);
        SysDir ib = pci.dir("infiniband").dir(hca.name());
        ibDevice(ib, hca);
        root.dir("class").dir("infiniband").link(hca.name(), devicePath(hca) + "/infiniband/" + hca.name());
        SysDir mad = pci.dir("infiniband_mad");
        for (int p = 1; p <= hca.node().portCount(); p++) {
            int umad = hca.umadIndex(p);
            charDevice(mad.dir("umad" + umad), hca, p, "umad" + umad, umad);
            charDevice(mad.dir("issm" + umad), hca, p, "issm" + umad, ISSM_MINOR_BASE + umad);
            devChar(UMAD_MAJOR, umad, hca, "infiniband_mad/umad" + umad);
            devChar(UMAD_MAJOR, ISSM_MINOR_BASE + umad, hca, "infiniband_mad/issm" + umad);
            SysDir madClass = root.dir("class").dir("infiniband_mad");
            madClass.link("umad" + umad, devicePath(hca) + "/infiniband_mad/umad" + umad);
            madClass.link("issm" + umad, devicePath(hca) + "/infiniband_mad/issm" + umad);
        }
        String uverbs = "uverbs" + hca.index();
        verbsDevice(pci.dir("infiniband_verbs").dir(uverbs), hca, uverbs);
        devChar(UverbsDevice.MAJOR, UverbsDevice.BASE_MINOR + hca.index(), hca, "infiniband_verbs/" + uverbs);
        root.dir("class").dir("infiniband_verbs").link(uverbs, devicePath(hca) + "/infiniband_verbs/" + uverbs);
    }

    /**
     * DEVICE/net/NAME: a network interface whose parent is the HCA's PCI function, as IPoIB's
     * ibN is (SET_NETDEV_DEV to the HCA's parent). The interface's own directory lives in the
     * network namespace's sysfs (devices/virtual/net), which this tree cannot hold: a link to it.
     */
    public synchronized void addNetdev(LocalHca hca, String name) {
        SysDir pci = root.dir("devices").dir(PCI_ROOT).dir(rootPort(hca.pciSlot())).dir(hca.pciSlot());
        pci.dir("net").link(name, "../../../../virtual/net/" + name);
    }

    /** /sys/dev/char/MAJOR:MINOR, the link udevadm and libudev resolve a device number by. */
    private void devChar(int major, int minor, LocalHca hca, String under) {
        root.dir("dev").dir("char").link(major + ":" + minor, "../../devices/" + functionPath(hca) + "/" + under);
        outsideLinks.computeIfAbsent(adding, k -> new ArrayList<>()).add("dev/char/" + major + ":" + minor);
    }

    /**
     * The verbs provider profile: rdma-core's ipathverbs binds QLogic 0x1077:0x7322 and does its
     * whole data path with write(), so every parent carries these ids, whatever NodeInfo's
     * VendorID/DeviceID (the topology's vendid=/devid=) say at the MAD level.
     */
    private static final int PCI_VENDOR_QLOGIC = 0x1077;
    private static final int PCI_DEVICE_IBA7322 = 0x7322;

    /** The PCI function and, when a driver binds its ids, /sys/bus/pci/drivers/DRIVER. */
    private void pciDevice(SysDir pci, LocalHca hca) {
        Node node = hca.node();
        int vendor = PCI_VENDOR_QLOGIC;
        int device = PCI_DEVICE_IBA7322;
        Optional<String> driver = PciDriver.of(vendor, device);
        PciFunctionFiles.add(pci, vendor, device, node.revision(), PciFunctionFiles.PCI_CLASS_INFINIBAND);
        Kobject function = new Kobject(pciDevpath(hca), "pci", () -> PciFunctionFiles.ueventVariables(vendor, device,
                PciFunctionFiles.PCI_CLASS_INFINIBAND, hca.pciSlot(), driver));
        device(pci, function, FROM_FUNCTION + "bus/pci", driver.isPresent());
        driver.ifPresent(name -> bind(pci, FROM_FUNCTION, hca.pciSlot(), "../../../../devices/" + functionPath(hca), name));
    }

    /** The root port: a PCI-to-PCI bridge bound to pcieport, its secondary bus the HCA's. */
    private void rootPortDevice(SysDir port, LocalHca hca) {
        String name = rootPort(hca.pciSlot());
        int bus = Integer.parseInt(hca.pciSlot().substring(5, 7), 16);
        PciFunctionFiles.add(port, ROOT_PORT_VENDOR, ROOT_PORT_DEVICE, 0x07, PciFunctionFiles.PCI_CLASS_ROOT_PORT);
        port.attribute("secondary_bus_number", () -> bus + "\n");
        port.attribute("subordinate_bus_number", () -> bus + "\n");
        Optional<String> driver = Optional.of(PCIEPORT);
        Kobject device = new Kobject("/devices/" + PCI_ROOT + "/" + name, "pci", () -> PciFunctionFiles.ueventVariables(
                ROOT_PORT_VENDOR, ROOT_PORT_DEVICE, PciFunctionFiles.PCI_CLASS_ROOT_PORT, name, driver));
        device(port, device, FROM_ROOT_PORT + "bus/pci", true);
        bind(port, FROM_ROOT_PORT, name, "../../../../devices/" + PCI_ROOT + "/" + name, PCIEPORT);
    }

    /** The driver link of a bound function and its entry in /sys/bus/pci/drivers/DRIVER. */
    private void bind(SysDir function, String toSys, String name, String fromDriverDir, String driver) {
        function.link("driver", toSys + "bus/pci/drivers/" + driver);
        root.dir("bus").dir("pci").dir("drivers").dir(driver).link(name, fromDriverDir);
        outsideLinks.computeIfAbsent(adding, k -> new ArrayList<>()).add("bus/pci/drivers/" + driver + "/" + name);
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
        dir.link("device", "../../../" + hca.pciSlot());
        // ib_device_uevent: NAME only
        device(dir, new Kobject(pciDevpath(hca) + "/infiniband/" + hca.name(), "infiniband",
                () -> Map.of("NAME", hca.name())), FROM_CLASS_DEVICE + "class/infiniband", false);
        PowerFiles.unsupported(dir);
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
        if (cm != null) {
            // cm.c's ib_port_register_client_groups: one directory per counter group
            for (CmCounters.Group group : CmCounters.Group.values()) {
                SysDir g = dir.dir(group.sysfsName());
                for (String message : CmCounters.MESSAGES) {
                    g.attribute(message, () -> SysfsFormat.line(cm.counter(port, group, message)));
                }
            }
        }
    }

    /** uverbs_main.c's device: ibdev and abi_version beside the char device's dev and uevent. */
    private void verbsDevice(SysDir dir, LocalHca hca, String name) {
        int minor = UverbsDevice.BASE_MINOR + hca.index();
        dir.attribute("ibdev", () -> SysfsFormat.line(hca.name()));
        dir.attribute("abi_version", () -> SysfsFormat.line(provider.abiVersion()));
        dir.attribute("dev", () -> UverbsDevice.MAJOR + ":" + minor + "\n");
        dir.link("device", "../../../" + hca.pciSlot());
        device(dir, new Kobject(pciDevpath(hca) + "/infiniband_verbs/" + name, "infiniband_verbs",
                () -> charDeviceVariables(UverbsDevice.MAJOR, minor, name, UVERBS_DEVMODE)),
                FROM_CLASS_DEVICE + "class/infiniband_verbs", false);
        PowerFiles.unsupported(dir);
    }

    private void charDevice(SysDir dir, LocalHca hca, int port, String name, int minor) {
        dir.attribute("ibdev", () -> SysfsFormat.line(hca.name()));
        dir.attribute("port", () -> SysfsFormat.line(port));
        dir.attribute("dev", () -> UMAD_MAJOR + ":" + minor + "\n");
        dir.link("device", "../../../" + hca.pciSlot());
        device(dir, new Kobject(pciDevpath(hca) + "/infiniband_mad/" + name, "infiniband_mad",
                () -> charDeviceVariables(UMAD_MAJOR, minor, name, null)), FROM_CLASS_DEVICE + "class/infiniband_mad", false);
        PowerFiles.unsupported(dir);
    }

    /** dev_uevent for a device with a dev_t: MAJOR, MINOR, DEVNAME from the class's devnode, DEVMODE if it sets one. */
    private static Map<String, String> charDeviceVariables(int major, int minor, String name, String mode) {
        Map<String, String> vars = new LinkedHashMap<>();
        vars.put("MAJOR", Integer.toString(major));
        vars.put("MINOR", Integer.toString(minor));
        vars.put("DEVNAME", "infiniband/" + name);
        if (mode != null) {
            vars.put("DEVMODE", mode);
        }
        return vars;
    }
}
