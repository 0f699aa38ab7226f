package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code --backend cuse}, in the VM of scripts/kernel-vm (the host has no /dev/cuse): with
 * {@code --host-root} the launcher, the JVM and the tools are the host's, and with
 * {@code --no-ib} the numbers 231:* are free for CUSE. One instance is started there with the
 * CUSE backend (two HCAs behind two switches, --sm preset); the raw-ABI probes, ibstat,
 * smpquery, ibv_devinfo and ibv_rc_pingpong with completion events run in it; the nodes are
 * the kernel's char devices with the sysfs {@code dev} numbers, and nothing reaches the host's /dev.
 */
class CuseBackendTest {
    /** The raw-ABI probes run over CUSE; each must pass but for {@link #CUSE_DEVIATIONS}. */
    static final List<String> PROBES = List.of("umad_ioctl", "umad_rw", "issm", "umad_kill", "umad_rmpp",
            "umad_libibumad", "uverbs_abi", "uverbs_ioctl", "uverbs_data");
    /**
     * Checks CUSE cannot pass (docs/compatibility.md): cuse_open takes no FOPEN_NONSEEKABLE/STREAM
     * (no fuse_finish_open), its llseek is noop_llseek, and its read_iter/write_iter pass offset 0,
     * so lseek succeeds and pread/pwrite act as read/write instead of ESPIPE.
     */
    static final Map<String, List<String>> CUSE_DEVIATIONS = Map.of(
            "umad_rw", List.of("lseek on umad: ESPIPE", "pread on umad: ESPIPE", "pwrite on umad: ESPIPE"),
            "issm", List.of("lseek on issm: ESPIPE"),
            // not CUSE's: --sm preset runs no SM, so no SA answers the join (docs/compatibility.md)
            "uverbs_data", List.of("SA join of the IPoIB broadcast group"));

    static final Path OUT = Ibemu.targetDir().resolve("cuse-vm-out");
    static Result vm;
    static String hostDevBefore;

    @BeforeAll
    static void runInTheVm() throws IOException {
        hostDevBefore = hostDevInfiniband();
        String launcher = Ibemu.script().toString();
        // the VM's state root is its tmpfs /var/tmp; the tests' own (under target/) is read-only there
        String env = "export IBEMU_NO_SETUP=1 IBEMU_NO_BUILD=1 IBEMU_READY_TIMEOUT=240 IBEMU_SM_TIMEOUT=240 "
                + "IBEMU_JAVA_OPTS=-XX:TieredStopAtLevel=1 PROBE_WATCHDOG=off PATH=$PATH:/usr/sbin:/sbin; ";
        String exec = launcher + " exec --name cuse -- ";
        List<String> argv = new ArrayList<>(List.of(Ibemu.root().resolve("scripts/kernel-vm").toString(),
                "--no-ib", "--host-root", "--timeout", "900", "--step-timeout", "300", "--out", OUT.toString()));
        // two HCAs, each behind its own switch, the subnet preset (LIDs, routes; no SM to hold issm0 or SA classes)
        String topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net").toString();
        step(argv, "start", env + "s=$(date +%s%N); " + launcher + " start --name cuse --backend cuse --topology "
                + topology + " --local a --local b --sm preset; st=$?; "
                + "echo \"ready after $((($(date +%s%N) - s) / 1000000)) ms\"; exit $st");
        step(argv, "nodes", env + exec + "sh -c '"
                + "for n in /dev/infiniband/*; do stat -c \"%n %F %t:%T %a\" $n; done; "
                + "for d in /sys/class/infiniband_mad/*/dev /sys/class/infiniband_verbs/*/dev; do "
                + "echo \"sysfs $(basename $(dirname $d)) $(cat $d)\"; done; "
                + "grep \" /dev/infiniband \" /proc/self/mountinfo | sed \"s/.* - /mounted: /\" | cut -d\" \" -f1-2'");
        for (String p : PROBES) {
            step(argv, p, env + exec + CPrograms.compile(p)); // dynamic: the VM runs the host's libraries
        }
        step(argv, "ibstat", env + exec + "ibstat");
        step(argv, "smpquery", env + exec + "smpquery -D nodeinfo 0");
        step(argv, "devinfo", env + exec + "ibv_devinfo -v");
        // -e: completion events through a completion channel, a descriptor the supervisor installs
        step(argv, "pingpong", env + exec + "sh -c 'ibv_rc_pingpong -d ibemu1 -g 0 -n 50 -c -e > /tmp/server.out 2>&1 & "
                + "srv=$!; " + Loopback.awaitListening(18515, "srv") + "; "
                + "ibv_rc_pingpong -d ibemu0 -g 0 -n 50 -c -e localhost; st=$?; wait $srv; cat /tmp/server.out; exit $st'");
        step(argv, "stop", env + launcher + " stop --name cuse; ls /dev/infiniband 2>&1; ls /sys/class/cuse");
        vm = Command.of(argv).timeout(Duration.ofMinutes(16)).run();
    }

    private static final List<String> STEP_NAMES = new ArrayList<>();

    /** A --cmd step; kernel-vm names them cmd1, cmd2... in order. */
    private static void step(List<String> argv, String name, String line) {
        STEP_NAMES.add(name);
        argv.add("--cmd");
        argv.add(line);
    }

    private static String out(String step) throws IOException {
        return Files.readString(OUT.resolve("cmd" + (STEP_NAMES.indexOf(step) + 1) + ".out"));
    }

    private static String status(String step) throws IOException {
        Path s = OUT.resolve("cmd" + (STEP_NAMES.indexOf(step) + 1) + ".status");
        return Files.isRegularFile(s) ? Files.readString(s).trim() : "none";
    }

    private static String hostDevInfiniband() throws IOException {
        Path dir = Path.of("/dev/infiniband");
        if (!Files.exists(dir)) {
            return "(none)";
        }
        try (Stream<Path> s = Files.list(dir)) {
            return String.join(" ", s.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }

    @Test
    void theDaemonStartsWithTheCuseBackend() throws IOException {
        assertTrue(vm.exitCode() == 0 || vm.exitCode() == 1, "the VM did not run every step: " + vm);
        assertEquals("0", status("start"), out("start"));
        System.out.println("CuseBackendTest: " + out("start").lines().filter(l -> l.startsWith("ready after"))
                .findFirst().orElse("") + " (JVM under QEMU TCG, C1 only)");
    }

    /** The kernel's char devices with the numbers of the sysfs dev files, and no mount over them. */
    @Test
    void theNodesAreCharDevicesWithTheSysfsNumbers() throws IOException {
        String nodes = out("nodes");
        assertEquals("0", status("nodes"), nodes);
        for (String line : List.of("/dev/infiniband/umad0 character special file e7:0 600",
                "/dev/infiniband/umad1 character special file e7:1 600",
                "/dev/infiniband/issm0 character special file e7:40 600",
                "/dev/infiniband/issm1 character special file e7:41 600",
                "/dev/infiniband/uverbs0 character special file e7:c0 666",
                "/dev/infiniband/uverbs1 character special file e7:c1 666",
                "sysfs umad0 231:0", "sysfs issm0 231:64", "sysfs issm1 231:65", "sysfs uverbs0 231:192",
                "sysfs uverbs1 231:193")) {
            assertTrue(nodes.contains(line + "\n"), "missing '" + line + "' in:\n" + nodes);
        }
        // at most the devtmpfs directory itself, bound back when the namespace layers /dev (for /dev/char)
        assertTrue(nodes.lines().filter(l -> l.startsWith("mounted:")).allMatch(l -> l.equals("mounted: devtmpfs")),
                "no FUSE or tmpfs over /dev/infiniband in the namespace: " + nodes);
    }

    static List<String> probes() {
        return PROBES;
    }

    @ParameterizedTest
    @MethodSource("probes")
    void theProbePassesOverCuse(String probe) throws IOException {
        String stdout = out(probe);
        Tap tap = Tap.parse(stdout);
        assertEquals(null, tap.bailOut(), probe + " bailed out: " + stdout);
        assertTrue(tap.count() > 0, probe + " ran no check: " + stdout);
        List<String> expected = CUSE_DEVIATIONS.getOrDefault(probe, List.of());
        List<String> unexpected = tap.failed().stream()
                .filter(f -> expected.stream().noneMatch(f::contains)).toList();
        assertEquals(List.of(), unexpected, probe + " failed over CUSE:\n" + stdout);
        for (String d : expected) {
            assertTrue(tap.failed().stream().anyMatch(f -> f.contains(d)),
                    probe + ": '" + d + "' passes over CUSE now: remove it from CUSE_DEVIATIONS and compatibility.md");
        }
        assertEquals(expected.isEmpty() ? "0" : "1", status(probe), stdout);
    }

    @Test
    void ibstatAndSmpqueryWork() throws IOException {
        assertEquals("0", status("ibstat"), out("ibstat"));
        assertTrue(out("ibstat").contains("CA 'ibemu0'"), out("ibstat"));
        assertEquals("0", status("smpquery"), out("smpquery"));
        assertTrue(out("smpquery").contains("NodeType:........................Channel Adapter"), out("smpquery"));
    }

    /** libibverbs' char-device check (open_cdev: st_rdev == sysfs dev) passes on the real node. */
    @Test
    void ibvDevinfoOpensTheDevice() throws IOException {
        String devinfo = out("devinfo");
        assertEquals("0", status("devinfo"), devinfo);
        assertTrue(devinfo.contains("hca_id:\tibemu0"), devinfo);
        assertTrue(devinfo.contains("max_qp:"), "the device was opened and queried: " + devinfo);
    }

    /** Both HCAs' verbs over CUSE: RC send/receive across two switches, completions by event. */
    @Test
    void rcPingpongWithCompletionEventsWorks() throws IOException {
        String pp = out("pingpong");
        assertEquals("0", status("pingpong"), pp);
        assertTrue(pp.lines().filter(l -> l.contains("50 iters in")).count() == 2, "client and server finished: " + pp);
    }

    /** The kernel removes the nodes when the daemon's connections close; the host's /dev never had them. */
    @Test
    void theNodesGoWithTheDaemonAndTheHostNeverSeesThem() throws IOException {
        String stop = out("stop");
        assertTrue(stop.contains("No such file or directory"), "/dev/infiniband is gone after stop: " + stop);
        assertFalse(stop.contains("infiniband!"), "no CUSE device is left: " + stop);
        assertEquals(hostDevBefore, hostDevInfiniband(), "the host's /dev/infiniband is unchanged");
        assertFalse(Files.exists(Path.of("/sys/class/cuse/infiniband!umad0")), "the host's sysfs has no CUSE device");
    }

    /** On a machine without /dev/cuse (this host), asking for CUSE fails at once and says what to change. */
    @Test
    void withoutDevCuseTheLauncherSaysWhatToChange() {
        assumeFalse(Files.exists(Path.of("/dev/cuse")), "this host has CUSE");
        Result r = Ibemu.ibemu("run", "--backend", "cuse", "--", "true");
        assertEquals(125, r.exitCode(), r.toString());
        assertTrue(r.stderr().contains("/dev/cuse does not exist") && r.stderr().contains("modprobe cuse")
                && r.stderr().contains("--backend fuse"), r.stderr());
    }
}
