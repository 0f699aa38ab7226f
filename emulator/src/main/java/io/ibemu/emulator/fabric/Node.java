package io.ibemu.emulator.fabric;

import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MellanoxAttribute;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.NodeDescription;
import io.ibemu.emulator.mad.NodeInfo;
import io.ibemu.emulator.topology.NodeDescriptionText;
import io.ibemu.emulator.topology.NodeSpec;
import io.ibemu.emulator.topology.NodeType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/** A CA, switch or router of the fabric, with its ports and its management agents. */
public final class Node {
    private final Fabric fabric;
    private final NodeSpec spec;
    /** NodeDescription as bytes, at most 64: what the SMA sends and node_desc shows, byte for byte. */
    private volatile byte[] description;
    /** Starts as the topology's; the control command can change it. */
    private volatile long guid;
    /** Indexed by port number; a CA's slot 0 is empty. */
    private final Port[] ports;
    private final SwitchTables switchTables;
    private final CongestionControl congestionControl;
    private final long upSinceNanos = System.nanoTime();

    Node(Fabric fabric, NodeSpec spec) {
        this.fabric = fabric;
        this.spec = spec;
        this.description = truncate(spec.description());
        this.guid = spec.nodeGuid();
        this.switchTables = spec.type() == NodeType.SWITCH ? new SwitchTables(spec.portCount(), spec.enhancedPort0())
                : null;
        this.congestionControl = new CongestionControl(this);
        this.ports = new Port[spec.portCount() + 1];
        for (int p = spec.type() == NodeType.SWITCH ? 0 : 1; p <= spec.portCount(); p++) {
            ports[p] = new Port(this, p, spec.type() == NodeType.SWITCH ? spec.portGuid(0) : spec.portGuid(p));
        }
    }

    public Fabric fabric() {
        return fabric;
    }

    /** The topology entry this node was built from (GUIDs as at start: the accessors are live). */
    public NodeSpec spec() {
        return spec;
    }

    public NodeType type() {
        return spec.type();
    }

    public String id() {
        return spec.id();
    }

    public long guid() {
        return guid;
    }

    /** Under the fabric lock, by {@link Fabric#setNodeGuid}, which keeps its index. */
    void setGuid(long newGuid) {
        guid = newGuid;
    }

    public long systemImageGuid() {
        return spec.systemImageGuid();
    }

    /** The NodeDescription as text for dumps and topology files, every byte kept (NodeDescriptionText). */
    public String description() {
        return NodeDescriptionText.text(description);
    }

    /** The NodeDescription's bytes exactly, as written (a copy). */
    public byte[] descriptionBytes() {
        return description.clone();
    }

    /** Sets the NodeDescription, cut to its 64 bytes as the kernel's node_desc is. */
    public void setDescription(String d) {
        synchronized (fabric.lock()) {
            description = truncate(d);
        }
    }

    /** node_desc_store: any bytes, the first 64 kept as they are. */
    public void setDescription(byte[] d) {
        synchronized (fabric.lock()) {
            description = java.util.Arrays.copyOf(d, Math.min(d.length, NodeDescription.MAX_BYTES));
        }
    }

    public int vendorId() {
        return spec.vendorId();
    }

    public int deviceId() {
        return spec.deviceId();
    }

    public int revision() {
        return spec.revision();
    }

    public int portCount() {
        return spec.portCount();
    }

    /** Port {@code number}: 1..portCount for a CA or router, 0..portCount for a switch. */
    public Port port(int number) {
        if (number < 0 || number >= ports.length || ports[number] == null) {
            throw new IllegalArgumentException(id() + " has no port " + number);
        }
        return ports[number];
    }

    /** The ports in number order (a switch's port 0 first). */
    public List<Port> ports() {
        List<Port> list = new ArrayList<>();
        for (Port p : ports) {
            if (p != null) {
                list.add(p);
            }
        }
        return Collections.unmodifiableList(list);
    }

    public boolean hasPort(int number) {
        return number >= 0 && number < ports.length && ports[number] != null;
    }

    /**
     * The node's own agents answering a MAD that arrived on {@code inPort}, as a driver's
     * process_mad does: the SMA takes SubnGet/SubnSet (both SMP classes), the PMA PerfMgmt
     * Get/Set, the CCA Congestion Control and the vendor agent Mellanox's class 0x0A where the
     * firmware has them (mlx4_ib_process_mad hands both to the firmware). Returns the whole
     * 256-byte response (GetResp, status set, the D bit set for a directed-route SMP, attribute
     * data filled; hop pointer and paths untouched), or empty when the MAD is not for them
     * (other classes, responses, traps, SMInfo, ...), for the caller to deliver to umad clients.
     * A present but zero-length array means the agent consumed the MAD and answers nothing: an
     * M_Key or CC_Key violation (IBA 14.2.4.1; qib's check_mkey drops it).
     * Called with {@link Fabric#lock()} held.
     */
    public Optional<byte[]> process(int inPort, byte[] mad) {
        assert Thread.holdsLock(fabric.lock()) : "Node.process needs the fabric lock";
        if (mad.length < Mad.SIZE) {
            throw new IllegalArgumentException("a MAD is " + Mad.SIZE + " bytes, got " + mad.length);
        }
        if (!hasPort(inPort) || (inPort == 0 && type() != NodeType.SWITCH)) {
            throw new IllegalArgumentException(id() + " has no port " + inPort);
        }
        if (Mad.baseVersion(mad) != Mad.BASE_VERSION) {
            return Optional.empty();
        }
        int mgmtClass = Mad.mgmtClass(mad);
        if (MgmtClass.isSubnetManagement(mgmtClass)) {
            return Sma.process(this, inPort, mad);
        }
        if (mgmtClass == MgmtClass.PERF) {
            return Pma.process(this, inPort, mad);
        }
        if (mgmtClass == MgmtClass.CONGESTION_CONTROL) {
            return Cca.process(this, inPort, mad);
        }
        if (mgmtClass == MellanoxAttribute.VENDOR_CLASS) {
            return MellanoxVendorClass.process(this, inPort, mad);
        }
        return Optional.empty();
    }

    /** NodeInfo as answered to a Get arriving on {@code inPort} (IBA 14.2.5.3). */
    public NodeInfo nodeInfo(int inPort) {
        Port p = type() == NodeType.SWITCH ? port(0) : port(inPort);
        return new NodeInfo(Mad.BASE_VERSION, 1, type().code(), portCount(), systemImageGuid(), guid(), p.guid(),
                Port.PARTITION_CAP, deviceId(), revision(), inPort, vendorId() & 0xFFFFFF);
    }

    /** When the fabric brought the node up (System.nanoTime), for uptimes its agents report. */
    long upSinceNanos() {
        return upSinceNanos;
    }

    /** What the node's congestion control agent serves. */
    CongestionControl congestionControl() {
        return congestionControl;
    }

    /** This switch's tables; null for a CA or router. */
    SwitchTables switchTables() {
        return switchTables;
    }

    /** The LID a switch forwards to, {@code 0xFF} if none (for routing; IBA 18.2.4.3.2). */
    public int route(int lid) {
        return switchTables == null ? 0xFF : switchTables.route(lid);
    }

    /**
     * The ports a switch forwards multicast LID {@code mlid} to, by its MulticastForwardingTable
     * (IBA 18.2.4.3.3): bit {@code p % 64} of word {@code p / 64} for port p. Empty for a CA.
     * Call with the fabric lock held.
     */
    public long[] multicastRoute(int mlid) {
        return switchTables == null ? new long[(portCount() + 64) / 64] : switchTables.multicastPorts(mlid);
    }

    /** A port's link went up or down: a switch flags it in SwitchInfo (IBA 14.2.5.4). */
    void portStateChanged(Port port) {
        if (switchTables != null) {
            switchTables.portStateChange = true;
        }
        fabric.fire(new PortEvent(port, PortEvent.Kind.LINK_STATE_CHANGE));
    }

    /** Text is cut at a character boundary within 64 bytes. */
    /** The description's bytes, cut to 64 before a character that would not fit whole. */
    private static byte[] truncate(String d) {
        byte[] b = NodeDescriptionText.bytes(d);
        if (b.length <= NodeDescription.MAX_BYTES) {
            return b;
        }
        int cut = NodeDescription.MAX_BYTES;
        // back over UTF-8 continuation bytes (10xxxxxx) to the start of the straddling character
        for (int back = 0; back < 3 && (b[cut] & 0xC0) == 0x80; back++) {
            cut--;
        }
        return java.util.Arrays.copyOf(b, (b[cut] & 0xC0) == 0x80 ? NodeDescription.MAX_BYTES : cut);
    }

    @Override
    public String toString() {
        return id();
    }
}
