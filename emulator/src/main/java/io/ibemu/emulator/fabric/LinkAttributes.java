package io.ibemu.emulator.fabric;

import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadStatus;
import io.ibemu.emulator.mad.MellanoxAttribute;
import io.ibemu.emulator.mad.MlnxExtPortInfo;
import io.ibemu.emulator.mad.PortInfoExtended;
import io.ibemu.emulator.topology.NodeType;

/**
 * The SMA's link attributes beyond PortInfo, addressed like it (modifier = port, 0 = the arrival
 * port on a CA): PortInfoExtended (IBA 14.2.5.21) on ports whose CapabilityMask2 advertises it,
 * and Mellanox ExtendedPortInfo (0xFF90, ibsim's do_extportinfo) on nodes running Mellanox
 * firmware. Elsewhere both answer 0x0c, as a device without them does. A change of what a link
 * may train to retrains it.
 */
final class LinkAttributes {
    private static final int DATA = Mad.SMP_DATA_OFFSET;
    /** ExtendedPortInfo StateChangeEnable bit 0: apply LinkSpeedEnabled (osm_link_mgr.c sets it with FDR10). */
    private static final int STATE_CHANGE_SPEED = 0x01;
    /** PortInfoExtended CapabilityMask bit 0: IsFECModeSupported. */
    private static final int CAP_IS_FEC_MODE_SUPPORTED = 0x1;

    private LinkAttributes() {
    }

    // ---- Mellanox ExtendedPortInfo ----

    static boolean hasMlnxExtPortInfo(Node node) {
        return MellanoxAttribute.isMellanoxFirmware(node.vendorId());
    }

    static int getMlnxExtPortInfo(Sma.Request r) {
        Port p = Sma.portInfoTarget(r);
        if (p == null) {
            return MadStatus.INVALID_FIELD;
        }
        int active = p.activeSpeed().isMellanoxFdr10() && p.physicalState() == PhysPortState.LINK_UP ? 1 : 0;
        new MlnxExtPortInfo(0, p.fdr10Supported(), p.fdr10Enabled, active).encode(r.response, DATA);
        return MadStatus.SUCCESS;
    }

    static int setMlnxExtPortInfo(Sma.Request r) {
        Port p = Sma.portInfoTarget(r);
        if (p == null) {
            return MadStatus.INVALID_FIELD;
        }
        MlnxExtPortInfo want = MlnxExtPortInfo.decode(r.response, DATA);
        if ((want.stateChangeEnable() & STATE_CHANGE_SPEED) == 0) {
            return MadStatus.SUCCESS;
        }
        if ((want.linkSpeedEnabled() & ~p.fdr10Supported()) != 0) {
            return MadStatus.INVALID_FIELD;
        }
        if (want.linkSpeedEnabled() != p.fdr10Enabled) {
            p.fdr10Enabled = want.linkSpeedEnabled();
            p.retrain();
        }
        return MadStatus.SUCCESS;
    }

    // ---- PortInfoExtended ----

    private static Port extendedTarget(Sma.Request r) {
        Port p = Sma.portInfoTarget(r);
        return p == null || (r.node.type() == NodeType.SWITCH && p.number() == 0) ? null : p;
    }

    /** A node whose ports (a switch: any of them, as port 0 advertises) reach HDR or NDR. */
    static boolean hasPortInfoExtended(Node node) {
        return node.ports().stream().anyMatch(Port::hasPortInfoExtended);
    }

    static int getPortInfoExtended(Sma.Request r) {
        Port p = extendedTarget(r);
        if (p == null) {
            return MadStatus.INVALID_FIELD;
        }
        int[] en = p.fecEnabled;
        new PortInfoExtended(CAP_IS_FEC_MODE_SUPPORTED, p.fecActive,
                p.fecSupported(Fec.FDR), en[Fec.FDR.ordinal()], p.fecSupported(Fec.EDR), en[Fec.EDR.ordinal()],
                p.fecSupported(Fec.HDR), en[Fec.HDR.ordinal()], p.fecSupported(Fec.NDR), en[Fec.NDR.ordinal()])
                .encode(r.response, DATA);
        return MadStatus.SUCCESS;
    }

    static int setPortInfoExtended(Sma.Request r) {
        Port p = extendedTarget(r);
        if (p == null) {
            return MadStatus.INVALID_FIELD;
        }
        PortInfoExtended want = PortInfoExtended.decode(r.response, DATA);
        int[] asked = {want.fdrFecModeEnabled(), want.edrFecModeEnabled(), want.hdrFecModeEnabled(),
            want.ndrFecModeEnabled()};
        int[] next = p.fecEnabled.clone();
        for (Fec f : Fec.values()) {
            int v = asked[f.ordinal()];
            if (v == 0) {
                continue; // 0 leaves the generation's modes as they are
            }
            if ((v & ~p.fecSupported(f)) != 0) {
                return MadStatus.INVALID_FIELD;
            }
            next[f.ordinal()] = v;
        }
        if (!java.util.Arrays.equals(next, p.fecEnabled)) {
            p.fecEnabled = next;
            p.retrain();
        }
        return MadStatus.SUCCESS;
    }
}
