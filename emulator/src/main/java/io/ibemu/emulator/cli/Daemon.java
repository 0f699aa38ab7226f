package io.ibemu.emulator.cli;

import io.ibemu.devfs.DeviceDirectory;
import io.ibemu.devfs.ns.MountNamespace;
import io.ibemu.devfs.supervise.Supervisor;
import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.cm.Cm;
import io.ibemu.emulator.cm.CmId;
import io.ibemu.emulator.control.Console;
import io.ibemu.emulator.control.ControlException;
import io.ibemu.emulator.control.ControlServer;
import io.ibemu.emulator.device.HcaIdentity;
import io.ibemu.emulator.device.IdentityFile;
import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.PhysPortState;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fabric.PresetSubnet;
import io.ibemu.emulator.issm.IssmDevice;
import io.ibemu.emulator.nldev.Nldev;
import io.ibemu.emulator.rdmacm.RdmaCm;
import io.ibemu.emulator.sysfs.InfinibandSysfs;
import io.ibemu.emulator.fault.FaultControl;
import io.ibemu.emulator.fault.FaultSyntaxException;
import io.ibemu.emulator.fault.Faults;
import io.ibemu.emulator.topology.DefaultFabric;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.emulator.topology.Topology;
import io.ibemu.emulator.topology.TopologyException;
import io.ibemu.emulator.topology.TopologyParser;
import io.ibemu.emulator.umad.UmadDevice;
import io.ibemu.emulator.uverbs.KernelAbi;
import io.ibemu.emulator.uverbs.ProviderProfile;
import io.ibemu.emulator.uverbs.UverbsDevice;
import io.ibemu.emulator.hca.DataLink;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.ipoib.Ipoib;
import io.ibemu.sysfstree.SysfsTree;
import io.ibemu.udev.Uevent;
import io.ibemu.udev.Uevents;
import io.ibemu.udev.RulesDirectories;
import io.ibemu.udev.UdevWorker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * One running emulator: the fabric, its MAD layer, the device files and the sysfs tree, and the
 * private view of /dev and /sys that shows them. Built in {@link #start}, torn down by
 * {@link #close} (SIGTERM); if the process dies instead, its mount namespace dies with it.
 */
final class Daemon implements AutoCloseable {
    private static final Path SYS_PCI_ROOT = Path.of("/sys/devices", InfinibandSysfs.PCI_ROOT);

    /**
     * {@code presetSubnet}: --sm preset; {@code udev}: apply the rules to every event; {@code rules}: these
     * directories' besides the system's, as /etc/udev/rules.d's (with {@code rulesOnly}: instead of them);
     * {@code faults}: the --faults file or null.
     */
    record Options(Path state, Path topology, List<String> locals, Path identity, boolean presetSubnet, boolean udev,
                   List<Path> rules, boolean rulesOnly, Path superviseStub, KernelAbi kernelAbi,
                   ProviderProfile provider, Ipoib.Config ipoib, Path faults) {
        Options(Path state, Path topology, List<String> locals, Path identity) {
            this(state, topology, locals, identity, false, false, List.of(), false, null, KernelAbi.newest(),
                    ProviderProfile.DEFAULT, null, null);
        }
    }

    /** How long start-up waits for the rules of the initial events (the launcher waits 60 s in all). */
    private static final java.time.Duration UDEV_SETTLE = java.time.Duration.ofSeconds(45);

    static final class StartFailure extends Exception {
        StartFailure(String message) {
            super(message);
        }
    }

    private final MadLayer layer;
    /** The IB Communication Manager (ib_cm): a CM agent on every local port, as the kernel loads it. */
    private final Cm cm;
    /** The instance's fault rules: every point consults this one table. */
    private final Faults faults = new Faults();
    /** The data path every local HCA's verbs model shares, and those models' devices. */
    private final DataLink link;
    /** The local HCAs, at start and hot-plugged. */
    private volatile Hotplug hotplug;
    private final DeviceDirectory devices;
    private final SysfsTree sysfs;
    /** Every uevent of the emulated devices: the initial adds, then those written to uevent files. */
    private final Uevents uevents = new Uevents();
    private volatile ControlServer control;
    private volatile Supervisor supervisor;
    /** With --udev: runs the rules for each uevent. */
    private volatile UdevWorker udev;
    /** With --ipoib: the ibN interfaces of the daemon's network namespace. */
    private volatile Ipoib ipoib;
    private volatile boolean closed;
    /** /dev/infiniband/rdma_cm, where the backend can offer it: the RDMA connection manager's ids, all files'. */
    private volatile UcmaMisc ucma;
    /** The RDMA CM (cma.c) behind it, over the IB CM. */
    private volatile RdmaCm cma;

    private Daemon(MadLayer layer, DataLink link, DeviceDirectory devices, SysfsTree sysfs) {
        this.layer = layer;
        this.cm = new Cm(layer);
        this.link = link;
        this.devices = devices;
        this.sysfs = sysfs;
    }

    static Daemon start(Options o) throws StartFailure {
        List<String> faultRules = readFaults(o.faults());
        Topology topology = readTopology(o.topology());
        Fabric fabric = Fabric.of(topology);
        List<LocalHca> hcas = localHcas(fabric, o.locals(), readIdentities(o.identity()));
        if (o.presetSubnet()) {
            presetSubnet(fabric, hcas);
        }
        MadLayer layer = new MadLayer(fabric);
        DeviceDirectory devices = new DeviceDirectory("ibemu");
        SysfsTree sysfs = new SysfsTree("ibemu-sysfs");
        Daemon daemon = new Daemon(layer, new DataLink(fabric), devices, sysfs);
        daemon.faults.attach(fabric);
        try {
            MountNamespace.requirePrivate();
            Path work = o.state().resolve("mnt");
            Files.createDirectories(work);
            MountNamespace.workDirectory(work);
            Path devDir = Files.createDirectories(work.resolve("dev"));
            Path sysDir = Files.createDirectories(work.resolve("sys"));
            Map<LocalHca, List<UmadDevice>> umads = new java.util.LinkedHashMap<>();
            for (LocalHca hca : hcas) {
                for (int p = 1; p <= hca.node().portCount(); p++) {
                    int index = hca.umadIndex(p);
                    // umad: a real node (udevadm and libudev stat it), opened through the supervisor, used over FUSE
                    UmadDevice umad = new UmadDevice(layer, hca.port(p), daemon.faults);
                    devices.addCharDevice("umad" + index, InfinibandSysfs.UMAD_MAJOR, index, 0600, umad, false);
                    umads.computeIfAbsent(hca, k -> new ArrayList<>()).add(umad);
                    // issm stays a FUSE file: OpenSM opens it read-only, which the supervisor never sees
                    addIssm(devices, index, new IssmDevice(fabric, hca.port(p)));
                }
            }
            List<Hotplug.Plugged> initial = new ArrayList<>();
            for (LocalHca hca : hcas) {
                UverbsDevice uverbs = new UverbsDevice(daemon.faults.attach(new Hca(hca, fabric, daemon.link)), hca.index(), o.kernelAbi(),
                        o.provider(), daemon.faults);
                devices.addCharDevice("uverbs" + hca.index(), UverbsDevice.MAJOR, uverbs.minor(), 0666, uverbs);
                initial.add(new Hotplug.Plugged(hca, umads.getOrDefault(hca, List.of()), uverbs));
            }
            for (LocalHca hca : hcas) {
                Hotplug.addCmDevice(daemon.cm, hca);
            }
            // ucma's misc device, one for the machine: the RDMA CM over every local HCA
            daemon.cma = new RdmaCm(fabric, layer, daemon.cm, () -> daemon.hotplug == null ? List.of()
                    : daemon.hotplug.all().stream().map(p -> p.uverbs().hca()).toList(), () -> daemon.ipoib);
            UcmaMisc ucma = UcmaMisc.register(devices, daemon.cma, daemon.faults);
            daemon.ucma = ucma;
            devices.mount(devDir);
            InfinibandSysfs infiniband = new InfinibandSysfs(fabric, sysfs.root(), daemon.uevents, o.provider(), daemon.cm);
            infiniband.build(hcas);
            ucma.addSysfs(infiniband);
            Set<Node> locals = java.util.concurrent.ConcurrentHashMap.newKeySet();
            daemon.hotplug = new Hotplug(new Hotplug.Machine(fabric, layer, daemon.link, devices, infiniband, sysDir,
                    readIdentities(o.identity()), o.kernelAbi(), o.provider(), daemon.faults, daemon.cm, daemon.cma), locals,
                    () -> daemon.udev, () -> daemon.ipoib);
            initial.forEach(daemon.hotplug::plugged);
            if (o.ipoib() != null) {
                daemon.ipoib = Ipoib.start(o.ipoib(), layer, daemon.cm, initial.stream()
                        .map(p -> new Ipoib.Adapter(p.hca(), p.uverbs().hca())).toList());
                // /sys/class/net as this network namespace sees it (the inherited sysfs shows the host's)
                Path netSys = Files.createDirectories(work.resolve("netsys"));
                MountNamespace.sysfs(netSys);
                for (String dir : new String[] {"class/net", "devices/virtual/net"}) {
                    MountNamespace.graft(netSys.resolve(dir), Path.of("/sys", dir));
                }
                for (LocalHca hca : hcas) {
                    for (int p = 1; p <= hca.node().portCount(); p++) {
                        daemon.ipoib.netdev(hca, p).ifPresent(l -> infiniband.addNetdev(hca, l.name()));
                    }
                }
            }
            sysfs.mount(sysDir);
            if (daemon.ipoib != null) {
                daemon.ipoib.publish(ipoibSysfs(sysfs, sysDir, work.resolve("netsys")));
            }
            // a nodev tmpfs with the FUSE files bound in and the supervised char devices as real nodes
            devices.present(Path.of("/dev/infiniband"));
            for (String cls : new String[] {"infiniband", "infiniband_mad", "infiniband_verbs"}) {
                MountNamespace.graft(sysDir.resolve("class").resolve(cls), Path.of("/sys/class", cls));
            }
            ucma.graft(sysDir);
            for (LocalHca hca : hcas) {
                String port = InfinibandSysfs.rootPort(hca.pciSlot());
                MountNamespace.graft(sysDir.resolve("devices").resolve(InfinibandSysfs.PCI_ROOT).resolve(port),
                        SYS_PCI_ROOT.resolve(port));
            }
            for (String dir : new String[] {"bus/pci/drivers", "dev/char"}) {
                graftEntries(sysDir.resolve(dir), Path.of("/sys").resolve(dir));
            }
            // what the InfiniBand tools write by default stays with the instance (before /run/udev: /run is layered)
            ToolState.makePrivate();
            // what udevadm writes (its database, /dev/char links) stays here even where the host has none yet
            MountNamespace.privateCopy(Path.of("/run/udev"));
            MountNamespace.privateCopy(Path.of("/dev/char"));
            if (o.udev()) {
                daemon.udev = udevWorker(o, devices);
                daemon.udev.listen(daemon.uevents);
            }
            daemon.armFaults(o.faults(), faultRules);
            infiniband.announce();
            daemon.control = ControlServer.start(new Console(fabric, locals, daemon::objectCounts,
                    () -> daemon.uevents.recent().stream().map(Uevent::line).toList(),
                    Map.of("settle", daemon::settle, "hca", daemon.hotplug::command, "ipoib", daemon::ipoib,
                            "cm", daemon::cmIds, "fault", daemon::fault)), o.state());
            // RDMA netlink (nldev) answered for supervised programs, as the kernel's RDMA core would
            Nldev nldev = new Nldev(() -> daemon.hotplug.all().stream().map(Hotplug.Plugged::uverbs).toList(),
                    infiniband::rename,
                    (hca, port) -> daemon.ipoib == null ? java.util.Optional.empty()
                            : daemon.ipoib.netdev(hca, port).map(l -> new Nldev.Netdev(l.name(), l.ifindex())),
                    ucma.chardevs());
            daemon.supervisor = Supervisor.start(devices, o.state().resolve(Supervisor.SOCKET),
                    Map.of(Nldev.PROTOCOL, nldev));
            if (daemon.udev != null) {
                daemon.udev.start(); // after the supervisor: udevadm and RUN programs run under it
                if (!daemon.udev.settle(UDEV_SETTLE)) {
                    throw new IOException("the udev rules for the devices did not finish within "
                            + UDEV_SETTLE.toSeconds() + " s (see the log)");
                }
            }
            String pid = ProcessHandle.current().pid() + "\n";
            Files.writeString(o.state().resolve("ready"), pid);
            signalReady(pid);
            return daemon;
        } catch (IOException | RuntimeException e) {
            daemon.close();
            throw new StartFailure(e.getMessage() == null ? e.toString() : e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            daemon.close();
            throw new StartFailure("interrupted while the udev rules ran");
        }
    }

    /**
     * The IPoIB netdev directories: built in the tree under devices/virtual/net, each bound over
     * the TAP's real directory of the same name (so /sys/class/net/ibN, a link into it, shows
     * IPoIB's files), unbound before the interface goes.
     */
    private static Ipoib.Sysfs ipoibSysfs(SysfsTree sysfs, Path sysDir, Path netSys) {
        Path virtualNet = Path.of("devices", "virtual", "net");
        Path real = Path.of("/sys").resolve(virtualNet);
        return new Ipoib.Sysfs(sysfs.root().dir("devices").dir("virtual").dir("net"), netSys.resolve(virtualNet),
                InfinibandSysfs::functionPath, new Ipoib.NetdevDirectories() {
                    @Override
                    public void shown(String name) throws IOException {
                        MountNamespace.graft(sysDir.resolve(virtualNet).resolve(name), real.resolve(name));
                    }

                    @Override
                    public void hidden(String name) throws IOException {
                        MountNamespace.uncover(real.resolve(name));
                    }
                });
    }

    /** --sm preset: the subnet of the first cabled local port, configured before anything listens to it. */
    private static void presetSubnet(Fabric fabric, List<LocalHca> hcas) throws StartFailure {
        for (LocalHca hca : hcas) {
            for (Port p : hca.node().ports()) {
                if (p.physicalState() == PhysPortState.LINK_UP) {
                    try {
                        System.err.println("ibemu: " + PresetSubnet.configure(fabric, p).line());
                    } catch (IllegalStateException e) {
                        throw new StartFailure("--sm preset: " + e.getMessage());
                    }
                    return;
                }
            }
        }
        System.err.println("ibemu: --sm preset: no local port has a cable; the ports stay as after power-on");
    }


    /** The rules worker: --rules beside the system's, --rules-only instead; udevadm and RUN under the supervisor stub if given. */
    private static UdevWorker udevWorker(Options o, DeviceDirectory devices) throws IOException {
        Path work = o.state().resolve("udev");
        if (o.rulesOnly()) {
            RulesDirectories.only(o.rules(), work);
        } else if (!o.rules().isEmpty()) {
            RulesDirectories.added(o.rules(), work);
        }
        List<String> prefix = o.superviseStub() == null ? List.of()
                : List.of(o.superviseStub().toString(), "--socket", o.state().resolve(Supervisor.SOCKET).toString(), "--");
        return new UdevWorker(new UdevWorker.Options(prefix, work, (devname, mode, owner, group) -> {
            // issm is a FUSE file: udevadm sets modes on char nodes only, so its entry takes them
            String name = devname.startsWith(DEV_INFINIBAND) ? devname.substring(DEV_INFINIBAND.length()) : "";
            int[] now = devices.permissions(name);
            if (now == null) {
                return false;
            }
            devices.permissions(name, mode.orElse(now[0]), owner.orElse(now[1]), group.orElse(now[2]));
            return true;
        }));
    }

    private static final String DEV_INFINIBAND = "/dev/infiniband/";

    /**
     * Tells a launcher waiting on the pipe it passed as descriptor IBEMU_READY_FD (a FIFO) that
     * the devices are in place, so it blocks in read() instead of polling for the ready file.
     * The inherited descriptor stays open until exit: the launcher's EOF then means "gone".
     */
    private static void signalReady(String pid) {
        String fd = System.getenv("IBEMU_READY_FD");
        if (fd == null || !fd.matches("[0-9]{1,4}")) {
            return;
        }
        try {
            Files.writeString(Path.of("/proc/self/fd", fd), pid);
        } catch (IOException e) {
            // the ready file stays: a launcher that lost its pipe reads that
        }
    }

    /**
     * issm as a FUSE file (OpenSM opens it read-only, which the supervisor never sees), or under
     * CUSE as the real char device 231:64+N, which the kernel opens for anyone.
     */
    static void addIssm(DeviceDirectory devices, int index, IssmDevice issm) {
        if (devices.backend() == DeviceDirectory.Backend.CUSE) {
            devices.addCharDevice("issm" + index, InfinibandSysfs.UMAD_MAJOR, InfinibandSysfs.ISSM_MINOR_BASE + index,
                    0600, issm, false);
        } else {
            devices.add("issm" + index, issm, 0600);
        }
    }

    /** Shows each entry of the tree's {@code from} at {@code to}: directories bound, links made alike. */
    private static void graftEntries(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from)) {
            return;
        }
        List<Path> entries;
        try (Stream<Path> list = Files.list(from)) {
            entries = list.sorted().toList();
        }
        for (Path entry : entries) {
            Path target = to.resolve(entry.getFileName().toString());
            if (Files.isSymbolicLink(entry)) {
                MountNamespace.symlink(target, Files.readSymbolicLink(entry).toString());
            } else if (Files.isDirectory(target)) {
                graftEntries(entry, target); // a driver the host has too: add ours beside its devices
            } else {
                MountNamespace.graft(entry, target);
            }
        }
    }

    static void reportFailure(Path state, String message) {
        try {
            Files.createDirectories(state);
            Files.writeString(state.resolve("failed"), message + "\n");
        } catch (IOException ignored) {
            // The launcher falls back to the log when it cannot read the reason.
        }
    }

    private static Topology readTopology(Path file) throws StartFailure {
        try {
            return file == null ? DefaultFabric.topology() : TopologyParser.parse(file);
        } catch (TopologyException e) {
            throw new StartFailure(e.getMessage());
        } catch (IOException e) {
            throw new StartFailure("cannot read topology " + file + ": " + e.getMessage());
        }
    }

    private static Map<String, Map<String, String>> readIdentities(Path file) throws StartFailure {
        if (file == null) {
            return Map.of();
        }
        try {
            return IdentityFile.read(file);
        } catch (IOException e) {
            throw new StartFailure(e.getMessage());
        }
    }

    /** --local nodes in the order given (default: the first CA), each with its identity and slot. */
    private static List<LocalHca> localHcas(Fabric fabric, List<String> refs, Map<String, Map<String, String>> ids)
            throws StartFailure {
        List<Node> nodes = new ArrayList<>();
        if (refs.isEmpty()) {
            fabric.nodes().stream().filter(n -> n.type() == NodeType.CA).findFirst().ifPresent(nodes::add);
            if (nodes.isEmpty()) {
                throw new StartFailure("the topology has no HCA (Ca/Hca node) to be the local host");
            }
        }
        for (String ref : refs) {
            Node node = fabric.node(ref).orElseThrow(() -> new StartFailure("--local " + ref
                    + ": no such node in the topology (give the node's id as the file writes it, e.g. \"H-0002c903000e0b72\", or its 0x GUID)"));
            if (node.type() != NodeType.CA) {
                throw new StartFailure("--local " + ref + ": that node is a " + node.type()
                        + "; only an HCA (CA) can be this host");
            }
            if (nodes.contains(node)) {
                throw new StartFailure("--local " + ref + " is given twice");
            }
            nodes.add(node);
        }
        for (String ref : ids.keySet()) {
            if (fabric.node(ref).isEmpty()) {
                throw new StartFailure("identity file: section [" + ref + "] names no node of the topology");
            }
        }
        List<LocalHca> hcas = new ArrayList<>();
        int minor = 0;
        int slot = 0x10;
        for (int i = 0; i < nodes.size(); i++) {
            Node node = nodes.get(i);
            HcaIdentity identity = Hotplug.identity(node, i, fabric, ids);
            while (Hotplug.hostHas(slot)) {
                slot++;
            }
            for (LocalHca other : hcas) {
                if (other.name().equals(identity.name())) {
                    throw new StartFailure("identity file: device name '" + identity.name()
                            + "' is given to two local HCAs; give each its own name");
                }
            }
            hcas.add(new LocalHca(i, node, identity, Hotplug.pciSlot(slot++), minor));
            minor += node.portCount();
        }
        return hcas;
    }

    /** --faults FILE: its rules, each already read once, so that a malformed one stops the start. */
    private static List<String> readFaults(Path file) throws StartFailure {
        try {
            return file == null ? List.of() : FaultControl.readFile(file);
        } catch (FaultSyntaxException e) {
            throw new StartFailure("--faults: " + e.getMessage());
        }
    }

    /** Arms the --faults rules once the devices have offered their command names. */
    private void armFaults(Path file, List<String> rules) throws IOException {
        for (String rule : rules) {
            try {
                faults.add(rule);
            } catch (FaultSyntaxException e) {
                throw new IOException("--faults " + file + ": " + e.getMessage());
            }
        }
    }

    /** `ctl fault add|list|clear`. */
    private List<String> fault(List<String> args) throws ControlException {
        try {
            return new FaultControl(faults).run(args);
        } catch (FaultSyntaxException e) {
            throw new ControlException(e.getMessage());
        }
    }

    /** `ctl settle`: returns once the rules ran for every event so far (nothing to wait for without --udev). */
    private List<String> settle(List<String> args) throws ControlException {
        if (!args.isEmpty()) {
            throw new ControlException("settle takes no arguments");
        }
        hotplug.settle();
        return List.of();
    }

    /** `ctl ipoib`: the interfaces and their neighbours, or a P_Key child added or removed. */
    private List<String> ipoib(List<String> args) throws ControlException {
        if (ipoib == null) {
            throw new ControlException("no IPoIB interfaces: the instance was started without --ipoib");
        }
        try {
            return ipoib.command(args);
        } catch (IOException e) {
            throw new ControlException(e.getMessage());
        }
    }

    /** `ctl cm`: each live CM id as {@code ibemu0/1 local 0x... remote 0x... ESTABLISHED service 0x...}. */
    private List<String> cmIds(List<String> args) throws ControlException {
        if (!args.isEmpty()) {
            throw new ControlException("usage: cm");
        }
        List<String> lines = new ArrayList<>();
        for (CmId id : cm.ids()) {
            lines.add(String.format("%s/%d local 0x%08x remote 0x%08x %s service 0x%016x", id.hca().local().name(),
                    id.port(), id.localId(), id.remoteId(), id.state(), id.serviceId()));
        }
        return lines;
    }

    /**
     * `ctl objects`: each local HCA's open uverbs files and verbs objects and its live CM ids
     * ({@code cm_id}), then removed HCAs' still open files.
     */
    private Map<String, Map<String, Integer>> objectCounts() {
        Map<String, Map<String, Integer>> counts = new java.util.LinkedHashMap<>();
        List<CmId> cmIds = cm.ids();
        for (Hotplug.Plugged p : hotplug.all()) {
            UverbsDevice uverbs = p.uverbs();
            Map<String, Integer> line = new java.util.LinkedHashMap<>(uverbs.objectCounts());
            line.put("cm_id", (int) cmIds.stream().filter(id -> id.hca().local() == p.hca()).count());
            counts.put(uverbs.hca().local().name(), line);
        }
        for (UverbsDevice uverbs : hotplug.unpluggedStillOpen()) {
            // files of a removed HCA stay open until their owners close them; their objects are gone
            counts.put(uverbs.hca().local().name() + " (removed)", uverbs.objectCounts());
        }
        ucma.countIds(counts); // set before the control socket that asks for this opens
        return counts;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (cma != null) {
            cma.close();
        }
        if (ipoib != null) {
            ipoib.close();
        }
        if (control != null) {
            control.close();
        }
        if (udev != null) {
            udev.close();
        }
        if (supervisor != null) {
            supervisor.close();
        }
        sysfs.close();
        devices.close();
        if (hotplug != null) {
            for (Hotplug.Plugged p : hotplug.all()) {
                p.uverbs().hca().close();
            }
        }
        cm.close();
        link.close();
        layer.close();
    }
}
