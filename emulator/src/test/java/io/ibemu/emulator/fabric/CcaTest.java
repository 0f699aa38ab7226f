package io.ibemu.emulator.fabric;

import static io.ibemu.emulator.fabric.RequestMads.answer;
import static io.ibemu.emulator.fabric.RequestMads.process;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.mad.Bits;
import io.ibemu.emulator.mad.CaCongestionSetting;
import io.ibemu.emulator.mad.CcAttribute;
import io.ibemu.emulator.mad.ClassPortInfo;
import io.ibemu.emulator.mad.CongestionControlTable;
import io.ibemu.emulator.mad.CongestionInfo;
import io.ibemu.emulator.mad.CongestionKeyInfo;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadStatus;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.SwitchCongestionLog;
import io.ibemu.emulator.mad.SwitchCongestionSetting;
import io.ibemu.emulator.mad.SwitchPortCongestionSetting;
import io.ibemu.emulator.mad.TimeStamp;
import io.ibemu.emulator.topology.TopologyParser;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Congestion Control MADs as bytes into Node.process: per node type, read back as set, the CC_Key. */
class CcaTest {
    private static final int D = CcAttribute.DATA_OFFSET;
    private final Fabric fabric;
    private final Node cx6;
    private final Node qib;
    private final Node sw;

    CcaTest() throws Exception {
        fabric = Fabric.of(TopologyParser.parse("t", new StringReader(LinkAttributesTest.TOPOLOGY)));
        cx6 = fabric.node("cx6").orElseThrow();
        qib = fabric.node("qib").orElseThrow();
        sw = fabric.node("sw").orElseThrow();
    }

    static byte[] cc(int method, int attributeId, int attributeModifier, long key) {
        byte[] mad = RequestMads.perf(method, attributeId, attributeModifier);
        mad[1] = (byte) MgmtClass.CONGESTION_CONTROL;
        mad[2] = CcAttribute.CLASS_VERSION;
        Bits.set(mad, CcAttribute.KEY_OFFSET, 0, 64, key);
        return mad;
    }

    private static byte[] set(Node n, int attributeId, int modifier, long key, byte[] data) {
        byte[] mad = cc(Method.SET, attributeId, modifier, key);
        System.arraycopy(data, 0, mad, D, data.length);
        return answer(n, 1, mad);
    }

    private static byte[] get(Node n, int attributeId, int modifier) {
        return answer(n, 1, cc(Method.GET, attributeId, modifier, 0));
    }

    @Test
    void everyNodeTypeAnswersItsAttributes() {
        for (int attr : Cca.ATTRIBUTES.keySet()) {
            for (Node n : List.of(cx6, sw)) {
                int expected = Cca.ATTRIBUTES.get(attr).answers(n) ? 0 : MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE;
                assertEquals(expected, Mad.status(get(n, attr, 0)), Cca.ATTRIBUTES.get(attr).name() + " on " + n);
            }
        }
        ClassPortInfo cpi = ClassPortInfo.decode(get(sw, CcAttribute.CLASS_PORT_INFO, 0), D);
        assertEquals(2, cpi.classVersion());
        assertEquals(new CongestionInfo(0, 2), CongestionInfo.decode(get(cx6, CcAttribute.CONGESTION_INFO, 0), D));
        assertEquals(new CongestionInfo(0, 0), CongestionInfo.decode(get(sw, CcAttribute.CONGESTION_INFO, 0), D));
        byte[] log = get(sw, CcAttribute.CONGESTION_LOG, 0);
        assertEquals(SwitchCongestionLog.LOG_TYPE, log[CcAttribute.LOG_DATA_OFFSET]);
        assertEquals(2, get(cx6, CcAttribute.CONGESTION_LOG, 0)[CcAttribute.LOG_DATA_OFFSET], "a CA's log");
        long t0 = TimeStamp.decode(get(sw, CcAttribute.TIME_STAMP, 0), D).timestamp() & 0xFFFFFFFFL;
        assertTrue(t0 >= 0);
        byte[] v1 = cc(Method.GET, CcAttribute.CONGESTION_INFO, 0, 0);
        v1[2] = 1;
        assertEquals(MadStatus.BAD_VERSION, Mad.status(answer(sw, 1, v1)), "the CC class is version 2");
        assertEquals(MadStatus.UNSUPPORTED_METHOD, Mad.status(answer(sw, 1, cc(0x15, CcAttribute.TIME_STAMP, 0, 0))));
        assertEquals(MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE,
                Mad.status(set(sw, CcAttribute.TIME_STAMP, 0, 0, new byte[4])), "TimeStamp is Get only");
    }

    @Test
    void qlogicHcaHasNoAgent() {
        assertTrue(process(qib, 1, cc(Method.GET, CcAttribute.CLASS_PORT_INFO, 0, 0)).isEmpty(),
                "qib with cc_table_size 0 leaves CC MADs to the MAD layer (0x0c unmatched)");
    }

    @Test
    void settingsReadBackAsSet() {
        List<Integer> victim = new ArrayList<>(Collections.nCopies(32, 0));
        victim.set(31, 0x0E);
        SwitchCongestionSetting s = new SwitchCongestionSetting(0x1F, victim, Collections.nCopies(32, 0), 0xF, 8, 0,
                0, 0x200);
        assertEquals(0, Mad.status(set(sw, CcAttribute.SWITCH_CONGESTION_SETTING, 0, 0,
                SwitchCongestionSetting.CODEC.encode(s))));
        assertEquals(s, SwitchCongestionSetting.decode(get(sw, CcAttribute.SWITCH_CONGESTION_SETTING, 0), D));
        SwitchCongestionSetting onlyRate = new SwitchCongestionSetting(0x10, Collections.nCopies(32, 0xFF),
                Collections.nCopies(32, 0), 1, 1, 1, 1, 7);
        SwitchCongestionSetting after = SwitchCongestionSetting.decode(set(sw, CcAttribute.SWITCH_CONGESTION_SETTING,
                0, 0, SwitchCongestionSetting.CODEC.encode(onlyRate)), D);
        assertEquals(new SwitchCongestionSetting(0x10, victim, Collections.nCopies(32, 0), 0xF, 8, 0, 0, 7), after,
                "Control_Map bit 4 alone: only Marking_Rate changes");

        List<Integer> valid = new ArrayList<>(Collections.nCopies(32, 0));
        valid.set(3, 1);
        List<Integer> zero = Collections.nCopies(32, 0);
        SwitchPortCongestionSetting ps = new SwitchPortCongestionSetting(valid, zero, valid, zero, zero);
        assertEquals(0, Mad.status(set(sw, CcAttribute.SWITCH_PORT_CONGESTION_SETTING, 0, 0,
                SwitchPortCongestionSetting.CODEC.encode(ps))));
        assertEquals(ps, SwitchPortCongestionSetting.decode(get(sw, CcAttribute.SWITCH_PORT_CONGESTION_SETTING, 0),
                D));
        assertEquals(MadStatus.INVALID_FIELD, Mad.status(get(sw, CcAttribute.SWITCH_PORT_CONGESTION_SETTING, 1)),
                "8 ports: one block");

        List<Integer> sl = new ArrayList<>(Collections.nCopies(16, 0));
        sl.set(5, 10);
        CaCongestionSetting cs = new CaCongestionSetting(1, 0x20, sl, sl, sl, sl);
        assertEquals(0, Mad.status(set(cx6, CcAttribute.CA_CONGESTION_SETTING, 0, 0,
                CaCongestionSetting.CODEC.encode(cs))));
        assertEquals(cs, CaCongestionSetting.decode(get(cx6, CcAttribute.CA_CONGESTION_SETTING, 0), D));
        List<Integer> nines = Collections.nCopies(16, 9);
        CaCongestionSetting sl0 = CaCongestionSetting.decode(set(cx6, CcAttribute.CA_CONGESTION_SETTING, 0, 0,
                CaCongestionSetting.CODEC.encode(new CaCongestionSetting(0, 0x1, nines, nines, nines, nines))), D);
        assertEquals(9, sl0.cctiTimer().get(0), "SL 0 in the Control_Map: set");
        assertEquals(10, sl0.cctiTimer().get(5), "SL 5 not in it: kept");

        List<Integer> mult = new ArrayList<>(Collections.nCopies(64, 0));
        mult.set(63, 0x3FFF);
        CongestionControlTable t = new CongestionControlTable(127, Collections.nCopies(64, 1), mult);
        assertEquals(0, Mad.status(set(cx6, CcAttribute.CONGESTION_CONTROL_TABLE, 1, 0,
                CongestionControlTable.CODEC.encode(t))));
        assertEquals(t, CongestionControlTable.decode(get(cx6, CcAttribute.CONGESTION_CONTROL_TABLE, 1), D));
        assertEquals(127, CongestionControlTable.decode(get(cx6, CcAttribute.CONGESTION_CONTROL_TABLE, 0), D)
                .cctiLimit(), "CCTI_Limit is the table's");
        assertEquals(MadStatus.INVALID_FIELD, Mad.status(get(cx6, CcAttribute.CONGESTION_CONTROL_TABLE, 2)),
                "ControlTableCap is 2");
        CongestionControlTable tooLong = new CongestionControlTable(128, Collections.nCopies(64, 0), mult);
        assertEquals(MadStatus.INVALID_FIELD, Mad.status(set(cx6, CcAttribute.CONGESTION_CONTROL_TABLE, 0, 0,
                CongestionControlTable.CODEC.encode(tooLong))));
        assertEquals(t, CongestionControlTable.decode(get(cx6, CcAttribute.CONGESTION_CONTROL_TABLE, 1), D),
                "a refused Set changed nothing");
    }

    @Test
    void ccKeyGuardsSets() {
        CongestionKeyInfo k = new CongestionKeyInfo(0x1234, true, 0, 0);
        assertEquals(0, Mad.status(set(sw, CcAttribute.CONGESTION_KEY_INFO, 0, 0, CongestionKeyInfo.CODEC.encode(k))));
        byte[] data = SwitchCongestionSetting.CODEC.encode(new SwitchCongestionSetting(1, Collections.nCopies(32, 0),
                Collections.nCopies(32, 0), 1, 1, 1, 1, 1));
        byte[] mad = cc(Method.SET, CcAttribute.SWITCH_CONGESTION_SETTING, 0, 0x9999);
        System.arraycopy(data, 0, mad, D, data.length);
        assertEquals(0, process(sw, 1, mad).orElseThrow().length, "a Set with the wrong key is dropped");
        assertEquals(0, SwitchCongestionSetting.decode(get(sw, CcAttribute.SWITCH_CONGESTION_SETTING, 0), D)
                .controlMap(), "and changed nothing");
        CongestionKeyInfo seen = CongestionKeyInfo.decode(get(sw, CcAttribute.CONGESTION_KEY_INFO, 0), D);
        assertEquals(new CongestionKeyInfo(0, true, 0, 1), seen, "counted; the key hidden from a wrong-key Get");
        byte[] right = answer(sw, 1, cc(Method.GET, CcAttribute.CONGESTION_KEY_INFO, 0, 0x1234));
        assertEquals(0x1234, CongestionKeyInfo.decode(right, D).ccKey());
        assertEquals(0, Mad.status(set(sw, CcAttribute.SWITCH_CONGESTION_SETTING, 0, 0x1234, data)));
        assertEquals(1, SwitchCongestionSetting.decode(get(sw, CcAttribute.SWITCH_CONGESTION_SETTING, 0), D)
                .controlMap());
    }
}
