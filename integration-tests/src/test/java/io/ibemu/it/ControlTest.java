package io.ibemu.it;

import static io.ibemu.it.ToolOutput.number;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code scripts/ibemu ctl} against a live daemon on the default fabric: each change shows
 * where it would on real hardware, read with unmodified tools (ibstat, smpquery) and the
 * sysfs tree in the instance's namespace. Every test puts back what it changed.
 */
class ControlTest {
    static Ibemu ib;
    static String dev;

    @BeforeAll
    static void up() {
        ib = Ibemu.start();
        List<String> devices = Sysfs.read(ib).devices();
        assertEquals(1, devices.size(), "the default fabric has one local HCA: " + devices);
        dev = devices.get(0);
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    static Result ctl(String... words) {
        return ib.ctl(words);
    }

    static String sysPort(String attr) {
        return ib.cat("/sys/class/infiniband/" + dev + "/ports/1/" + attr);
    }

    static Map<String, String> ibstat() {
        return ToolOutput.ibstatPort(ib.exec("ibstat", dev, "1").assertOk().stdout());
    }

    @Test
    void cuttingTheLocalLinkShowsInIbstatAndSysfsAndRestoringBringsItBack() {
        long downed = Long.parseLong(sysPort("counters/link_downed"));
        Result cut = ctl("link", "cut", "local", "1").assertOk();
        assertTrue(cut.out().contains("\"local\"[1] -- \"switch\"[1] cut"), cut.toString());

        Map<String, String> f = ibstat();
        assertEquals("Down", f.get("State"), f.toString());
        assertEquals("Polling", f.get("Physical state"), f.toString());
        assertEquals("1: DOWN", sysPort("state"));
        assertEquals("2: Polling", sysPort("phys_state"));
        assertEquals(downed + 1, Long.parseLong(sysPort("counters/link_downed")), "LinkDownedCounter counts it");
        assertTrue(ctl("dump", "switch").assertOk().stdout().contains("[1] Down/Polling -- \"local\"[1] cut"),
                "the switch's end went down too");

        ctl("link", "restore", "local", "1").assertOk();
        f = ibstat();
        assertEquals("Initializing", f.get("State"), f.toString());
        assertEquals("LinkUp", f.get("Physical state"), f.toString());
        assertEquals("2: INIT", sysPort("state"));
        assertEquals("5: LinkUp", sysPort("phys_state"));
    }

    @Test
    void cuttingEveryLinkOfTheSwitchTakesTheLocalPortDown() {
        ctl("node", "cut", "switch").assertOk();
        assertEquals("1: DOWN", sysPort("state"));
        Result again = ctl("link", "cut", "local", "1").assertExit(1);
        assertTrue(again.stderr().contains("already cut"), again.toString());
        ctl("node", "restore", "switch").assertOk();
        assertEquals("5: LinkUp", sysPort("phys_state"));
    }

    @Test
    void countersSetByCtlShowInSysfs() {
        ctl("counter", "local", "1", "SymbolErrorCounter", "42").assertOk();
        ctl("counter", "local", "1", "PortRcvErrors", "7").assertOk();
        ctl("counter", "local", "1", "PortXmitDiscards", "65535").assertOk();
        assertEquals("42", sysPort("counters/symbol_error"));
        assertEquals("7", sysPort("counters/port_rcv_errors"));
        assertEquals("65535", sysPort("counters/port_xmit_discards"));
        for (String c : List.of("SymbolErrorCounter", "PortRcvErrors", "PortXmitDiscards")) {
            ctl("counter", "local", "1", c, "0").assertOk();
        }
        assertEquals("0", sysPort("counters/symbol_error"));
    }

    @Test
    void guidsSetByCtlShowInSmpqueryIbstatAndSysfs() {
        Map<String, String> before = ToolOutput.smpFields(ib.exec("smpquery", "-D", "nodeinfo", "0").assertOk().stdout());
        long nodeGuid = number(before.get("Guid"));
        long portGuid = number(before.get("PortGuid"));
        try {
            ctl("guid", "local", "0x0011750000abcd00").assertOk();
            ctl("guid", "local", "1", "0x0011750000abcd01").assertOk();
            Map<String, String> after = ToolOutput.smpFields(ib.exec("smpquery", "-D", "nodeinfo", "0").assertOk()
                    .stdout());
            assertEquals(0x0011750000abcd00L, number(after.get("Guid")), after.toString());
            assertEquals(0x0011750000abcd01L, number(after.get("PortGuid")), after.toString());
            assertEquals("0011:7500:00ab:cd00", ib.cat("/sys/class/infiniband/" + dev + "/node_guid"));
            assertEquals("fe80:0000:0000:0000:0011:7500:00ab:cd01", sysPort("gids/0"));
            assertEquals("0x0011750000abcd01", ibstat().get("Port GUID"));
        } finally {
            ctl("guid", "local", String.format("0x%016x", nodeGuid)).assertOk();
            ctl("guid", "local", "1", String.format("0x%016x", portGuid)).assertOk();
        }
        assertEquals(nodeGuid, number(ToolOutput.smpFields(ib.exec("smpquery", "-D", "nodeinfo", "0").assertOk()
                .stdout()).get("Guid")));
    }

    @Test
    void lidSetByCtlShowsInIbstatAndSysfs() {
        ctl("lid", "local", "1", "9").assertOk();
        try {
            assertEquals("9", ibstat().get("Base lid"));
            assertEquals("0x9", sysPort("lid"));
        } finally {
            ctl("lid", "local", "1", "0").assertOk();
        }
        assertEquals("0x0", sysPort("lid"));
    }

    @Test
    void dumpListsTheDefaultFabricAndATopologyThatChecks() throws IOException {
        Result r = ctl("dump").assertOk();
        String out = r.stdout();
        for (String node : List.of("Hca 2 \"local\"", "Hca 1 \"node1\"", "Hca 1 \"node2\"", "Switch 8 \"switch\"")) {
            assertTrue(out.contains(node), node + " in " + r);
        }
        assertTrue(out.contains("# 4 nodes"), r.toString());
        assertTrue(out.contains("Init/LinkUp 4xQDR -- \"switch\"[1]"), r.toString());
        Path file = Files.createTempFile(Ibemu.targetDir(), "ctl-topology", ".txt");
        try {
            Files.writeString(file, ctl("topology").assertOk().stdout());
            Result check = Ibemu.ibemu("topology", "check", file.toString()).assertOk();
            assertTrue(check.out().endsWith("4 nodes, 3 links: ok"), check.toString());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void nodesComeAndGoButTheLocalHcaStays() {
        Result add = ctl("node", "add", "Hca 1 \"node3\" # \"ibemu-node3 HCA-1\"", "[1] \"switch\"[4]").assertOk();
        assertTrue(add.out().contains("\"node3\"[1] -- \"switch\"[4]: Init/LinkUp, Init/LinkUp"), add.toString());
        assertTrue(ctl("dump").assertOk().stdout().contains("# 5 nodes"));
        ctl("node", "remove", "node3").assertOk();
        assertTrue(ctl("dump", "switch").assertOk().stdout().contains("[4] Down/Polling\n"));

        Result local = ctl("node", "remove", "local").assertExit(1);
        assertTrue(local.stderr().contains("is a local HCA"), local.toString());
        assertEquals("5: LinkUp", sysPort("phys_state"));
    }

    @Test
    void wrongInputExitsOneWithAClearMessageAndTheDaemonKeepsServing() {
        Result noNode = ctl("link", "cut", "nosuch", "1").assertExit(1);
        assertTrue(noNode.stderr().contains("no node 'nosuch' in the fabric"), noNode.toString());
        Result noPort = ctl("link", "cut", "local", "9").assertExit(1);
        assertTrue(noPort.stderr().contains("\"local\" has ports 1..2, not 9"), noPort.toString());
        Result badRate = ctl("drop", "switch", "1", "150%").assertExit(1);
        assertTrue(badRate.stderr().contains("not in 0..1 or 0%..100%"), badRate.toString());
        Result unknown = ctl("frob").assertExit(1);
        assertTrue(unknown.stderr().contains("unknown command 'frob'"), unknown.toString());
        Result usage = Ibemu.ibemu("ctl", "--name", ib.name()).assertExit(2);
        assertTrue(usage.stderr().contains("no command given"), usage.toString());
        Result noInstance = Ibemu.ibemu("ctl", "--name", Ibemu.uniqueName(), "dump").assertExit(1);
        assertTrue(noInstance.stderr().contains("no instance named"), noInstance.toString());

        assertTrue(ib.isAlive());
        assertTrue(ctl("dump", "local").assertOk().out().startsWith("Hca 2 \"local\""));
    }

    @Test
    void helpListsTheCommands() {
        Result r = Ibemu.ibemu("ctl", "--help").assertOk();
        for (String c : List.of("link cut NODE PORT", "link restore", "node add", "node remove", "drop NODE PORT RATE",
                "counter NODE PORT NAME VALUE", "guid NODE", "lid NODE PORT LID", "dump")) {
            assertTrue(r.stdout().contains(c), c + " in " + r);
        }
        assertFalse(r.stdout().contains("--state"), "the launcher finds the state directory itself: " + r);
    }
}
