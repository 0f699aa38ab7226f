package io.ibemu.emulator.device;

import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;

/**
 * A fabric node that is "this host": it gets a device name, a PCI-like slot, and one umad and
 * issm device per port, numbered as ib_umad numbers them (in order of devices, then ports).
 * The name is the identity's until a rename (RDMA_NLDEV_CMD_SET); everything that shows it
 * (sysfs ibdev files, uevent NAME, netlink) reads it here.
 */
public final class LocalHca {

    private final int index;
    private final Node node;
    private final HcaIdentity identity;
    private final String pciSlot;
    private final int firstUmadMinor;
    private volatile String name;

    public LocalHca(int index, Node node, HcaIdentity identity, String pciSlot, int firstUmadMinor) {
        this.index = index;
        this.node = node;
        this.identity = identity;
        this.pciSlot = pciSlot;
        this.firstUmadMinor = firstUmadMinor;
        this.name = identity.name();
    }

    public int index() {
        return index;
    }

    public Node node() {
        return node;
    }

    public HcaIdentity identity() {
        return identity;
    }

    public String pciSlot() {
        return pciSlot;
    }

    public int firstUmadMinor() {
        return firstUmadMinor;
    }

    /** The device name now (dev_name of the ib_device). */
    public String name() {
        return name;
    }

    /** Takes {@code newName}; the caller (InfinibandSysfs.rename) moves the sysfs entries with it. */
    public void rename(String newName) {
        name = newName;
    }

    public Port port(int number) {
        return node.port(number);
    }

    public int umadIndex(int portNumber) {
        return firstUmadMinor + portNumber - 1;
    }

    @Override
    public String toString() {
        return "LocalHca[" + index + " " + name + " " + pciSlot + "]";
    }
}
