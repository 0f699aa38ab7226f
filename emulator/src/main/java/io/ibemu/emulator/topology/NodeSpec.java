package io.ibemu.emulator.topology;

import java.util.List;

/**
 * One node as a topology file describes it. {@code id} is the file's name for it (the quoted
 * net name, or ibnetdiscover's "S-&lt;guid&gt;"/"H-&lt;guid&gt;"). {@code portGuids}: for a CA or
 * router one GUID per port, port 1 first; for a switch one, the GUID of port 0, which all its
 * ports share. {@code baseLid} is the LID the file records (switch port 0, else the lowest
 * listed port), 0 if none; the fabric starts without LIDs, as after power-on.
 * {@code vendorId}/{@code deviceId} are the adapter's PCI ids (what sysfs and the verbs provider
 * match on) and are also what NodeInfo reports.
 */
public record NodeSpec(NodeType type, String id, long nodeGuid, long systemImageGuid, String description,
                       int portCount, List<Long> portGuids, int vendorId, int deviceId, int revision,
                       int baseLid, boolean enhancedPort0) {
    public NodeSpec {
        portGuids = List.copyOf(portGuids);
        if (portCount < 1 || portCount > 254) {
            throw new IllegalArgumentException(id + ": port count " + portCount);
        }
        if (portGuids.size() != (type == NodeType.SWITCH ? 1 : portCount)) {
            throw new IllegalArgumentException(
                    id + ": " + portGuids.size() + " port GUIDs for " + portCount + " ports");
        }
    }

    /** The GUID of a port: switch ports all share port 0's. */
    public long portGuid(int port) {
        return type == NodeType.SWITCH ? portGuids.get(0) : portGuids.get(port - 1);
    }
}
