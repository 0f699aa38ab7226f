package io.ibemu.emulator.fabric;

import io.ibemu.emulator.topology.LinkSpec;
import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.NodeSpec;
import io.ibemu.emulator.topology.Topology;
import java.util.ArrayList;
import io.ibemu.emulator.topology.NodeType;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The emulated subnet: nodes and cables built from a {@link Topology}, in its order, so the same
 * file gives the same fabric. Starts as after power-on with no subnet manager: cabled ports
 * LinkUp/Init without LIDs, the others Polling/Down.
 */
public final class Fabric {
    /** What a link trains to when its topology does not say (a QLE7340's 4x QDR). */
    public static final LinkWidth DEFAULT_WIDTH = LinkWidth.X4;
    public static final LinkSpeed DEFAULT_SPEED = LinkSpeed.QDR;

    private final Object lock = new Object();
    private volatile MadFault madFault = MadFault.NONE;
    private final Topology topology;
    /** Replaced whole under the lock when a node comes or goes, so readers iterate a snapshot. */
    private volatile List<Node> nodes;
    private final Map<String, Node> byId = new ConcurrentHashMap<>();
    private final Map<Long, Node> byGuid = new ConcurrentHashMap<>();
    private final List<Consumer<PortEvent>> listeners = new CopyOnWriteArrayList<>();

    private Fabric(Topology topology) {
        this.topology = topology;
        List<Node> list = new ArrayList<>();
        for (NodeSpec spec : topology.nodes()) {
            Node n = new Node(this, spec);
            if (byId.putIfAbsent(spec.id(), n) != null) {
                throw new IllegalArgumentException("node id " + spec.id() + " twice");
            }
            if (byGuid.putIfAbsent(spec.nodeGuid(), n) != null) {
                throw new IllegalArgumentException(String.format("node GUID 0x%016x twice", spec.nodeGuid()));
            }
            list.add(n);
        }
        this.nodes = List.copyOf(list);
        for (LinkSpec l : topology.links()) {
            Port a = end(l.nodeA(), l.portA());
            Port b = end(l.nodeB(), l.portB());
            if (a.cableEnd().isPresent() || b.cableEnd().isPresent() || a == b) {
                throw new IllegalArgumentException("port cabled twice: " + l);
            }
            plug(a, b, l);
        }
        for (Node n : nodes) {
            for (Port p : n.ports()) {
                if (p.peer().isPresent()) {
                    p.train();
                }
            }
        }
    }

    public static Fabric of(Topology topology) {
        return new Fabric(topology);
    }

    private Port end(String id, int port) {
        Node n = byId.get(id);
        if (n == null || port < 1 || !n.hasPort(port)) {
            throw new IllegalArgumentException("no port " + id + "[" + port + "]");
        }
        return n.port(port);
    }

    private static void plug(Port a, Port b, LinkSpec l) {
        LinkWidth w = l.width() != null ? l.width() : DEFAULT_WIDTH;
        LinkSpeed s = l.speed() != null ? l.speed() : DEFAULT_SPEED;
        a.cable(b, w, s);
        b.cable(a, w, s);
    }

    /** The topology the fabric was built from; {@link #currentTopology} for what it is now. */
    public Topology topology() {
        return topology;
    }

    /** The nodes now, in the order they joined: a snapshot, safe to iterate while nodes come and go. */
    public List<Node> nodes() {
        return nodes;
    }

    /** By the file's id ("H-0002c9...", the quoted net name) or by node GUID written "0x...". */
    public Optional<Node> node(String idOrGuid) {
        Node n = byId.get(idOrGuid);
        if (n == null && (idOrGuid.startsWith("0x") || idOrGuid.startsWith("0X"))) {
            try {
                n = byGuid.get(Long.parseUnsignedLong(idOrGuid.substring(2), 16));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
        return Optional.ofNullable(n);
    }

    /**
     * Adds a node and cables it, as plugging a new machine in: every link in {@code links} names
     * the new node's id at one end and a free port of the fabric at the other (by id or 0x GUID);
     * both ends train to LinkUp/Init. Everything is checked before anything changes.
     *
     * @throws IllegalArgumentException naming what is wrong (id or GUID taken, port busy, ...)
     */
    public Node addNode(NodeSpec spec, List<LinkSpec> links) {
        synchronized (lock) {
            if (byId.containsKey(spec.id())) {
                throw new IllegalArgumentException("a node \"" + spec.id() + "\" is already in the fabric");
            }
            if (byGuid.containsKey(spec.nodeGuid())) {
                throw new IllegalArgumentException(String.format("node GUID 0x%016x is taken by \"%s\"",
                        spec.nodeGuid(), byGuid.get(spec.nodeGuid()).id()));
            }
            for (long g : spec.portGuids()) {
                portWithGuid(g).ifPresent(p -> {
                    throw new IllegalArgumentException(String.format("port GUID 0x%016x is taken by %s", g, p));
                });
            }
            Node n = new Node(this, spec);
            List<Port[]> pairs = new ArrayList<>();
            for (LinkSpec l : links) {
                boolean mineIsA = l.nodeA().equals(spec.id());
                if (!mineIsA && !l.nodeB().equals(spec.id())) {
                    throw new IllegalArgumentException("a link of the new node must have it at one end: " + l);
                }
                Port mine = freePort(n, mineIsA ? l.portA() : l.portB());
                String ref = mineIsA ? l.nodeB() : l.nodeA();
                Node other = node(ref).orElseThrow(() -> new IllegalArgumentException("no node \"" + ref
                        + "\" in the fabric (give its id, as dump lists it, or its 0x GUID)"));
                Port theirs = freePort(other, mineIsA ? l.portB() : l.portA());
                for (Port[] pair : pairs) {
                    if (pair[0] == mine || pair[1] == theirs) {
                        throw new IllegalArgumentException((pair[0] == mine ? mine : theirs) + " is cabled twice");
                    }
                }
                pairs.add(new Port[] {mine, theirs});
            }
            byId.put(spec.id(), n);
            byGuid.put(spec.nodeGuid(), n);
            List<Node> list = new ArrayList<>(nodes);
            list.add(n);
            nodes = List.copyOf(list);
            for (int i = 0; i < pairs.size(); i++) {
                plug(pairs.get(i)[0], pairs.get(i)[1], links.get(i));
                pairs.get(i)[0].train();
            }
            return n;
        }
    }

    /** A port that can take a new cable: it exists and has none (a cut cable still counts). */
    private static Port freePort(Node n, int port) {
        if (port < 1 || !n.hasPort(port)) {
            throw new IllegalArgumentException("\"" + n.id() + "\" has ports 1.." + n.portCount() + ", not " + port);
        }
        Port p = n.port(port);
        if (p.cableEnd().isPresent()) {
            throw new IllegalArgumentException(p + " already has a cable, to " + p.cableEnd().get()
                    + (p.isCut() ? " (cut)" : ""));
        }
        return p;
    }

    /**
     * Cables two free ports of the fabric, as plugging a new cable in: both ends train to
     * LinkUp/Init at {@code width} and {@code speed} (null: the defaults).
     */
    public void connect(Port a, Port b, LinkWidth width, LinkSpeed speed) {
        synchronized (lock) {
            for (Port p : new Port[] {a, b}) {
                if (byId.get(p.node().id()) != p.node()) {
                    throw new IllegalArgumentException("\"" + p.node().id() + "\" is not in the fabric");
                }
                freePort(p.node(), p.number());
            }
            if (a == b) {
                throw new IllegalArgumentException(a + " cannot be cabled to itself");
            }
            plug(a, b, new LinkSpec(a.node().id(), a.number(), b.node().id(), b.number(), width, speed));
            a.train();
        }
    }

    /**
     * Takes a node out of the fabric, as unplugging its cables and carrying it away: the ports
     * it was cabled to go Down/Polling and become free.
     */
    public void removeNode(Node node) {
        synchronized (lock) {
            if (byId.get(node.id()) != node) {
                throw new IllegalArgumentException("\"" + node.id() + "\" is not in the fabric");
            }
            for (Port p : node.ports()) {
                p.unplug();
            }
            byId.remove(node.id());
            byGuid.remove(node.guid(), node);
            List<Node> list = new ArrayList<>(nodes);
            list.remove(node);
            nodes = List.copyOf(list);
        }
    }

    /** Changes a node's GUID (NodeInfo NodeGUID, sysfs node_guid); refused if another node has it. */
    public void setNodeGuid(Node node, long guid) {
        if (guid == 0) {
            throw new IllegalArgumentException("GUID 0 is reserved");
        }
        synchronized (lock) {
            Node other = byGuid.get(guid);
            if (other != null && other != node) {
                throw new IllegalArgumentException(String.format("node GUID 0x%016x is taken by \"%s\"", guid,
                        other.id()));
            }
            byGuid.remove(node.guid(), node);
            node.setGuid(guid);
            byGuid.put(guid, node);
        }
    }

    /**
     * Changes a port GUID (NodeInfo PortGUID, GUIDInfo entry 0, GID 0; GID_CHANGE). A switch's
     * ports share port 0's GUID, so it changes on all of them.
     */
    public void setPortGuid(Port port, long guid) {
        if (guid == 0) {
            throw new IllegalArgumentException("GUID 0 is reserved");
        }
        synchronized (lock) {
            Node node = port.node();
            Optional<Port> other = portWithGuid(guid);
            if (other.isPresent() && other.get().node() != node
                    || other.isPresent() && node.type() != NodeType.SWITCH && other.get() != port) {
                throw new IllegalArgumentException(String.format("port GUID 0x%016x is taken by %s", guid,
                        other.get()));
            }
            if (node.type() == NodeType.SWITCH) {
                for (Port p : node.ports()) {
                    p.setGuid(guid);
                }
            } else {
                port.setGuid(guid);
            }
        }
    }

    private Optional<Port> portWithGuid(long guid) {
        for (Node n : nodes) {
            for (Port p : n.ports()) {
                if (p.guid() == guid) {
                    return Optional.of(p);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The fabric as it is now, as a topology: the nodes with their present GUIDs and
     * descriptions, the plugged-in links (not cut ones) with what they train to, in node order.
     * LIDs are the present ones (switch port 0, else the lowest port).
     */
    public Topology currentTopology() {
        synchronized (lock) {
            List<NodeSpec> specs = new ArrayList<>();
            List<LinkSpec> links = new ArrayList<>();
            for (Node n : nodes) {
                NodeSpec s = n.spec();
                List<Long> portGuids = new ArrayList<>();
                int baseLid = 0;
                for (Port p : n.ports()) {
                    if (n.type() == NodeType.SWITCH ? p.number() == 0 : true) {
                        portGuids.add(p.guid());
                    }
                    if (baseLid == 0 && p.lid() != 0) {
                        baseLid = p.lid();
                    }
                }
                specs.add(new NodeSpec(s.type(), s.id(), n.guid(), s.systemImageGuid(), n.description(),
                        s.portCount(), portGuids, s.vendorId(), s.deviceId(), s.revision(), baseLid,
                        s.enhancedPort0(), s.ipoibAddresses()));
            }
            Map<Port, Boolean> seen = new HashMap<>();
            for (Node n : nodes) {
                for (Port p : n.ports()) {
                    Optional<Port> peer = p.peer();
                    if (peer.isPresent() && seen.putIfAbsent(peer.get(), true) == null) {
                        seen.put(p, true);
                        links.add(new LinkSpec(n.id(), p.number(), peer.get().node().id(), peer.get().number(),
                                p.trainedWidth(), p.trainedSpeed()));
                    }
                }
            }
            return new Topology(specs, links);
        }
    }

    /** What a fault rule makes of each MAD leaving a port (MadFault.NONE: nothing). */
    public void madFault(MadFault fault) {
        this.madFault = fault;
    }

    MadFault madFault() {
        return madFault;
    }

    /** The one lock that guards all mutable fabric state; never held while blocking. */
    public Object lock() {
        return lock;
    }

    /**
     * Hears every {@link PortEvent}. Listeners run with the lock held, on the thread that made
     * the change: they must not block.
     */
    public void addListener(Consumer<PortEvent> listener) {
        listeners.add(listener);
    }

    public void removeListener(Consumer<PortEvent> listener) {
        listeners.remove(listener);
    }

    void fire(PortEvent event) {
        for (Consumer<PortEvent> l : listeners) {
            l.accept(event);
        }
    }
}
