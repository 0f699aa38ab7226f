package io.ibemu.emulator.fabric;

import io.ibemu.emulator.topology.LinkSpec;
import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.NodeSpec;
import io.ibemu.emulator.topology.Topology;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
    private final Topology topology;
    private final List<Node> nodes;
    private final Map<String, Node> byId = new HashMap<>();
    private final Map<Long, Node> byGuid = new HashMap<>();
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
        this.nodes = Collections.unmodifiableList(list);
        for (LinkSpec l : topology.links()) {
            Port a = end(l.nodeA(), l.portA());
            Port b = end(l.nodeB(), l.portB());
            if (a.peer().isPresent() || b.peer().isPresent() || a == b) {
                throw new IllegalArgumentException("port cabled twice: " + l);
            }
            LinkWidth w = l.width() != null ? l.width() : DEFAULT_WIDTH;
            LinkSpeed s = l.speed() != null ? l.speed() : DEFAULT_SPEED;
            a.cable(b, w, s);
            b.cable(a, w, s);
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

    public Topology topology() {
        return topology;
    }

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
