package io.ibemu.emulator.fabric;

import static io.ibemu.emulator.fabric.RequestMads.answer;
import static io.ibemu.emulator.fabric.RequestMads.dr;
import static io.ibemu.emulator.fabric.RequestMads.process;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.mad.Bits;
import io.ibemu.emulator.mad.GuidInfo;
import io.ibemu.emulator.mad.LinearForwardingTable;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadStatus;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.MulticastForwardingTable;
import io.ibemu.emulator.mad.NodeDescription;
import io.ibemu.emulator.mad.PKeyTable;
import io.ibemu.emulator.mad.PortInfo;
import io.ibemu.emulator.mad.SlToVlMappingTable;
import io.ibemu.emulator.mad.SmAttribute;
import io.ibemu.emulator.mad.Smp;
import io.ibemu.emulator.mad.SwitchInfo;
import io.ibemu.emulator.mad.VlArbitrationTable;
import io.ibemu.emulator.topology.DefaultFabric;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** SubnGet/SubnSet MADs as bytes into Node.process, the response checked at its byte positions. */
class SmaTest {
    private static final int D = Mad.SMP_DATA_OFFSET;
    private final Fabric fabric = Fabric.of(DefaultFabric.topology());
    private final Node local = fabric.node("local").orElseThrow();
    private final Node sw = fabric.node("switch").orElseThrow();
    private final List<PortEvent> events = new ArrayList<>();

    SmaTest() {
        fabric.addListener(events::add);
    }

    private static int u8(byte[] b, int i) {
        return b[i] & 0xFF;
    }

    private static int status(byte[] r) {
        return Mad.status(r);
    }

    @Test
    void nodeInfoGet() {
        byte[] req = dr(Method.GET, SmAttribute.NODE_INFO, 0);
        req[6] = 0; // hop pointer
        req[128] = 0x11;
        req[192] = 0x22;
        byte[] r = answer(local, 1, req);
        assertEquals(Method.GET_RESP, u8(r, 3));
        assertEquals(MadStatus.DIRECTION, status(r), "success, D bit set on a directed-route response");
        assertEquals(RequestMads.TID, Mad.transactionId(r));
        assertEquals(0, u8(r, 6), "hop pointer untouched");
        assertEquals(0x11, u8(r, 128), "initial path untouched");
        assertEquals(0x22, u8(r, 192), "return path untouched");
        assertEquals(1, u8(r, D), "BaseVersion");
        assertEquals(1, u8(r, D + 1), "ClassVersion");
        assertEquals(1, u8(r, D + 2), "NodeType CA");
        assertEquals(2, u8(r, D + 3), "NumPorts");
        assertEquals(local.systemImageGuid(), Bits.get(r, D + 4, 0, 64));
        assertEquals(local.guid(), Bits.get(r, D + 12, 0, 64));
        assertEquals(local.port(1).guid(), Bits.get(r, D + 20, 0, 64));
        assertEquals(Port.PARTITION_CAP, Bits.get(r, D + 28, 0, 16));
        assertEquals(0x7322, Bits.get(r, D + 30, 0, 16));
        assertEquals(1, u8(r, D + 36), "LocalPortNum");
        assertEquals(0x1077, Bits.get(r, D + 37, 0, 24));

        byte[] r2 = answer(local, 2, dr(Method.GET, SmAttribute.NODE_INFO, 0));
        assertEquals(local.port(2).guid(), Bits.get(r2, D + 20, 0, 64));
        assertEquals(2, u8(r2, D + 36), "the port the MAD came in on");
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(local, 1, dr(Method.GET, SmAttribute.NODE_INFO, 1))));
    }

    @Test
    void lidRoutedResponsesHaveNoDirectionBit() {
        byte[] r = answer(local, 1, RequestMads.smp(false, Method.GET, SmAttribute.NODE_INFO, 0));
        assertEquals(0, status(r));
        assertEquals(Method.GET_RESP, Mad.method(r));
    }

    @Test
    void nodeDescriptionIsGetOnly() {
        byte[] r = answer(local, 1, dr(Method.GET, SmAttribute.NODE_DESCRIPTION, 0));
        assertEquals("ibemu-local HCA-1", NodeDescription.decode(r, D).description());
        byte[] set = dr(Method.SET, SmAttribute.NODE_DESCRIPTION, 0);
        new NodeDescription("renamed").encode(set, D);
        r = answer(local, 1, set);
        assertEquals(MadStatus.DIRECTION | MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE, status(r));
        assertEquals("ibemu-local HCA-1", local.description());
        assertEquals(MadStatus.DIRECTION | MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE,
                status(answer(local, 1, dr(Method.SET, SmAttribute.NODE_INFO, 0))));
    }

    @Test
    void errorsAndMadsThatAreNotTheSmas() {
        assertEquals(MadStatus.DIRECTION | MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE,
                status(answer(local, 1, dr(Method.GET, 0x0099, 0))));
        assertEquals(MadStatus.DIRECTION | MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE,
                status(answer(local, 1, dr(Method.GET, SmAttribute.SWITCH_INFO, 0))), "a CA has no SwitchInfo");
        byte[] v2 = dr(Method.GET, SmAttribute.NODE_INFO, 0);
        v2[2] = 2;
        assertEquals(MadStatus.DIRECTION | MadStatus.BAD_VERSION, status(answer(local, 1, v2)));
        assertEquals(MadStatus.DIRECTION | MadStatus.UNSUPPORTED_METHOD,
                status(answer(local, 1, dr(Method.GET_TABLE, SmAttribute.NODE_INFO, 0))));
        assertTrue(process(local, 1, dr(Method.GET, SmAttribute.SM_INFO, 0)).isEmpty(), "SMInfo is the SM's");
        assertTrue(process(local, 1, dr(Method.GET_RESP, SmAttribute.NODE_INFO, 0)).isEmpty());
        assertTrue(process(local, 1, dr(Method.TRAP, SmAttribute.NOTICE, 0)).isEmpty());
        assertTrue(process(local, 1, dr(Method.TRAP_REPRESS, SmAttribute.NOTICE, 0)).isEmpty());
        byte[] sa = dr(Method.GET, SmAttribute.NODE_INFO, 0);
        sa[1] = 0x03;
        assertTrue(process(local, 1, sa).isEmpty(), "SA");
        sa[1] = 0x09;
        assertTrue(process(local, 1, sa).isEmpty(), "vendor class");
        byte[] base2 = dr(Method.GET, SmAttribute.NODE_INFO, 0);
        base2[0] = 2;
        assertTrue(process(local, 1, base2).isEmpty(), "unknown base version: dropped");
    }

    @Test
    void portInfoGetByModifier() {
        byte[] r = answer(local, 1, dr(Method.GET, SmAttribute.PORT_INFO, 0));
        assertEquals(MadStatus.DIRECTION, status(r));
        assertEquals(0, Bits.get(r, D + 16, 0, 16), "no LID before an SM");
        assertEquals(PortState.INIT.code(), u8(r, D + 32) & 0xF);
        assertEquals(PhysPortState.LINK_UP.code(), u8(r, D + 33) >> 4);
        assertEquals(1, u8(r, D + 28), "LocalPortNum");
        assertEquals(LinkWidthCodes.X4, u8(r, D + 31), "LinkWidthActive 4x");
        assertEquals(4, u8(r, D + 35) >> 4, "LinkSpeedActive QDR");
        assertEquals(local.port(1).capabilityMask(), (int) Bits.get(r, D + 20, 0, 32));
        assertEquals(0xFE80000000000000L, Bits.get(r, D + 8, 0, 64));
        assertEquals(Port.GUID_CAP, u8(r, D + 50));

        r = answer(local, 1, dr(Method.GET, SmAttribute.PORT_INFO, 2));
        assertEquals(PortState.DOWN.code(), u8(r, D + 32) & 0xF);
        assertEquals(PhysPortState.POLLING.code(), u8(r, D + 33) >> 4);
        assertEquals(1, u8(r, D + 28), "LocalPortNum is still the arrival port");
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(local, 1, dr(Method.GET, SmAttribute.PORT_INFO, 3))));
    }

    /** A PortInfo Set built from the port's current PortInfo, as ibportstate and OpenSM do. */
    private byte[] portInfoSet(Port p, java.util.function.UnaryOperator<PortInfo> change) {
        byte[] req = dr(Method.SET, SmAttribute.PORT_INFO, p.number());
        change.apply(p.portInfo()).encode(req, D);
        return req;
    }

    private static PortInfo with(PortInfo pi, int lid, int smLid, int state, int phys) {
        return new PortInfo(pi.mKey(), pi.gidPrefix(), lid, smLid, pi.capabilityMask(), pi.diagCode(),
                pi.mKeyLeasePeriod(), pi.localPortNum(), pi.linkWidthEnabled(), pi.linkWidthSupported(),
                pi.linkWidthActive(), pi.linkSpeedSupported(), state, phys, pi.linkDownDefaultState(),
                pi.mKeyProtectBits(), pi.lmc(), pi.linkSpeedActive(), pi.linkSpeedEnabled(), pi.neighborMtu(),
                pi.masterSmSl(), pi.vlCap(), pi.initType(), pi.vlHighLimit(), pi.vlArbitrationHighCap(),
                pi.vlArbitrationLowCap(), pi.initTypeReply(), pi.mtuCap(), pi.vlStallCount(), pi.hoqLife(),
                pi.operationalVls(), pi.partitionEnforcementInbound(), pi.partitionEnforcementOutbound(),
                pi.filterRawInbound(), pi.filterRawOutbound(), pi.mKeyViolations(), pi.pKeyViolations(),
                pi.qKeyViolations(), pi.guidCap(), pi.clientReregister(), pi.multicastPKeyTrapSuppressionEnabled(),
                pi.subnetTimeout(), pi.respTimeValue(), pi.localPhyErrors(), pi.overrunErrors(), pi.maxCreditHint(),
                pi.linkRoundTripLatency(), pi.capabilityMask2(), pi.linkSpeedExtActive(),
                pi.linkSpeedExtSupported(), pi.linkSpeedExtEnabled());
    }

    private static PortInfo withKey(PortInfo pi, long mKey, int protectBits, boolean clientReregister) {
        return new PortInfo(mKey, pi.gidPrefix(), pi.lid(), pi.masterSmLid(), 0, pi.diagCode(),
                pi.mKeyLeasePeriod(), pi.localPortNum(), pi.linkWidthEnabled(), pi.linkWidthSupported(),
                pi.linkWidthActive(), pi.linkSpeedSupported(), 0, 0, pi.linkDownDefaultState(),
                protectBits, pi.lmc(), pi.linkSpeedActive(), pi.linkSpeedEnabled(), pi.neighborMtu(),
                pi.masterSmSl(), pi.vlCap(), pi.initType(), pi.vlHighLimit(), pi.vlArbitrationHighCap(),
                pi.vlArbitrationLowCap(), pi.initTypeReply(), pi.mtuCap(), pi.vlStallCount(), pi.hoqLife(),
                pi.operationalVls(), pi.partitionEnforcementInbound(), pi.partitionEnforcementOutbound(),
                pi.filterRawInbound(), pi.filterRawOutbound(), pi.mKeyViolations(), pi.pKeyViolations(),
                pi.qKeyViolations(), pi.guidCap(), clientReregister, pi.multicastPKeyTrapSuppressionEnabled(),
                pi.subnetTimeout(), pi.respTimeValue(), pi.localPhyErrors(), pi.overrunErrors(), pi.maxCreditHint(),
                pi.linkRoundTripLatency(), pi.capabilityMask2(), pi.linkSpeedExtActive(),
                pi.linkSpeedExtSupported(), pi.linkSpeedExtEnabled());
    }

    @Test
    void portInfoSetAssignsLidsAndNotTheCapabilityMask() {
        Port p = local.port(1);
        int caps = p.capabilityMask();
        byte[] req = portInfoSet(p, pi -> withKey(with(pi, 5, 1, 0, 0), 0, 0, false));
        byte[] r = answer(local, 1, req);
        assertEquals(MadStatus.DIRECTION, status(r));
        assertEquals(5, Bits.get(r, D + 16, 0, 16), "the response is the attribute after the Set");
        assertEquals(1, Bits.get(r, D + 18, 0, 16));
        assertEquals(5, p.lid());
        assertEquals(1, p.smLid());
        assertEquals(caps, p.capabilityMask(), "CapabilityMask is not settable by SMP");
        assertTrue(events.contains(new PortEvent(p, PortEvent.Kind.LID_CHANGE)));
        assertTrue(events.contains(new PortEvent(p, PortEvent.Kind.SM_CHANGE)));

        r = answer(local, 1, portInfoSet(p, pi -> with(pi, 0xC000, 7, 0, 0)));
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD, status(r));
        assertEquals(5, p.lid(), "a refused Set changes nothing");
        assertEquals(1, p.smLid());
        assertEquals(5, Bits.get(r, D + 16, 0, 16), "and answers the current values");
    }

    @Test
    void portStateInitArmedActiveAndBack() {
        Port p = local.port(1);
        Port peer = p.peer().orElseThrow();
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(local, 1, portInfoSet(p, pi -> with(pi, 5, 1, 4, 0)))), "no Active straight from Init");
        assertEquals(PortState.INIT, p.state());
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(local, 1, portInfoSet(p, pi -> with(pi, 5, 1, 2, 0)))), "Init cannot be set");

        byte[] r = answer(local, 1, portInfoSet(p, pi -> with(pi, 5, 1, 3, 0)));
        assertEquals(MadStatus.DIRECTION, status(r));
        assertEquals(PortState.ARMED.code(), u8(r, D + 32) & 0xF);
        assertEquals(PortState.ARMED, p.state());
        r = answer(local, 1, portInfoSet(p, pi -> with(pi, 5, 1, 4, 0)));
        assertEquals(MadStatus.DIRECTION, status(r));
        assertEquals(PortState.ACTIVE, p.state());
        assertTrue(events.contains(new PortEvent(p, PortEvent.Kind.PORT_ACTIVE)));
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(local, 1, portInfoSet(p, pi -> with(pi, 5, 1, 3, 0)))), "no Armed from Active");
        assertEquals(PortState.ACTIVE, p.state());
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(local, 1, portInfoSet(p, pi -> with(pi, 5, 1, 3, 3)))),
                "PortPhysicalState only with PortState NoOp or Down");

        // Down: the link goes down and trains again, both ends back in Init, LID kept
        r = answer(local, 1, portInfoSet(p, pi -> with(pi, 5, 1, 1, 0)));
        assertEquals(MadStatus.DIRECTION, status(r));
        assertEquals(PortState.INIT, p.state());
        assertEquals(PortState.INIT, peer.state());
        assertEquals(5, p.lid());
        assertEquals(1, p.counters().linkDownedCounter());
        assertTrue(events.contains(new PortEvent(p, PortEvent.Kind.PORT_ERROR)));
    }

    @Test
    void physicalStateDisableAndEnable() {
        Port p = local.port(1);
        Port peer = p.peer().orElseThrow();
        byte[] r = answer(local, 1, portInfoSet(p, pi -> with(pi, 0, 0, 0, 3)));
        assertEquals(MadStatus.DIRECTION, status(r));
        assertEquals(PhysPortState.DISABLED, p.physicalState());
        assertEquals(PortState.DOWN, p.state());
        assertEquals(PhysPortState.POLLING, peer.physicalState());
        assertEquals(PortState.DOWN, peer.state());
        assertEquals(PhysPortState.DISABLED.code(), u8(r, D + 33) >> 4);
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(local, 1, portInfoSet(p, pi -> with(pi, 0, 0, 0, 1)))), "Sleep cannot be set");

        answer(local, 1, portInfoSet(p, pi -> with(pi, 0, 0, 0, 2)));
        assertEquals(PhysPortState.LINK_UP, p.physicalState());
        assertEquals(PortState.INIT, p.state());
        assertEquals(PortState.INIT, peer.state());

        // an uncabled port stays Polling/Down whatever is asked
        Port p2 = local.port(2);
        answer(local, 2, portInfoSet(p2, pi -> with(pi, 0, 0, 1, 0)));
        assertEquals(PortState.DOWN, p2.state());
        assertEquals(PhysPortState.POLLING, p2.physicalState());
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(local, 2, portInfoSet(p2, pi -> with(pi, 0, 0, 3, 0)))));
    }

    @Test
    void clientReregisterIsEchoedAndSignalled() {
        Port p = local.port(1);
        byte[] r = answer(local, 1, portInfoSet(p, pi -> withKey(pi, 0, 0, true)));
        assertEquals(MadStatus.DIRECTION, status(r));
        assertEquals(0x80, u8(r, D + 51) & 0x80);
        assertTrue(events.contains(new PortEvent(p, PortEvent.Kind.CLIENT_REREGISTER)));
        assertFalse(p.portInfo().clientReregister());
    }

    @Test
    void mKeyProtection() {
        Port p = local.port(1);
        answer(local, 1, portInfoSet(p, pi -> withKey(pi, 0xABCDL, 1, false)));
        byte[] get = dr(Method.GET, SmAttribute.PORT_INFO, 0);
        byte[] r = answer(local, 1, get);
        assertEquals(0, Bits.get(r, D, 0, 64), "protect bits 1: a wrong key reads M_Key as 0");
        Bits.set(get, 24, 0, 64, 0xABCDL);
        r = answer(local, 1, get);
        assertEquals(0xABCDL, Bits.get(r, D, 0, 64));

        byte[] set = portInfoSet(p, pi -> with(pi, 9, 1, 0, 0));
        assertArrayEquals(new byte[0], process(local, 1, set).orElseThrow(), "a Set with a wrong key: no answer");
        assertEquals(0, p.lid());
        assertEquals(1, p.portInfo().mKeyViolations());
        Bits.set(set, 24, 0, 64, 0xABCDL);
        assertEquals(MadStatus.DIRECTION, status(answer(local, 1, set)));
        assertEquals(9, p.lid());

        byte[] prot2 = portInfoSet(p, pi -> withKey(pi, 0xABCDL, 2, false));
        Bits.set(prot2, 24, 0, 64, 0xABCDL);
        answer(local, 1, prot2);
        assertArrayEquals(new byte[0], process(local, 1, dr(Method.GET, SmAttribute.NODE_INFO, 0)).orElseThrow(),
                "protect bits 2: even a Get with a wrong key is dropped");
    }

    @Test
    void guidInfoEntryZeroIsReadOnly() {
        byte[] r = answer(local, 1, dr(Method.GET, SmAttribute.GUID_INFO, 0));
        assertEquals(local.port(1).guid(), Bits.get(r, D, 0, 64));
        byte[] set = dr(Method.SET, SmAttribute.GUID_INFO, 0);
        new GuidInfo(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L)).encode(set, D);
        r = answer(local, 1, set);
        assertEquals(MadStatus.DIRECTION, status(r));
        assertEquals(local.port(1).guid(), Bits.get(r, D, 0, 64));
        assertEquals(2L, Bits.get(r, D + 8, 0, 64));
        assertEquals(8L, local.port(1).guids()[7]);
        assertEquals(0L, local.port(2).guids()[1], "only the arrival port's table");
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(local, 1, dr(Method.GET, SmAttribute.GUID_INFO, 1))));
    }

    @Test
    void pKeyTableBlocks() {
        byte[] r = answer(local, 1, dr(Method.GET, SmAttribute.P_KEY_TABLE, 0));
        assertEquals(0xFFFF, Bits.get(r, D, 0, 16));
        assertEquals(0, Bits.get(r, D + 2, 0, 16));
        byte[] set = dr(Method.SET, SmAttribute.P_KEY_TABLE, 1);
        List<Integer> keys = new ArrayList<>(Collections.nCopies(32, 0));
        keys.set(0, 0x8001);
        new PKeyTable(keys).encode(set, D);
        r = answer(local, 1, set);
        assertEquals(MadStatus.DIRECTION, status(r));
        assertEquals(0x8001, Bits.get(r, D, 0, 16));
        assertEquals(0x8001, local.port(1).pkeys()[32]);
        assertTrue(events.contains(new PortEvent(local.port(1), PortEvent.Kind.PKEY_CHANGE)));
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(local, 1, dr(Method.GET, SmAttribute.P_KEY_TABLE, 2))), "64 entries: 2 blocks");

        // a switch names the port in bits 31..16
        set = dr(Method.SET, SmAttribute.P_KEY_TABLE, 3 << 16);
        new PKeyTable(keys).encode(set, D);
        answer(sw, 1, set);
        assertEquals(0x8001, sw.port(3).pkeys()[0]);
        assertEquals(0xFFFF, sw.port(1).pkeys()[0]);
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(sw, 1, dr(Method.GET, SmAttribute.P_KEY_TABLE, 9 << 16))));
    }

    @Test
    void slToVlAndVlArbitration() {
        byte[] set = dr(Method.SET, SmAttribute.SL_TO_VL_MAPPING_TABLE, 0);
        new SlToVlMappingTable(List.of(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7)).encode(set, D);
        byte[] r = answer(local, 1, set);
        assertEquals(MadStatus.DIRECTION, status(r));
        assertEquals(0x01, u8(r, D));
        r = answer(local, 1, dr(Method.GET, SmAttribute.SL_TO_VL_MAPPING_TABLE, 0));
        assertEquals(0x67, u8(r, D + 3));

        set = dr(Method.SET, SmAttribute.VL_ARBITRATION_TABLE, VlArbitrationTable.HIGH_PRIORITY_0_31 << 16);
        new VlArbitrationTable(Collections.nCopies(32, 2), Collections.nCopies(32, 9)).encode(set, D);
        r = answer(local, 1, set);
        assertEquals(MadStatus.DIRECTION, status(r));
        assertEquals(2, u8(r, D) & 0xF);
        assertEquals(9, u8(r, D + 1));
        r = answer(local, 1, dr(Method.GET, SmAttribute.VL_ARBITRATION_TABLE, 1 << 16));
        assertEquals(4, u8(r, D + 3), "low-priority table unchanged");
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(local, 1, dr(Method.GET, SmAttribute.VL_ARBITRATION_TABLE, 2 << 16))));

        byte[] swSet = dr(Method.SET, SmAttribute.SL_TO_VL_MAPPING_TABLE, 1 << 8 | 2);
        new SlToVlMappingTable(Collections.nCopies(16, 3)).encode(swSet, D);
        answer(sw, 1, swSet);
        assertEquals(0x33, u8(answer(sw, 1, dr(Method.GET, SmAttribute.SL_TO_VL_MAPPING_TABLE, 1 << 8 | 2)), D));
        assertEquals(0, u8(answer(sw, 1, dr(Method.GET, SmAttribute.SL_TO_VL_MAPPING_TABLE, 2 << 8 | 1)), D));
    }

    @Test
    void switchPortInfoAndSwitchInfo() {
        byte[] r = answer(sw, 1, dr(Method.GET, SmAttribute.NODE_INFO, 0));
        assertEquals(2, u8(r, D + 2), "NodeType switch");
        assertEquals(8, u8(r, D + 3));
        assertEquals(sw.guid(), Bits.get(r, D + 20, 0, 64), "a switch's PortGUID is port 0's");
        r = answer(sw, 1, dr(Method.GET, SmAttribute.PORT_INFO, 0));
        assertEquals(PortState.ACTIVE.code(), u8(r, D + 32) & 0xF);
        r = answer(sw, 1, dr(Method.GET, SmAttribute.PORT_INFO, 1));
        assertEquals(PortState.INIT.code(), u8(r, D + 32) & 0xF);
        assertEquals(0, Bits.get(r, D + 20, 0, 32), "external ports: no capability mask");
        r = answer(sw, 1, dr(Method.GET, SmAttribute.PORT_INFO, 8));
        assertEquals(PortState.DOWN.code(), u8(r, D + 32) & 0xF);
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(sw, 1, dr(Method.GET, SmAttribute.PORT_INFO, 9))));

        // the SM gives the switch its LID on port 0, and brings port 1 up
        answer(sw, 1, portInfoSet(sw.port(0), pi -> with(pi, 3, 1, 0, 0)));
        assertEquals(3, sw.port(0).lid());
        answer(sw, 1, portInfoSet(sw.port(1), pi -> with(pi, 0, 0, 3, 0)));
        assertEquals(PortState.ARMED, sw.port(1).state());

        r = answer(sw, 1, dr(Method.GET, SmAttribute.SWITCH_INFO, 0));
        SwitchInfo si = SwitchInfo.decode(r, D);
        assertEquals(0xC000, si.linearFdbCap());
        assertEquals(1024, si.multicastFdbCap());
        assertTrue(si.enhancedPort0(), "default.net says enhanced port 0");
        assertTrue(si.portStateChange(), "links came up at power-on");
        byte[] set = dr(Method.SET, SmAttribute.SWITCH_INFO, 0);
        new SwitchInfo(0, 0, 0, 0x40, 0, 0, 0, 18, true, 0, 0, 0, false, false, false, false, false, 0)
                .encode(set, D);
        si = SwitchInfo.decode(answer(sw, 1, set), D);
        assertEquals(0x40, si.linearFdbTop());
        assertEquals(18, si.lifeTimeValue());
        assertFalse(si.portStateChange(), "written as 1 to clear");
        assertEquals(0xC000, si.linearFdbCap(), "capabilities are not settable");
    }

    @Test
    void forwardingTables() {
        byte[] r = answer(sw, 1, dr(Method.GET, SmAttribute.LINEAR_FORWARDING_TABLE, 0));
        assertEquals(0xFF, u8(r, D + 5), "no route yet");
        List<Integer> ports = new ArrayList<>(Collections.nCopies(64, 0xFF));
        ports.set(5, 1);
        ports.set(6, 2);
        byte[] set = dr(Method.SET, SmAttribute.LINEAR_FORWARDING_TABLE, 1);
        new LinearForwardingTable(ports).encode(set, D);
        r = answer(sw, 1, set);
        assertEquals(MadStatus.DIRECTION, status(r));
        assertEquals(1, u8(r, D + 5));
        assertEquals(1, sw.route(69));
        assertEquals(2, sw.route(70));
        assertEquals(0xFF, sw.route(5));
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(sw, 1, dr(Method.GET, SmAttribute.LINEAR_FORWARDING_TABLE, 768))));

        List<Integer> masks = new ArrayList<>(Collections.nCopies(32, 0));
        masks.set(1, 0b110);
        set = dr(Method.SET, SmAttribute.MULTICAST_FORWARDING_TABLE, 0);
        new MulticastForwardingTable(masks).encode(set, D);
        answer(sw, 1, set);
        r = answer(sw, 1, dr(Method.GET, SmAttribute.MULTICAST_FORWARDING_TABLE, 0));
        assertEquals(0b110, Bits.get(r, D + 2, 0, 16));
        assertEquals(0b110L, sw.switchTables().multicastPorts(0xC001)[0]);
        assertEquals(MadStatus.DIRECTION | MadStatus.INVALID_FIELD,
                status(answer(sw, 1, dr(Method.GET, SmAttribute.MULTICAST_FORWARDING_TABLE, 1 << 28))),
                "8 ports: one position of 16");
        assertEquals(MadStatus.DIRECTION | MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE,
                status(answer(local, 1, dr(Method.GET, SmAttribute.LINEAR_FORWARDING_TABLE, 0))));
    }

    @Test
    void everyAttributeAnswersAGetOnTheDefaultFabric() {
        for (int attr : Sma.ATTRIBUTES.keySet()) {
            for (Node n : fabric.nodes()) {
                int port = n.ports().get(n.ports().size() > 1 ? 1 : 0).number();
                byte[] r = answer(n, port, dr(Method.GET, attr, attr == SmAttribute.VL_ARBITRATION_TABLE
                        ? (1 << 16) | (n.type() == io.ibemu.emulator.topology.NodeType.SWITCH ? 1 : 0) : 0));
                int s = status(r) & 0x7FFF;
                assertEquals(Sma.ATTRIBUTES.get(attr).answers(n) ? 0 : MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE, s,
                        Sma.ATTRIBUTES.get(attr).name() + " on " + n);
            }
        }
        assertEquals(Smp.decode(dr(Method.GET, SmAttribute.NODE_INFO, 0)).transactionId(), RequestMads.TID);
    }

    @Test
    void bringUpLikeAnSubnetManager() {
        // LIDs for CA ports and switch port 0, then every cabled port Armed, then Active
        int lid = 1;
        for (Node n : fabric.nodes()) {
            for (Port p : n.ports()) {
                if (p.isManaged()) {
                    int l = lid++;
                    assertEquals(MadStatus.DIRECTION, status(answer(n, inPortFor(p), portInfoSet(p,
                            pi -> with(pi, l, 1, 0, 0)))));
                }
            }
        }
        for (int state : new int[] {PortInfo.STATE_ARMED, PortInfo.STATE_ACTIVE}) {
            for (Node n : fabric.nodes()) {
                for (Port p : n.ports()) {
                    if (p.peer().isPresent()) {
                        assertEquals(MadStatus.DIRECTION, status(answer(n, inPortFor(p),
                                portInfoSet(p, pi -> with(pi, pi.lid(), pi.masterSmLid(), state, 0)))), p.toString());
                    }
                }
            }
        }
        for (Node n : fabric.nodes()) {
            for (Port p : n.ports()) {
                PortState expected = p.peer().isPresent() || p.number() == 0 ? PortState.ACTIVE : PortState.DOWN;
                assertEquals(expected, p.state(), p.toString());
            }
        }
        assertEquals(1, local.port(1).lid());
        assertEquals(2, local.port(2).lid(), "an uncabled port keeps what it was given");
        assertEquals(5, sw.port(0).lid());
        assertEquals(PortState.DOWN, sw.port(8).state());
    }

    private static int inPortFor(Port p) {
        return p.number() == 0 ? 1 : p.number();
    }

    /** PortInfo LinkWidthActive codes. */
    private static final class LinkWidthCodes {
        static final int X4 = 2;
    }
}
