package io.ibemu.emulator.device;

import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;

/**
 * A fabric node that is "this host": it gets a device name, a PCI-like slot, and one umad and
 * issm device per port, numbered as ib_umad numbers them (in order of devices, then ports).
 */
public record LocalHca(int index, Node node, HcaIdentity identity, String pciSlot, int firstUmadMinor) {

    public String name() {
        return identity.name();
    }

    public Port port(int number) {
        return node.port(number);
    }

    public int umadIndex(int portNumber) {
        return firstUmadMinor + portNumber - 1;
    }
}
