package io.ibemu.emulator.fabric;

import static java.util.Map.entry;

import io.ibemu.emulator.mad.Bits;
import io.ibemu.emulator.mad.CaCongestionLog;
import io.ibemu.emulator.mad.CaCongestionSetting;
import io.ibemu.emulator.mad.CcAttribute;
import io.ibemu.emulator.mad.ClassPortInfo;
import io.ibemu.emulator.mad.CongestionControlTable;
import io.ibemu.emulator.mad.CongestionInfo;
import io.ibemu.emulator.mad.CongestionKeyInfo;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadStatus;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.SwitchCongestionLog;
import io.ibemu.emulator.mad.SwitchCongestionSetting;
import io.ibemu.emulator.mad.SwitchPortCongestionSetting;
import io.ibemu.emulator.mad.TimeStamp;
import io.ibemu.emulator.topology.NodeType;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The congestion control agent of a node (IBA annex A10; the dispatch as qib_mad.c process_cc
 * does it): Get and Set of one attribute each through a table keyed by attribute id, each entry
 * saying which node type has it. A Set answers with the attribute as a Get then reads; a refused
 * Set changes nothing. The CC_Key guards like M_Key at protection 1: a Set with the wrong key is
 * counted in CC_KeyViolations and dropped unanswered, a Get is answered, CongestionKeyInfo
 * then hiding the key when CC_KeyProtectBit is set.
 */
final class Cca {
    private static final int DATA = CcAttribute.DATA_OFFSET;
    /** 4.096 us * 2^18, as qib's CCA reports. */
    private static final int RESP_TIME_VALUE = 18;

    /** One CC MAD being answered: the node's state, the port it addresses, the response built in place. */
    record Request(Node node, CongestionControl cc, int port, int attributeModifier, boolean keyMatches,
                   byte[] response) {
    }

    /** Writes the attribute into the response; returns a MAD status. */
    @FunctionalInterface
    interface Get {
        int get(Request r);
    }

    /** Applies the attribute the request carries; returns a MAD status (non-zero: nothing changed). */
    @FunctionalInterface
    interface Set {
        int set(Request r);
    }

    /** {@code type}: the node type that has the attribute, null for all. */
    record Attribute(String name, Get get, Set set, NodeType type) {
        boolean answers(Node node) {
            return type == null || node.type() == type;
        }
    }

    static final Map<Integer, Attribute> ATTRIBUTES = Map.ofEntries(
            entry(CcAttribute.CLASS_PORT_INFO, new Attribute("ClassPortInfo", Cca::getClassPortInfo, null, null)),
            entry(CcAttribute.CONGESTION_INFO, new Attribute("CongestionInfo", Cca::getCongestionInfo, null, null)),
            entry(CcAttribute.CONGESTION_KEY_INFO,
                    new Attribute("CongestionKeyInfo", Cca::getKeyInfo, Cca::setKeyInfo, null)),
            entry(CcAttribute.CONGESTION_LOG, new Attribute("CongestionLog", Cca::getLog, null, null)),
            entry(CcAttribute.SWITCH_CONGESTION_SETTING, new Attribute("SwitchCongestionSetting",
                    Cca::getSwitchSetting, Cca::setSwitchSetting, NodeType.SWITCH)),
            entry(CcAttribute.SWITCH_PORT_CONGESTION_SETTING, new Attribute("SwitchPortCongestionSetting",
                    Cca::getPortSetting, Cca::setPortSetting, NodeType.SWITCH)),
            entry(CcAttribute.CA_CONGESTION_SETTING,
                    new Attribute("CACongestionSetting", Cca::getCaSetting, Cca::setCaSetting, NodeType.CA)),
            entry(CcAttribute.CONGESTION_CONTROL_TABLE,
                    new Attribute("CongestionControlTable", Cca::getTable, Cca::setTable, NodeType.CA)),
            entry(CcAttribute.TIME_STAMP, new Attribute("TimeStamp", Cca::getTimeStamp, null, null)));

    private Cca() {
    }

    /** The response, empty for a MAD that is not the CCA's (or a node without one), zero-length if dropped. */
    static Optional<byte[]> process(Node node, int inPort, byte[] request) {
        if (!CongestionControl.hasAgent(node)) {
            return Optional.empty();
        }
        int method = Mad.method(request);
        if (Method.isResponse(method) || method == Method.TRAP) {
            return Optional.empty(); // a CC manager's, through umad
        }
        // the class version first, then the method (qib_mad.c process_cc)
        if (Mad.classVersion(request) != CcAttribute.CLASS_VERSION) {
            return Optional.of(reply(Arrays.copyOf(request, Mad.SIZE), MadStatus.BAD_VERSION));
        }
        if (method != Method.GET && method != Method.SET) {
            return Optional.of(reply(Arrays.copyOf(request, Mad.SIZE), MadStatus.UNSUPPORTED_METHOD));
        }
        CongestionControl cc = node.congestionControl();
        int port = cc.managementPort(inPort);
        CongestionKeyInfo key = cc.key(port);
        boolean keyMatches = key.ccKey() == 0 || key.ccKey() == Bits.get(request, CcAttribute.KEY_OFFSET, 0, 64);
        if (!keyMatches && method == Method.SET) {
            cc.setKey(port, new CongestionKeyInfo(key.ccKey(), key.ccKeyProtectBit(), key.ccKeyLeasePeriod(),
                    Math.min(0xFFFF, key.ccKeyViolations() + 1)));
            return Optional.of(new byte[0]);
        }
        Attribute a = ATTRIBUTES.get(Mad.attributeId(request));
        if (a == null || !a.answers(node) || (method == Method.SET && a.set() == null)) {
            return Optional.of(reply(Arrays.copyOf(request, Mad.SIZE), MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE));
        }
        byte[] response = Arrays.copyOf(request, Mad.SIZE);
        Request r = new Request(node, cc, port, Mad.attributeModifier(request), keyMatches, response);
        int status = method == Method.SET ? a.set().set(r) : MadStatus.SUCCESS;
        clearData(response);
        status |= a.get().get(r);
        if (status != MadStatus.SUCCESS && method == Method.GET) {
            clearData(response);
        }
        return Optional.of(reply(response, status));
    }

    private static byte[] reply(byte[] response, int status) {
        if (status == MadStatus.UNSUPPORTED_METHOD || status == MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE
                || status == MadStatus.BAD_VERSION) {
            clearData(response);
        }
        Mad.setMethod(response, Method.GET_RESP);
        Mad.setStatus(response, status);
        return response;
    }

    /** The log data and the management data: everything after the CC_Key. */
    private static void clearData(byte[] response) {
        Arrays.fill(response, CcAttribute.LOG_DATA_OFFSET, Mad.SIZE, (byte) 0);
    }

    // ---- every node ----

    private static int getClassPortInfo(Request r) {
        if (r.attributeModifier() != 0) {
            return MadStatus.INVALID_FIELD;
        }
        new ClassPortInfo(Mad.BASE_VERSION, CcAttribute.CLASS_VERSION, 0, 0, RESP_TIME_VALUE,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0).encode(r.response(), DATA);
        return MadStatus.SUCCESS;
    }

    private static int getCongestionInfo(Request r) {
        if (r.attributeModifier() != 0) {
            return MadStatus.INVALID_FIELD;
        }
        // no credit starvation (CongestionInfo bit 0): the fabric does not model credits
        int cap = r.node().type() == NodeType.CA ? CongestionControl.CA_TABLE_BLOCKS : 0;
        new CongestionInfo(0, cap).encode(r.response(), DATA);
        return MadStatus.SUCCESS;
    }

    private static int getKeyInfo(Request r) {
        if (r.attributeModifier() != 0) {
            return MadStatus.INVALID_FIELD;
        }
        CongestionKeyInfo k = r.cc().key(r.port());
        if (!r.keyMatches() && k.ccKeyProtectBit()) {
            k = new CongestionKeyInfo(0, true, k.ccKeyLeasePeriod(), k.ccKeyViolations());
        }
        k.encode(r.response(), DATA);
        return MadStatus.SUCCESS;
    }

    private static int setKeyInfo(Request r) {
        if (r.attributeModifier() != 0) {
            return MadStatus.INVALID_FIELD;
        }
        CongestionKeyInfo want = CongestionKeyInfo.decode(r.response(), DATA);
        // CC_KeyViolations is cleared by writing 0; any other value leaves it (ibccconfig.c cites the annex)
        int violations = want.ccKeyViolations() == 0 ? 0 : r.cc().key(r.port()).ccKeyViolations();
        r.cc().setKey(r.port(), new CongestionKeyInfo(want.ccKey(), want.ccKeyProtectBit(), want.ccKeyLeasePeriod(),
                violations));
        return MadStatus.SUCCESS;
    }

    /** The log of marking events: none, as the fabric never marks a packet FECN; the clock runs. */
    private static int getLog(Request r) {
        if (r.attributeModifier() != 0) {
            return MadStatus.INVALID_FIELD;
        }
        int now = r.cc().timestamp();
        if (r.node().type() == NodeType.SWITCH) {
            List<Integer> none = Collections.nCopies(SwitchCongestionLog.EVENTS, 0);
            new SwitchCongestionLog(SwitchCongestionLog.LOG_TYPE, 0, 0, now, Collections.nCopies(32, 0), none, none,
                    none, none).encode(r.response(), CcAttribute.LOG_DATA_OFFSET);
        } else {
            List<Integer> none = Collections.nCopies(CaCongestionLog.EVENTS, 0);
            new CaCongestionLog(CaCongestionLog.LOG_TYPE, 0, 0, 0, now, none, none, none, none, none, none, none)
                    .encode(r.response(), CcAttribute.LOG_DATA_OFFSET);
        }
        return MadStatus.SUCCESS;
    }

    private static int getTimeStamp(Request r) {
        if (r.attributeModifier() != 0) {
            return MadStatus.INVALID_FIELD;
        }
        new TimeStamp(r.cc().timestamp()).encode(r.response(), DATA);
        return MadStatus.SUCCESS;
    }

    // ---- switches ----

    private static int getSwitchSetting(Request r) {
        if (r.attributeModifier() != 0) {
            return MadStatus.INVALID_FIELD;
        }
        r.cc().switchSetting().encode(r.response(), DATA);
        return MadStatus.SUCCESS;
    }

    private static int setSwitchSetting(Request r) {
        if (r.attributeModifier() != 0) {
            return MadStatus.INVALID_FIELD;
        }
        SwitchCongestionSetting want = SwitchCongestionSetting.decode(r.response(), DATA);
        SwitchCongestionSetting was = r.cc().switchSetting();
        // Control_Map says which fields the Set carries: bit 0 Victim_Mask, 1 Credit_Mask,
        // 2 Threshold and Packet_Size, 3 CS_Threshold and CS_ReturnDelay, 4 Marking_Rate
        int map = want.controlMap();
        boolean thresholds = (map & 4) != 0;
        boolean starvation = (map & 8) != 0;
        r.cc().setSwitchSetting(new SwitchCongestionSetting(map,
                (map & 1) != 0 ? want.victimMask() : was.victimMask(),
                (map & 2) != 0 ? want.creditMask() : was.creditMask(),
                thresholds ? want.threshold() : was.threshold(),
                thresholds ? want.packetSize() : was.packetSize(),
                starvation ? want.csThreshold() : was.csThreshold(),
                starvation ? want.csReturnDelay() : was.csReturnDelay(),
                (map & 16) != 0 ? want.markingRate() : was.markingRate()));
        return MadStatus.SUCCESS;
    }

    /** The attribute modifier is the block of 32 ports; one past the switch's last port is invalid. */
    private static int portBlock(Request r) {
        int block = r.attributeModifier();
        return block >= 0 && block * SwitchPortCongestionSetting.PER_BLOCK <= r.node().portCount() ? block : -1;
    }

    private static int getPortSetting(Request r) {
        int block = portBlock(r);
        if (block < 0) {
            return MadStatus.INVALID_FIELD;
        }
        r.cc().portBlock(block).encode(r.response(), DATA);
        return MadStatus.SUCCESS;
    }

    private static int setPortSetting(Request r) {
        int block = portBlock(r);
        if (block < 0) {
            return MadStatus.INVALID_FIELD;
        }
        r.cc().setPortBlock(block, SwitchPortCongestionSetting.decode(r.response(), DATA));
        return MadStatus.SUCCESS;
    }

    // ---- CAs: the arrival port's ----

    private static int getCaSetting(Request r) {
        if (r.attributeModifier() != 0) {
            return MadStatus.INVALID_FIELD;
        }
        r.cc().caSetting(r.port()).encode(r.response(), DATA);
        return MadStatus.SUCCESS;
    }

    private static int setCaSetting(Request r) {
        if (r.attributeModifier() != 0) {
            return MadStatus.INVALID_FIELD;
        }
        CaCongestionSetting want = CaCongestionSetting.decode(r.response(), DATA);
        CaCongestionSetting was = r.cc().caSetting(r.port());
        // Control_Map says which SLs' entries the Set carries; the others stay
        int map = want.controlMap();
        Integer[][] e = new Integer[4][CaCongestionSetting.SLS];
        for (int sl = 0; sl < CaCongestionSetting.SLS; sl++) {
            CaCongestionSetting from = (map & (1 << sl)) != 0 ? want : was;
            e[0][sl] = from.cctiTimer().get(sl);
            e[1][sl] = from.cctiIncrease().get(sl);
            e[2][sl] = from.triggerThreshold().get(sl);
            e[3][sl] = from.cctiMin().get(sl);
        }
        r.cc().setCaSetting(r.port(), new CaCongestionSetting(want.portControl(), map, List.of(e[0]), List.of(e[1]),
                List.of(e[2]), List.of(e[3])));
        return MadStatus.SUCCESS;
    }

    /** The attribute modifier is the block of 64 entries, below ControlTableCap. */
    private static int tableBlock(Request r) {
        int block = r.attributeModifier();
        return block >= 0 && block < CongestionControl.CA_TABLE_BLOCKS ? block : -1;
    }

    private static int getTable(Request r) {
        int block = tableBlock(r);
        if (block < 0) {
            return MadStatus.INVALID_FIELD;
        }
        r.cc().table(r.port(), block).encode(r.response(), DATA);
        return MadStatus.SUCCESS;
    }

    private static int setTable(Request r) {
        int block = tableBlock(r);
        if (block < 0) {
            return MadStatus.INVALID_FIELD;
        }
        CongestionControlTable want = CongestionControlTable.decode(r.response(), DATA);
        if (want.cctiLimit() >= CongestionControl.CA_TABLE_BLOCKS * CongestionControlTable.PER_BLOCK) {
            return MadStatus.INVALID_FIELD; // CCTI_Limit indexes the last entry: inside the table
        }
        r.cc().setTable(r.port(), block, want);
        return MadStatus.SUCCESS;
    }
}
