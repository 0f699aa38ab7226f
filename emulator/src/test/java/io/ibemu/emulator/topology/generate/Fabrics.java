package io.ibemu.emulator.topology.generate;

import io.ibemu.emulator.topology.LinkSpec;
import io.ibemu.emulator.topology.NodeSpec;
import io.ibemu.emulator.topology.Topology;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Graph questions the generator tests ask of a topology. */
final class Fabrics {
    private Fabrics() {
    }

    /** Cables between two nodes, by node id. */
    static long cables(Topology t, String a, String b) {
        return t.links().stream().filter(l -> l.nodeA().equals(a) && l.nodeB().equals(b)
                || l.nodeA().equals(b) && l.nodeB().equals(a)).count();
    }

    /** Neighbours with multiplicity lost: node id to the ids it has a cable to. */
    static Map<String, Set<String>> adjacency(Topology t) {
        Map<String, Set<String>> adj = new HashMap<>();
        for (NodeSpec n : t.nodes()) {
            adj.put(n.id(), new HashSet<>());
        }
        for (LinkSpec l : t.links()) {
            adj.get(l.nodeA()).add(l.nodeB());
            adj.get(l.nodeB()).add(l.nodeA());
        }
        return adj;
    }

    /** Hops from one node to every node it reaches. */
    static Map<String, Integer> hops(Topology t, String from) {
        Map<String, Set<String>> adj = adjacency(t);
        Map<String, Integer> dist = new HashMap<>();
        ArrayDeque<String> queue = new ArrayDeque<>(List.of(from));
        dist.put(from, 0);
        while (!queue.isEmpty()) {
            String n = queue.poll();
            for (String m : adj.get(n)) {
                if (dist.putIfAbsent(m, dist.get(n) + 1) == null) {
                    queue.add(m);
                }
            }
        }
        return dist;
    }

    /** Each cable once, written "a[1]-b[2]" with the smaller end first, with width and speed. */
    static Set<String> cableSet(Topology t) {
        Set<String> s = new HashSet<>();
        for (LinkSpec l : t.links()) {
            String a = l.nodeA() + "[" + l.portA() + "]";
            String b = l.nodeB() + "[" + l.portB() + "]";
            s.add((a.compareTo(b) < 0 ? a + "-" + b : b + "-" + a) + " " + l.width() + " " + l.speed());
        }
        return s;
    }

    static List<String> ids(Topology t, String prefix) {
        List<String> ids = new ArrayList<>();
        for (NodeSpec n : t.nodes()) {
            if (n.id().startsWith(prefix)) {
                ids.add(n.id());
            }
        }
        return ids;
    }
}
