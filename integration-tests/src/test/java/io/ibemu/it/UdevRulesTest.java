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
 * `start --udev --rules DIR` with a user's rule file (resources/udev/70-ibemu-user.rules): every
 * uevent of the emulated devices goes through systemd's own rules engine and its results hold
 * inside the namespace: by-port and by-GUID symlinks (the GUID from a PROGRAM), MODE 0660 and
 * GROUP rdma on umad and uverbs nodes (a process outside the group gets EACCES, one in it
 * opens), and the RUN program sees each event once, in SEQNUM order, with the event's
 * environment. Nothing of it reaches the host: its /dev, /run/udev and udev listeners.
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
        ib = Ibemu.start("--udev", "--rules", rules.toString());
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
        String guid = ib.cat("/sys/class/infiniband/ibemu0/node_guid").strip();
        for (int port = 1; port <= 2; port++) {
            String node = "../umad" + (port - 1);
            assertEquals(node, ib.exec("readlink", "/dev/infiniband/by-port/ibemu0-port" + port).assertOk().out());
            assertEquals(node, ib.exec("readlink", "/dev/infiniband/by-guid/" + guid + "-port" + port).assertOk().out());
        }
        // rdma-core's and Debian's rules are not read: --rules names the only directory
        ib.exec("test", "!", "-e", "/dev/infiniband/by-ibdev").assertOk();
    }

    @Test
    void modeAndGroupDecideWhoOpens() {
        assertEquals(List.of("crw-rw---- root rdma /dev/infiniband/umad0", "crw-rw---- root rdma /dev/infiniband/umad1",
                "crw-rw---- root rdma /dev/infiniband/uverbs0"),
                ib.exec("stat", "-c", "%A %U %G %n", "/dev/infiniband/umad0", "/dev/infiniband/umad1",
                        "/dev/infiniband/uverbs0").assertOk().lines());
        String rdma = Ibemu.host("getent", "group", "rdma").assertOk().out().split(":")[2];
        String open = " /usr/bin/python3 -c '\n"
                + "import os, sys\n"
                + "for p in sys.argv[1:]:\n"
                + "    try:\n        os.close(os.open(p, os.O_RDWR)); print(\"ok\")\n"
                + "    except OSError as e:\n        print(e.errno)' /dev/infiniband/umad0 /dev/infiniband/uverbs0";
        Result r = ib.sh("setpriv --reuid=65534 --regid=65534 --clear-groups" + open
                + "; setpriv --reuid=65534 --regid=65534 --groups=" + rdma + open).assertOk();
        assertEquals(List.of("13", "13", "ok", "ok"), r.lines(), "EACCES outside group rdma, open inside it");
    }

    @Test
    void runSeesEveryEventOnceInOrderWithItsEnvironment() {
        ib.sh("echo change > /sys/class/infiniband_mad/umad1/uevent").assertOk();
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
