package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * perfquery against a switch's PMA on the default fabric under {@code --sm preset}: PortSelect 0
 * is the switch's management port (IBA 16.1.3.5), Get and Set (-R) on it touch port 0 only; the
 * switch advertises AllPortSelect in ClassPortInfo and answers PortSelect 0xFF itself (-a), summing
 * ports 0..N; an HCA does not advertise it and perfquery emulates it by looping.
 */
class PmaPortSelectTest {
    static Ibemu ib;
    static String switchLid;

    @BeforeAll
    static void up() {
        ib = Ibemu.start("--sm", "preset");
        String sw = ib.exec("ibswitches").assertOk().stdout();
        Matcher m = Pattern.compile("\\blid (\\d+)").matcher(sw);
        assertTrue(m.find(), sw);
        switchLid = m.group(1);
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    static void counter(String node, int port, String name, long value) {
        Ibemu.ibemu("ctl", "--name", ib.name(), "counter", node, String.valueOf(port), name, String.valueOf(value))
                .assertOk();
    }

    static Map<String, Long> perfquery(String... args) {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "perfquery";
        System.arraycopy(args, 0, cmd, 1, args.length);
        return FabricTest.counters(ib.exec(cmd).assertOk().stdout());
    }

    @Test
    void portSelectZeroAndAllPortSelectOnASwitch() {
        counter("switch", 0, "SymbolErrorCounter", 12);
        counter("switch", 3, "SymbolErrorCounter", 5);
        counter("switch", 0, "VL15Dropped", 2);

        Result zero = ib.exec("perfquery", switchLid, "0").assertOk();
        assertTrue(zero.stdout().contains("# Port counters: Lid " + switchLid + " port 0"), zero.toString());
        Map<String, Long> c = FabricTest.counters(zero.stdout());
        assertEquals(0L, c.get("PortSelect"), zero.toString());
        assertEquals(12L, c.get("SymbolErrorCounter"), "port 0's own counters: " + zero);
        assertEquals(2L, c.get("VL15Dropped"), zero.toString());
        Result ext = ib.exec("perfquery", "-x", switchLid, "0").assertOk();
        assertTrue(ext.stdout().contains("Port extended counters: Lid " + switchLid + " port 0"), ext.toString());

        Result all = ib.exec("perfquery", "-a", switchLid).assertOk();
        Matcher cap = Pattern.compile("CapMask: 0x([0-9a-fA-F]+)").matcher(all.stdout());
        assertTrue(cap.find(), all.toString());
        assertTrue((Integer.parseInt(cap.group(1), 16) & 0x100) != 0, "AllPortSelect advertised: " + all);
        assertFalse(all.stderr().contains("Emulating AllPortSelect"), "the switch answers 0xFF itself: " + all);
        assertTrue(all.stdout().contains("port 255"), all.toString());
        assertEquals(17L, FabricTest.counters(all.stdout()).get("SymbolErrorCounter"), "ports 0..8 summed: " + all);

        // ClearPortCounters: a Set of PortCounters with PortSelect 0 clears port 0 only
        ib.exec("perfquery", "-R", switchLid, "0").assertOk();
        assertEquals(0L, perfquery(switchLid, "0").get("SymbolErrorCounter"));
        assertEquals(0L, perfquery(switchLid, "0").get("VL15Dropped"));
        assertEquals(5L, perfquery(switchLid, "3").get("SymbolErrorCounter"), "port 3 untouched");
        ib.exec("perfquery", "-R", "-a", switchLid).assertOk();
        assertEquals(0L, perfquery(switchLid, "3").get("SymbolErrorCounter"), "-R -a clears every port");
    }

    @Test
    void anHcaDoesNotAdvertiseAllPortSelectAndPerfqueryLoops() {
        String ibstat = ib.exec("ibstat", "ibemu0", "1").assertOk().stdout();
        Matcher lid = Pattern.compile("Base lid: (\\d+)").matcher(ibstat);
        assertTrue(lid.find(), ibstat);
        Result hca = ib.exec("perfquery", "-a", lid.group(1)).assertOk();
        Matcher cap = Pattern.compile("CapMask: 0x([0-9a-fA-F]+)").matcher(hca.stdout());
        assertTrue(cap.find(), hca.toString());
        assertEquals(0, Integer.parseInt(cap.group(1), 16) & 0x100, hca.toString());
        assertTrue(hca.stderr().contains("Emulating AllPortSelect"), hca.toString());
        Result refused = ib.exec("perfquery", lid.group(1), "0");
        assertFalse(refused.ok(), "an HCA has no port 0: " + refused);
    }
}
