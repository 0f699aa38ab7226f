package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * systemd's own udevadm walks the emulated devices as it walks a QLogic QLE7340 (ib_qib) in a
 * server: `udevadm info -a` finds the same parents (class device, the HCA's PCI function bound
 * to ib_qib, the PCIe root port bound to pcieport, the PCI root) with the same KERNEL,
 * SUBSYSTEM, DRIVER and ATTR keys, and `udevadm test` runs the rules rdma-core and Debian ship
 * to the same results. The host's /run/udev and /dev/char gain nothing.
 */
class UdevInfoTest {

    /** One device as `udevadm info -a` prints it: its three keys and its attributes. */
    record Shown(String kernel, String subsystem, String driver, Map<String, String> attrs) {
    }

    /**
     * What a real machine shows for one level: KERNEL as a pattern (slots differ between
     * machines), SUBSYSTEM, DRIVER, and every ATTR key with a value pattern. {@code exact}:
     * the device has no other attributes (class devices); otherwise these must be among them.
     */
    record Level(String kernel, String subsystem, String driver, Map<String, String> attrs, boolean exact) {
    }

    private static final String SLOT = "0000:[0-9a-f]{2}:00\\.0";
    private static final String ROOT_PORT = "0000:00:[0-9a-f]{2}\\.0";
    private static final String NUMBER = "\\d+";

    /** power/ of a device without runtime PM (every class device on a real machine). */
    private static final Map<String, String> CLASS_POWER = Map.of("power/control", "auto",
            "power/runtime_active_time", "0", "power/runtime_status", "unsupported",
            "power/runtime_suspended_time", "0");

    /** The PCI function of a QLE7340 under ib_qib: pci-sysfs.c's attributes, a PCIe Gen2 x8 link. */
    private static final Level HCA_FUNCTION = new Level(SLOT, "pci", "ib_qib", attrs(
            "vendor", "0x1077", "device", "0x7322", "subsystem_vendor", "0x1077", "subsystem_device", "0x[0-9a-f]{4}",
            "class", "0x0c0600", "revision", "0x[0-9a-f]{2}", "enable", "1", "irq", NUMBER, "numa_node", "-?\\d+",
            "msi_bus", "1", "ari_enabled", "0", "broken_parity_status", "0", "d3cold_allowed", "[01]",
            "driver_override", "\\(null\\)", "power_state", "D0", "dma_mask_bits", "64",
            "consistent_dma_mask_bits", "64", "current_link_speed", "5\\.0 GT/s PCIe", "current_link_width", "8",
            "max_link_speed", "5\\.0 GT/s PCIe", "max_link_width", "8", "local_cpulist", "[0-9,-]+",
            "local_cpus", "[0-9a-f,]+", "power/control", "on", "power/runtime_status", "active",
            "power/runtime_active_time", NUMBER, "power/runtime_suspended_time", NUMBER), false);

    /** The root port the card sits in: a PCI bridge bound to pcieport. */
    private static final Level ROOT_PORT_LEVEL = new Level(ROOT_PORT, "pci", "pcieport", attrs(
            "vendor", "0x8086", "class", "0x060400", "secondary_bus_number", NUMBER,
            "subordinate_bus_number", NUMBER, "enable", "1", "power_state", "D0"), false);

    private static final Level PCI_ROOT = new Level("pci0000:00", "", "", Map.of(), false);

    private static final Map<String, String> MAD_ATTRS = with(CLASS_POWER, "ibdev", "ibemu0", "port", "1");

    /** Device argument -> the levels a real qib machine shows, device first. */
    private static final Map<String, List<Level>> REAL_QIB = new LinkedHashMap<>();

    static {
        REAL_QIB.put("/dev/infiniband/uverbs0", List.of(
                new Level("uverbs0", "infiniband_verbs", "", with(CLASS_POWER, "ibdev", "ibemu0", "abi_version", "1"), true),
                HCA_FUNCTION, ROOT_PORT_LEVEL, PCI_ROOT));
        REAL_QIB.put("/dev/infiniband/umad0", List.of(
                new Level("umad0", "infiniband_mad", "", MAD_ATTRS, true), HCA_FUNCTION, ROOT_PORT_LEVEL, PCI_ROOT));
        // issm is a FUSE file, not a node (decisions.md): udevadm is given its /dev/char link
        REAL_QIB.put("/dev/char/231:64", List.of(
                new Level("issm0", "infiniband_mad", "", MAD_ATTRS, true), HCA_FUNCTION, ROOT_PORT_LEVEL, PCI_ROOT));
        REAL_QIB.put("/sys/class/infiniband/ibemu0", List.of(
                new Level("ibemu0", "infiniband", "", with(CLASS_POWER, "node_type", "1: CA",
                        "node_guid", "[0-9a-f]{4}(:[0-9a-f]{4}){3}", "sys_image_guid", "[0-9a-f]{4}(:[0-9a-f]{4}){3}",
                        "node_desc", ".*", "fw_ver", "[0-9.]+", "hca_type", ".+", "hw_rev", ".+", "board_id", ".+",
                        "ports/1/state", "\\d: [A-Z_]+", "ports/1/phys_state", "\\d: \\w+", "ports/1/lid", "0x[0-9a-f]+",
                        "ports/1/lid_mask_count", NUMBER, "ports/1/sm_lid", "0x[0-9a-f]+", "ports/1/sm_sl", NUMBER,
                        "ports/1/cap_mask", "0x[0-9a-f]{8}", "ports/1/rate", "\\d+ Gb/sec \\(\\d+X \\w+\\)",
                        "ports/1/link_layer", "InfiniBand", "ports/1/gids/0", "fe80(:[0-9a-f]{4}){7}",
                        "ports/1/pkeys/0", "0xffff", "ports/1/counters/symbol_error", NUMBER,
                        "ports/1/counters/port_xmit_data", NUMBER), false),
                HCA_FUNCTION, ROOT_PORT_LEVEL, PCI_ROOT));
    }

    static Ibemu ib;
    static Set<String> hostUdevBefore;

    @BeforeAll
    static void up() {
        hostUdevBefore = hostUdevEntries();
        ib = Ibemu.start();
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    @Test
    void udevadmInfoWalksTheParentsOfARealQibMachine() {
        for (Map.Entry<String, List<Level>> device : REAL_QIB.entrySet()) {
            Result r = ib.exec("udevadm", "info", "-a", device.getKey()).assertOk();
            List<Shown> shown = parse(r.stdout());
            List<Level> expected = device.getValue();
            assertEquals(expected.size(), shown.size(), device.getKey() + " walks " + shown);
            for (int i = 0; i < expected.size(); i++) {
                check(device.getKey() + " level " + i, expected.get(i), shown.get(i));
            }
        }
    }

    @Test
    void devicesAreFoundByNodeSysfsPathAndDevCharAlike() {
        for (String[] same : new String[][] {
                {"/dev/infiniband/umad1", "/sys/class/infiniband_mad/umad1", "/dev/char/231:1"},
                {"/sys/class/infiniband_mad/issm1", "/sys/class/infiniband_mad/issm1", "/dev/char/231:65"},
                {"/dev/infiniband/uverbs0", "/sys/class/infiniband_verbs/uverbs0", "/dev/char/231:192"}}) {
            List<String> paths = new ArrayList<>();
            for (String arg : same) {
                paths.add(ib.exec("udevadm", "info", "--query=path", arg).assertOk().out());
            }
            assertEquals(1, new TreeSet<>(paths).size(), List.of(same) + " -> " + paths);
            assertTrue(paths.get(0).endsWith("/" + same[1].substring(same[1].lastIndexOf('/') + 1)), paths.toString());
        }
        assertEquals("character special file 231:0",
                ib.exec("stat", "-c", "%F %Hr:%Lr", "/dev/infiniband/umad0").assertOk().out());
    }

    /** What udev's MODE/GROUP do to a node (chmod, chgrp) decides who opens it, as for a kernel node. */
    @Test
    void theNodesModeAndGroupDecideWhoOpensIt() {
        String asNobody = "setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c '\n"
                + "import os, sys\n"
                + "try:\n    os.close(os.open(sys.argv[1], os.O_RDWR)); print(\"ok\")\n"
                + "except OSError as e:\n    print(e.errno)' ";
        String umad = "/dev/infiniband/umad1";
        Result r = ib.sh(String.join("; ",
                asNobody + umad,
                "chmod 0666 " + umad, asNobody + umad,
                "chmod 0660 " + umad, asNobody + umad,
                "chgrp 65534 " + umad, asNobody + umad,
                "chgrp 0 " + umad, "chmod 0600 " + umad)).assertOk();
        assertEquals(List.of("13", "ok", "13", "ok"), r.lines(), "EACCES unless the node's mode lets nobody/nogroup in");
    }

    @Test
    void theInfinibandDeviceHasEveryPortsAttributes() {
        Shown ibdev = parse(ib.exec("udevadm", "info", "-a", "/sys/class/infiniband/ibemu0").assertOk().stdout()).get(0);
        for (String port : new String[] {"1", "2"}) {
            for (String attr : List.of("state", "phys_state", "lid", "rate", "link_layer", "cap_mask")) {
                assertTrue(ibdev.attrs().containsKey("ports/" + port + "/" + attr), "ports/" + port + "/" + attr);
            }
        }
    }

    @Test
    void udevadmTestRunsRdmaCoresRules() {
        Map<String, String> ibdev = testProperties("/sys/class/infiniband/ibemu0");
        assertEquals("1", ibdev.get("ID_RDMA_INFINIBAND"), "75-rdma-description.rules, DRIVERS==\"ib_qib\": " + ibdev);
        assertEquals("pci", ibdev.get("ID_BUS"));
        assertEquals("0x1077", ibdev.get("ID_VENDOR_ID"));
        assertEquals("0x7322", ibdev.get("ID_MODEL_ID"));
        assertTrue(ibdev.getOrDefault("ID_MODEL_FROM_DATABASE", "").contains("IBA7322"), "hwdb by modalias: " + ibdev);
        assertEquals("ibemu0", ibdev.get("NAME"));
        // 60-rdma-persistent-naming.rules' PROGRAM ran rdma_rename NAME_FALLBACK, over RDMA netlink,
        // as udevadm test does on a real machine: the device now has its PCI name; give it back
        String function = ib.exec("readlink", "-f", "/sys/class/infiniband_verbs/uverbs0/device").assertOk().stdout()
                .strip();
        int bus = Integer.parseInt(function.substring(function.length() - 7, function.length() - 5), 16);
        String pciName = "ibp" + bus + "s0";
        assertEquals(pciName, ib.cat("/sys/class/infiniband_verbs/uverbs0/ibdev").strip());
        ib.exec("rdma", "dev", "set", pciName, "name", "ibemu0").assertOk();

        Map<String, String> umad = testProperties("/dev/infiniband/umad0");
        assertEquals("/sys/subsystem/rdma/devices/ibemu0:1/umad", umad.get("SYSTEMD_ALIAS"), "90-rdma-umad.rules: " + umad);
        assertTrue(umad.getOrDefault("TAGS", "").contains(":systemd:"), umad.toString());
        assertEquals("/dev/infiniband/umad0", umad.get("DEVNAME"));
        Map<String, String> umad1 = testProperties("/sys/class/infiniband_mad/umad1");
        assertEquals("/sys/subsystem/rdma/devices/ibemu0:2/umad", umad1.get("SYSTEMD_ALIAS"));

        Map<String, String> issm = testProperties("/sys/class/infiniband_mad/issm0");
        assertFalse(issm.containsKey("SYSTEMD_ALIAS"), "the umad rule keys on KERNEL==\"*umad*\": " + issm);

        Map<String, String> uverbs = testProperties("/dev/infiniband/uverbs0");
        assertEquals("0666", uverbs.get("DEVMODE"));
        String slot = ib.exec("readlink", "-f", "/sys/class/infiniband/ibemu0/device").assertOk().out();
        slot = slot.substring(slot.lastIndexOf('/') + 1);
        assertEquals("pci-" + slot, uverbs.get("ID_PATH"), "path_id builtin: " + uverbs);
        assertEquals(Set.of("/dev/infiniband/by-path/pci-" + slot, "/dev/infiniband/by-ibdev/uverbs-ibemu0"),
                Set.of(uverbs.getOrDefault("DEVLINKS", "").split(" ")), "60-infiniband.rules: " + uverbs);
    }

    @Test
    void ueventFilesShowTheKernelsVariablesAndRaiseWrittenEvents() {
        assertEquals(List.of("MAJOR=231", "MINOR=0", "DEVNAME=infiniband/umad0"),
                ib.exec("cat", "/sys/class/infiniband_mad/umad0/uevent").assertOk().lines());
        assertEquals(List.of("MAJOR=231", "MINOR=192", "DEVNAME=infiniband/uverbs0", "DEVMODE=0666"),
                ib.exec("cat", "/sys/class/infiniband_verbs/uverbs0/uevent").assertOk().lines());
        assertEquals(List.of("NAME=ibemu0"), ib.exec("cat", "/sys/class/infiniband/ibemu0/uevent").assertOk().lines());
        List<String> pci = ib.exec("cat", "/sys/class/infiniband/ibemu0/device/uevent").assertOk().lines();
        assertEquals("DRIVER=ib_qib", pci.get(0));
        assertTrue(pci.contains("PCI_ID=1077:7322") && pci.contains("PCI_CLASS=C0600"), pci.toString());
        assertTrue(pci.stream().anyMatch(l -> l.matches("MODALIAS=pci:v00001077d00007322sv.*bc0Csc06i00")), pci.toString());

        int before = events().size();
        String uuid = "0e2a9b0f-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
        Result writes = ib.exec("/usr/bin/python3", "-c", """
                import os, sys
                def write(path, text):
                    fd = os.open(path, os.O_WRONLY)
                    try:
                        os.write(fd, text.encode()); return 0
                    except OSError as e:
                        return e.errno
                    finally:
                        os.close(fd)
                print(write('/sys/class/infiniband_mad/umad0/uevent', 'change\\n'))
                print(write('/sys/class/infiniband/ibemu0/uevent', 'add %s KEY=v1\\n' % sys.argv[1]))
                print(write('/sys/class/infiniband/ibemu0/uevent', 'bogus\\n'))
                print(write('/sys/class/infiniband/ibemu0/uevent', 'add not-a-uuid\\n'))
                """, uuid).assertOk();
        assertEquals(List.of("0", "0", "22", "22"), writes.lines(), "EINVAL for what kobject_synth_uevent refuses");
        List<String> after = events();
        assertEquals(before + 2, after.size(), after.toString());
        String change = after.get(before);
        String add = after.get(before + 1);
        assertTrue(change.matches("ACTION=change DEVPATH=/devices/pci0000:00/" + ROOT_PORT + "/" + SLOT
                + "/infiniband_mad/umad0 SUBSYSTEM=infiniband_mad SYNTH_UUID=0 MAJOR=231 MINOR=0 "
                + "DEVNAME=infiniband/umad0 SEQNUM=\\d+"), change);
        assertTrue(add.matches("ACTION=add DEVPATH=\\S+/infiniband/ibemu0 SUBSYSTEM=infiniband SYNTH_UUID=" + uuid
                + " SYNTH_ARG_KEY=v1 NAME=ibemu0 SEQNUM=\\d+"), add);
        assertEquals(seqnum(change) + 1, seqnum(add));
        assertTrue(ib.log().contains("uevent " + add), "the daemon's log records the event");
    }

    @Test
    void udevadmTriggerOnOurSubsystemsRaisesAChangeForEachDevice() {
        int before = events().size();
        ib.exec("udevadm", "trigger", "--action=change", "--subsystem-match=infiniband_mad",
                "--subsystem-match=infiniband_verbs").assertOk();
        List<String> raised = events().subList(before, events().size());
        Set<String> devices = new TreeSet<>();
        for (String e : raised) {
            assertTrue(e.startsWith("ACTION=change ") && e.contains(" SYNTH_UUID=0 "), e);
            Matcher m = Pattern.compile("DEVPATH=\\S+/(\\w+) ").matcher(e);
            assertTrue(m.find(), e);
            devices.add(m.group(1));
        }
        assertEquals(Set.of("umad0", "umad1", "issm0", "issm1", "uverbs0"), devices);
        assertEquals(5, raised.size(), raised.toString());
    }

    @Test
    void theInitialAddEventsComeInRegistrationOrder() {
        List<String> devices = new ArrayList<>();
        for (String e : events()) {
            if (e.contains("SYNTH_UUID=")) {
                continue;
            }
            Matcher m = Pattern.compile("ACTION=(\\w+) DEVPATH=(\\S+) SUBSYSTEM=(\\S+)").matcher(e);
            assertTrue(m.find(), e);
            devices.add(m.group(1) + " " + m.group(2).substring(m.group(2).lastIndexOf('/') + 1) + " " + m.group(3));
        }
        assertEquals(List.of("add", "bind", "add", "bind", "add", "add", "add", "add", "add", "add", "add"),
                devices.stream().map(d -> d.split(" ")[0]).toList(), devices.toString());
        assertTrue(devices.get(2).endsWith(" pci") && devices.get(4).equals("add ibemu0 infiniband"), devices.toString());
        assertEquals(List.of("add umad0 infiniband_mad", "add issm0 infiniband_mad", "add umad1 infiniband_mad",
                "add issm1 infiniband_mad", "add uverbs0 infiniband_verbs"), devices.subList(5, 10));
        // ucma's misc device (rdma_ucm) registers once, after the HCAs it serves
        assertEquals("add rdma_cm misc", devices.get(10));
    }

    @Test
    void udevadmWritesNothingOnTheHost() {
        ib.exec("udevadm", "test", "/sys/class/infiniband_mad/umad0").assertOk();
        ib.exec("udevadm", "test", "/dev/infiniband/uverbs0").assertOk();
        // inside: udevadm kept its database and /dev/char link in the namespace's private copies
        ib.exec("test", "-e", "/run/udev/data/c231:0").assertOk();
        ib.exec("test", "-L", "/dev/char/231:192").assertOk();
        Set<String> after = hostUdevEntries();
        assertEquals(hostUdevBefore, after, "the host's /run/udev/data and /dev/char");
        assertTrue(after.stream().noneMatch(e -> e.contains("231:")), after.toString());
    }

    // ---------------------------------------------------------------- helpers

    private static Set<String> hostUdevEntries() {
        Result r = Ibemu.host("sh", "-c", "ls -1 /run/udev/data 2>/dev/null | sed 's|^|data/|'; "
                + "ls -1 /dev/char 2>/dev/null | sed 's|^|char/|'; test -e /run/udev && echo run-udev; "
                + "test -e /dev/char && echo dev-char; true");
        return new TreeSet<>(r.assertOk().lines());
    }

    private static List<String> events() {
        return Ibemu.ibemu("ctl", "--name", ib.name(), "events").assertOk().lines().stream()
                .filter(l -> l.startsWith("ACTION=")).toList();
    }

    private static long seqnum(String event) {
        return Long.parseLong(event.substring(event.lastIndexOf("SEQNUM=") + 7));
    }

    /** The properties `udevadm test` prints after its rules run. */
    private static Map<String, String> testProperties(String device) {
        Result r = ib.exec("udevadm", "test", device).assertOk();
        Map<String, String> props = new LinkedHashMap<>();
        boolean started = false;
        for (String line : r.stdout().split("\n")) {
            started |= line.startsWith("DEVPATH=");
            int eq = line.indexOf('=');
            if (started && eq > 0) {
                props.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        assertTrue(started, "udevadm test " + device + " printed no properties: " + r);
        return props;
    }

    private static final Pattern LOOKING = Pattern.compile("looking at (?:parent )?device '([^']+)'");
    private static final Pattern KEY = Pattern.compile("(KERNEL|SUBSYSTEM|DRIVER)S?==\"(.*)\"");
    private static final Pattern ATTR = Pattern.compile("ATTRS?\\{([^}]+)\\}==\"(.*)\"");

    static List<Shown> parse(String out) {
        List<Shown> levels = new ArrayList<>();
        Map<String, String> keys = null;
        Map<String, String> attrs = null;
        for (String raw : out.split("\n")) {
            String line = raw.trim();
            if (LOOKING.matcher(line).find()) {
                if (keys != null) {
                    levels.add(new Shown(keys.get("KERNEL"), keys.get("SUBSYSTEM"), keys.get("DRIVER"), attrs));
                }
                keys = new LinkedHashMap<>();
                attrs = new LinkedHashMap<>();
                continue;
            }
            if (keys == null) {
                continue;
            }
            Matcher a = ATTR.matcher(line);
            Matcher k = KEY.matcher(line);
            if (a.matches()) {
                attrs.put(a.group(1), a.group(2));
            } else if (k.matches()) {
                keys.put(k.group(1), k.group(2));
            }
        }
        if (keys != null) {
            levels.add(new Shown(keys.get("KERNEL"), keys.get("SUBSYSTEM"), keys.get("DRIVER"), attrs));
        }
        return levels;
    }

    private static void check(String where, Level expected, Shown shown) {
        assertTrue(shown.kernel() != null && shown.kernel().matches(expected.kernel()), where + ": KERNEL " + shown);
        assertEquals(expected.subsystem(), shown.subsystem(), where + ": SUBSYSTEM");
        assertEquals(expected.driver(), shown.driver(), where + ": DRIVER");
        for (Map.Entry<String, String> attr : expected.attrs().entrySet()) {
            String value = shown.attrs().get(attr.getKey());
            assertTrue(value != null && value.matches(attr.getValue()),
                    where + ": ATTR{" + attr.getKey() + "} is " + value + ", a real machine shows " + attr.getValue());
        }
        if (expected.exact()) {
            assertEquals(new TreeSet<>(expected.attrs().keySet()), new TreeSet<>(shown.attrs().keySet()), where + ": ATTR keys");
        }
    }

    private static Map<String, String> attrs(String... keyValues) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    private static Map<String, String> with(Map<String, String> base, String... keyValues) {
        Map<String, String> m = new LinkedHashMap<>(base);
        m.putAll(attrs(keyValues));
        return m;
    }
}
