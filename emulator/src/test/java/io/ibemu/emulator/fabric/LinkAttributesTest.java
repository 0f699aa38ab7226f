package io.ibemu.emulator.fabric;

import static io.ibemu.emulator.fabric.RequestMads.answer;
import static io.ibemu.emulator.fabric.RequestMads.dr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadStatus;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.MlnxExtPortInfo;
import io.ibemu.emulator.mad.PortInfo;
import io.ibemu.emulator.mad.PortInfoExtended;
import io.ibemu.emulator.mad.SmAttribute;
import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.TopologyParser;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

/**
 * PortInfoExtended and Mellanox ExtendedPortInfo through Node.process on a Quantum switch with a
 * ConnectX-6 (HDR), a ConnectX-3 (FDR10) and a QLogic HCA (QDR); changes of what a link may train
 * to retrain it at both ends.
 */
class LinkAttributesTest {
    static final String TOPOLOGY = """
            vendid=0x2c9
            devid=0x101b
            Hca 1 "cx6" # "cx6 HCA-1"
            [1] "sw"[1] # lid 0 4xHDR
            vendid=0x2c9
            devid=0x1003
            Hca 1 "cx3" # "cx3 HCA-1"
            [1] "sw"[2] # lid 0 4xFDR10
            vendid=0x1077
            devid=0x7322
            Hca 1 "qib" # "qib HCA-1"
            [1] "sw"[3] # lid 0 4xQDR
            Hca 1 "qib10" # "qib on an FDR10 cable"
            [1] "sw"[4] # lid 0 4xFDR10
            vendid=0x2c9
            devid=0xd2f0
            Switch 8 "sw" # "quantum" enhanced port 0
            """;
    private static final int D = Mad.SMP_DATA_OFFSET;
    private final Fabric fabric;
    private final Node cx6;
    private final Node cx3;
    private final Node qib;
    private final Node sw;

    LinkAttributesTest() throws Exception {
        fabric = Fabric.of(TopologyParser.parse("t", new StringReader(TOPOLOGY)));
        cx6 = fabric.node("cx6").orElseThrow();
        cx3 = fabric.node("cx3").orElseThrow();
        qib = fabric.node("qib").orElseThrow();
        sw = fabric.node("sw").orElseThrow();
    }

    private static byte[] get(Node n, int inPort, int attribute, int modifier) {
        return answer(n, inPort, dr(Method.GET, attribute, modifier));
    }

    private static byte[] set(Node n, int inPort, int attribute, int modifier, byte[] data) {
        byte[] mad = dr(Method.SET, attribute, modifier);
        System.arraycopy(data, 0, mad, D, data.length);
        return answer(n, inPort, mad);
    }

    private static int status(byte[] r) {
        return Mad.status(r) & ~MadStatus.DIRECTION;
    }

    @Test
    void mellanoxExtendedPortInfoTellsFdr10() {
        byte[] r = get(cx3, 1, SmAttribute.MLNX_EXTENDED_PORT_INFO, 1);
        assertEquals(0, status(r));
        MlnxExtPortInfo epi = MlnxExtPortInfo.decode(r, D);
        assertEquals(new MlnxExtPortInfo(0, 1, 1, 1), epi, "an FDR10 link between two Mellanox ends runs FDR10");
        assertEquals(LinkSpeed.FDR10, cx3.port(1).activeSpeed());
        MlnxExtPortInfo swPort3 = MlnxExtPortInfo.decode(get(sw, 0, SmAttribute.MLNX_EXTENDED_PORT_INFO, 3), D);
        assertEquals(new MlnxExtPortInfo(0, 0, 0, 0), swPort3, "a QDR cable: no FDR10");
        assertEquals(MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE,
                status(get(qib, 1, SmAttribute.MLNX_EXTENDED_PORT_INFO, 1)), "QLogic firmware has no 0xFF90");
        assertEquals(MadStatus.INVALID_FIELD, status(get(sw, 0, SmAttribute.MLNX_EXTENDED_PORT_INFO, 9)));
    }

    @Test
    void fdr10NeedsMellanoxFirmwareAtBothEnds() {
        assertEquals(LinkSpeed.QDR, fabric.node("qib10").orElseThrow().port(1).activeSpeed(),
                "an FDR10 cable to a QLogic HCA runs QDR");
        assertEquals(new MlnxExtPortInfo(0, 1, 1, 0),
                MlnxExtPortInfo.decode(get(sw, 0, SmAttribute.MLNX_EXTENDED_PORT_INFO, 4), D),
                "the switch end supports and enables FDR10, the link does not run it");
    }

    @Test
    void disablingFdr10RetrainsToQdrAtBothEnds() {
        long downed = cx3.port(1).counter(Port.Counter.LINK_DOWNED);
        byte[] data = MlnxExtPortInfo.CODEC.encode(new MlnxExtPortInfo(1, 0, 0, 0));
        assertEquals(0, status(set(sw, 0, SmAttribute.MLNX_EXTENDED_PORT_INFO, 2, data)));
        assertEquals(LinkSpeed.QDR, cx3.port(1).activeSpeed());
        assertEquals(LinkSpeed.QDR, sw.port(2).activeSpeed());
        assertEquals(downed + 1, cx3.port(1).counter(Port.Counter.LINK_DOWNED), "the link went down and up");
        assertEquals(0, MlnxExtPortInfo.decode(get(sw, 0, SmAttribute.MLNX_EXTENDED_PORT_INFO, 2), D)
                .linkSpeedEnabled(), "read back as set");
        data = MlnxExtPortInfo.CODEC.encode(new MlnxExtPortInfo(1, 0, 1, 0));
        assertEquals(0, status(set(sw, 0, SmAttribute.MLNX_EXTENDED_PORT_INFO, 2, data)));
        assertEquals(LinkSpeed.FDR10, cx3.port(1).activeSpeed());
        data = MlnxExtPortInfo.CODEC.encode(new MlnxExtPortInfo(1, 0, 1, 0));
        assertEquals(MadStatus.INVALID_FIELD, status(set(sw, 0, SmAttribute.MLNX_EXTENDED_PORT_INFO, 3, data)),
                "FDR10 is not supported on a QDR cable");
    }

    @Test
    void portInfoExtendedOnHdrPortsOnly() {
        PortInfo pi = cx6.port(1).portInfo();
        assertTrue((pi.capabilityMask2() & PortInfo.CAP2_IS_PORT_INFO_EXTENDED_SUPPORTED) != 0, "HDR CA advertises");
        assertTrue((sw.port(0).portInfo().capabilityMask2() & PortInfo.CAP2_IS_PORT_INFO_EXTENDED_SUPPORTED) != 0,
                "the switch advertises on port 0");
        assertEquals(0, cx3.port(1).portInfo().capabilityMask2() & PortInfo.CAP2_IS_PORT_INFO_EXTENDED_SUPPORTED);
        PortInfoExtended e = PortInfoExtended.decode(get(cx6, 1, SmAttribute.PORT_INFO_EXTENDED, 1), D);
        assertEquals(1, e.capabilityMask());
        assertEquals(Fec.HDR.supported(), e.hdrFecModeSupported());
        assertEquals(Fec.HDR.supported(), e.hdrFecModeEnabled());
        assertEquals(0, e.ndrFecModeSupported(), "an HDR cable");
        assertEquals(3, e.fecModeActive(), "low-latency RS-FEC, the highest both enable");
        assertEquals(MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE, status(get(cx3, 1, SmAttribute.PORT_INFO_EXTENDED, 1)));
        assertEquals(MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE, status(get(qib, 1, SmAttribute.PORT_INFO_EXTENDED, 1)));

        // RS-FEC only on the switch end: both ends retrain to mode 2
        byte[] data = PortInfoExtended.CODEC.encode(new PortInfoExtended(0, 0, 0, 0, 0, 0, 0, 0x4, 0, 0));
        assertEquals(0, status(set(sw, 0, SmAttribute.PORT_INFO_EXTENDED, 1, data)));
        assertEquals(0x4, PortInfoExtended.decode(get(sw, 0, SmAttribute.PORT_INFO_EXTENDED, 1), D).hdrFecModeEnabled());
        assertEquals(2, PortInfoExtended.decode(get(cx6, 1, SmAttribute.PORT_INFO_EXTENDED, 1), D).fecModeActive());
        data = PortInfoExtended.CODEC.encode(new PortInfoExtended(0, 0, 0, 0, 0, 0, 0, 0x2, 0, 0));
        assertEquals(MadStatus.INVALID_FIELD, status(set(sw, 0, SmAttribute.PORT_INFO_EXTENDED, 1, data)),
                "Firecode is not an HDR mode");
    }

    @Test
    void portInfoModifierBit31IsSmSupportsExtendedSpeeds() {
        byte[] r = get(sw, 0, SmAttribute.PORT_INFO, 0x80000001);
        assertEquals(0, status(r), "OpenSM sets bit 31 on ports with extended speeds");
        assertEquals(LinkSpeed.HDR.linkSpeedExtActive(), PortInfo.decode(r, D).linkSpeedExtActive());
    }

    @Test
    void widthAndSpeedEnabledRetrain() {
        byte[] data = new byte[64];
        sw.port(3).portInfo().encode(data, 0);
        PortInfo.LAYOUT.field("linkWidthEnabled").set(data, 0, LinkWidth.X1.code());
        PortInfo.LAYOUT.field("linkSpeedEnabled").set(data, 0, 1);
        PortInfo.LAYOUT.field("portState").set(data, 0, 0);
        PortInfo.LAYOUT.field("portPhysicalState").set(data, 0, 0);
        assertEquals(0, status(set(sw, 0, SmAttribute.PORT_INFO, 3, data)));
        assertEquals(LinkWidth.X1, qib.port(1).activeWidth(), "1x, at the other end too");
        assertEquals(LinkSpeed.SDR, qib.port(1).activeSpeed());
        assertEquals(PhysPortState.LINK_UP, qib.port(1).physicalState());
    }
}
