package io.ibemu.it;

import static io.ibemu.it.ToolOutput.number;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Congestion Control class (IBA annex A10) on Mellanox-id switches and HCAs under Debian's
 * OpenSM with its congestion control manager on (an options file with cc_* values): OpenSM
 * configures every node without a CC error, ibccquery reads back what it set on every attribute
 * it offers, ibccconfig sets each settable attribute and ibccquery reads it back, a wrong CC_Key
 * is refused and counted, and a QLogic HCA answers the class as qib does (not at all: 0x0c).
 */
class CongestionControlTest {
    static final Path TOPOLOGY = Ibemu.root().resolve(
            "integration-tests/src/test/resources/topology/mellanox-generations.net");
    static final String OPENSM_OPTIONS = """
            congestion_control TRUE
            cc_sw_cong_setting_control_map 0x0000001F
            cc_sw_cong_setting_victim_mask 0x0000000000000000000000000000000000000000000000000000000000000006
            cc_sw_cong_setting_threshold 0x07
            cc_sw_cong_setting_packet_size 8
            cc_sw_cong_setting_marking_rate 20
            cc_ca_cong_setting_port_control 0x0001
            cc_ca_cong_setting_control_map 0x0003
            cc_ca_cong_setting_ccti_timer 1 150
            cc_ca_cong_setting_ccti_increase 1 2
            cc_ca_cong_setting_trigger_threshold 1 4
            cc_ca_cong_setting_ccti_min 1 1
            cc_cct 0:0,1:100,2:200
            """;
    static Ibemu ib;
    static String quantum;
    static String switchIb;
    static String cx6;
    static String cx5;
    static String cx3;
    static String qib;

    @BeforeAll
    static void up() throws Exception {
        Path dir = Files.createDirectories(Ibemu.targetDir().resolve("congestion-control"));
        Path options = Files.writeString(dir.resolve("opensm.conf"), OPENSM_OPTIONS);
        ib = Ibemu.start(Map.of("IBEMU_SM_OPTS", "-F " + options), "--topology", TOPOLOGY.toString(), "--local", "cx6",
                "--sm", "opensm");
        // start returns once the ports are Active; OpenSM's CC setup follows, before SUBNET UP
        String log = FabricTest.waitFor(ib.stateDir().resolve("opensm.log"), "SUBNET UP", Duration.ofSeconds(120));
        assertTrue(log.contains("SUBNET UP"), log);
        String switches = ib.exec("ibswitches").assertOk().stdout();
        quantum = lid(switches, "quantum switch");
        switchIb = lid(switches, "switch-ib switch");
        cx6 = portLid("0");
        cx5 = portLid("0,1,2");
        cx3 = portLid("0,1,8,1");
        qib = portLid("0,1,8,2");
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    static String lid(String ibswitches, String description) {
        Matcher m = Pattern.compile("\"" + description + "\".* lid (\\d+)").matcher(ibswitches);
        assertTrue(m.find(), description + " in " + ibswitches);
        return m.group(1);
    }

    /** The LID of the CA port at the end of a directed route. */
    static String portLid(String path) {
        Result r = ib.exec("smpquery", "-D", "portinfo", path).assertOk();
        return Long.toString(number(ToolOutput.smpFields(r.stdout()).get("Lid")));
    }

    /** "Label:....value" lines in order, repeated labels kept. */
    static List<String[]> fields(String out) {
        List<String[]> list = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^(\\w+):\\.+(.*)$").matcher(out);
        while (m.find()) {
            list.add(new String[] {m.group(1), m.group(2).strip()});
        }
        return list;
    }

    static Map<String, String> query(String... args) {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "ibccquery";
        System.arraycopy(args, 0, cmd, 1, args.length);
        Result r = ib.exec(cmd).assertOk();
        return ToolOutput.smpFields(r.stdout());
    }

    @Test
    void openSmConfiguresEveryNodeWithoutError() throws Exception {
        String log = Files.readString(ib.stateDir().resolve("opensm.log"));
        assertTrue(log.contains("SUBNET UP"), log);
        assertFalse(log.contains("ERR C1"), "no congestion control manager error (ERR C101..C10B):\n" + log);
        assertFalse(log.contains("ERR 0F10"), "no PortInfo Set refused (extended speeds):\n" + log);
        // what OpenSM's options said, read back from a switch and from a remote HCA
        Map<String, String> ss = query("SS", switchIb);
        assertEquals("0x0000001f", ss.get("Control_Map"), ss.toString());
        assertEquals("0000000000000000000000000000000000000000000000000000000000000006", ss.get("Victim_Mask"));
        assertEquals("0x07", ss.get("Threshold"));
        assertEquals("8", ss.get("Packet_Size"));
        assertEquals("20", ss.get("Marking_Rate"));
        Result cs = ib.exec("ibccquery", "CS", cx3).assertOk();
        assertEquals("0x0001", ToolOutput.smpFields(cs.stdout()).get("Port_Control"), cs.toString());
        assertEquals("0x0003", ToolOutput.smpFields(cs.stdout()).get("Control_Map"), cs.toString());
        List<String[]> f = fields(cs.stdout());
        int sl1 = indexOf(f, "SL", "1");
        assertEquals("150", f.get(sl1 + 1)[1], "SL 1 CCTI_Timer: " + cs);
        assertEquals("2", f.get(sl1 + 2)[1], "SL 1 CCTI_Increase: " + cs);
        assertEquals("4", f.get(sl1 + 3)[1], "SL 1 Trigger_Threshold: " + cs);
        assertEquals("1", f.get(sl1 + 4)[1], "SL 1 CCTI_Min: " + cs);
        Result ct = ib.exec("ibccquery", "CT", cx6).assertOk();
        List<String[]> t = fields(ct.stdout());
        assertEquals("2", t.get(0)[1], "CCTI_Limit: three entries: " + ct);
        int e2 = indexOf(t, "Entry", "2");
        assertEquals("2", t.get(e2 + 1)[1], "entry 2 shift: " + ct);
        assertEquals("200", t.get(e2 + 2)[1], "entry 2 multiplier: " + ct);
    }

    static int indexOf(List<String[]> f, String label, String value) {
        for (int i = 0; i < f.size(); i++) {
            if (f.get(i)[0].equals(label) && f.get(i)[1].equals(value)) {
                return i;
            }
        }
        throw new AssertionError("no " + label + " " + value);
    }

    @Test
    void everyAttributeIbccqueryOffers() {
        Map<String, String> cp = query("CP", quantum);
        assertEquals("1", cp.get("BaseVersion"), cp.toString());
        assertEquals("2", cp.get("ClassVersion"), "the CC class is version 2: " + cp);
        assertEquals("0", query("CI", quantum).get("ControlTableCap"), "a switch has no CCT");
        assertEquals("2", query("CI", cx6).get("ControlTableCap"), "a CA: two blocks of 64 entries");
        Map<String, String> ck = query("CK", cx5);
        assertEquals("0x0000000000000000", ck.get("CC_Key"), ck.toString());
        assertEquals("0", ck.get("CC_KeyViolations"));
        assertEquals("1", query("CL", quantum).get("LogType"), "a switch's log");
        Map<String, String> caLog = query("CL", cx6);
        assertEquals("2", caLog.get("LogType"), "a CA's log: " + caLog);
        assertEquals("0", caLog.get("ThresholdEventCounter"), "no marking happens on the fabric");
        long t0 = number(query("TI", quantum).get("Timestamp"));
        long t1 = number(query("TI", quantum).get("Timestamp"));
        assertTrue(t1 > t0, "the TimeStamp clock runs: " + t0 + " then " + t1);
        Result sp = ib.exec("ibccquery", "SP", quantum).assertOk();
        assertEquals(9, fields(sp.stdout()).stream().filter(x -> x[0].equals("Port")).count(),
                "ports 0..8: " + sp);

        // what a node type does not have: the tool's own failure message, from status 0x0c
        Result caOnSwitch = ib.exec("ibccquery", "CS", quantum);
        assertFalse(caOnSwitch.ok(), caOnSwitch.toString());
        assertTrue((caOnSwitch.stdout() + caOnSwitch.stderr()).contains("ca congestion setting query failed"),
                caOnSwitch.toString());
        Result switchOnCa = ib.exec("ibccquery", "SS", cx6);
        assertFalse(switchOnCa.ok(), switchOnCa.toString());
        Result qlogic = ib.exec("ibccquery", "CP", qib);
        assertFalse(qlogic.ok(), "qib with its default cc_table_size has no CCA: " + qlogic);
    }

    @Test
    void ibccconfigEverySettableAttributeReadsBack() {
        ib.exec("ibccconfig", "SS", quantum, "0x1f", "0xff", "0x1", "0x9", "32", "0x2", "1:5", "77").assertOk();
        Map<String, String> ss = query("SS", quantum);
        assertEquals("0x0000001f", ss.get("Control_Map"), ss.toString());
        assertTrue(ss.get("Victim_Mask").endsWith("ff"), ss.toString());
        assertTrue(ss.get("Credit_Mask").endsWith("01"), ss.toString());
        assertEquals("0x09", ss.get("Threshold"));
        assertEquals("32", ss.get("Packet_Size"));
        assertEquals("0x02", ss.get("CS_Threshold"));
        assertEquals("0x4005", ss.get("CS_ReturnDelay"));
        assertEquals("77", ss.get("Marking_Rate"));
        // Control_Map bit 4 alone: only Marking_Rate changes
        ib.exec("ibccconfig", "SS", quantum, "0x10", "0x0", "0x0", "0x1", "64", "0x1", "0:1", "78").assertOk();
        ss = query("SS", quantum);
        assertEquals("78", ss.get("Marking_Rate"), ss.toString());
        assertEquals("0x09", ss.get("Threshold"), ss.toString());
        assertTrue(ss.get("Victim_Mask").endsWith("ff"), ss.toString());

        ib.exec("ibccconfig", "SP", quantum, "3", "1", "1", "0xa", "16", "300").assertOk();
        Map<String, String> sp = query("SP", quantum, "3");
        assertEquals("1", sp.get("Valid"), sp.toString());
        assertEquals("1", sp.get("Control_Type"));
        assertEquals("0x0a", sp.get("Threshold"));
        assertEquals("16", sp.get("Packet_Size"));
        assertEquals("300", sp.get("Cong_Parm_Marking_Rate"));
        assertEquals("0", query("SP", quantum, "4").get("Valid"), "port 4 untouched");

        ib.exec("ibccconfig", "CS", cx5, "0x1", "0x8", "40", "5", "6", "7").assertOk();
        Result cs = ib.exec("ibccquery", "CS", cx5).assertOk();
        List<String[]> f = fields(cs.stdout());
        assertEquals("0x0008", ToolOutput.smpFields(cs.stdout()).get("Control_Map"), cs.toString());
        int sl3 = indexOf(f, "SL", "3");
        assertEquals(List.of("40", "5", "6", "7"),
                List.of(f.get(sl3 + 1)[1], f.get(sl3 + 2)[1], f.get(sl3 + 3)[1], f.get(sl3 + 4)[1]), cs.toString());

        ib.exec("ibccconfig", "CT", cx5, "3", "0", "0:10", "1:20", "2:30", "3:40").assertOk();
        Result ct = ib.exec("ibccquery", "CT", cx5).assertOk();
        List<String[]> t = fields(ct.stdout());
        assertEquals("3", t.get(0)[1], ct.toString());
        int e3 = indexOf(t, "Entry", "3");
        assertEquals(List.of("3", "40"), List.of(t.get(e3 + 1)[1], t.get(e3 + 2)[1]), ct.toString());

        List<String> past = new ArrayList<>(List.of("ibccconfig", "CT", cx5, "191", "2"));
        for (int i = 0; i < 64; i++) {
            past.add("1:1");
        }
        Result tooLong = ib.exec(past.toArray(String[]::new));
        assertFalse(tooLong.ok(), "block 2 is past ControlTableCap: " + tooLong);
        assertEquals("3", fields(ib.exec("ibccquery", "CT", cx5).assertOk().stdout()).get(0)[1], "nothing changed");
    }

    @Test
    void ccKeyGuardsTheSettings() {
        // a key on cx6's port; Sets must then carry it
        ib.exec("ibccconfig", "CK", cx6, "0x1234", "1", "0", "0").assertOk();
        Map<String, String> hidden = query("CK", cx6);
        assertEquals("0x0000000000000000", hidden.get("CC_Key"), "a Get without the key: protected, shown 0");
        assertEquals("1", hidden.get("CC_KeyProtectBit"), hidden.toString());
        Result wrong = ib.exec("ibccconfig", "-t", "200", "CS", cx6, "0x1", "0x1", "1", "1", "1", "1");
        assertFalse(wrong.ok(), "a Set with the wrong key is dropped: " + wrong);
        Map<String, String> seen = query("-c", "0x1234", "CK", cx6);
        assertEquals("0x0000000000001234", seen.get("CC_Key"), "the right key sees it: " + seen);
        assertTrue(number(seen.get("CC_KeyViolations")) >= 1, "each wrong-key Set (and retry) counted: " + seen);
        ib.exec("ibccconfig", "-c", "0x1234", "CS", cx6, "0x1", "0x1", "9", "1", "1", "1").assertOk();
        List<String[]> f = fields(ib.exec("ibccquery", "CS", cx6).assertOk().stdout());
        assertEquals("9", f.get(indexOf(f, "SL", "0") + 1)[1], "the right key sets");
        ib.exec("ibccconfig", "-c", "0x1234", "CK", cx6, "0", "0", "0", "0").assertOk();
        assertEquals("0", query("CK", cx6).get("CC_KeyViolations"), "the key and its count cleared");
    }
}
