package io.ibemu.emulator.mad;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Byte positions checked against ib_types.h and the spec tables; round trips for every record. */
class AttributeLayoutTest {
    private static final List<RecordCodec<?>> ALL = List.of(MadHeader.CODEC, Smp.CODEC, NodeInfo.CODEC,
            NodeDescription.CODEC, PortInfo.CODEC, GuidInfo.CODEC, PKeyTable.CODEC, SlToVlMappingTable.CODEC,
            VlArbitrationTable.CODEC, SwitchInfo.CODEC, LinearForwardingTable.CODEC, MulticastForwardingTable.CODEC,
            SmInfo.CODEC, ClassPortInfo.CODEC, PortCounters.CODEC, PortCountersExtended.CODEC);

    @Test
    void everyRecordSurvivesDecodeEncodeDecode() {
        Random r = new Random(42);
        for (RecordCodec<?> codec : ALL) {
            for (int i = 0; i < 50; i++) {
                roundTrip(codec, r);
            }
        }
    }

    private static <R extends Record> void roundTrip(RecordCodec<R> codec, Random r) {
        byte[] raw = new byte[codec.layout().sizeBytes()];
        r.nextBytes(raw);
        if (codec == (Object) NodeDescription.CODEC) {
            for (int i = 0; i < raw.length; i++) {
                raw[i] = (byte) ('a' + r.nextInt(26));
            }
        }
        R first = codec.decode(raw, 0);
        byte[] again = codec.encode(first);
        assertEquals(first, codec.decode(again, 0), codec.layout().name());
        // every declared bit came back; reserved bits are zero
        for (Field f : codec.layout().fields()) {
            for (int k = 0; k < f.count(); k++) {
                if (f.bitWidth() <= 64) {
                    assertEquals(f.get(raw, 0, k), f.get(again, 0, k), codec.layout().name() + "." + f.name());
                }
            }
        }
    }

    @Test
    void portInfoPositionsMatchIbTypes() {
        PortInfo pi = new PortInfo(0x1122334455667788L, 0xFE80000000000000L, 0x1234, 0x0042, 0x0251C868, 0, 15, 2,
                3, 3, 2, 7, PortInfo.STATE_ARMED, PortInfo.PHYS_LINK_UP, 2, 1, 5, 4, 7, 5, 9, 4, 0, 0, 8, 8, 0, 5,
                7, 20, 4, true, false, true, false, 11, 12, 13, 8, true, 0, 18, 3, 8, 8, 0, 0, 0x0430, 1, 3, 3);
        byte[] b = new byte[64];
        pi.encode(b, 0);
        assertEquals(0x11, b[0] & 0xFF, "M_Key at 0");
        assertEquals(0xFE, b[8] & 0xFF, "GIDPrefix at 8");
        assertEquals(0x12, b[16] & 0xFF, "LID at 16");
        assertEquals(0x34, b[17] & 0xFF);
        assertEquals(0x42, b[19] & 0xFF, "MasterSMLID at 18");
        assertEquals(0x02, b[20] & 0xFF, "CapabilityMask at 20");
        assertEquals(0x68, b[23] & 0xFF);
        assertEquals(15, b[27] & 0xFF, "M_KeyLeasePeriod at 26");
        assertEquals(2, b[28] & 0xFF, "LocalPortNum at 28");
        assertEquals(2, b[31] & 0xFF, "LinkWidthActive at 31");
        assertEquals(0x73, b[32] & 0xFF, "LinkSpeedSupported high, PortState low nibble of 32");
        assertEquals(0x52, b[33] & 0xFF, "PortPhysicalState high, LinkDownDefaultState low nibble of 33");
        assertEquals(0x45, b[34] & 0xFF, "M_KeyProtectBits top 2 bits, LMC low 3 bits of 34");
        assertEquals(0x47, b[35] & 0xFF, "LinkSpeedActive high, LinkSpeedEnabled low nibble of 35");
        assertEquals(0x59, b[36] & 0xFF, "NeighborMTU high, MasterSMSL low nibble of 36");
        assertEquals(0x40, b[37] & 0xFF, "VLCap high nibble of 37");
        assertEquals(0x05, b[41] & 0xFF, "MTUCap low nibble of 41");
        assertEquals((7 << 5) | 20, b[42] & 0xFF, "VLStallCount, HOQLife in 42");
        assertEquals(0x4A, b[43] & 0xFF, "OperationalVLs high nibble, enforcement bits of 43");
        assertEquals(11, b[45] & 0xFF, "M_KeyViolations at 44");
        assertEquals(8, b[50] & 0xFF, "GUIDCap at 50");
        assertEquals(0x80 | 18, b[51] & 0xFF, "ClientReregister bit 7, SubnetTimeout low 5 bits of 51");
        assertEquals(3, b[52] & 0xFF, "RespTimeValue low 5 bits of 52");
        assertEquals(0x88, b[53] & 0xFF, "LocalPhyErrors, OverrunErrors in 53");
        assertEquals(0x04, b[60] & 0xFF, "CapabilityMask2 at 60");
        assertEquals(0x30, b[61] & 0xFF);
        assertEquals(0x13, b[62] & 0xFF, "LinkSpeedExtActive high, LinkSpeedExtSupported low nibble of 62");
        assertEquals(0x03, b[63] & 0xFF, "LinkSpeedExtEnabled low 5 bits of 63");
        assertEquals(pi, PortInfo.decode(b, 0));
    }

    @Test
    void nodeInfoPositionsMatchIbTypes() {
        NodeInfo ni = new NodeInfo(1, 1, 1, 2, 0x0011750000000101L, 0x0011750000000100L, 0x0011750000000101L,
                64, 0x7322, 2, 1, 0x1077);
        byte[] b = new byte[40];
        ni.encode(b, 0);
        assertEquals(1, b[2], "NodeType at 2");
        assertEquals(2, b[3], "NumPorts at 3");
        assertEquals(0x01, b[11] & 0xFF, "SystemImageGUID at 4..11");
        assertEquals(0x00, b[19] & 0xFF, "NodeGUID at 12..19");
        assertEquals(0x01, b[27] & 0xFF, "PortGUID at 20..27");
        assertEquals(64, b[29] & 0xFF, "PartitionCap at 28");
        assertEquals(0x73, b[30] & 0xFF, "DeviceID at 30");
        assertEquals(2, b[35] & 0xFF, "Revision at 32");
        assertEquals(1, b[36] & 0xFF, "LocalPortNum at 36");
        assertEquals(0x10, b[38] & 0xFF, "VendorID at 37..39");
        assertEquals(0x77, b[39] & 0xFF);
    }

    @Test
    void smpAndSwitchAndPerfPositions() {
        List<Integer> path = new ArrayList<>(Collections.nCopies(64, 0));
        path.set(1, 7);
        Smp smp = new Smp(1, MgmtClass.SUBN_DIRECTED_ROUTE, 1, Method.GET_RESP, true, MadStatus.INVALID_FIELD, 1, 2,
                0xABCDEFL, SmAttribute.PORT_INFO, 3, 0x55L, 0xFFFF, 0xFFFF, path, path);
        byte[] mad = new byte[256];
        smp.encode(mad);
        assertEquals(0x80, mad[4] & 0xFF, "D bit is the top bit of the status word");
        assertEquals(0x1C, mad[5] & 0xFF);
        assertEquals(0x801C, Mad.status(mad));
        assertEquals(1, mad[6], "hop pointer at 6");
        assertEquals(2, mad[7], "hop count at 7");
        assertEquals(0x15, mad[17], "attribute id at 16");
        assertEquals(3, mad[23], "attribute modifier at 20");
        assertEquals(0x55, mad[31], "M_Key at 24");
        assertEquals((byte) 0xFF, mad[32], "DrSLID at 32");
        assertEquals(7, mad[129], "initial path at 128");
        assertEquals(7, mad[193], "return path at 192");
        assertEquals(smp, Smp.decode(mad));

        SwitchInfo si = new SwitchInfo(0xC000, 0, 0x400, 0x20, 1, 2, 3, 18, true, 0, 0, 64, true, true, false, false,
                true, 0xC001);
        byte[] b = new byte[20];
        si.encode(b, 0);
        assertEquals(0xC0, b[0] & 0xFF, "LinearFDBCap at 0");
        assertEquals(0x20, b[7] & 0xFF, "LinearFDBTop at 6");
        assertEquals(1, b[8], "DefaultPort at 8");
        assertEquals((18 << 3) | 4, b[11] & 0xFF, "LifeTimeValue, PortStateChange in 11");
        assertEquals(0xC8, b[16] & 0xFF, "enforcement caps and EnhancedPort0 (0x08) in 16");
        assertEquals(0x01, b[19] & 0xFF, "MulticastFDBTop at 18");

        PortCounters pc = new PortCounters(1, 0xFFFF, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 0xA, 0xB, 12, 13, 0xDEADBEEFL,
                15, 16, 17, 0x12345678L);
        b = new byte[44];
        pc.encode(b, 0);
        assertEquals(1, b[1], "PortSelect at 1");
        assertEquals(0xAB, b[19] & 0xFF, "LocalLinkIntegrity, ExcessiveBufferOverrun in 19");
        assertEquals(13, b[23], "VL15Dropped at 22");
        assertEquals(0xDE, b[24] & 0xFF, "PortXmitData at 24");
        assertEquals(0x78, b[43] & 0xFF, "PortXmitWait at 40");

        PortCountersExtended pce = new PortCountersExtended(1, 0xFF, 0, 1, 2, 3, 4, 5, 6, 7, 0x0102030405060708L);
        b = new byte[72];
        pce.encode(b, 0);
        assertEquals(1, b[15], "PortXmitData at 8");
        assertEquals(0x08, b[71], "PortMulticastRcvPkts at 64");

        ClassPortInfo cpi = new ClassPortInfo(1, 1, 0x1200, 0, 18, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                0, 0, 0);
        b = new byte[72];
        cpi.encode(b, 0);
        assertEquals(0x12, b[2], "CapabilityMask at 2");
        assertEquals(18, b[7], "RespTimeValue low 5 bits of 7");
    }

    @Test
    void tablesAndText() {
        byte[] b = new byte[64];
        new VlArbitrationTable(fill(32, 3), fill(32, 0xFF)).encode(b, 0);
        assertEquals(0x03, b[0], "reserved nibble, then VL");
        assertEquals((byte) 0xFF, b[1], "weight");
        new SlToVlMappingTable(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)).encode(b, 0);
        assertEquals(0x01, b[0], "SL0 in the high nibble");
        assertEquals((byte) 0xEF, b[7]);

        String long80 = "x".repeat(80);
        new NodeDescription(long80).encode(b, 0);
        assertEquals("x".repeat(64), NodeDescription.decode(b, 0).description());
        new NodeDescription("node \"one\" HCA-1").encode(b, 0);
        assertEquals("node \"one\" HCA-1", NodeDescription.decode(b, 0).description());
        assertEquals(0, b[20]);
    }

    @Test
    void encodeRefusesValuesWiderThanTheirField() {
        assertThrows(IllegalArgumentException.class,
                () -> new SmInfo(0, 0, 0, 16, 0).encode(new byte[21], 0));
        assertThrows(IllegalArgumentException.class,
                () -> new PKeyTable(List.of(1, 2)).encode(new byte[64], 0));
    }

    @Test
    void dumpUsesTheDiagsNames() {
        String s = PortInfo.CODEC.dump(PortInfo.decode(new byte[64], 0));
        assertTrue(s.contains("LinkState:"), s);
        assertTrue(s.contains("CapMask:"), s);
    }

    private static List<Integer> fill(int n, int v) {
        return Collections.nCopies(n, v);
    }
}
