package io.ibemu.it;

import static io.ibemu.it.Sysfs.hex64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.it.ToolOutput.Ca;
import io.ibemu.it.ToolOutput.IbstatusPort;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Unmodified ibstat and ibstatus on the default fabric print what the sysfs tree
 * holds (both read it through libibumad or directly), and the expectations
 * for a fabric without a subnet manager: ports Initializing / LinkUp, LID 0, SM LID 0.
 */
class IbstatTest {
    static Ibemu ib;
    static Sysfs sys;

    @BeforeAll
    static void up() {
        ib = Ibemu.start();
        sys = Sysfs.read(ib);
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    /** ibstat's State: names (port_state_str in ibstat.c), by sysfs state number. */
    static final List<String> STATE = List.of("???", "Down", "Initializing", "Armed", "Active");
    /** ibstat's Physical state: names (port_phy_state_str), by sysfs phys_state number. */
    static final List<String> PHYS = List.of("No state change", "Sleep", "Polling", "Disabled",
            "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "PhyTest");

    /** ibstat's "Rate:" from sysfs rate ("40 Gb/sec (4X QDR)" -> 40; "2.5 ..." -> 2.5). */
    static String rate(String sysfsRate) {
        String n = sysfsRate.substring(0, sysfsRate.indexOf(' '));
        int whole = (int) Double.parseDouble(n);
        String r = whole == 2 ? "2.5" : Integer.toString(whole);
        return sysfsRate.toUpperCase().contains("FDR10") ? r + " (FDR10)" : r;
    }

    static void assertPortMatchesSysfs(String dev, int p, Map<String, String> f) {
        String where = dev + " port " + p + ": " + f + "\nsysfs:\n" + sys;
        assertEquals(STATE.get(sys.portState(dev, p)), f.get("State"), where);
        assertEquals(PHYS.get(sys.physState(dev, p)), f.get("Physical state"), where);
        assertEquals(rate(sys.port(dev, p, "rate")), f.get("Rate"), where);
        assertEquals(Integer.toString(sys.lid(dev, p)), f.get("Base lid"), where);
        assertEquals(Integer.toString(sys.lmc(dev, p)), f.get("LMC"), where);
        assertEquals(Integer.toString(sys.smLid(dev, p)), f.get("SM lid"), where);
        assertEquals(String.format("0x%08x", sys.capMask(dev, p)), f.get("Capability mask"), where);
        assertEquals(hex64(sys.portGuid(dev, p)), f.get("Port GUID"), where);
        assertEquals(sys.port(dev, p, "link_layer"), f.get("Link layer"), where);
    }

    /**
     * No SM on the default fabric: no port has a LID or an SM LID, and a cabled port
     * (physical link up) waits in Initializing for an SM to configure it.
     */
    static void assertNoSmState(String dev, int p, Map<String, String> f) {
        assertEquals("0", f.get("Base lid"), dev + " port " + p + ": " + f);
        assertEquals("0", f.get("SM lid"), dev + " port " + p + ": " + f);
        if ("LinkUp".equals(f.get("Physical state"))) {
            assertEquals("Initializing", f.get("State"), dev + " port " + p + ": " + f);
        }
    }

    /** The default fabric has at least one cabled port: LinkUp and Initializing. */
    @Test
    void someLocalPortIsLinkedAndInitializing() {
        boolean found = false;
        for (String dev : sys.devices()) {
            for (int p : sys.ports(dev)) {
                found |= sys.physState(dev, p) == 5 && sys.portState(dev, p) == 2;
            }
        }
        assertTrue(found, "no port is 5: LinkUp and 2: INIT:\n" + sys);
    }

    @Test
    void ibstatPrintsEveryDeviceAsSysfsHasIt() {
        Result r = ib.exec("ibstat").assertOk();
        List<Ca> cas = ToolOutput.ibstat(r.stdout());
        assertEquals(sys.devices(), cas.stream().map(Ca::name).sorted().toList(), r.toString());
        for (Ca ca : cas) {
            String dev = ca.name();
            assertEquals(Integer.toString(sys.ports(dev).size()), ca.field("Number of ports"), r.toString());
            assertEquals(hex64(sys.nodeGuid(dev)), ca.field("Node GUID"), r.toString());
            assertEquals(hex64(sys.sysImageGuid(dev)), ca.field("System image GUID"), r.toString());
            if (sys.has(dev + "/fw_ver")) {
                assertEquals(sys.get(dev, "fw_ver"), ca.field("Firmware version"));
            }
            if (sys.has(dev + "/hw_rev")) {
                assertEquals(sys.get(dev, "hw_rev"), ca.field("Hardware version"));
            }
            if (sys.has(dev + "/hca_type")) {
                assertEquals(sys.get(dev, "hca_type"), ca.field("CA type"));
            }
            assertEquals(sys.ports(dev), new ArrayList<>(ca.ports().keySet()), r.toString());
            for (int p : sys.ports(dev)) {
                assertPortMatchesSysfs(dev, p, ca.port(p));
                assertNoSmState(dev, p, ca.port(p));
            }
        }
    }

    @Test
    void ibstatListsDevices() {
        Result r = ib.exec("ibstat", "-l").assertOk();
        assertEquals(sys.devices(), r.lines().stream().sorted().toList(), r.toString());
    }

    @Test
    void ibstatListsPortGuids() {
        Result r = ib.exec("ibstat", "-p").assertOk();
        List<String> want = new ArrayList<>();
        for (String dev : sys.devices()) {
            for (int p : sys.ports(dev)) {
                want.add(hex64(sys.portGuid(dev, p)));
            }
        }
        assertEquals(want.stream().sorted().toList(), r.lines().stream().sorted().toList(), r.toString());
    }

    @Test
    void ibstatOfOneDevice() {
        String dev = sys.devices().get(0);
        Result r = ib.exec("ibstat", dev).assertOk();
        List<Ca> cas = ToolOutput.ibstat(r.stdout());
        assertEquals(1, cas.size(), r.toString());
        assertEquals(dev, cas.get(0).name());
        assertEquals(hex64(sys.nodeGuid(dev)), cas.get(0).field("Node GUID"));
        for (int p : sys.ports(dev)) {
            assertPortMatchesSysfs(dev, p, cas.get(0).port(p));
        }
    }

    @Test
    void ibstatOfOnePort() {
        String dev = sys.devices().get(0);
        for (int p : sys.ports(dev)) {
            Result r = ib.exec("ibstat", dev, Integer.toString(p)).assertOk();
            Map<String, String> f = ToolOutput.ibstatPort(r.stdout());
            assertEquals(dev, f.get("CA"), r.toString());
            assertEquals(Integer.toString(p), f.get("Port"), r.toString());
            assertPortMatchesSysfs(dev, p, f);
            assertNoSmState(dev, p, f);
        }
    }

    @Test
    void ibstatOfAMissingDeviceFails() {
        Result r = ib.exec("ibstat", "no_such_dev0");
        assertFalse(r.ok(), r.toString());
        assertTrue(r.stderr().contains("'no_such_dev0' IB device can't be found"), r.toString());
    }

    @Test
    void ibstatusPrintsSysfsValues() {
        Result r = ib.exec("ibstatus").assertOk();
        List<IbstatusPort> ports = ToolOutput.ibstatus(r.stdout());
        int total = sys.devices().stream().mapToInt(d -> sys.ports(d).size()).sum();
        assertEquals(total, ports.size(), r.toString());
        for (IbstatusPort ip : ports) {
            String dev = ip.device();
            int p = ip.port();
            assertEquals(sys.port(dev, p, "gids/0"), ip.field("default gid"), r.toString());
            assertEquals(sys.port(dev, p, "lid"), ip.field("base lid"));
            assertEquals(sys.port(dev, p, "sm_lid"), ip.field("sm lid"));
            assertEquals(sys.port(dev, p, "state"), ip.field("state"));
            assertEquals(sys.port(dev, p, "phys_state"), ip.field("phys state"));
            assertEquals(sys.port(dev, p, "rate"), ip.field("rate"));
            assertEquals(sys.port(dev, p, "link_layer"), ip.field("link_layer"));
            assertEquals("0x0", ip.field("base lid"), "no SM: " + r);
            if (ip.field("phys state").equals("5: LinkUp")) {
                assertEquals("2: INIT", ip.field("state"), "no SM: " + r);
            }
        }
    }

    @Test
    void ibstatusOfOneDeviceAndPort() {
        String dev = sys.devices().get(0);
        int p = sys.ports(dev).get(0);
        Result r = ib.exec("ibstatus", dev + ":" + p).assertOk();
        List<IbstatusPort> ports = ToolOutput.ibstatus(r.stdout());
        assertEquals(1, ports.size(), r.toString());
        assertEquals(dev, ports.get(0).device());
        assertEquals(sys.port(dev, p, "gids/0"), ports.get(0).field("default gid"));
    }
}
