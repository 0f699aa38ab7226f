package io.ibemu.emulator.topology;

import java.util.List;
import java.util.Optional;

/** A parsed fabric description: nodes in file order, links in the order first declared. */
public record Topology(List<NodeSpec> nodes, List<LinkSpec> links) {
    public Topology {
        nodes = List.copyOf(nodes);
        links = List.copyOf(links);
    }

    public Optional<NodeSpec> node(String id) {
        return nodes.stream().filter(n -> n.id().equals(id)).findFirst();
    }
}
