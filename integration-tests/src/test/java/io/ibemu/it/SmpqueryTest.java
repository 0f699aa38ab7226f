package io.ibemu.it;

import static io.ibemu.it.ToolOutput.number;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Unmodified smpquery, by directed route to the local node ({@code -D ... 0}), on the
 * default fabric: the MADs are answered by the emulated SMA, and what it answers
 * agrees with the sysfs tree read in the same namespace. The device smpquery went
 * out of is the one whose node_guid NodeInfo returns; its port is NodeInfo's LocalPort.
 */
class SmpqueryTest {
    static Ibemu ib;
    static Sysfs sys;
    static Map<String, String> nodeInfo;
    static String dev;
    static int port;

    @BeforeAll
    static void up() {
        ib = Ibemu.start();
        sys = Sysfs.read(ib);
        Result r = ib.exec("smpquery", "-D", "nodeinfo", "0").assertOk();
        nodeInfo = ToolOutput.smpFields(r.stdout());
        dev = sys.deviceWithNodeGuid(number(field(nodeInfo, "Guid", r)));
        port = (int) number(field(nodeInfo, "LocalPort", r));
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    static String field(Map<String, String> f, String name, Object context) {
        String v = f.get(name);
        if (v == null) {
            throw new AssertionError("no " + name + " in " + f + "\n" + context);
        }
        return v;
    }

    @Test
    void nodeinfoMatchesSysfs() {
        String ctx = nodeInfo + "\nsysfs:\n" + sys;
        assertTrue(nodeInfo.get("NodeType").equals("Channel Adapter"), ctx);
        assertEquals(sys.nodeGuid(dev), number(field(nodeInfo, "Guid", ctx)), ctx);
        assertEquals(sys.sysImageGuid(dev), number(field(nodeInfo, "SystemGuid", ctx)), ctx);
        assertEquals(sys.ports(dev).size(), number(field(nodeInfo, "NumPorts", ctx)), ctx);
        assertTrue(sys.ports(dev).contains(port), "LocalPort " + port + " is a port of " + dev + ": " + ctx);
        assertEquals(sys.portGuid(dev, port), number(field(nodeInfo, "PortGuid", ctx)), "PortGuid is the local port's: " + ctx);
        assertEquals(sys.pkeys(dev, port).size(), number(field(nodeInfo, "PartCap", ctx)),
                "PartCap is the pkey table's size: " + ctx);
        assertEquals(1, number(field(nodeInfo, "BaseVers", ctx)));
        assertEquals(1, number(field(nodeInfo, "ClassVers", ctx)));
    }

    @Test
    void portinfoMatchesSysfs() {
        Result r = ib.exec("smpquery", "-D", "portinfo", "0", Integer.toString(port)).assertOk();
        Map<String, String> pi = ToolOutput.smpFields(r.stdout());
        String ctx = r + "\nsysfs:\n" + sys;
        assertTrue(r.stdout().startsWith("# Port info: DR path ") && r.stdout().lines().findFirst().orElse("").endsWith(" port " + port), ctx);
        assertEquals(sys.lid(dev, port), number(field(pi, "Lid", ctx)), ctx);
        assertEquals(sys.smLid(dev, port), number(field(pi, "SMLid", ctx)), ctx);
        assertEquals(sys.lmc(dev, port), number(field(pi, "LMC", ctx)), ctx);
        assertEquals(sys.capMask(dev, port), number(field(pi, "CapMask", ctx)), ctx);
        assertEquals(sys.gidPrefix(dev, port), number(field(pi, "GidPrefix", ctx)), ctx);
        assertEquals(List.of("NoChange", "Down", "Initialize", "Armed", "Active").get(sys.portState(dev, port)),
                field(pi, "LinkState", ctx), ctx);
        assertEquals(List.of("NoChange", "Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp",
                        "LinkErrorRecovery", "PhyTest").get(sys.physState(dev, port)),
                field(pi, "PhysLinkState", ctx), ctx);
        String rate = sys.port(dev, port, "rate"); // "40 Gb/sec (4X QDR)"
        String width = rate.substring(rate.indexOf('(') + 1, rate.indexOf('X') + 1);
        assertEquals(width, field(pi, "LinkWidthActive", ctx), ctx);

        // the expectations without an SM, on the port smpquery went out of
        assertEquals("Initialize", pi.get("LinkState"), ctx);
        assertEquals("LinkUp", pi.get("PhysLinkState"), ctx);
        assertEquals(0, number(pi.get("Lid")), ctx);
        assertEquals(0, number(pi.get("SMLid")), ctx);
    }

    @Test
    void nodedescMatchesSysfs() {
        Result r = ib.exec("smpquery", "-D", "nodedesc", "0").assertOk();
        String desc = sys.get(dev, "node_desc");
        // smpquery.c: "Node Description:" + dots to column 32 (or one dot) + the description
        String dots = desc.length() < 32 ? ".".repeat(32 - desc.length()) : ".";
        assertEquals("Node Description:" + dots + desc, r.out(), r.toString());
    }

    @Test
    void guidinfoStartsWithThePortGuid() {
        Result r = ib.exec("smpquery", "-D", "guidinfo", "0").assertOk();
        List<Long> guids = ToolOutput.smpTable(r.stdout());
        int cap = ToolOutput.capacity(r.stdout(), "guids");
        assertTrue(cap >= 1, r.toString());
        assertEquals(((cap + 1) / 2) * 2, guids.size(), "rows of two cover the capacity: " + r);
        assertEquals(sys.portGuid(dev, port), guids.get(0), "GUID 0 is the port GUID: " + r);
    }

    @Test
    void pkeysMatchSysfs() {
        Result r = ib.exec("smpquery", "-D", "pkeys", "0", Integer.toString(port)).assertOk();
        List<Long> table = ToolOutput.smpTable(r.stdout());
        int cap = ToolOutput.capacity(r.stdout(), "pkeys");
        List<Integer> sysPkeys = sys.pkeys(dev, port);
        assertEquals(sysPkeys.size(), cap, "capacity is the sysfs pkeys count: " + r);
        assertEquals(number(nodeInfo.get("PartCap")), cap, "capacity is NodeInfo's PartCap: " + r);
        assertEquals(((cap + 7) / 8) * 8, table.size(), "rows of eight cover the capacity: " + r);
        for (int i = 0; i < sysPkeys.size(); i++) {
            assertEquals((long) sysPkeys.get(i), table.get(i), "pkey " + i + ": " + r);
        }
        assertEquals(0xffffL, table.get(0), "default partition key: " + r);
    }
}
