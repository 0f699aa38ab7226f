package io.ibemu.emulator.fabric;

import io.ibemu.emulator.mad.CaCongestionSetting;
import io.ibemu.emulator.mad.CongestionControlTable;
import io.ibemu.emulator.mad.CongestionKeyInfo;
import io.ibemu.emulator.mad.MellanoxAttribute;
import io.ibemu.emulator.mad.SwitchCongestionSetting;
import io.ibemu.emulator.mad.SwitchPortCongestionSetting;
import io.ibemu.emulator.topology.NodeType;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A node's Congestion Control state (IBA annex A10), what its CCA serves: CongestionKeyInfo per
 * management port (a CA's ports, a switch's port 0), a switch's SwitchCongestionSetting and its
 * ports' elements, a CA port's CACongestionSetting and CongestionControlTable. Values are the
 * decoded records, replaced whole; changed only under the fabric lock (the CCA runs there). Power-on
 * values are all zero, as the annex leaves them until a CC manager writes them.
 */
final class CongestionControl {
    /** CongestionControlTable blocks of 64 a CA port holds (ControlTableCap): OpenSM's OSM_CCT_ENTRY_MAX, 128. */
    static final int CA_TABLE_BLOCKS = 2;
    private static final List<Integer> ZERO_32 = Collections.nCopies(32, 0);

    private final Node node;
    private final long startNanos = System.nanoTime();
    private final CongestionKeyInfo[] keys;
    private SwitchCongestionSetting switchSetting =
            new SwitchCongestionSetting(0, ZERO_32, ZERO_32, 0, 0, 0, 0, 0);
    private final SwitchPortCongestionSetting[] portBlocks;
    private final CaCongestionSetting[] caSettings;
    /** Per CA port: CCTI_Limit and the entries as shift << 14 | multiplier. */
    private final int[] cctiLimits;
    private final int[][] tables;

    CongestionControl(Node node) {
        this.node = node;
        int ports = node.portCount() + 1;
        keys = new CongestionKeyInfo[ports];
        Arrays.fill(keys, new CongestionKeyInfo(0, false, 0, 0));
        List<Integer> zero = Collections.nCopies(SwitchPortCongestionSetting.PER_BLOCK, 0);
        portBlocks = new SwitchPortCongestionSetting[ports / SwitchPortCongestionSetting.PER_BLOCK + 1];
        Arrays.fill(portBlocks, new SwitchPortCongestionSetting(zero, zero, zero, zero, zero));
        List<Integer> zeroSl = Collections.nCopies(CaCongestionSetting.SLS, 0);
        caSettings = new CaCongestionSetting[ports];
        Arrays.fill(caSettings, new CaCongestionSetting(0, 0, zeroSl, zeroSl, zeroSl, zeroSl));
        cctiLimits = new int[ports];
        tables = new int[ports][CA_TABLE_BLOCKS * CongestionControlTable.PER_BLOCK];
    }

    /**
     * Whether the node has a CCA: Mellanox firmware does, on switches and CAs. A QLogic HCA's qib
     * driver only answers with its cc_table_size module parameter set, 0 by default, and then the
     * class falls to the MAD layer's 0x0c (qib_process_mad); other vendors are taken to have none.
     */
    static boolean hasAgent(Node node) {
        return MellanoxAttribute.isMellanoxFirmware(node.vendorId());
    }

    /** The free-running TimeStamp clock, 1.024 us a tick (annex A10.4.3.10). */
    int timestamp() {
        return (int) ((System.nanoTime() - startNanos) / 1024);
    }

    /** The management port a CC MAD arriving on {@code inPort} addresses: a switch's port 0. */
    int managementPort(int inPort) {
        return node.type() == NodeType.SWITCH ? 0 : inPort;
    }

    CongestionKeyInfo key(int port) {
        return keys[port];
    }

    void setKey(int port, CongestionKeyInfo k) {
        keys[port] = k;
    }

    SwitchCongestionSetting switchSetting() {
        return switchSetting;
    }

    void setSwitchSetting(SwitchCongestionSetting s) {
        switchSetting = s;
    }

    /** Blocks of 32 ports: block b holds ports 32b..32b+31, port 0 included in block 0. */
    int portBlocks() {
        return portBlocks.length;
    }

    SwitchPortCongestionSetting portBlock(int block) {
        return portBlocks[block];
    }

    void setPortBlock(int block, SwitchPortCongestionSetting s) {
        portBlocks[block] = s;
    }

    CaCongestionSetting caSetting(int port) {
        return caSettings[port];
    }

    void setCaSetting(int port, CaCongestionSetting s) {
        caSettings[port] = s;
    }

    CongestionControlTable table(int port, int block) {
        Integer[] shift = new Integer[CongestionControlTable.PER_BLOCK];
        Integer[] multiplier = new Integer[CongestionControlTable.PER_BLOCK];
        for (int i = 0; i < shift.length; i++) {
            int e = tables[port][block * CongestionControlTable.PER_BLOCK + i];
            shift[i] = e >>> 14;
            multiplier[i] = e & 0x3FFF;
        }
        return new CongestionControlTable(cctiLimits[port], List.of(shift), List.of(multiplier));
    }

    void setTable(int port, int block, CongestionControlTable t) {
        cctiLimits[port] = t.cctiLimit();
        for (int i = 0; i < CongestionControlTable.PER_BLOCK; i++) {
            tables[port][block * CongestionControlTable.PER_BLOCK + i] = t.cctShift().get(i) << 14
                    | t.cctMultiplier().get(i);
        }
    }
}
