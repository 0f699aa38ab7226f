package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sysfs tree of the default fabric has the kernel's shape: class links into
 * /sys/devices/pci0000:00/..., a PCI-like parent, infiniband_mad and
 * infiniband_verbs classes, and value formats as drivers/infiniband/core/sysfs.c
 * and user_mad.c write them.
 */
class SysfsLayoutTest {
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

    /** Reads several files in one command: path -> content (first line). */
    static Map<String, String> readAll(String... paths) {
        StringBuilder script = new StringBuilder();
        for (String p : paths) {
            script.append("printf '%s\\t%s\\n' '").append(p).append("' \"$(cat '").append(p).append("' 2>/dev/null || echo '<unreadable>')\"\n");
        }
        Map<String, String> m = new TreeMap<>();
        for (String line : ib.sh(script.toString()).assertOk().stdout().split("\n")) {
            int t = line.indexOf('\t');
            if (t > 0) {
                m.put(line.substring(0, t), line.substring(t + 1));
            }
        }
        return m;
    }

    @Test
    void classEntriesAreSymlinksIntoAPciDevice() {
        for (String dev : sys.devices()) {
            String cls = "/sys/class/infiniband/" + dev;
            ib.exec("test", "-L", cls).assertOk();
            String target = ib.exec("readlink", "-f", cls).assertOk().out();
            assertTrue(target.matches("/sys/devices/pci0000:00/.+/infiniband/" + dev), cls + " -> " + target);

            String pci = target.substring(0, target.length() - ("/infiniband/" + dev).length());
            String device = ib.exec("readlink", "-f", cls + "/device").assertOk().out();
            assertEquals(pci, device, cls + "/device is the PCI-like parent");
            assertTrue(pci.substring(pci.lastIndexOf('/') + 1).matches("[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]"),
                    "PCI address: " + pci);

            Map<String, String> v = readAll(device + "/vendor", device + "/device", device + "/modalias");
            assertTrue(v.get(device + "/vendor").matches("0x[0-9a-f]{4}"), v.toString());
            assertTrue(v.get(device + "/device").matches("0x[0-9a-f]{4}"), v.toString());
            String modalias = v.get(device + "/modalias");
            String vendorHex = v.get(device + "/vendor").substring(2).toUpperCase();
            String deviceHex = v.get(device + "/device").substring(2).toUpperCase();
            assertTrue(modalias.startsWith("pci:v0000" + vendorHex + "d0000" + deviceHex), "modalias " + modalias + " vs " + v);
        }
    }

    @Test
    void nodeAttributesHaveTheKernelsFormats() {
        for (String dev : sys.devices()) {
            assertTrue(sys.get(dev, "node_guid").matches("[0-9a-f]{4}(:[0-9a-f]{4}){3}"), sys.get(dev, "node_guid"));
            assertTrue(sys.get(dev, "sys_image_guid").matches("[0-9a-f]{4}(:[0-9a-f]{4}){3}"));
            assertEquals("1: CA", sys.get(dev, "node_type"));
            assertFalse(sys.ports(dev).isEmpty(), dev + " has no ports");
            for (int p : sys.ports(dev)) {
                assertTrue(sys.port(dev, p, "state").matches("[0-5]: (NOP|DOWN|INIT|ARMED|ACTIVE|ACTIVE_DEFER)"), sys.port(dev, p, "state"));
                assertTrue(sys.port(dev, p, "phys_state").matches("[0-7]: \\S.*"), sys.port(dev, p, "phys_state"));
                assertTrue(sys.port(dev, p, "lid").matches("0x[0-9a-f]+"), sys.port(dev, p, "lid"));
                assertTrue(sys.port(dev, p, "sm_lid").matches("0x[0-9a-f]+"));
                assertTrue(sys.port(dev, p, "lid_mask_count").matches("\\d+"));
                assertTrue(sys.port(dev, p, "cap_mask").matches("0x[0-9a-f]{8}"), sys.port(dev, p, "cap_mask"));
                assertTrue(sys.port(dev, p, "rate").matches("\\d+(\\.\\d)? Gb/sec \\(\\d+X [A-Z0-9]+\\)"), sys.port(dev, p, "rate"));
                assertEquals("InfiniBand", sys.port(dev, p, "link_layer"));
                assertTrue(sys.port(dev, p, "gids/0").matches("[0-9a-f]{4}(:[0-9a-f]{4}){7}"), sys.port(dev, p, "gids/0"));
                assertEquals(0xfe80000000000000L, sys.gidPrefix(dev, p), "default GID prefix");
                List<Integer> pkeys = sys.pkeys(dev, p);
                assertFalse(pkeys.isEmpty());
                assertEquals(0xffff, pkeys.get(0), "pkeys/0 is the default full-membership key");
                for (String k : sys.table(dev, p, "pkeys")) {
                    assertTrue(k.matches("0x[0-9a-f]{4}"), k);
                }
            }
        }
    }

    @Test
    void umadClassMatchesTheDevices() {
        String mad = "/sys/class/infiniband_mad/";
        Map<String, String> v = readAll(mad + "abi_version", mad + "umad0/ibdev", mad + "umad0/port", mad + "umad0/dev",
                mad + "issm0/ibdev", mad + "issm0/port", mad + "issm0/dev");
        assertEquals("5", v.get(mad + "abi_version"), v.toString());
        String ibdev = v.get(mad + "umad0/ibdev");
        assertTrue(sys.devices().contains(ibdev), "umad0/ibdev " + ibdev + " is a device: " + sys.devices());
        int port = Integer.parseInt(v.get(mad + "umad0/port"));
        assertTrue(sys.ports(ibdev).contains(port), "umad0/port " + port);
        assertTrue(v.get(mad + "umad0/dev").matches("\\d+:\\d+"), "umad0/dev is major:minor: " + v);
        assertTrue(v.get(mad + "issm0/dev").matches("\\d+:\\d+"), "issm0/dev is major:minor: " + v);
        assertEquals(ibdev, v.get(mad + "issm0/ibdev"));
        assertEquals(Integer.toString(port), v.get(mad + "issm0/port"));

        // every umadN/issmN of the class has its device file, and one per port
        List<String> entries = ib.exec("ls", "/sys/class/infiniband_mad").assertOk().lines();
        int ports = sys.devices().stream().mapToInt(d -> sys.ports(d).size()).sum();
        assertEquals(ports, entries.stream().filter(e -> e.matches("umad\\d+")).count(), entries.toString());
        assertEquals(ports, entries.stream().filter(e -> e.matches("issm\\d+")).count(), entries.toString());
        for (String e : entries) {
            if (e.matches("(umad|issm)\\d+")) {
                ib.exec("test", "-e", "/dev/infiniband/" + e).assertOk();
            }
        }
    }

    @Test
    void verbsClassHasAnAbiVersion() {
        String abi = ib.cat("/sys/class/infiniband_verbs/abi_version");
        assertTrue(abi.matches("\\d+"), "abi_version: " + abi);
    }

    @Test
    void deviceFilesAreReadableAndWritable() {
        ib.sh("test -r /dev/infiniband/umad0 && test -w /dev/infiniband/umad0 && test -e /dev/infiniband/issm0").assertOk();
    }
}
