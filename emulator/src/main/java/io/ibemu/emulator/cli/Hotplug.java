package io.ibemu.emulator.cli;

import io.ibemu.devfs.DeviceDirectory;
import io.ibemu.devfs.ns.MountNamespace;
import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.cm.Cm;
import io.ibemu.emulator.control.ControlException;
import io.ibemu.emulator.device.HcaIdentity;
import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fault.Faults;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.hca.DataLink;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.issm.IssmDevice;
import io.ibemu.emulator.ipoib.Ipoib;
import io.ibemu.emulator.rdmacm.RdmaCm;
import io.ibemu.emulator.sysfs.InfinibandSysfs;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.emulator.umad.UmadDevice;
import io.ibemu.emulator.uverbs.KernelAbi;
import io.ibemu.emulator.uverbs.ProviderProfile;
import io.ibemu.emulator.uverbs.UverbsDevice;
import io.ibemu.udev.UdevWorker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * The local HCAs while the daemon runs, and the one owner of that list: what start-up plugged,
 * then `ctl hca add NODE` (a card appears: device nodes, sysfs, add events, the rules run) and
 * `ctl hca remove NAME` (ib_unregister_device: umad files lose their agents, verbs contexts are
 * disassociated, remove events while sysfs still shows the devices, then everything goes).
 * One request at a time; nothing here holds the fabric lock while it waits for the rules.
 */
final class Hotplug {

    static final Path SYS = Path.of("/sys");
    private static final Path DEV = Path.of("/dev/infiniband");
    /** How long `ctl hca add/remove` waits for the rules of its events. */
    private static final Duration SETTLE = Duration.ofSeconds(45);

    /** One local HCA and the devices that serve it. */
    record Plugged(LocalHca hca, List<UmadDevice> umads, UverbsDevice uverbs) {
    }

    /** What the daemon built once, which plugging uses. */
    record Machine(Fabric fabric, MadLayer layer, DataLink link, DeviceDirectory devices, InfinibandSysfs sysfs,
                   Path sysTree, Map<String, Map<String, String>> identities, KernelAbi kernelAbi, ProviderProfile provider,
                   Faults faults, Cm cm, RdmaCm cma) {
    }

    private final Machine m;
    private final Set<Node> locals;
    private final Supplier<UdevWorker> udev;
    /** With --ipoib, the interfaces a plugged HCA's ports get (ipoib's add_one/remove_one); else null. */
    private final Supplier<Ipoib> ipoib;
    private final List<Plugged> plugged = new CopyOnWriteArrayList<>();
    /** Removed HCAs' verbs devices, kept while files of theirs are open (the kernel's uverbs_dev refcount). */
    private final List<UverbsDevice> unplugged = new CopyOnWriteArrayList<>();

    Hotplug(Machine machine, Set<Node> locals, Supplier<UdevWorker> udev, Supplier<Ipoib> ipoib) {
        this.m = machine;
        this.locals = locals;
        this.udev = udev;
        this.ipoib = ipoib;
    }

    /** cm_add_one: the IB CM's agent on {@code hca}'s ports, for an HCA at start-up and one plugged in. */
    static void addCmDevice(Cm cm, LocalHca hca) throws IOException {
        try {
            cm.addDevice(hca);
        } catch (io.ibemu.kernel.Errno e) {
            throw new IOException("ib_cm: cannot register the CM agent on " + hca.name() + ": errno " + e.code());
        }
    }

    /** An HCA start-up made (its nodes and sysfs already shown). */
    void plugged(Plugged p) {
        plugged.add(p);
        locals.add(p.hca().node());
    }

    List<Plugged> all() {
        return List.copyOf(plugged);
    }

    /** The removed HCAs' verbs devices that still have open files; those without are forgotten. */
    List<UverbsDevice> unpluggedStillOpen() {
        unplugged.removeIf(u -> !u.hasOpenFiles());
        return List.copyOf(unplugged);
    }

    /** `ctl hca add|remove ...`. */
    synchronized List<String> command(List<String> args) throws ControlException {
        if (args.size() != 2 || !(args.get(0).equals("add") || args.get(0).equals("remove"))) {
            throw new ControlException("usage: hca add NODE | hca remove NAME");
        }
        try {
            return args.get(0).equals("add") ? add(args.get(1)) : remove(args.get(1));
        } catch (IOException e) {
            throw new ControlException("hca " + args.get(0) + " " + args.get(1) + ": " + e.getMessage());
        }
    }

    private List<String> add(String ref) throws ControlException, IOException {
        Node node = m.fabric().node(ref).orElseThrow(() -> new ControlException("no node '" + ref + "' in the fabric"));
        if (node.type() != NodeType.CA) {
            throw new ControlException("'" + ref + "' is a " + node.type() + "; only an HCA (CA) can be plugged in");
        }
        if (plugged.stream().anyMatch(p -> p.hca().node() == node)) {
            throw new ControlException("'" + ref + "' is a local HCA already");
        }
        int index = 0;
        while (indexUsed(index)) {
            index++;
        }
        HcaIdentity identity = identity(node, index, m.fabric(), m.identities());
        for (Plugged p : plugged) {
            if (p.hca().name().equals(identity.name())) {
                throw new ControlException("device name '" + identity.name() + "' is taken by a local HCA");
            }
        }
        LocalHca hca = new LocalHca(index, node, identity, freeSlot(), firstFreeMinor(node.portCount()));
        Plugged p = devices(hca);
        addCmDevice(m.cm(), hca);
        m.sysfs().add(hca);
        showSysfs(hca);
        plugged(p);
        Ipoib interfaces = ipoib.get();
        if (interfaces != null) {
            for (String name : interfaces.addAdapter(new Ipoib.Adapter(hca, p.uverbs().hca()))) {
                m.sysfs().addNetdev(hca, name);
            }
        }
        m.cma().addDevice(p.uverbs().hca());
        m.sysfs().announce(hca.name());
        settle();
        return List.of(hca.name() + " uverbs" + hca.index() + " umad" + hca.umadIndex(1) + " " + hca.pciSlot());
    }

    private List<String> remove(String name) throws ControlException, IOException {
        Plugged p = plugged.stream().filter(x -> x.hca().name().equals(name)).findFirst()
                .orElseThrow(() -> new ControlException("no local HCA named '" + name + "'"));
        LocalHca hca = p.hca();
        // ib_unregister_device: the clients let go of the device first, the last registered first
        // (cma_remove_one, ipoib_remove_one, ib_umad_kill_port, uverbs disassociate; ib_cm's at the end)
        m.cma().removeDevice(hca);
        Ipoib interfaces = ipoib.get();
        if (interfaces != null) {
            interfaces.removeAdapter(hca);
        }
        p.umads().forEach(UmadDevice::kill);
        p.uverbs().disassociate();
        m.cm().removeDevice(hca);
        m.sysfs().announceRemoval(hca.name());
        settle();
        List<String> links = m.sysfs().outsideLinks(hca.name());
        for (int port = 1; port <= hca.node().portCount(); port++) {
            m.devices().withdraw("umad" + hca.umadIndex(port));
            m.devices().withdraw("issm" + hca.umadIndex(port));
        }
        m.devices().withdraw("uverbs" + hca.index());
        m.sysfs().remove(hca);
        MountNamespace.ungraft(SYS.resolve("devices").resolve(InfinibandSysfs.PCI_ROOT).resolve(InfinibandSysfs.rootPort(hca.pciSlot())));
        for (String link : links) {
            // links made one by one beside the host's (pcieport, dev/char); those in a bound directory of ours went with the tree
            if (Files.isSymbolicLink(SYS.resolve(link))) {
                MountNamespace.unlink(SYS.resolve(link));
            }
        }
        p.uverbs().hca().close();
        plugged.remove(p);
        if (p.uverbs().hasOpenFiles()) {
            unplugged.add(p.uverbs());
        }
        locals.remove(hca.node());
        return List.of(hca.name() + " removed");
    }

    /** The device files of one HCA, as the daemon makes them at start, shown in /dev/infiniband. */
    private Plugged devices(LocalHca hca) throws IOException {
        List<UmadDevice> umads = new ArrayList<>();
        for (int port = 1; port <= hca.node().portCount(); port++) {
            int index = hca.umadIndex(port);
            UmadDevice umad = new UmadDevice(m.layer(), hca.port(port), m.faults());
            m.devices().addCharDevice("umad" + index, InfinibandSysfs.UMAD_MAJOR, index, 0600, umad, false);
            Daemon.addIssm(m.devices(), index, new IssmDevice(m.fabric(), hca.port(port)));
            m.devices().show("umad" + index);
            m.devices().show("issm" + index);
            umads.add(umad);
        }
        UverbsDevice uverbs = new UverbsDevice(m.faults().attach(new Hca(hca, m.fabric(), m.link())), hca.index(), m.kernelAbi(),
                m.provider(), m.faults());
        m.devices().addCharDevice("uverbs" + hca.index(), UverbsDevice.MAJOR, uverbs.minor(), 0666, uverbs);
        m.devices().show("uverbs" + hca.index());
        return new Plugged(hca, umads, uverbs);
    }

    /** The HCA's root port under /sys/devices/pci0000:00, and its links where the host's directories need them. */
    private void showSysfs(LocalHca hca) throws IOException {
        String port = InfinibandSysfs.rootPort(hca.pciSlot());
        MountNamespace.graft(m.sysTree().resolve("devices").resolve(InfinibandSysfs.PCI_ROOT).resolve(port),
                SYS.resolve("devices").resolve(InfinibandSysfs.PCI_ROOT).resolve(port));
        for (String link : m.sysfs().outsideLinks(hca.name())) {
            Path shown = SYS.resolve(link);
            if (!Files.exists(shown, LinkOption.NOFOLLOW_LINKS)) { // not already there through a bound directory of ours
                MountNamespace.symlink(shown, Files.readSymbolicLink(m.sysTree().resolve(link)).toString());
            }
        }
    }

    /** Returns once the rules ran for every event so far (at once without --udev); `ctl settle` too. */
    void settle() throws ControlException {
        UdevWorker worker = udev.get();
        try {
            if (worker != null && !worker.settle(SETTLE)) {
                throw new ControlException("the udev rules are still running after " + SETTLE.toSeconds() + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ControlException("interrupted");
        }
    }

    private boolean indexUsed(int index) {
        return plugged.stream().anyMatch(p -> p.hca().index() == index);
    }

    /** ib_umad_init_port takes the lowest free device numbers; here one run for the HCA's ports. */
    private int firstFreeMinor(int ports) {
        int first = 0;
        while (true) {
            int f = first;
            Optional<Plugged> clash = plugged.stream().filter(p -> f < p.hca().firstUmadMinor() + p.hca().node().portCount()
                    && p.hca().firstUmadMinor() < f + ports).findFirst();
            if (clash.isEmpty()) {
                return first;
            }
            first = clash.get().hca().firstUmadMinor() + clash.get().hca().node().portCount();
        }
    }

    /** The first bus from 0x10 free on the host and among ours, for the card and its root port. */
    private String freeSlot() {
        int bus = 0x10;
        while (busTaken(bus)) {
            bus++;
        }
        return pciSlot(bus);
    }

    private boolean busTaken(int bus) {
        String slot = pciSlot(bus);
        return plugged.stream().anyMatch(p -> p.hca().pciSlot().equals(slot)) || hostHas(bus);
    }

    /** The host's own root port or bus of that number (seen through sysfs, which shows ours too once plugged). */
    static boolean hostHas(int bus) {
        return Files.exists(SYS.resolve("devices").resolve(InfinibandSysfs.PCI_ROOT).resolve(InfinibandSysfs.rootPort(pciSlot(bus))))
                || Files.exists(SYS.resolve("class/pci_bus").resolve(String.format("0000:%02x", bus)));
    }

    /** The HCA's function on bus {@code bus}, behind root port 0000:00:{@code bus}.0. */
    static String pciSlot(int bus) {
        return String.format("0000:%02x:00.0", bus);
    }

    /** Device name and the rest: the defaults for {@code index}, then the identity file's section for the node. */
    static HcaIdentity identity(Node node, int index, Fabric fabric, Map<String, Map<String, String>> ids) {
        HcaIdentity identity = HcaIdentity.defaults(index);
        for (Map.Entry<String, Map<String, String>> section : ids.entrySet()) {
            Optional<Node> named = fabric.node(section.getKey());
            if (named.isPresent() && named.get() == node) {
                for (Map.Entry<String, String> kv : section.getValue().entrySet()) {
                    identity = identity.with(kv.getKey(), kv.getValue());
                }
            }
        }
        return identity;
    }
}
