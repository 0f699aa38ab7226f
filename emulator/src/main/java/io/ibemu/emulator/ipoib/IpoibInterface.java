package io.ibemu.emulator.ipoib;

import io.ibemu.kernel.Errno;
import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.cm.Cm;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fabric.PortState;
import io.ibemu.emulator.hca.Access;
import io.ibemu.emulator.hca.AddressHandle;
import io.ibemu.emulator.hca.AhAttributes;
import io.ibemu.emulator.hca.AsyncEvent;
import io.ibemu.emulator.hca.AsyncEventSink;
import io.ibemu.emulator.hca.CompletionQueue;
import io.ibemu.emulator.hca.GlobalRoute;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.hca.MemoryRegion;
import io.ibemu.emulator.hca.PostError;
import io.ibemu.emulator.hca.ProtectionDomain;
import io.ibemu.emulator.hca.QpAttributeMask;
import io.ibemu.emulator.hca.QpAttributes;
import io.ibemu.emulator.hca.QpCapabilities;
import io.ibemu.emulator.hca.QpInitAttributes;
import io.ibemu.emulator.hca.QpState;
import io.ibemu.emulator.hca.QpType;
import io.ibemu.emulator.hca.QueuePair;
import io.ibemu.emulator.hca.ReceiveWorkRequest;
import io.ibemu.emulator.hca.SendWorkRequest;
import io.ibemu.emulator.hca.Sge;
import io.ibemu.emulator.hca.VerbsOwner;
import io.ibemu.emulator.hca.WcOpcode;
import io.ibemu.emulator.hca.WorkCompletion;
import io.ibemu.emulator.hca.WrOpcode;
import io.ibemu.emulator.mad.McMemberRecord;
import io.ibemu.emulator.mad.PathRecord;
import io.ibemu.emulator.sa.SaClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One IPoIB interface in datagram mode (drivers/infiniband/ulp/ipoib, RFC 4391): a UD QP on one
 * port of the HCA model, the partition's broadcast group joined through the SA, unicast paths
 * from the SA's PathRecords, and a TAP device standing for the netdev. Frames the kernel
 * transmits become IPoIB packets (the 4-byte encapsulation header, ARP rewritten with 20-byte
 * hardware addresses) and the reverse on receive.
 *
 * <p>Threads: the transmitter blocks in the TAP's read and posts sends; the receiver waits for
 * the receive CQ's completion event, polls and writes frames to the TAP; the joiner reacts to
 * port events (ipoib_event's flushes) and joins the broadcast group. None holds the model
 * lock while it blocks.
 */
final class IpoibInterface implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("ipoib");
    static final int ENCAP_HEADER = 4;
    /** Datagram mode: the IB MTU less the encapsulation header (ipoib_main.c IPOIB_UD_MTU). */
    static final int IB_MTU = 2048;
    static final int DATAGRAM_MTU = IB_MTU - ENCAP_HEADER;
    private static final int GRH = 40;
    private static final int SLOT = 4096;
    /** ipoib_recvq_size and sendq_size defaults are 256 and 128. */
    private static final int RX_RING = 256;
    private static final int TX_RING = 128;
    private static final int ETH_HEADER = 14;
    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86DD;
    private static final byte[] ETH_BROADCAST = {-1, -1, -1, -1, -1, -1};
    /** The IPoIB broadcast group's MGID signature and scope (RFC 4391 4: ff12:401b). */
    private static final long BROADCAST_MGID_HIGH = 0xff12401b00000000L;
    private static final long MAX_JOIN_BACKOFF_S = 16;
    /** IPOIB_FLAGS_RC: the hardware address's first octet when the interface takes connections. */
    static final int FLAGS_RC = 0x80;

    private final String name;
    private final IpoibInterface parent;
    private final Hca hca;
    private final Port port;
    private final int pkey;
    /** The QP's P_Key index: the key's slot in the port's table when the interface was made. */
    private final int pkeyIndex;
    private final SaClient sa;
    private final TapDevice tap;
    private final KernelMemory memory = new KernelMemory((RX_RING + TX_RING) * SLOT);
    private final ProtectionDomain pd;
    private final MemoryRegion mr;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final QueuePair qp;
    private final HardwareAddress own;
    private final MacMap macs = new MacMap();
    private final byte[] ownMac;
    /** Address handles of resolved paths, by destination port GUID (ipoib's path cache). */
    private final Map<Long, AddressHandle> paths = new ConcurrentHashMap<>();
    /** Who a LID is, learned from paths: names the sender of a unicast without GRH. */
    private final Map<Integer, Long> guidByLid = new ConcurrentHashMap<>();
    private final Semaphore receiveEvent = new Semaphore(0);
    private final AsyncEventSink events = this::portEvent;
    private final ScheduledExecutorService joiner;
    private volatile Broadcast broadcast;
    private volatile boolean closed;
    /** The IB CM, when connected mode can be offered (the kernel's CONFIG_INFINIBAND_IPOIB_CM); else null. */
    private final Cm cm;
    /** The connections' side of the interface: listening from start, sending only in connected mode. */
    private volatile ConnectedMode connections;
    /** IPOIB_FLAG_ADMIN_CM: unicast IP to peers that take connections goes over them. */
    private volatile boolean connectedMode;
    /** PathRecords by destination port GUID, beside their address handles (the CM's REQ needs the path). */
    private final Map<Long, PathRecord> pathRecords = new ConcurrentHashMap<>();
    /** IPOIB_FLAG_UMCAST, set through the umcast file: whether groups userspace joined are left to it. */
    private volatile boolean umcast;
    private int joinBackoff = 1;
    private int txSlot;

    /** The joined broadcast group: where broadcast and multicast frames go. */
    private record Broadcast(McMemberRecord group, AddressHandle ah) {
    }

    /** {@code parent}: the port's interface when this is a P_Key child of it, else null. */
    IpoibInterface(String name, Hca hca, int portNumber, Port port, MadLayer layer, int pkey, IpoibInterface parent,
            Cm cm) throws IOException {
        this.name = name;
        this.cm = cm;
        this.parent = parent;
        this.hca = hca;
        this.port = port;
        this.pkey = pkey;
        try {
            VerbsOwner kernel = new VerbsOwner(0, name);
            pd = hca.allocPd(kernel);
            mr = hca.registerMr(pd, memory.address(0), memory.size(), memory.address(0), Access.LOCAL_WRITE, memory);
            sendCq = hca.createCq(kernel, TX_RING, 0, cq -> { });
            recvCq = hca.createCq(kernel, RX_RING, 0, cq -> receiveEvent.release());
            qp = hca.createQp(pd, new QpInitAttributes(QpType.UD, sendCq, recvCq, null,
                    new QpCapabilities(TX_RING, RX_RING, 1, 1, 0), true, null));
            pkeyIndex = pkeyIndex(port, pkey);
            hca.modify(qp, QpAttributes.builder().qpState(QpState.INIT).pkeyIndex(pkeyIndex).portNum(portNumber)
                    .qkey(0).build(), QpAttributeMask.STATE | QpAttributeMask.PKEY_INDEX | QpAttributeMask.PORT
                    | QpAttributeMask.QKEY);
            hca.modify(qp, QpAttributes.builder().qpState(QpState.RTR).build(), QpAttributeMask.STATE);
            hca.modify(qp, QpAttributes.builder().qpState(QpState.RTS).sqPsn(0).build(),
                    QpAttributeMask.STATE | QpAttributeMask.SQ_PSN);
            List<ReceiveWorkRequest> ring = new ArrayList<>();
            for (int i = 0; i < RX_RING; i++) {
                ring.add(receive(i));
            }
            hca.postRecv(qp, ring);
        } catch (Errno | PostError e) {
            throw new IOException(name + ": the UD QP: " + e.getMessage());
        }
        own = new HardwareAddress(cm != null ? FLAGS_RC : 0, qp.qpNum(), port.subnetPrefix(), port.guid());
        ownMac = macs.mac(own);
        sa = new SaClient(layer, port);
        tap = TapDevice.create(name);
        // no carrier until the broadcast join: set before the interface goes up, so it starts that way
        tap.carrier(false);
        joiner = Executors.newSingleThreadScheduledExecutor(r -> daemonThread(r, name + "-join"));
    }

    private static int pkeyIndex(Port port, int pkey) {
        int[] table = port.pkeys();
        for (int i = 0; i < table.length; i++) {
            if ((table[i] & 0x7FFF) == (pkey & 0x7FFF)) {
                return i;
            }
        }
        return 0;
    }

    private static Thread daemonThread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    String name() {
        return name;
    }

    IpoibInterface parent() {
        return parent;
    }

    Hca hca() {
        return hca;
    }

    Port port() {
        return port;
    }

    boolean serves(io.ibemu.emulator.device.LocalHca local, int portNumber) {
        return parent == null && hca.local() == local && port.number() == portNumber;
    }

    byte[] mac() {
        return ownMac.clone();
    }

    HardwareAddress address() {
        return own;
    }

    /** The neighbour a stand-in MAC of this interface's ARP cache means, or null. */
    HardwareAddress neighbour(byte[] mac) {
        return macs.address(mac, 0);
    }

    /** {@code ib0 port ibemu0/1 address 00:00:00:02:fe:80:... carrier on}, then {@code   neigh MAC ADDRESS} lines. */
    List<String> describe() {
        List<String> lines = new ArrayList<>();
        lines.add(name + " port " + hca.local().name() + "/" + port.number() + " address " + own + " carrier "
                + (broadcast != null ? "on" : "off") + String.format(" pkey 0x%04x", pkey) + " mode "
                + (connectedMode ? "connected" : "datagram"));
        macs.forEach((mac, address) -> {
            if (!address.withoutFlags().equals(own.withoutFlags())) {
                lines.add("  neigh " + MacMap.format(mac) + " " + address);
            }
        });
        ConnectedMode c = connections;
        if (c != null) {
            lines.addAll(c.describe());
        }
        return lines;
    }

    /** Starts the data path, listens for connections (ipoib_cm_dev_open) and joins as soon as the port is active. */
    void start() throws IOException {
        if (cm != null) {
            connections = new ConnectedMode(name, hca, port, qp.qpNum(), pkeyIndex, cm, this::receivedConnected,
                    this::pathRecord);
        }
        daemonThread(this::transmitLoop, name + "-tx").start();
        daemonThread(this::receiveLoop, name + "-rx").start();
        hca.addEventSink(events);
        joiner.execute(this::join);
    }

    private ReceiveWorkRequest receive(int slot) {
        return new ReceiveWorkRequest(slot, List.of(new Sge(memory.address(slot * SLOT), SLOT, mr.lkey())));
    }

    // ---- the broadcast group (ipoib_multicast.c) ----

    /** ipoib_event: a port change flushes paths and restarts the join, as the kernel's flush does. */
    private void portEvent(AsyncEvent e) {
        if (!(e.element() instanceof Integer p) || p != port.number() || closed) {
            return;
        }
        switch (e.type()) {
            case PORT_ACTIVE, LID_CHANGE, SM_CHANGE, CLIENT_REREGISTER, PKEY_CHANGE -> joiner.execute(this::rejoin);
            case PORT_ERR -> joiner.execute(this::down);
            default -> { }
        }
    }

    private void down() {
        broadcast = null;
        flushPaths();
        carrier(false);
    }

    private void rejoin() {
        down();
        joinBackoff = 1;
        join();
    }

    /** ipoib_mcast_join_task for the broadcast group: retried with backoff while the port is active. */
    private void join() {
        if (closed || broadcast != null || port.state() != PortState.ACTIVE) {
            return;
        }
        if (!hasPkey()) {
            // ipoib_ib_dev_open: a P_Key the port's table lacks leaves the interface without carrier
            LOG.log(System.Logger.Level.INFO, "{0}: P_Key 0x{1} is not in the P_Key table of port {2}: no carrier", name,
                    Integer.toHexString(pkey), port.number());
            carrier(false);
            return;
        }
        try {
            long mgidHigh = BROADCAST_MGID_HIGH | (pkey & 0xFFFFL) << 16;
            McMemberRecord group = sa.join(McMemberRecord.join(mgidHigh, 0xffffffffL, port.subnetPrefix(),
                    port.guid(), pkey, McMemberRecord.FULL_MEMBER), McMemberRecord.MGID | McMemberRecord.PORT_GID
                    | McMemberRecord.PKEY | McMemberRecord.JOIN_STATE);
            byte[] mgid = new byte[16];
            HardwareAddress.putLong(mgid, 0, group.mgidPrefix());
            HardwareAddress.putLong(mgid, 8, group.mgidInterface());
            hca.attachMulticast(qp, mgid, group.mlid());
            hca.modify(qp, QpAttributes.builder().qkey(group.qkey()).build(), QpAttributeMask.QKEY);
            AddressHandle ah = hca.createAh(pd, new AhAttributes(group.mlid(), group.sl(), 0, 0, port.number(),
                    new GlobalRoute(mgid, group.flowLabel(), 0, group.hopLimit(), group.trafficClass())));
            broadcast = new Broadcast(group, ah);
            joinBackoff = 1;
            carrier(true);
            LOG.log(System.Logger.Level.INFO, "{0}: joined the broadcast group (MLID 0x{1}, Q_Key 0x{2})", name,
                    Integer.toHexString(group.mlid()), Integer.toHexString(group.qkey()));
        } catch (IOException | Errno e) {
            LOG.log(System.Logger.Level.INFO, "{0}: broadcast join failed: {1}; again in {2} s", name,
                    e.getMessage(), joinBackoff);
            if (!closed) {
                joiner.schedule(this::join, joinBackoff, TimeUnit.SECONDS);
                joinBackoff = (int) Math.min(MAX_JOIN_BACKOFF_S, joinBackoff * 2L);
            }
        }
    }

    private boolean hasPkey() {
        int[] table = port.pkeys();
        return table.length > pkeyIndex && (table[pkeyIndex] & 0x7FFF) == (pkey & 0x7FFF);
    }

    /** The network namespace the interface is in now (a move to another takes it there). */
    String namespace() {
        return tap.namespace();
    }

    int pkey() {
        return pkey;
    }

    boolean umcast() {
        return umcast;
    }

    void umcast(boolean on) {
        umcast = on;
    }

    private void carrier(boolean on) {
        try {
            tap.carrier(on);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, e.getMessage());
        }
    }

    private void flushPaths() {
        pathRecords.clear();
        paths.clear();
        guidByLid.clear();
    }

    // ---- transmit (ipoib_start_xmit, ipoib_send) ----

    private void transmitLoop() {
        byte[] frame = new byte[ETH_HEADER + 65536];
        while (!closed) {
            int n = tap.read(frame);
            if (n < 0) {
                return;
            }
            if (n < ETH_HEADER) {
                continue;
            }
            try {
                transmit(frame, n);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, name + ": transmit: " + e);
            }
        }
    }

    private void transmit(byte[] frame, int length) {
        Broadcast group = broadcast;
        int ethertype = ArpPacket.u16(frame, 12);
        if (group == null) {
            return; // no carrier
        }
        byte[] packet;
        int packetLength;
        if (ethertype == ArpPacket.ETHERTYPE) {
            ArpPacket arp = ArpPacket.decode(frame, ETH_HEADER, length - ETH_HEADER);
            if (arp == null || arp.hardwareType() != ArpPacket.HTYPE_ETHERNET) {
                return;
            }
            byte[] target = new byte[HardwareAddress.LENGTH];
            if (!isZero(arp.targetHardware())) {
                HardwareAddress t = macs.address(arp.targetHardware(), 0);
                if (t == null) {
                    return;
                }
                t.encode(target, 0);
            }
            byte[] sender = new byte[HardwareAddress.LENGTH];
            own.encode(sender, 0);
            ArpPacket ib = arp.withHardware(ArpPacket.HTYPE_INFINIBAND, sender, target);
            packet = new byte[ENCAP_HEADER + ib.length()];
            packetLength = ENCAP_HEADER + ib.encode(packet, ENCAP_HEADER);
        } else if (ethertype == ETHERTYPE_IPV6 && NeighbourDiscovery.isNd(frame, ETH_HEADER, length - ETH_HEADER)) {
            byte[] nd = NeighbourDiscovery.toIpoib(frame, ETH_HEADER, length - ETH_HEADER, mac -> macs.address(mac, 0));
            if (nd == null || ENCAP_HEADER + nd.length > IB_MTU) {
                return;
            }
            packetLength = ENCAP_HEADER + nd.length;
            packet = new byte[packetLength];
            System.arraycopy(nd, 0, packet, ENCAP_HEADER, nd.length);
        } else if (ethertype == ETHERTYPE_IPV4 || ethertype == ETHERTYPE_IPV6) {
            packetLength = ENCAP_HEADER + length - ETH_HEADER;
            if (packetLength > (connectedMode ? ConnectedMode.BUF_SIZE : IB_MTU)) {
                return;
            }
            packet = new byte[packetLength];
            System.arraycopy(frame, ETH_HEADER, packet, ENCAP_HEADER, length - ETH_HEADER);
        } else {
            return;
        }
        ArpPacket.put16(packet, 0, ethertype);
        if ((frame[0] & 1) != 0) {
            // broadcast and IPv4 multicast: the broadcast group (ipoib_mcast_send without per-group joins)
            send(packet, packetLength, group.ah(), 0xFFFFFF, group.group().qkey());
            return;
        }
        HardwareAddress to = macs.address(frame, 0);
        if (to == null) {
            return;
        }
        ConnectedMode c = connections;
        boolean ip = ethertype == ETHERTYPE_IPV4 || ethertype == ETHERTYPE_IPV6;
        if (connectedMode && c != null && ip && (to.flags() & FLAGS_RC) != 0) {
            c.send(to, packet, packetLength); // ipoib_cm_send: unicast IP to a peer that takes connections
            return;
        }
        if (packetLength > IB_MTU) {
            return; // the kernel answers with ICMP "fragmentation needed"; dropped here
        }
        AddressHandle ah = path(to);
        if (ah != null) {
            send(packet, packetLength, ah, to.qpn(), group.group().qkey());
        }
    }

    private static boolean isZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    /** The PathRecord to {@code to}, looked up as for a datagram (the CM's REQ carries it). */
    private PathRecord pathRecord(HardwareAddress to) {
        return path(to) == null ? null : pathRecords.get(to.guid());
    }

    /** A packet that came over a connection (never a group's): to the TAP as a datagram's would go. */
    private void receivedConnected(HardwareAddress from, byte[] buf, int at, int byteLen) {
        int length = byteLen - ENCAP_HEADER;
        if (length < 0) {
            return;
        }
        toTap(buf, at + ENCAP_HEADER, length, ArpPacket.u16(buf, at), from, null, false,
                new byte[ETH_HEADER + length]);
    }

    /** Whether connected mode can be offered: the hardware address carries IPOIB_FLAGS_RC. */
    boolean connectedModeSupported() {
        return (own.flags() & FLAGS_RC) != 0;
    }

    boolean connectedMode() {
        return connectedMode;
    }

    /** ipoib_set_mode's switch: which way unicast IP goes from now on; datagram mode ends our connections. */
    void connectedMode(boolean on) {
        connectedMode = on;
        ConnectedMode c = connections;
        if (!on && c != null) {
            c.flushTx();
        }
    }

    /** ipoib's path_rec_start: one PathRecord per destination GID, kept until a port event flushes it. */
    private AddressHandle path(HardwareAddress to) {
        AddressHandle known = paths.get(to.guid());
        if (known != null) {
            return known;
        }
        try {
            PathRecord p = sa.path(PathRecord.query(port.subnetPrefix(), port.guid(), to.gidPrefix(), to.guid(), pkey),
                    PathRecord.DGID | PathRecord.SGID | PathRecord.NUMB_PATH | PathRecord.REVERSIBLE
                            | PathRecord.PKEY);
            AddressHandle ah = hca.createAh(pd, new AhAttributes(p.dlid(), p.sl(), 0, 0, port.number(), null));
            pathRecords.put(to.guid(), p);
            paths.put(to.guid(), ah);
            guidByLid.put(p.dlid(), to.guid());
            return ah;
        } catch (IOException | Errno e) {
            LOG.log(System.Logger.Level.INFO, "{0}: no path to {1}: {2}", name, to, e.getMessage());
            return null;
        }
    }

    private void send(byte[] packet, int length, AddressHandle ah, int qpn, int qkey) {
        int slot = RX_RING + txSlot;
        txSlot = (txSlot + 1) % TX_RING;
        System.arraycopy(packet, 0, memory.bytes(), slot * SLOT, length);
        try {
            hca.postSend(qp, List.of(SendWorkRequest.ud(slot, WrOpcode.FLAG_SIGNALED,
                    List.of(new Sge(memory.address(slot * SLOT), length, mr.lkey())), ah, qpn, qkey)));
        } catch (PostError e) {
            LOG.log(System.Logger.Level.WARNING, name + ": post send: " + e.getMessage());
        }
        sendCq.poll(TX_RING); // a UD send completes as it is posted: its slot is free again
    }

    // ---- receive (ipoib_ib_handle_rx_wc) ----

    private void receiveLoop() {
        byte[] frame = new byte[ETH_HEADER + SLOT];
        ReceiveLoop.run(name, recvCq, receiveEvent, () -> closed, wc -> deliver(wc, (int) wc.wrId() * SLOT, frame),
                slot -> hca.postRecv(qp, List.of(receive(slot))));
    }

    private void deliver(WorkCompletion wc, int at, byte[] frame) {
        byte[] buf = memory.bytes();
        int length = wc.byteLen() - GRH - ENCAP_HEADER;
        if (length < 0) {
            return;
        }
        boolean grh = (wc.wcFlags() & WcOpcode.FLAG_GRH) != 0;
        boolean toGroup = grh && buf[at + 24] == (byte) 0xff; // the GRH's DGID is a multicast GID
        int ethertype = ArpPacket.u16(buf, at + GRH);
        int payload = at + GRH + ENCAP_HEADER;
        Long guid = grh ? (Long) HardwareAddress.longAt(buf, at + 16) : guidByLid.get(wc.slid());
        long prefix = grh ? HardwareAddress.longAt(buf, at + 8) : port.subnetPrefix();
        // a unicast sender whose path this side never looked up: named by its LID (the kernel needs no source)
        HardwareAddress from = guid == null ? null : new HardwareAddress(0, wc.srcQp(), prefix, guid);
        byte[] srcMac = guid == null ? new byte[] {0x02, 0, 0, 0, (byte) (wc.slid() >> 8), (byte) wc.slid()} : null;
        toTap(buf, payload, length, ethertype, from, srcMac, toGroup, frame);
    }

    /**
     * An IPoIB packet's payload (after the encapsulation header) handed to the kernel as an
     * Ethernet frame: ARP and neighbour discovery rewritten to stand-in MACs, our MAC or the
     * group's as destination, the sender's stand-in (or {@code srcMac}) as source.
     */
    private void toTap(byte[] buf, int payload, int length, int ethertype, HardwareAddress from, byte[] srcMac,
            boolean toGroup, byte[] frame) {
        int n;
        if (ethertype == ArpPacket.ETHERTYPE) {
            ArpPacket arp = ArpPacket.decode(buf, payload, length);
            if (arp == null || arp.hardwareType() != ArpPacket.HTYPE_INFINIBAND
                    || arp.senderHardware().length != HardwareAddress.LENGTH) {
                return;
            }
            HardwareAddress sender = HardwareAddress.decode(arp.senderHardware(), 0);
            HardwareAddress target = HardwareAddress.decode(arp.targetHardware(), 0);
            byte[] targetMac = target.isZero() ? new byte[6] : target.withoutFlags().equals(own.withoutFlags()) ? ownMac : macs.mac(target);
            from = sender;
            n = ETH_HEADER + arp.withHardware(ArpPacket.HTYPE_ETHERNET, macs.mac(sender), targetMac)
                    .encode(frame, ETH_HEADER);
        } else if (ethertype == ETHERTYPE_IPV6 && NeighbourDiscovery.isNd(buf, payload, length)) {
            byte[] nd = NeighbourDiscovery.toEthernet(buf, payload, length, macs::mac);
            if (nd == null) {
                return;
            }
            System.arraycopy(nd, 0, frame, ETH_HEADER, nd.length);
            n = ETH_HEADER + nd.length;
        } else if (ethertype == ETHERTYPE_IPV4 || ethertype == ETHERTYPE_IPV6) {
            System.arraycopy(buf, payload, frame, ETH_HEADER, length);
            n = ETH_HEADER + length;
        } else {
            return;
        }
        if (from != null && own.withoutFlags().equals(from.withoutFlags())) {
            return;
        }
        byte[] dst = !toGroup ? ownMac : ethertype == ETHERTYPE_IPV4 ? ipv4GroupMac(buf, payload)
                : ethertype == ETHERTYPE_IPV6 ? ipv6GroupMac(buf, payload) : ETH_BROADCAST;
        System.arraycopy(dst, 0, frame, 0, 6);
        System.arraycopy(from != null ? macs.mac(from) : srcMac, 0, frame, 6, 6);
        ArpPacket.put16(frame, 12, ethertype);
        tap.write(frame, n);
    }

    /** The Ethernet destination of an IPv4 datagram that came through the broadcast group (RFC 1112 6.4). */
    private static byte[] ipv4GroupMac(byte[] b, int ip) {
        int first = b[ip + 16] & 0xFF;
        if (first < 224 || first > 239) {
            return ETH_BROADCAST;
        }
        return new byte[] {0x01, 0x00, 0x5e, (byte) (b[ip + 17] & 0x7F), b[ip + 18], b[ip + 19]};
    }

    /** The Ethernet destination of an IPv6 datagram that came through the broadcast group (RFC 2464 7). */
    private static byte[] ipv6GroupMac(byte[] b, int ip) {
        if ((b[ip + 24] & 0xFF) != 0xFF) {
            return ETH_BROADCAST;
        }
        return new byte[] {0x33, 0x33, b[ip + 36], b[ip + 37], b[ip + 38], b[ip + 39]};
    }

    @Override
    public void close() {
        closed = true;
        hca.removeEventSink(events);
        joiner.shutdownNow();
        receiveEvent.release();
        ConnectedMode c = connections;
        if (c != null) {
            c.close();
        }
        sa.close();
        tap.close();
    }
}
