package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * `start --udev --rules-only DIR` with a user's rule file (resources/udev/70-ibemu-user.rules): every
 * uevent of the emulated devices goes through systemd's own rules engine and its results hold
 * inside the namespace: by-port and by-GUID symlinks (the GUID from a PROGRAM), MODE 0660 and
 * GROUP rdma on umad and uverbs nodes (a process outside the group gets EACCES, one in it
 * opens), and the RUN program sees each event once, in SEQNUM order, with the event's
 * environment; for the devices at start and for `ctl hca add` / `ctl hca remove`, where open
 * files of the removed HCA fail as after ib_unregister_device and the other HCA works on.
 * Nothing of it reaches the host: its /dev, /run/udev and udev listeners.
 */
class UdevRulesTest {

    static Ibemu ib;
    static Path dir;
    static Process hostMonitor;
    static Path hostMonitorOut;
    static Set<String> hostBefore;

    @BeforeAll
    static void up() throws IOException {
        dir = Files.createTempDirectory(Ibemu.tmpDir(), "udev-rules");
        Path rules = Files.createDirectories(dir.resolve("rules.d"));
        Path fixtures = Ibemu.root().resolve("integration-tests/src/test/resources/udev");
        Files.writeString(rules.resolve("70-ibemu-user.rules"),
                Files.readString(fixtures.resolve("70-ibemu-user.rules")).replace("@DIR@", dir.toString()));
        Files.copy(fixtures.resolve("log-event.sh"), dir.resolve("log-event.sh"));
        hostBefore = hostEntries();
        // the host's own listeners: the kernel's uevent group and udevd's
        hostMonitorOut = dir.resolve("host-monitor.txt");
        hostMonitor = new ProcessBuilder("udevadm", "monitor", "--kernel", "--udev", "--property")
                .redirectErrorStream(true).redirectOutput(hostMonitorOut.toFile()).start();
        // a and b are HCAs of the fabric; only a is plugged in at start
        ib = Ibemu.start("--topology", Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net")
                .toString(), "--local", "a", "--udev", "--rules-only", rules.toString());
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
        if (hostMonitor != null) {
            hostMonitor.destroy();
        }
        Ibemu.host("rm", "-rf", "--", dir.toString());
    }

    @Test
    void symlinksByPortAndByGuidPointAtTheNodes() {
        assertLinks("ibemu0", "umad0");
        // rdma-core's and Debian's rules are not read: --rules-only names the only directory
        ib.exec("test", "!", "-e", "/dev/infiniband/by-ibdev").assertOk();
    }

    @Test
    void modeAndGroupDecideWhoOpens() {
        assertModes("umad0", "uverbs0");
        assertOpens("umad0", "uverbs0");
    }

    private static void assertLinks(String device, String umad) {
        String guid = ib.cat("/sys/class/infiniband/" + device + "/node_guid").strip();
        assertEquals("../" + umad, ib.exec("readlink", "/dev/infiniband/by-port/" + device + "-port1").assertOk().out());
        assertEquals("../" + umad, ib.exec("readlink", "/dev/infiniband/by-guid/" + guid + "-port1").assertOk().out());
    }

    /** umad and uverbs are char nodes (udevadm sets them); issm a FUSE file (ibemu sets what the rules said). */
    private static void assertModes(String umad, String uverbs) {
        String issm = umad.replace("umad", "issm");
        assertEquals(List.of("crw-rw---- root rdma /dev/infiniband/" + umad, "crw-rw---- root rdma /dev/infiniband/" + uverbs,
                "-rw-rw---- root rdma /dev/infiniband/" + issm),
                ib.exec("stat", "-c", "%A %U %G %n", "/dev/infiniband/" + umad, "/dev/infiniband/" + uverbs,
                        "/dev/infiniband/" + issm).assertOk().lines());
    }

    private static void assertOpens(String umad, String uverbs) {
        String rdma = Ibemu.host("getent", "group", "rdma").assertOk().out().split(":")[2];
        String open = " /usr/bin/python3 -c '\n"
                + "import os, sys\n"
                + "for p in sys.argv[1:]:\n"
                + "    try:\n        os.close(os.open(p, os.O_RDWR)); print(\"ok\")\n"
                + "    except OSError as e:\n        print(e.errno)' /dev/infiniband/" + umad + " /dev/infiniband/" + uverbs
                + " /dev/infiniband/" + umad.replace("umad", "issm");
        Result r = ib.sh("setpriv --reuid=65534 --regid=65534 --clear-groups" + open
                + "; setpriv --reuid=65534 --regid=65534 --groups=" + rdma + open).assertOk();
        assertEquals(List.of("13", "13", "13", "ok", "ok", "ok"), r.lines(), "EACCES outside group rdma, open inside it");
    }

    @Test
    void runSeesEveryEventOnceInOrderWithItsEnvironment() {
        ib.sh("echo change > /sys/class/infiniband_mad/umad0/uevent").assertOk();
        Ibemu.ibemu("ctl", "--name", ib.name(), "settle").assertOk();
        List<String> events = Ibemu.ibemu("ctl", "--name", ib.name(), "events").assertOk().lines().stream()
                .filter(l -> l.startsWith("ACTION=")).toList();
        List<Map<String, String>> logged = logged();
        assertEquals(events.size(), logged.size(), "one RUN per event: " + logged);
        for (int i = 0; i < events.size(); i++) {
            Map<String, String> env = logged.get(i);
            for (String kv : events.get(i).split(" ")) {
                String key = kv.substring(0, kv.indexOf('='));
                if (!key.equals("DEVNAME")) { // udev's DEVNAME is the node's path
                    assertEquals(kv, key + "=" + env.get(key), "event " + i + " " + events.get(i));
                }
            }
        }
        Map<String, String> umad0 = logged.stream()
                .filter(e -> e.get("DEVPATH").endsWith("/umad0") && e.get("ACTION").equals("add")).findFirst().orElseThrow();
        assertEquals("/dev/infiniband/umad0", umad0.get("DEVNAME"));
        assertTrue(umad0.get("DEVLINKS").contains("/dev/infiniband/by-port/ibemu0-port1"), umad0.toString());
        Map<String, String> change = logged.get(logged.size() - 1);
        assertEquals("change", change.get("ACTION"));
        assertEquals("0", change.get("SYNTH_UUID"), "a written uevent's variables reach RUN: " + change);
        assertTrue(ib.log().contains("RUN '/bin/sh " + dir + "/log-event.sh " + dir + "/events.log' exited with status 0"),
                "RUN's status in the instance log");
        assertTrue(ib.log().contains("Running PROGRAM '/bin/cat /sys/class/infiniband/ibemu0/node_guid'"),
                "PROGRAM in the instance log");
    }

    /**
     * A card appears: its nodes, sysfs and the rules' effects come with its add events; it goes:
     * the umad file held open sees POLLERR (as a FUSE file; POLLIN as a socket pair, docs/compatibility.md),
     * then EIO (read, write) and EPIPE (registration), the
     * verbs context IBV_EVENT_DEVICE_FATAL, then EIO; remove events run the rules (links and
     * database go) while sysfs still shows the devices, then everything is gone; the other HCA
     * still answers MADs.
     */
    @Test
    void hotplugAddThenRemove() throws Exception {
        long before = lastSeqnum();
        String reply = Ibemu.ibemu("ctl", "--name", ib.name(), "hca", "add", "b").assertOk().lines().get(0);
        assertTrue(reply.startsWith("ibemu1 uverbs1 umad1 "), reply);
        String slot = reply.substring(reply.lastIndexOf(' ') + 1);
        String rootPort = "0000:00:" + slot.substring(5, 7) + ".0";
        assertEquals("/sys/devices/pci0000:00/" + rootPort + "/" + slot,
                ib.exec("readlink", "-f", "/sys/class/infiniband/ibemu1/device").assertOk().out());
        assertEquals(List.of("ibemu0", "ibemu1"), ib.exec("ls", "/sys/class/infiniband").assertOk().lines());
        assertLinks("ibemu1", "umad1");
        assertModes("umad1", "uverbs1");
        assertOpens("umad1", "uverbs1");
        assertTrue(ib.exec("ibv_devices").assertOk().out().contains("ibemu1"));
        List<String> added = eventsAfter(before);
        assertEquals(List.of("add /devices/pci0000:00/" + rootPort, "bind /devices/pci0000:00/" + rootPort),
                added.subList(0, 2).stream().map(UdevRulesTest::actionAndPath).toList(), added.toString());
        assertEquals(List.of("add ibemu1", "add umad1", "add issm1", "add uverbs1"), added.stream()
                .filter(e -> !e.contains("SUBSYSTEM=pci")).map(UdevRulesTest::actionAndName).toList());

        Path resources = Ibemu.root().resolve("integration-tests/src/test/resources/udev");
        Command.Running umad = ib.execCommand("/usr/bin/python3", resources.resolve("umad_unplugged.py").toString(),
                "/dev/infiniband/umad1").env("IBEMU_UMAD_TRANSPORT", "fuse").start();
        // the default carrier of a supervised umad open, a socket pair: its poll cannot say POLLERR alone
        Command.Running umadSocket = ib.execCommand("/usr/bin/python3",
                resources.resolve("umad_unplugged.py").toString(), "/dev/infiniband/umad1").start();
        Command.Running verbs = ib.execCommand("/usr/bin/python3", resources.resolve("verbs_unplugged.py").toString(),
                "ibemu1").start();
        waitFor(umad, "ready");
        waitFor(umadSocket, "ready");
        waitFor(verbs, "ready");
        long beforeRemove = lastSeqnum();
        Ibemu.ibemu("ctl", "--name", ib.name(), "hca", "remove", "ibemu1").assertOk();
        List<String> umadOut = umad.await().assertOk().lines();
        assertEquals(List.of("poll [8]", "read 5", "write 5", "register 32"), umadOut.subList(1, umadOut.size()),
                "POLLERR, EIO, EIO, EPIPE as after ib_umad_kill_port");
        List<String> socketOut = umadSocket.await().assertOk().lines();
        assertEquals(List.of("poll [1]", "read 5", "write 5", "register 32"), socketOut.subList(1, socketOut.size()),
                "over a socket pair: POLLIN (the daemon's end shut down), then EIO, EIO, EPIPE as the kernel");
        List<String> verbsOut = verbs.await().lines();
        assertEquals(List.of("ready", "event DEVICE_FATAL", "alloc_pd 5"), verbsOut.subList(0, 3), verbs.toString());

        List<String> removed = eventsAfter(beforeRemove);
        assertEquals(List.of("remove uverbs1", "remove issm1", "remove umad1", "remove ibemu1"), removed.stream()
                .filter(e -> !e.contains("SUBSYSTEM=pci")).map(UdevRulesTest::actionAndName).toList());
        assertEquals(List.of("unbind " + slot, "remove " + slot, "unbind " + rootPort, "remove " + rootPort),
                removed.stream().filter(e -> e.contains("SUBSYSTEM=pci")).map(UdevRulesTest::actionAndName).toList());
        Result gone = ib.sh("ls /sys/class/infiniband /sys/class/infiniband_mad /sys/class/infiniband_verbs /dev/infiniband "
                + "/dev/infiniband/by-port /dev/infiniband/by-guid; ls /sys/devices/pci0000:00 /sys/dev/char /run/udev/data "
                + "/sys/bus/pci/drivers/ib_qib /sys/bus/pci/drivers/pcieport /dev/char").assertOk();
        for (String trace : List.of("ibemu1", "umad1", "issm1", "uverbs1", "231:1\n", "231:65", "231:193", rootPort, slot)) {
            assertTrue(!gone.stdout().contains(trace), trace + " is left: " + gone.stdout());
        }
        ib.exec("smpquery", "-C", "ibemu0", "-D", "nodeinfo", "0").assertOk();
        assertEquals(events().size(), logged().size(), "the RUN program saw every event, also of the hotplug");
    }

    /** Waits (30 s at most) for a line of {@code r}'s output that starts with {@code line}. */
    private static void waitFor(Command.Running r, String line) throws InterruptedException {
        for (int i = 0; i < 600 && r.stdoutSoFar().lines().noneMatch(l -> l.startsWith(line)); i++) {
            assertTrue(r.isAlive(), "the probe ended before '" + line + "': " + r.stdoutSoFar());
            Thread.sleep(50);
        }
    }

    private static List<String> events() {
        return Ibemu.ibemu("ctl", "--name", ib.name(), "events").assertOk().lines().stream()
                .filter(l -> l.startsWith("ACTION=")).toList();
    }

    private static long lastSeqnum() {
        List<String> all = events();
        String last = all.get(all.size() - 1);
        return Long.parseLong(last.substring(last.lastIndexOf("SEQNUM=") + 7));
    }

    private static List<String> eventsAfter(long seqnum) {
        return events().stream().filter(e -> Long.parseLong(e.substring(e.lastIndexOf("SEQNUM=") + 7)) > seqnum).toList();
    }

    private static String actionAndPath(String event) {
        return event.substring(7, event.indexOf(' ')) + " " + event.split(" ")[1].substring("DEVPATH=".length());
    }

    private static String actionAndName(String event) {
        String path = event.split(" ")[1];
        return event.substring(7, event.indexOf(' ')) + " " + path.substring(path.lastIndexOf('/') + 1);
    }

    @Test
    void theHostSeesNothing() throws Exception {
        Ibemu.ibemu("ctl", "--name", ib.name(), "settle").assertOk();
        assertEquals(hostBefore, hostEntries(), "the host's /dev/infiniband, /run/udev/data and /dev/char");
        Thread.sleep(200); // let the monitor flush what it got
        String seen = Files.readString(hostMonitorOut);
        assertTrue(hostMonitor.isAlive() && seen.contains("KERNEL - the kernel uevent"), "the host monitor listens: " + seen);
        for (String ours : List.of("infiniband", "ibemu", "231:", "umad")) {
            assertTrue(!seen.contains(ours), "the host's udev listeners got an event of ours (" + ours + "): " + seen);
        }
    }

    // ---------------------------------------------------------------- helpers

    /** The RUN program's log: one environment per line, in the order it ran. */
    private static List<Map<String, String>> logged() {
        try {
            List<Map<String, String>> all = new ArrayList<>();
            for (String line : Files.readAllLines(dir.resolve("events.log"))) {
                Map<String, String> env = new LinkedHashMap<>();
                for (String kv : line.split("\t")) {
                    int eq = kv.indexOf('=');
                    if (eq > 0) {
                        env.put(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                }
                all.add(env);
            }
            return all;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Set<String> hostEntries() {
        Result r = Ibemu.host("sh", "-c", "ls -1 /run/udev/data 2>/dev/null | sed 's|^|data/|'; "
                + "ls -1 /dev/char 2>/dev/null | sed 's|^|char/|'; ls -1A /dev/infiniband 2>/dev/null | sed 's|^|ib/|'; "
                + "ls -1 /dev | sed 's|^|dev/|'; true");
        return new TreeSet<>(r.assertOk().lines());
    }
}
