package io.ibemu.emulator.ipoib;

import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.cm.Cm;
import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.topology.IpoibAddress;
import io.ibemu.kernel.Errno;
import io.ibemu.sysfstree.SysDir;
import java.io.IOException;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * IP over InfiniBand in the daemon: one {@link IpoibInterface} per local HCA port, named ib0,
 * ib1, ... in port order (HCAs in order, then their ports), each given the topology's address
 * for its port or else the next address of the configured IPv4 network. Runs only in a network namespace of the daemon's own: it creates
 * interfaces and configures them with ip(8), which must never touch the host's.
 */
public final class Ipoib implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("ipoib");
    /** The default partition's P_Key (full member): ib0's. */
    static final int DEFAULT_PKEY = 0xFFFF;

    /** {@code network}: where the interfaces' addresses come from, in port order (first host first). */
    public record Config(Network network) {
    }

    /** An IPv4 network in CIDR notation, e.g. 169.254.77.0/24. */
    public record Network(int base, int prefix) {
        public static final String DEFAULT = "169.254.77.0/24";

        public static Network parse(String cidr) {
            String[] parts = cidr.split("/", -1);
            try {
                if (parts.length != 2) {
                    throw new IllegalArgumentException();
                }
                InetAddress a = InetAddress.getByName(parts[0]);
                int prefix = Integer.parseInt(parts[1]);
                if (!(a instanceof Inet4Address) || !parts[0].matches("[0-9.]+") || prefix < 1 || prefix > 30) {
                    throw new IllegalArgumentException();
                }
                byte[] b = a.getAddress();
                int base = (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | b[3] & 0xFF;
                return new Network(base & (int) (0xFFFFFFFFL << (32 - prefix)), prefix);
            } catch (IllegalArgumentException | UnknownHostException e) {
                throw new IllegalArgumentException("--ipoib-net " + cidr
                        + ": not an IPv4 network in CIDR notation with a prefix of 1 to 30 bits (e.g. "
                        + DEFAULT + ")");
            }
        }

        int hosts() {
            return (1 << (32 - prefix)) - 2;
        }

        /** The n-th host address (from 1) with its prefix, as ip(8) takes it. */
        String host(int n) {
            int a = base + n;
            return (a >>> 24) + "." + (a >>> 16 & 0xFF) + "." + (a >>> 8 & 0xFF) + "." + (a & 0xFF) + "/" + prefix;
        }
    }

    /** A network interface: its name and ifindex. */
    public record Link(String name, int ifindex) {
    }

    /** A local port, "node"[port] as the topology names it, and the address the topology gives it, if any. */
    record PortAddress(String port, Optional<IpoibAddress> fromTopology) {
    }

    /** A local HCA and its verbs model. */
    public record Adapter(LocalHca local, Hca hca) {
    }

    /**
     * What shows the interfaces' sysfs directories at /sys/class/net/NAME (the daemon grafts each
     * over the TAP's): the netdev notifier's REGISTER and UNREGISTER, for sysfs.
     */
    public interface NetdevDirectories {
        /** {@code name}'s directory is complete in the tree: show it. */
        void shown(String name) throws IOException;

        /** {@code name} is about to be unregistered: stop showing it. */
        void hidden(String name) throws IOException;
    }

    /**
     * Where the IPoIB directories are built: {@code net} in the tree (devices/virtual/net),
     * {@code real} the namespace's own sysfs directory of the same name, {@code device} the
     * HCA's PCI function below /sys/devices.
     */
    public record Sysfs(SysDir net, Path real, Function<LocalHca, String> device, NetdevDirectories directories) {
    }

    /** A refused create_child/delete_child: the message for ctl, the kernel's errno for the sysfs file. */
    static final class Refusal extends IOException {
        final int errno;

        Refusal(int errno, String message) {
            super(message);
            this.errno = errno;
        }
    }

    /** The port interfaces in port order, then P_Key children as made. */
    private final List<IpoibInterface> interfaces;
    private final MadLayer layer;
    private final Network network;
    /** The IB CM the interfaces' connected mode uses; null offers datagram mode only. */
    private final Cm cm;
    /** The IPv4 address (with prefix) each port interface was given, in the order given. */
    private final Map<IpoibInterface, String> addresses = new java.util.concurrent.ConcurrentHashMap<>();
    private Sysfs sysfs; // guarded by this

    private Ipoib(List<IpoibInterface> interfaces, MadLayer layer, Network network, Cm cm) {
        this.cm = cm;
        this.interfaces = interfaces;
        this.layer = layer;
        this.network = network;
    }

    /**
     * The address plan, in port order: the topology's {@code ipoib=} address where it gives one,
     * else the network's host n for the n-th port (so a port's address does not move when another
     * port gets one from the topology). An address held twice is refused, naming both ports.
     *
     * @param ports every local port in port order
     */
    static List<String> addresses(Network network, List<PortAddress> ports) throws IOException {
        List<String> plan = new ArrayList<>();
        Map<String, String> holder = new HashMap<>();
        for (int n = 1; n <= ports.size(); n++) {
            PortAddress port = ports.get(n - 1);
            String address;
            if (port.fromTopology().isPresent()) {
                address = port.fromTopology().get().toString();
            } else if (n > network.hosts()) {
                throw new IOException("--ipoib-net " + network.host(0) + " has room for " + network.hosts()
                        + " addresses, port " + port.port() + " is the local HCAs' port " + n
                        + " without an ipoib= address in the topology: give a larger network");
            } else {
                address = network.host(n);
            }
            String bare = address.substring(0, address.indexOf('/'));
            String other = holder.putIfAbsent(bare, port.port());
            if (other != null) {
                throw new IOException("IPoIB address " + bare + " is both " + other + "'s and " + port.port()
                        + "'s (from the topology's ipoib= or --ipoib-net " + network.host(0)
                        + "): change the topology's ipoib= or --ipoib-net");
            }
            plan.add(address);
        }
        return plan;
    }

    /** Creates, addresses and starts the interfaces of every port of {@code adapters}. */
    public static Ipoib start(Config config, MadLayer layer, Cm cm, List<Adapter> adapters) throws IOException {
        requireOwnNetworkNamespace();
        List<PortAddress> ports = new ArrayList<>();
        for (Adapter a : adapters) {
            for (int p = 1; p <= a.local().node().portCount(); p++) {
                ports.add(new PortAddress("\"" + a.local().node().spec().id() + "\"[" + p + "]",
                        a.local().node().spec().ipoibAddress(p)));
            }
        }
        List<String> plan = addresses(config.network(), ports);
        List<IpoibInterface> made = new java.util.concurrent.CopyOnWriteArrayList<>();
        Ipoib ipoib = new Ipoib(made, layer, config.network(), cm);
        try {
            List<String> script = new ArrayList<>(List.of("link set dev lo up"));
            for (Adapter a : adapters) {
                for (int p = 1; p <= a.local().node().portCount(); p++) {
                    IpoibInterface i = new IpoibInterface("ib" + made.size(), a.hca(), p, a.local().port(p), layer,
                            DEFAULT_PKEY, null, cm);
                    made.add(i);
                    script.addAll(ipoib.configure(i, plan.get(made.size() - 1)));
                }
            }
            // ping -b to the broadcast address is how the broadcast group is seen answering
            sysctl("net/ipv4/icmp_echo_ignore_broadcasts", "0");
            ip(script);
            for (IpoibInterface i : made) {
                i.start();
            }
            return ipoib;
        } catch (IOException | RuntimeException e) {
            ipoib.close();
            throw e;
        }
    }

    /** ip(8) commands that give a port interface its MAC, MTU, link-local and IPv4 address, and bring it up. */
    private List<String> configure(IpoibInterface i, String address) {
        List<String> script = new ArrayList<>();
        script.add("link set dev " + i.name() + " address " + MacMap.format(i.mac()) + " mtu "
                + IpoibInterface.DATAGRAM_MTU);
        script.addAll(linkLocal(i));
        script.add("address add " + address + " brd + dev " + i.name());
        script.add("link set dev " + i.name() + " up");
        addresses.put(i, address);
        return script;
    }

    /**
     * ipoib_add_one for an HCA plugged in while the daemon runs: an interface per port, each named
     * with the lowest free ibN (dev_alloc_name's "ib%d"), given its port's topology address or else
     * the lowest host of the network no interface holds, and brought up. Returns the names.
     */
    public synchronized List<String> addAdapter(Adapter a) throws IOException {
        List<String> names = new ArrayList<>();
        for (int p = 1; p <= a.local().node().portCount(); p++) {
            Optional<IpoibAddress> given = a.local().node().spec().ipoibAddress(p);
            String address = given.isPresent() ? given.get().toString() : freeHost();
            IpoibInterface i = new IpoibInterface(freeName(), a.hca(), p, a.local().port(p), layer, DEFAULT_PKEY, null, cm);
            try {
                ip(configure(i, address));
            } catch (IOException e) {
                addresses.remove(i);
                i.close();
                throw e;
            }
            interfaces.add(i);
            i.start();
            if (sysfs != null) {
                show(i);
            }
            names.add(i.name());
        }
        return names;
    }

    /** ipoib_remove_one: the interfaces of {@code hca}'s ports and their P_Key children go, children first. */
    public synchronized void removeAdapter(LocalHca hca) {
        List<IpoibInterface> going = new ArrayList<>();
        for (IpoibInterface i : interfaces) {
            IpoibInterface port = i.parent() == null ? i : i.parent();
            if (port.hca().local() == hca) {
                going.add(i.parent() == null ? going.size() : 0, i);
            }
        }
        for (IpoibInterface i : going) {
            unregister(i);
        }

    }

    /** The lowest ibN neither ours nor another netdev's in the namespace. */
    private String freeName() throws IOException {
        for (int n = 0; ; n++) {
            String name = "ib" + n;
            if (find(name) == null && NetworkInterface.getByName(name) == null) {
                return name;
            }
        }
    }

    /** The lowest host of the network that no interface was given. */
    private String freeHost() throws IOException {
        for (int n = 1; n <= network.hosts(); n++) {
            String host = network.host(n);
            String bare = host.substring(0, host.indexOf('/'));
            if (addresses.values().stream().noneMatch(a -> a.startsWith(bare + "/"))) {
                return host;
            }
        }
        throw new IOException("--ipoib-net " + network.host(0) + " has no address left for a new interface");
    }

    /**
     * The IPv6 link-local address the kernel gives an IPoIB interface (addrconf_ifid_infiniband:
     * the port GUID with the universal/local bit inverted), instead of the one the stand-in MAC
     * would give.
     */
    private static List<String> linkLocal(IpoibInterface i) {
        long id = i.address().guid() ^ 0x0200000000000000L;
        String address = String.format("fe80::%x:%x:%x:%x", id >>> 48, id >>> 32 & 0xFFFF, id >>> 16 & 0xFFFF,
                id & 0xFFFF);
        return List.of("link set dev " + i.name() + " addrgenmode none",
                "address add " + address + "/64 dev " + i.name() + " scope link");
    }

    /**
     * Refuses to run in the network namespace of the process that started the daemon (or of pid 1):
     * the interfaces and ip(8) commands would land in the host's. A namespace owned by the
     * daemon's own (non-initial) user namespace passes at once: without root, neither of those
     * processes' namespace files can be read from inside it.
     */
    private static void requireOwnNetworkNamespace() throws IOException {
        if (NetNamespace.ownedByOwnUserNamespace()) {
            return; // made inside our own user namespace (rootless): never the host's
        }
        Path mine = Files.readSymbolicLink(Path.of("/proc/self/ns/net"));
        List<Long> others = new ArrayList<>();
        ProcessHandle.current().parent().ifPresent(p -> others.add(p.pid()));
        others.add(1L);
        boolean compared = false;
        for (long pid : others) {
            Path theirs;
            try {
                theirs = Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns", "net"));
            } catch (IOException e) {
                continue;
            }
            compared = true;
            if (theirs.equals(mine)) {
                throw new IOException("--ipoib: the daemon shares its network namespace with process " + pid
                        + "; it creates interfaces only in one of its own (scripts/ibemu starts it with unshare -n)");
            }
        }
        if (!compared) {
            throw new IOException("--ipoib: cannot tell whether the daemon has a network namespace of its own "
                    + "(neither its parent's nor pid 1's /proc/PID/ns/net is readable)");
        }
    }

    private static void sysctl(String key, String value) throws IOException {
        Files.writeString(Path.of("/proc/sys").resolve(key), value + "\n");
    }

    private static void ip(List<String> script) throws IOException {
        Process p = new ProcessBuilder("ip", "-batch", "-").redirectErrorStream(true).start();
        p.getOutputStream().write((String.join("\n", script) + "\n").getBytes(StandardCharsets.US_ASCII));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (p.waitFor() != 0) {
                throw new IOException("ip -batch: " + out.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while configuring the interfaces");
        }
    }

    /**
     * The interface of {@code hca}'s {@code port} with its index, while it is in the daemon's
     * network namespace (moved elsewhere, RDMA netlink no longer names it, as net_eq decides).
     */
    public Optional<Link> netdev(LocalHca hca, int port) {
        for (IpoibInterface i : interfaces) {
            if (i.serves(hca, port)) {
                try {
                    NetworkInterface n = NetworkInterface.getByName(i.name());
                    return n == null ? Optional.empty() : Optional.of(new Link(i.name(), n.getIndex()));
                } catch (SocketException e) {
                    return Optional.empty();
                }
            }
        }
        return Optional.empty();
    }

    /** An IPoIB netdev as the RDMA CM reads it (rdma_copy_src_l2_addr): port, P_Key, 20-byte address. */
    public record Netdev(String name, LocalHca hca, int port, int pkey, byte[] hardwareAddress) {
    }

    /**
     * ipoib_get_net_dev_by_params by its L2 parameters: the namespace of the interface of
     * {@code hca}'s {@code port} with {@code pkey} (membership bit aside, as ib_find_cached_pkey
     * compares), where the RDMA CM looks for the listener of a request that came in there.
     */
    public synchronized Optional<String> namespaceOf(LocalHca hca, int port, int pkey) {
        for (IpoibInterface i : interfaces) {
            if (i.hca().local() == hca && i.port().number() == port && (i.pkey() & 0x7fff) == (pkey & 0x7fff)) {
                return Optional.of(i.namespace());
            }
        }
        return Optional.empty();
    }

    /** Every interface, P_Key children included, as the RDMA CM translates IP addresses over them. */
    public synchronized List<Netdev> netdevs() {
        List<Netdev> out = new ArrayList<>();
        for (IpoibInterface i : interfaces) {
            byte[] hw = new byte[HardwareAddress.LENGTH];
            i.address().encode(hw, 0);
            out.add(new Netdev(i.name(), i.hca().local(), i.port().number(), i.pkey(), hw));
        }
        return out;
    }

    /**
     * The 20-byte hardware address a neighbour entry of interface {@code name} holds: the kernel's
     * table has the daemon's stand-in MAC ({@code mac}), which only the interface can map back.
     */
    public synchronized Optional<byte[]> neighbour(String name, byte[] mac) {
        IpoibInterface i = find(name);
        HardwareAddress a = i == null ? null : i.neighbour(mac);
        if (a == null) {
            return Optional.empty();
        }
        byte[] hw = new byte[HardwareAddress.LENGTH];
        a.encode(hw, 0);
        return Optional.of(hw);
    }

    /**
     * create_child (ipoib_vlan_add): a P_Key child of {@code parentName} on the same port, named
     * PARENT.PKEY, its own UD QP in that partition joining the partition's broadcast group. Made
     * down and without an address, as the kernel makes it. The P_Key is kept as given (6.1's
     * create_child_store no longer sets the full-member bit): 0x0001 makes PARENT.0001, a limited member.
     */
    public synchronized String addChild(String parentName, int pkey) throws IOException {
        IpoibInterface parent = find(parentName);
        if (parent == null || parent.parent() != null) {
            throw new Refusal(Errno.ENODEV, "no port interface " + parentName);
        }
        if (pkey <= 0 || pkey > 0xFFFF || pkey == 0x8000) {
            throw new Refusal(Errno.EINVAL, "P_Key " + pkey + " is not a valid P_Key (0x0001-0xffff, not 0x8000)");
        }
        String name = String.format("%s.%04x", parentName, pkey);
        // is_child_unique: the parent's and the legacy children's P_Keys, compared exactly
        if (parent.pkey() == pkey) {
            throw new Refusal(Errno.ENOTUNIQ, parentName + " is in partition " + String.format("0x%04x", pkey));
        }
        for (IpoibInterface i : interfaces) {
            if (i.parent() == parent && i.pkey() == pkey) {
                throw new Refusal(Errno.ENOTUNIQ, name + " exists");
            }
        }
        IpoibInterface child = new IpoibInterface(name, parent.hca(), parent.port().number(), parent.port(), layer,
                pkey, parent, cm);
        try {
            List<String> script = new ArrayList<>(List.of("link set dev " + name + " address "
                    + MacMap.format(child.mac()) + " mtu " + IpoibInterface.DATAGRAM_MTU));
            script.addAll(linkLocal(child));
            ip(script);
        } catch (IOException e) {
            child.close();
            throw e;
        }
        interfaces.add(child);
        child.start();
        if (sysfs != null) {
            show(child);
        }
        return name;
    }

    /** delete_child (ipoib_vlan_delete): only a child goes. */
    public synchronized void removeChild(String name) throws IOException {
        IpoibInterface child = find(name);
        if (child == null || child.parent() == null) {
            throw new Refusal(Errno.ENODEV, "no P_Key child " + name);
        }
        unregister(child);
    }

    /** unregister_netdev: its directory unbound, the netdev deleted, then its QP and threads. */
    private void unregister(IpoibInterface i) {
        interfaces.remove(i);
        addresses.remove(i);
        if (sysfs != null) {
            hide(i);
        }
        // unregister the netdev first: the transmitter's blocked read holds the TAP file open
        try {
            ip(List.of("link delete dev " + i.name()));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.INFO, "{0}: {1} (moved to another network namespace?)", i.name(), e.getMessage());
        }
        i.close();
    }

    /**
     * The mode file's store (ipoib_set_mode): "connected\n" where the interface takes connections
     * raises the MTU to IPoIB-CM's, "datagram\n" lowers it to at most the UD one (min(mcast_mtu,
     * mtu): an MTU set lower stays) and ends the connections we made; the mode already set is
     * accepted as is; anything else is EINVAL.
     */
    void setMode(IpoibInterface i, String value) throws Errno {
        boolean connected = value.equals("connected\n");
        if (!connected && !value.equals("datagram\n") || connected && !i.connectedModeSupported()) {
            throw Errno.of(Errno.EINVAL);
        }
        if (connected == i.connectedMode()) {
            return;
        }
        i.connectedMode(connected);
        try {
            int mtu = ConnectedMode.MTU;
            if (!connected) {
                NetworkInterface netdev = NetworkInterface.getByName(i.name());
                mtu = Math.min(IpoibInterface.DATAGRAM_MTU, netdev == null ? mtu : netdev.getMTU());
            }
            ip(List.of("link set dev " + i.name() + " mtu " + mtu));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "{0}: mode {1}: {2}", i.name(), value.strip(), e.getMessage());
        }
    }

    /** create_child written on {@code parent}'s sysfs directory: the kernel's errno on refusal. */
    void createChild(IpoibInterface parent, int pkey) throws Errno {
        try {
            addChild(parent.name(), pkey);
        } catch (Refusal r) {
            throw Errno.of(r.errno);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "create_child {0} on {1}: {2}", pkey, parent.name(), e.getMessage());
            throw Errno.of(Errno.EIO);
        }
    }

    /** delete_child written on {@code parent}'s directory: ENODEV when it has no child of that key. */
    void deleteChild(IpoibInterface parent, int pkey) throws Errno {
        String name;
        synchronized (this) {
            name = interfaces.stream().filter(i -> i.parent() == parent && i.pkey() == pkey)
                    .map(IpoibInterface::name).findFirst().orElse(null);
        }
        if (name == null) {
            throw Errno.of(Errno.ENODEV);
        }
        try {
            removeChild(name);
        } catch (Refusal r) {
            throw Errno.of(r.errno);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "delete_child {0}: {1}", name, e.getMessage());
            throw Errno.of(Errno.EIO);
        }
    }

    /**
     * Builds every interface's IPoIB sysfs directory and shows it, and from now on each child's
     * as it is made (once the tree is mounted: showing grafts it).
     */
    public synchronized void publish(Sysfs where) throws IOException {
        sysfs = where;
        for (IpoibInterface i : interfaces) {
            show(i);
        }
    }

    private void show(IpoibInterface i) throws IOException {
        NetdevSysfs.build(sysfs.net().dir(i.name()), sysfs.real().resolve(i.name()), i, this,
                sysfs.device().apply(i.hca().local()));
        sysfs.directories().shown(i.name());
    }

    private void hide(IpoibInterface i) {
        try {
            sysfs.directories().hidden(i.name());
        } catch (IOException e) {
            LOG.log(System.Logger.Level.INFO, "{0}: {1}", i.name(), e.getMessage());
        }
        sysfs.net().remove(i.name());
    }

    private IpoibInterface find(String name) {
        return interfaces.stream().filter(i -> i.name().equals(name)).findFirst().orElse(null);
    }

    /**
     * `ctl ipoib [child add IFACE PKEY | child remove NAME]`: the listing, or a P_Key child made
     * or removed (what writing create_child/delete_child does on a kernel's IPoIB).
     */
    public List<String> command(List<String> args) throws IOException {
        if (args.isEmpty()) {
            return describe();
        }
        if (args.size() == 4 && args.get(0).equals("child") && args.get(1).equals("add")) {
            int pkey;
            try {
                pkey = Integer.decode(args.get(3));
            } catch (NumberFormatException e) {
                throw new IOException("P_Key " + args.get(3) + " is not a number (e.g. 0x8001)");
            }
            return List.of(addChild(args.get(2), pkey));
        }
        if (args.size() == 3 && args.get(0).equals("child") && args.get(1).equals("remove")) {
            removeChild(args.get(2));
            return List.of();
        }
        throw new IOException("usage: ipoib [child add IFACE PKEY | child remove NAME]");
    }

    /** What `ctl ipoib` prints: per interface a line, then a line per neighbour. */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        for (IpoibInterface i : interfaces) {
            lines.addAll(i.describe());
        }
        return lines;
    }

    @Override
    public void close() {
        interfaces.forEach(IpoibInterface::close);
    }
}
