package io.ibemu.emulator.topology;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One node as a topology file describes it. {@code id} is the file's name for it (the quoted
 * net name, or ibnetdiscover's "S-&lt;guid&gt;"/"H-&lt;guid&gt;"). {@code portGuids}: for a CA or
 * router one GUID per port, port 1 first; for a switch one, the GUID of port 0, which all its
 * ports share. {@code baseLid} is the LID the file records (switch port 0, else the lowest
 * listed port), 0 if none; the fabric starts without LIDs, as after power-on.
 * {@code vendorId}/{@code deviceId} are the adapter's PCI ids (what sysfs and the verbs provider
 * match on) and are also what NodeInfo reports. {@code ipoibAddresses}: by port number, the
 * IPv4 address the file gives a CA port's IPoIB interface (ibemu's {@code ipoib=} port option).
 */
public record NodeSpec(NodeType type, String id, long nodeGuid, long systemImageGuid, String description,
                       int portCount, List<Long> portGuids, int vendorId, int deviceId, int revision,
                       int baseLid, boolean enhancedPort0, Map<Integer, IpoibAddress> ipoibAddresses) {
    public NodeSpec {
        portGuids = List.copyOf(portGuids);
        ipoibAddresses = Collections.unmodifiableMap(new TreeMap<>(ipoibAddresses));
        if (portCount < 1 || portCount > 254) {
            throw new IllegalArgumentException(id + ": port count " + portCount);
        }
        if (portGuids.size() != (type == NodeType.SWITCH ? 1 : portCount)) {
            throw new IllegalArgumentException(
                    id + ": " + portGuids.size() + " port GUIDs for " + portCount + " ports");
        }
        for (int port : ipoibAddresses.keySet()) {
            if (type != NodeType.CA || port < 1 || port > portCount) {
                throw new IllegalArgumentException(id + ": an IPoIB address for port " + port);
            }
        }
    }

    /** A node without IPoIB addresses. */
    public NodeSpec(NodeType type, String id, long nodeGuid, long systemImageGuid, String description,
                    int portCount, List<Long> portGuids, int vendorId, int deviceId, int revision,
                    int baseLid, boolean enhancedPort0) {
        this(type, id, nodeGuid, systemImageGuid, description, portCount, portGuids, vendorId, deviceId, revision,
                baseLid, enhancedPort0, Map.of());
    }

    /** The GUID of a port: switch ports all share port 0's. */
    public long portGuid(int port) {
        return type == NodeType.SWITCH ? portGuids.get(0) : portGuids.get(port - 1);
    }

    /** The IPv4 address the topology gives this port's IPoIB interface, if any. */
    public Optional<IpoibAddress> ipoibAddress(int port) {
        return Optional.ofNullable(ipoibAddresses.get(port));
    }
}
