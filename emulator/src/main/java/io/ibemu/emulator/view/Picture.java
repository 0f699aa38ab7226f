package io.ibemu.emulator.view;

import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.topology.LinkSpec;
import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.NodeSpec;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.emulator.topology.Topology;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * What a drawing of the fabric shows, taken at one moment: the nodes with their tier (0 for a
 * channel adapter, then a switch's hop distance from the nearest one: leaves 1, spines 2...),
 * LID and whether this host plays them, and the cables with their rate and state.
 */
public record Picture(String title, List<Shape> nodes, List<Cable> cables) {
    public Picture {
        nodes = List.copyOf(nodes);
        cables = List.copyOf(cables);
    }

    /** A node: its id as the topology names it; lid 0 when it has none (or none yet). */
    public record Shape(String id, NodeType type, String description, int lid, boolean local, int tier) {
    }

    /** A cable between two ports, with the rate it trains to and its state. */
    public record Cable(String nodeA, int portA, String nodeB, int portB, LinkWidth width, LinkSpeed speed,
                        CableState state) {
        /** "4xQDR". */
        public String rate() {
            return width.lanes() + "x" + speed;
        }

        /** A stable name for the cable: "a/1-sw1/3". */
        public String name() {
            return nodeA + "/" + portA + "-" + nodeB + "/" + portB;
        }
    }

    /** A topology file as it would come up: every cable planned, no LIDs. */
    public static Picture of(String title, Topology topology) {
        List<Cable> cables = new ArrayList<>();
        for (LinkSpec l : topology.links()) {
            cables.add(new Cable(l.nodeA(), l.portA(), l.nodeB(), l.portB(),
                    l.width() != null ? l.width() : Fabric.DEFAULT_WIDTH,
                    l.speed() != null ? l.speed() : Fabric.DEFAULT_SPEED, CableState.PLANNED));
        }
        ToIntFunction<String> tiers = tiers(topology.nodes().stream()
                .filter(n -> n.type() != NodeType.SWITCH).map(NodeSpec::id).toList(), cables);
        List<Shape> nodes = new ArrayList<>();
        for (NodeSpec n : topology.nodes()) {
            nodes.add(new Shape(n.id(), n.type(), n.description(), n.baseLid(), false, tiers.applyAsInt(n.id())));
        }
        return new Picture(title, nodes, cables);
    }

    /** The running fabric: live LIDs and link states, cut cables too, {@code locals} marked. */
    public static Picture of(String title, Fabric fabric, Set<Node> locals) {
        List<Cable> cables = new ArrayList<>();
        synchronized (fabric.lock()) {
            Set<Port> seen = new HashSet<>();
            for (Node n : fabric.nodes()) {
                for (Port p : n.ports()) {
                    Port q = p.cableEnd().orElse(null);
                    if (q == null || !seen.add(p) || !seen.add(q)) {
                        continue;
                    }
                    cables.add(new Cable(n.id(), p.number(), q.node().id(), q.number(), p.trainedWidth(),
                            p.trainedSpeed(), CableState.of(p)));
                }
            }
        }
        List<Node> all = fabric.nodes();
        ToIntFunction<String> tiers = tiers(all.stream().filter(n -> n.type() != NodeType.SWITCH).map(Node::id)
                .toList(), cables);
        List<Shape> nodes = new ArrayList<>();
        for (Node n : all) {
            nodes.add(new Shape(n.id(), n.type(), n.description(), lid(n), locals.contains(n), tiers.applyAsInt(n.id())));
        }
        return new Picture(title, nodes, cables);
    }

    /** A switch's LID is port 0's; a CA's its lowest port's that has one. */
    private static int lid(Node n) {
        for (Port p : n.ports()) {
            if (p.lid() != 0) {
                return p.lid();
            }
        }
        return 0;
    }

    /**
     * Hop distance from the nearest channel adapter, over every cable (cut ones too: the shape
     * of the fabric does not change when a cable is pulled); a switch no adapter reaches sits
     * one tier above the highest.
     */
    static ToIntFunction<String> tiers(List<String> adapters, List<Cable> cables) {
        Map<String, List<String>> next = new HashMap<>();
        Set<String> all = new HashSet<>(adapters);
        for (Cable c : cables) {
            next.computeIfAbsent(c.nodeA(), k -> new ArrayList<>()).add(c.nodeB());
            next.computeIfAbsent(c.nodeB(), k -> new ArrayList<>()).add(c.nodeA());
            all.add(c.nodeA());
            all.add(c.nodeB());
        }
        Map<String, Integer> tier = new HashMap<>();
        ArrayDeque<String> queue = new ArrayDeque<>();
        for (String a : adapters) {
            tier.put(a, 0);
            queue.add(a);
        }
        int top = 0;
        while (!queue.isEmpty()) {
            String n = queue.poll();
            for (String m : next.getOrDefault(n, List.of())) {
                if (!tier.containsKey(m)) {
                    tier.put(m, tier.get(n) + 1);
                    top = Math.max(top, tier.get(n) + 1);
                    queue.add(m);
                }
            }
        }
        int unreached = top + 1;
        return id -> tier.getOrDefault(id, unreached);
    }
}
