package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code scripts/ibemu run|start --sm opensm}: Debian's OpenSM started in the instance's
 * namespace brings every cabled local port to Active, is stopped by pid with the instance,
 * writes nothing on the host (its cache and dumps stay in the instance's state), and a
 * subnet manager that fails is reported with its log.
 */
class SubnetManagerLaunchTest {
    static final Duration TIMEOUT = Duration.ofSeconds(180);
    /** Where Debian's OpenSM writes when nobody redirects it (opensm(8)). */
    static final List<Path> HOST_OPENSM_FILES = List.of(Path.of("/var/cache/opensm"), Path.of("/var/log/opensm.log"),
            Path.of("/var/log/opensm-subnet.lst"), Path.of("/var/log/opensm.fdbs"), Path.of("/var/log/opensm.mcfdbs"));

    static Path topology;

    @BeforeAll
    static void writeTopology() throws IOException {
        topology = Ibemu.tmpDir().resolve("sm-launch.net");
        Files.writeString(topology, """
                Hca 1 "a" # "host-a HCA-1"
                [1] "sw"[1]
                Hca 1 "b" # "host-b HCA-1"
                [1] "sw"[2]
                Switch 8 "sw" # "edge switch" enhanced port 0
                [1] "a"[1]
                [2] "b"[1]
                """);
    }

    static List<String> fabricArgs(String... more) {
        List<String> a = new ArrayList<>(List.of("--topology", topology.toString(), "--local", "a", "--local", "b"));
        a.addAll(List.of(more));
        return a;
    }

    /** Existence and mtime of each host path OpenSM writes by default. */
    static Map<Path, String> hostOpensmFiles() throws IOException {
        Map<Path, String> m = new TreeMap<>();
        for (Path p : HOST_OPENSM_FILES) {
            m.put(p, Files.exists(p) ? "mtime " + Files.getLastModifiedTime(p).toMillis() : "absent");
        }
        return m;
    }

    /** Pids of the processes whose command line mentions TEXT. */
    static List<Long> processesMentioning(String text) throws IOException {
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("/proc"))) {
            for (Path p : s.filter(d -> d.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    String cmdline = new String(Files.readAllBytes(p.resolve("cmdline"))).replace('\0', ' ');
                    if (cmdline.contains(text)) {
                        pids.add(Long.parseLong(p.getFileName().toString()));
                    }
                } catch (IOException e) {
                    // gone meanwhile
                }
            }
        }
        return pids;
    }

    @Test
    void runWithOpensmShowsActivePortsAndTheSmLid() {
        List<String> args = new ArrayList<>(List.of("run"));
        args.addAll(fabricArgs("--sm", "opensm", "--", "ibstat"));
        Result r = Ibemu.launcher(args.toArray(String[]::new)).timeout(TIMEOUT).run().assertOk();
        List<ToolOutput.Ca> cas = ToolOutput.ibstat(r.stdout());
        assertEquals(List.of("ibemu0", "ibemu1"), cas.stream().map(ToolOutput.Ca::name).toList(), r.toString());
        String smLid = cas.get(0).port(1).get("SM lid");
        for (ToolOutput.Ca ca : cas) {
            Map<String, String> port = ca.port(1);
            assertEquals("Active", port.get("State"), ca.name() + ": " + r);
            assertNotEquals("0", port.get("Base lid"), ca.name() + " has a LID: " + r);
            assertEquals(smLid, port.get("SM lid"), "both ports know the same SM: " + r);
        }
        assertNotEquals("0", smLid, r.toString());
        // OpenSM runs on the first cabled local port (ibemu0's): the SM's LID is that port's.
        assertEquals(cas.get(0).port(1).get("Base lid"), smLid, r.toString());
    }

    @Test
    void withoutSmThePortsStayAsAfterPowerOn() {
        List<String> args = new ArrayList<>(List.of("run"));
        args.addAll(fabricArgs("--sm", "none", "--", "ibstat"));
        Result r = Ibemu.launcher(args.toArray(String[]::new)).timeout(TIMEOUT).run().assertOk();
        for (ToolOutput.Ca ca : ToolOutput.ibstat(r.stdout())) {
            assertEquals("Initializing", ca.port(1).get("State"), ca.name() + ": " + r);
            assertEquals("0", ca.port(1).get("SM lid"), r.toString());
        }
    }

    @Test
    void startThenStopLeavesNoOpensmAndNothingOnTheHost() throws Exception {
        Map<Path, String> before = hostOpensmFiles();
        Ibemu ib = Ibemu.start(fabricArgs("--sm", "opensm").toArray(String[]::new));
        ProcessHandle sm;
        try {
            long smPid = Long.parseLong(Files.readString(ib.stateDir().resolve("sm.pid")).strip());
            sm = ProcessHandle.of(smPid).orElseThrow(() -> new AssertionError("OpenSM (pid " + smPid + ") is not running"));
            assertTrue(sm.info().command().orElse("").endsWith("opensm"), "sm.pid is OpenSM: " + sm.info());
            String mine = Files.readSymbolicLink(Path.of("/proc", String.valueOf(smPid), "ns/mnt")).toString();
            String daemons = Files.readSymbolicLink(Path.of("/proc", String.valueOf(ib.pid()), "ns/mnt")).toString();
            assertEquals(daemons, mine, "OpenSM runs in the instance's mount namespace");
            assertEquals("4: ACTIVE\n4: ACTIVE", ib.sh("cat /sys/class/infiniband/ibemu*/ports/1/state").assertOk().out(),
                    "start returns once every cabled port is Active");
            assertTrue(Files.exists(ib.stateDir().resolve("opensm/guid2lid")), "OpenSM's cache is in the instance's state");
            assertTrue(Files.readString(ib.stateDir().resolve("opensm.log")).contains("SUBNET UP"));
        } finally {
            ib.stop().assertOk();
        }
        assertFalse(Ibemu.running(sm.pid()), "stop ends OpenSM (pid " + sm.pid() + ")");
        assertFalse(Files.exists(ib.stateDir()), "stop removes the state");
        assertEquals(before, hostOpensmFiles(), "OpenSM wrote nothing in the host's /var/cache and /var/log");
    }

    @Test
    void anSmThatDoesNotMakeThePortsActiveInTimeIsReportedWithItsLog() throws Exception {
        // b is cabled to c, another HCA: OpenSM on a's port never reaches b's subnet, so b/1 stays
        // Init however fast the machine (HCAs forward nothing)
        Path apart = Ibemu.tmpDir().resolve("sm-launch-apart.net");
        Files.writeString(apart, """
                Hca 1 "a" # "host-a HCA-1"
                [1] "sw"[1]
                Hca 1 "b" # "host-b HCA-1"
                [1] "c"[1]
                Hca 1 "c" # "host-c HCA-1"
                [1] "b"[1]
                Switch 8 "sw" # "edge switch" enhanced port 0
                [1] "a"[1]
                """);
        Result r = Ibemu.launcher("run", "--topology", apart.toString(), "--local", "a", "--local", "b", "--sm", "opensm",
                "--", "true").env("IBEMU_SM_TIMEOUT", "3").timeout(TIMEOUT).run();
        r.assertExit(125);
        assertTrue(r.stderr().contains("IBEMU_SM_TIMEOUT") && r.stderr().contains("not Active after 3 s: \"b\"[1]")
                && !r.stderr().contains("\"a\"[1]"), r.toString());
        Path log = keptLog(r);
        // OpenSM is stopped at the first look, which can come before its first log line
        String kept = Files.readString(log);
        assertTrue(kept.isEmpty() || kept.contains("OpenSM"), "the kept log is OpenSM's: " + log);
        String instance = log.getFileName().toString().replace(".opensm.log", "");
        assertFalse(Files.exists(Ibemu.stateRoot().resolve(instance)), "run removes its state");
        assertEquals(List.of(), processesMentioning(Ibemu.stateRoot().resolve(instance) + "/"), "OpenSM and the daemon are gone");
        Files.delete(log);
    }

    @Test
    void anSmThatExitsIsReportedAndTheInstanceIsNotStarted() throws Exception {
        String name = Ibemu.uniqueName();
        List<String> args = new ArrayList<>(List.of("start", "--name", name));
        args.addAll(fabricArgs("--sm", "opensm"));
        Result r = Ibemu.launcher(args.toArray(String[]::new)).env("IBEMU_SM_OPTS", "--no-such-opensm-option")
                .timeout(TIMEOUT).run();
        r.assertExit(1);
        assertTrue(r.stderr().contains("OpenSM (pid") && r.stderr().contains("exited with status"), r.toString());
        Path log = keptLog(r);
        assertTrue(log.endsWith(name + ".opensm.log"), log.toString());
        assertFalse(Files.exists(Ibemu.stateRoot().resolve(name)), "a failed start leaves no instance");
        assertEquals(List.of(), processesMentioning(Ibemu.stateRoot().resolve(name) + "/"), "nothing of it runs");
        Files.delete(log);
    }

    @Test
    void anUnknownSmIsABadUsage() {
        Ibemu.ibemu("start", "--sm", "ibsim").assertExit(2);
        Result r = Ibemu.ibemu("run", "--sm", "ibsim", "--", "true").assertExit(125);
        assertTrue(r.stderr().contains("unknown subnet manager 'ibsim'"), r.toString());
    }

    /** The path the launcher names as OpenSM's kept log. */
    static Path keptLog(Result r) {
        Matcher m = Pattern.compile("OpenSM's log is kept in (\\S+);").matcher(r.stderr());
        assertTrue(m.find(), "names OpenSM's log: " + r);
        Path log = Path.of(m.group(1));
        assertTrue(Files.isRegularFile(log), log + " exists");
        return log;
    }
}
