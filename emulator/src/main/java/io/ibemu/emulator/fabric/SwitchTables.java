package io.ibemu.emulator.fabric;

import io.ibemu.emulator.mad.LinearForwardingTable;
import io.ibemu.emulator.mad.MulticastForwardingTable;
import io.ibemu.emulator.mad.SwitchInfo;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a switch holds beyond its ports (IBA 14.2.5.4, .10, .12): the SwitchInfo the SM sets,
 * the linear and multicast forwarding tables, and the SLtoVL tables per (in, out) port pair.
 * Guarded by the fabric lock; tables are allocated as the SM fills them.
 */
final class SwitchTables {
    /** The whole unicast LID space, as ibsim's switches offer. */
    static final int LINEAR_FDB_CAP = 0xC000;
    static final int MULTICAST_FDB_CAP = 1024;
    static final int MULTICAST_LID_BASE = 0xC000;
    static final int PARTITION_ENFORCEMENT_CAP = Port.PARTITION_CAP;

    private final int portCount;
    private final boolean enhancedPort0;
    int linearFdbTop;
    int defaultPort;
    int defaultMulticastPrimaryPort;
    int defaultMulticastNotPrimaryPort;
    int lifeTimeValue;
    /** Set when a port's link goes up or down; the SM clears it by writing 1 (IBA 14.2.5.4). */
    boolean portStateChange;
    int lidsPerPort;
    int multicastFdbTop;
    private final byte[][] linear = new byte[LINEAR_FDB_CAP / LinearForwardingTable.PER_BLOCK][];
    private final int[][][] multicast;
    private final Map<Integer, int[]> slToVl = new HashMap<>();

    SwitchTables(int portCount, boolean enhancedPort0) {
        this.portCount = portCount;
        this.enhancedPort0 = enhancedPort0;
        this.multicast = new int[MULTICAST_FDB_CAP / MulticastForwardingTable.PER_BLOCK][positions()][];
    }

    int positions() {
        return portCount / MulticastForwardingTable.PORTS_PER_POSITION + 1;
    }

    SwitchInfo switchInfo() {
        return new SwitchInfo(LINEAR_FDB_CAP, 0, MULTICAST_FDB_CAP, linearFdbTop, defaultPort,
                defaultMulticastPrimaryPort, defaultMulticastNotPrimaryPort, lifeTimeValue, portStateChange, 0,
                lidsPerPort, PARTITION_ENFORCEMENT_CAP, true, true, true, true, enhancedPort0, multicastFdbTop);
    }

    /** The output port of a unicast LID, {@link LinearForwardingTable#NO_PORT} when none. */
    int route(int lid) {
        if (lid < 0 || lid >= LINEAR_FDB_CAP) {
            return LinearForwardingTable.NO_PORT;
        }
        byte[] block = linear[lid / LinearForwardingTable.PER_BLOCK];
        return block == null ? LinearForwardingTable.NO_PORT : block[lid % LinearForwardingTable.PER_BLOCK] & 0xFF;
    }

    /**
     * Empties the linear table and sets LinearFDBTop, as an SM does before it writes the blocks;
     * blocks are then allocated only as entries up to the top are set.
     */
    void resetLinear(int top) {
        Arrays.fill(linear, null);
        linearFdbTop = top;
    }

    /** One entry of the linear table, its block allocated (all NO_PORT) on first use. */
    void setLinear(int lid, int port) {
        byte[] block = linear[lid / LinearForwardingTable.PER_BLOCK];
        if (block == null) {
            block = new byte[LinearForwardingTable.PER_BLOCK];
            Arrays.fill(block, (byte) LinearForwardingTable.NO_PORT);
            linear[lid / LinearForwardingTable.PER_BLOCK] = block;
        }
        block[lid % LinearForwardingTable.PER_BLOCK] = (byte) port;
    }

    /** How many blocks of the linear table hold memory. */
    int allocatedLinearBlocks() {
        int n = 0;
        for (byte[] b : linear) {
            n += b == null ? 0 : 1;
        }
        return n;
    }

    /** A block as the attribute carries it (one port byte per LID, IBA 14.2.5.10), copied out. */
    void copyLinearBlock(int block, byte[] to, int offset) {
        byte[] b = linear[block];
        if (b == null) {
            Arrays.fill(to, offset, offset + LinearForwardingTable.PER_BLOCK, (byte) LinearForwardingTable.NO_PORT);
        } else {
            System.arraycopy(b, 0, to, offset, LinearForwardingTable.PER_BLOCK);
        }
    }

    /** A block written by the SM, copied in from the attribute's bytes. */
    void setLinearBlock(int block, byte[] from, int offset) {
        linear[block] = Arrays.copyOfRange(from, offset, offset + LinearForwardingTable.PER_BLOCK);
    }

    MulticastForwardingTable multicastBlock(int block, int position) {
        int[] masks = multicast[block][position];
        Integer[] out = new Integer[MulticastForwardingTable.PER_BLOCK];
        for (int i = 0; i < out.length; i++) {
            out[i] = masks == null ? 0 : masks[i];
        }
        return new MulticastForwardingTable(List.of(out));
    }

    void setMulticastBlock(int block, int position, MulticastForwardingTable t) {
        multicast[block][position] = t.portMasks().stream().mapToInt(Integer::intValue).toArray();
    }

    /** The ports an MLID is forwarded to, as a bit set over port numbers. */
    long[] multicastPorts(int mlid) {
        int index = mlid - MULTICAST_LID_BASE;
        long[] ports = new long[(portCount + 64) / 64];
        if (index < 0 || index >= MULTICAST_FDB_CAP) {
            return ports;
        }
        for (int position = 0; position < positions(); position++) {
            int[] masks = multicast[index / MulticastForwardingTable.PER_BLOCK][position];
            int mask = masks == null ? 0 : masks[index % MulticastForwardingTable.PER_BLOCK];
            for (int bit = 0; bit < 16; bit++) {
                int port = position * 16 + bit;
                if ((mask & (1 << bit)) != 0 && port <= portCount) {
                    ports[port / 64] |= 1L << (port % 64);
                }
            }
        }
        return ports;
    }

    int[] slToVl(int inPort, int outPort) {
        int[] t = slToVl.get(inPort << 8 | outPort);
        return t == null ? new int[16] : t.clone();
    }

    void setSlToVl(int inPort, int outPort, int[] vls) {
        slToVl.put(inPort << 8 | outPort, Arrays.copyOf(vls, 16));
    }
}
