package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The host does not change: its /dev (ls -la), /sys/class, /run and its mount table
 * (FUSE mounts, anything mounted under /dev, /sys, /run) are the same before a run,
 * after it, while an instance runs, and after the daemon is killed with SIGKILL (its
 * namespace dies with it; stop then cleans the state). Inside the namespace the
 * host's devices are all still there, with the emulated ones added.
 */
class HostUntouchedTest {

    /** What the host shows; compared as a whole. */
    record HostView(Set<String> dev, Set<String> sysClass, Set<String> run, Set<String> mounts) {
        static HostView capture() {
            return new HostView(devListing(), names("/sys/class"), names("/run"), hostMounts());
        }

        /** ls -la /dev as (mode owner group [major,minor] name), without link counts, sizes and times. */
        static Set<String> devListing() {
            Result r = Ibemu.host("ls", "-la", "--time-style=+", "/dev").assertOk();
            Set<String> s = new TreeSet<>();
            for (String line : r.lines()) {
                String[] t = line.trim().split("\\s+");
                if (t.length < 6 || line.startsWith("total")) {
                    continue;
                }
                boolean device = t[0].startsWith("c") || t[0].startsWith("b");
                int nameAt = device ? 6 : 5;
                if (t.length <= nameAt) {
                    continue;
                }
                String name = String.join(" ", List.of(t).subList(nameAt, t.length));
                if (name.equals(".") || name.equals("..")) {
                    continue;
                }
                s.add(t[0] + " " + t[2] + " " + t[3] + (device ? " " + t[4] + t[5] : "") + " " + name);
            }
            return s;
        }

        static Set<String> names(String dir) {
            return new TreeSet<>(Ibemu.host("ls", "-A", dir).assertOk().lines());
        }

        /**
         * Host mounts that could be ours: FUSE mounts named ibemu or under the state
         * root, and every mount under /dev, /sys, /run (as mount point, type, source).
         */
        static Set<String> hostMounts() {
            Set<String> s = new TreeSet<>();
            String state = Ibemu.stateRoot().toString();
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                    String[] halves = line.split(" - ", 2);
                    String[] a = halves[0].split(" ");
                    String[] b = halves.length > 1 ? halves[1].split(" ") : new String[] {"?", "?"};
                    String mp = a[4], type = b[0], source = b.length > 1 ? b[1] : "";
                    boolean fuseOfOurs = type.startsWith("fuse") && (line.contains("ibemu") || mp.startsWith(state));
                    boolean system = mp.equals("/dev") || mp.startsWith("/dev/") || mp.equals("/sys")
                            || mp.startsWith("/sys/") || mp.equals("/run") || mp.startsWith("/run/");
                    if (fuseOfOurs || system) {
                        s.add(mp + " " + type + " " + source);
                    }
                }
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            return s;
        }

        /** Differences, for a readable failure. */
        String diff(HostView o) {
            List<String> d = new ArrayList<>();
            diff("/dev", dev, o.dev, d);
            diff("/sys/class", sysClass, o.sysClass, d);
            diff("/run", run, o.run, d);
            diff("mounts", mounts, o.mounts, d);
            return String.join("\n", d);
        }

        private static void diff(String what, Set<String> a, Set<String> b, List<String> out) {
            for (String x : a) {
                if (!b.contains(x)) {
                    out.add(what + ": gone: " + x);
                }
            }
            for (String x : b) {
                if (!a.contains(x)) {
                    out.add(what + ": new: " + x);
                }
            }
        }
    }

    static void assertSameHost(HostView before, String when) {
        HostView now = HostView.capture();
        assertTrue(before.equals(now), "the host changed " + when + ":\n" + before.diff(now));
    }

    @Test
    void theHostIsTheSameBeforeDuringAndAfter() throws Exception {
        HostView before = HostView.capture();
        assertFalse(before.mounts().stream().anyMatch(m -> m.contains("ibemu")), "an ibemu mount is on the host already: " + before.mounts());

        // A whole run, with tools that read and write the emulated devices.
        Ibemu.launcher("run", "--", "sh", "-c",
                        "ls -la /dev/infiniband && cat /sys/class/infiniband/*/node_guid && ibstat >/dev/null 2>&1; ibstatus >/dev/null 2>&1; true")
                .timeout(Duration.ofSeconds(120)).run().assertOk();
        assertSameHost(before, "after 'scripts/ibemu run'");

        try (Ibemu ib = Ibemu.start()) {
            ib.exec("sh", "-c", "smpquery -D nodeinfo 0 >/dev/null 2>&1; true").assertOk();
            assertSameHost(before, "while an instance runs");

            long pid = ib.pid();
            Ibemu.host("kill", "-KILL", Long.toString(pid)).assertOk();
            for (int i = 0; i < 100 && ib.isAlive(); i++) {
                Thread.sleep(100);
            }
            assertFalse(ib.isAlive(), "the daemon survived SIGKILL");
            Thread.sleep(500); // let the kernel tear the namespace down
            assertSameHost(before, "after kill -9 of the daemon");

            Result st = Ibemu.ibemu("status", "--name", ib.name());
            assertEquals(3, st.exitCode(), "a killed instance is not alive: " + st);
            assertTrue(st.stdout().contains("dead"), st.toString());
            Result stop = ib.stop();
            stop.assertOk();
            assertTrue(stop.stderr().contains("stale"), stop.toString());
            assertFalse(Files.exists(ib.stateDir()), "stop cleans the state directory");
        }
        assertSameHost(before, "at the end");
    }

    @Test
    void insideTheNamespaceTheHostsDevicesAreStillThere() {
        try (Ibemu ib = Ibemu.start()) {
            ib.sh("test -c /dev/null && echo x > /dev/null && test -d /dev/pts && test -d /sys/class/net").assertOk();
            ib.sh("test -e /dev/infiniband/umad0 && test -d /sys/class/infiniband").assertOk();

            Set<String> hostDev = HostView.names("/dev");
            Set<String> nsDev = new TreeSet<>(ib.exec("ls", "-A", "/dev").assertOk().lines());
            Set<String> missing = new TreeSet<>(hostDev);
            missing.removeAll(nsDev);
            assertTrue(missing.isEmpty(), "host /dev entries missing inside: " + missing);
            assertTrue(nsDev.contains("infiniband"), nsDev.toString());

            Set<String> hostClass = HostView.names("/sys/class");
            Set<String> nsClass = new TreeSet<>(ib.exec("ls", "-A", "/sys/class").assertOk().lines());
            Set<String> missingClass = new TreeSet<>(hostClass);
            missingClass.removeAll(nsClass);
            assertTrue(missingClass.isEmpty(), "host /sys/class entries missing inside: " + missingClass);
            assertTrue(nsClass.containsAll(List.of("infiniband", "infiniband_mad", "infiniband_verbs")), nsClass.toString());

            assertEquals(HostView.names("/sys/class/net"),
                    new TreeSet<>(ib.exec("ls", "-A", "/sys/class/net").assertOk().lines()),
                    "/sys/class/net is the host's");
        }
    }

    /**
     * Every file under the host's /var, /run and /etc, with its type, size and modification time,
     * is the same after an instance ran OpenSM (the launcher's and a user's own {@code opensm -o}
     * with its defaults: /var/cache/opensm, /var/log/opensm.log), infiniband-diags, the verbs
     * tools and the udev rules: what they write by default stays in the instance (ToolState).
     */
    @Test
    void theHostsVarRunAndEtcAreUnchangedByTheToolsInside() throws Exception {
        Map<String, String> before = stateListing();
        Path rules = Files.createDirectories(Files.createTempDirectory(Ibemu.tmpDir(), "host-rules").resolve("rules.d"));
        Files.writeString(rules.resolve("70-host-untouched.rules"),
                "SUBSYSTEM==\"infiniband_mad\", SYMLINK+=\"infiniband/by-test/%k\"\n");
        int port = Loopback.freePort();
        // a user's own OpenSM with its defaults: once (-o), then in the background for the SA
        Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");
        Result r = Ibemu.launcher("run", "--topology", topology.toString(), "--local", "a", "--local", "b", "--udev",
                "--rules", rules.toString(), "--", "sh", "-c", String.join("\n",
                "opensm -o > /dev/null 2>&1 || echo 'opensm -o failed'",
                "test -s /var/log/opensm.log && test -s /var/cache/opensm/guid2lid || echo 'no default OpenSM files'",
                ": > /var/log/opensm.log", // the next SUBNET UP is the running OpenSM's
                "opensm > /dev/null 2>&1 &",
                "sm=$!",
                "until grep -q 'SUBNET UP' /var/log/opensm.log; do kill -0 $sm || break; sleep 0.1; done",
                "saquery > /dev/null || echo 'saquery failed'",
                "ibstat > /dev/null; ibnetdiscover > /dev/null; perfquery > /dev/null; iblinkinfo > /dev/null",
                "smpquery nodeinfo 1 > /dev/null; ibv_devinfo -v > /dev/null",
                "udevadm test /sys/class/infiniband_mad/umad0 > /dev/null 2>&1 || echo 'udevadm test failed'",
                "set -- $(ls /sys/class/infiniband)", // renamed by rdma-core's persistent naming rule
                "ibv_rc_pingpong -d $1 -g 0 -p " + port + " -n 20 > /dev/null 2>&1 &",
                "srv=$!",
                Loopback.awaitListening(port, "srv"),
                "ibv_rc_pingpong -d $2 -g 0 -p " + port + " -n 20 localhost > /dev/null || { echo 'pingpong failed'; kill $srv; }",
                "wait $srv",
                "kill $sm; wait $sm"))
                .timeout(Duration.ofMinutes(5)).run().assertOk();
        assertEquals("", r.stdout(), "every tool ran: " + r);
        Map<String, String> after = stateListing();
        List<String> changed = new ArrayList<>();
        for (String path : union(before.keySet(), after.keySet())) {
            String a = before.get(path), b = after.get(path);
            if ((a == null || !a.equals(b)) && !othersActivity(path)) {
                changed.add(path + ": " + (a == null ? "(none)" : a) + " -> " + (b == null ? "(none)" : b));
            }
        }
        assertTrue(changed.isEmpty(), "the tools inside changed the host's files:\n" + String.join("\n", changed));
        assertFalse(Files.exists(Path.of("/var/cache/opensm/guid2lid")) && !before.containsKey("/var/cache/opensm/guid2lid"),
                "OpenSM's cache reached the host");
    }

    /** path -> "type size mtime" for every entry under /var, /run and /etc (symlinks not followed). */
    static Map<String, String> stateListing() throws IOException {
        Map<String, String> files = new TreeMap<>();
        for (String top : List.of("/var", "/run", "/etc")) {
            Files.walkFileTree(Path.of(top), new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes a) {
                    files.put(dir.toString(), "d " + a.lastModifiedTime().toMillis());
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes a) {
                    String type = a.isSymbolicLink() ? "l" : a.isRegularFile() ? "f" : "o";
                    files.put(f.toString(), type + " " + a.size() + " " + a.lastModifiedTime().toMillis());
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path f, IOException e) {
                    return FileVisitResult.CONTINUE; // unreadable (a FUSE mount of someone else's, a vanished file)
                }
            });
        }
        return files;
    }

    /**
     * What the machine's own activity writes meanwhile, not this test's (the machine is shared with
     * other test runs and package installs): package management, journals, container engines'
     * storage, and the caches of the other scripts (kernel-vm's, instances under the default state root).
     */
    static boolean othersActivity(String path) {
        for (String p : List.of("/var/lib/dpkg", "/var/lib/apt", "/var/cache/apt", "/var/log/apt", "/var/cache/debconf",
                "/var/log/dpkg.log", "/var/log/alternatives.log", "/var/cache/ldconfig", "/etc/ld.so.cache",
                "/var/log/journal", "/var/cache/ibemu-kernel-vm", "/var/tmp/ibemu", "/var/lib/postgresql",
                "/var/log/postgresql", "/run/postgresql", "/var/cache/man", "/var/lib/systemd", "/var/lib/containers",
                "/run/containers", "/run/libpod", "/run/runc", "/run/crun")) {
            if (path.equals(p) || path.startsWith(p + "/")) {
                return true;
            }
        }
        return false;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> u = new TreeSet<>(a);
        u.addAll(b);
        return u;
    }
}
