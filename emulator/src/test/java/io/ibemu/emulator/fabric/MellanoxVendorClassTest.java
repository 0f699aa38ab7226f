package io.ibemu.emulator.fabric;

import static io.ibemu.emulator.fabric.RequestMads.answer;
import static io.ibemu.emulator.fabric.RequestMads.process;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.mad.ClassPortInfo;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadStatus;
import io.ibemu.emulator.mad.MellanoxAttribute;
import io.ibemu.emulator.mad.MellanoxGeneralInfo;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.topology.TopologyParser;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

/** The Mellanox vendor class 0x0A: what vendstat -N reads, from the node's identity. */
class MellanoxVendorClassTest {
    private static final int D = MellanoxAttribute.DATA_OFFSET;
    private final Fabric fabric;

    MellanoxVendorClassTest() throws Exception {
        fabric = Fabric.of(TopologyParser.parse("t", new StringReader(LinkAttributesTest.TOPOLOGY)));
    }

    private static byte[] vendor(int method, int attributeId) {
        byte[] mad = RequestMads.perf(method, attributeId, 0);
        mad[1] = (byte) MellanoxAttribute.VENDOR_CLASS;
        return mad;
    }

    @Test
    void generalInfoFromTheIdentity() {
        Node sw = fabric.node("sw").orElseThrow();
        byte[] r = answer(sw, 1, vendor(Method.GET, MellanoxAttribute.GENERAL_INFO));
        assertEquals(0, Mad.status(r));
        MellanoxGeneralInfo gi = MellanoxGeneralInfo.decode(r, D);
        assertEquals(0xd2f0, gi.deviceId());
        assertEquals(sw.revision() & 0xFFFF, gi.hwRevision());
        assertEquals(27, gi.extFwMajor(), "Quantum firmware is 27.x");
        assertEquals(27, gi.fwMajor());
        Node cx6 = fabric.node("cx6").orElseThrow();
        gi = MellanoxGeneralInfo.decode(answer(cx6, 1, vendor(Method.GET, MellanoxAttribute.GENERAL_INFO)), D);
        assertEquals(0x101b, gi.deviceId());
        assertEquals(20, gi.extFwMajor(), "ConnectX-6 firmware is 20.x");
        ClassPortInfo cpi = ClassPortInfo.decode(answer(cx6, 1, vendor(Method.GET, MellanoxAttribute.CLASS_PORT_INFO)),
                D);
        assertEquals(1, cpi.baseVersion());
        assertEquals(MellanoxAttribute.CLASS_VERSION, cpi.classVersion());
    }

    @Test
    void unsupportedCombinations() {
        Node sw = fabric.node("sw").orElseThrow();
        assertEquals(MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE,
                Mad.status(answer(sw, 1, vendor(Method.GET, MellanoxAttribute.CONFIG_SPACE_ACCESS))));
        assertEquals(MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE,
                Mad.status(answer(sw, 1, vendor(Method.SET, MellanoxAttribute.GENERAL_INFO))));
        assertTrue(process(fabric.node("qib").orElseThrow(), 1, vendor(Method.GET, MellanoxAttribute.GENERAL_INFO))
                .isEmpty(), "QLogic: not the firmware's, left to the MAD layer");
    }
}
