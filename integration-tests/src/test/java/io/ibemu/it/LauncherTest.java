package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * scripts/ibemu with the real daemon on its built-in default fabric: exit codes of run,
 * help, start/status/exec/stop, two named instances at once, clear errors.
 * (LauncherFaultTest forces the failure paths with a stand-in daemon.)
 */
class LauncherTest {
    static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);

    static Result run(String... cmd) {
        String[] args = new String[cmd.length + 2];
        args[0] = "run";
        args[1] = "--";
        System.arraycopy(cmd, 0, args, 2, cmd.length);
        return Ibemu.launcher(args).timeout(RUN_TIMEOUT).run();
    }

    static List<String> runInstances() throws Exception {
        Path root = Ibemu.stateRoot();
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (var s = Files.list(root)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("run-")).toList();
        }
    }

    @Test
    void runExitsWithTheCommandsStatus() throws Exception {
        run("true").assertExit(0);
        run("false").assertExit(1);
        run("sh", "-c", "exit 7").assertExit(7);
        assertEquals(List.of(), runInstances(), "run removes its state");
    }

    @Test
    void runShowsTheEmulatedDevices() {
        Result r = run("sh", "-c", "test -e /dev/infiniband/umad0 && test -d /sys/class/infiniband && ls /sys/class/infiniband")
                .assertOk();
        assertFalse(r.out().isEmpty(), "no device in /sys/class/infiniband: " + r);
    }

    @Test
    void runKeepsTheCallersDirectory() {
        Path dir = Ibemu.targetDir();
        Result r = Ibemu.launcher("run", "--", "pwd").cwd(dir).timeout(RUN_TIMEOUT).run().assertOk();
        assertEquals(dir.toString(), r.out());
    }

    /**
     * A JDK 24 or later named by JAVA_HOME (the machine's second JDK, when it has one) runs the
     * daemon, and its log holds none of the warnings such a JDK prints for jffi's native access
     * and sun.misc.Unsafe unless the launcher says they are meant.
     */
    @Test
    void aNewerJdkFromJavaHomeRunsTheDaemonWithoutWarnings() throws Exception {
        Path jdk = newerJdk();
        Assumptions.assumeTrue(jdk != null, "no JDK 24+ under /usr/lib/jvm");
        try (Ibemu ib = Ibemu.start(Map.of("JAVA_HOME", jdk.toString()))) {
            ib.exec("ibv_devinfo").assertOk();
            assertTrue(Files.readString(Path.of("/proc", Long.toString(ib.pid()), "cmdline")).contains(jdk.toString()),
                    "the daemon is not " + jdk + "'s java");
            assertFalse(ib.log().contains("WARNING"), "the daemon's log warns:\n" + ib.log());
        }
    }

    /** A JDK of version 24 or later under /usr/lib/jvm, from its release file; null if none. */
    private static Path newerJdk() throws Exception {
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return null;
        }
        try (var s = Files.list(jvms)) {
            for (Path home : s.sorted().toList()) {
                Path release = home.resolve("release");
                if (!Files.isExecutable(home.resolve("bin/java")) || !Files.isReadable(release)) {
                    continue;
                }
                for (String line : Files.readAllLines(release)) {
                    var m = java.util.regex.Pattern.compile("^JAVA_VERSION=\"(\\d+)").matcher(line);
                    if (m.find() && Integer.parseInt(m.group(1)) >= 24) {
                        return home;
                    }
                }
            }
        }
        return null;
    }

    @Test
    void helpWorks() {
        assertTrue(Ibemu.ibemu("--help").assertOk().stdout().contains("Usage: scripts/ibemu COMMAND"));
        for (String c : List.of("run", "start", "exec", "stop", "status", "topology")) {
            assertTrue(Ibemu.ibemu(c, "--help").assertOk().stdout().startsWith("Usage: scripts/ibemu " + c));
        }
    }

    @Test
    void statusListsAStartedInstanceAndTwoRunAtOnce() throws Exception {
        try (Ibemu a = Ibemu.start(); Ibemu b = Ibemu.start()) {
            Result st = Ibemu.ibemu("status").assertOk();
            for (Ibemu ib : List.of(a, b)) {
                assertTrue(st.stdout().lines().anyMatch(l -> l.matches(ib.name() + "\\s+" + ib.pid() + "\\s+alive\\s+.*")),
                        ib.name() + " not listed as alive: " + st);
                Ibemu.ibemu("status", "--name", ib.name()).assertExit(0);
                ib.exec("test", "-e", "/dev/infiniband/umad0").assertOk();
            }
            String nsA = a.exec("readlink", "/proc/self/ns/mnt").assertOk().out();
            String nsB = b.exec("readlink", "/proc/self/ns/mnt").assertOk().out();
            assertNotEquals(nsA, nsB, "each instance has its own mount namespace");
            assertNotEquals(Files.readSymbolicLink(Path.of("/proc/self/ns/mnt")).toString(), nsA);

            a.stop().assertOk();
            assertFalse(Files.exists(a.stateDir()), "stop removes the state directory");
            Ibemu.ibemu("status", "--name", a.name()).assertExit(3);
            b.exec("true").assertOk();
        }
    }

    @Test
    void execPassesTheCommandsStatusAndStdin() {
        try (Ibemu ib = Ibemu.start()) {
            ib.exec("sh", "-c", "exit 3").assertExit(3);
            Result r = ib.execCommand("cat").stdin("through\n").run().assertOk();
            assertEquals("through", r.out());
        }
    }

    @Test
    void execOfANameThatIsNotRunningFailsClearly() {
        Result r = Ibemu.ibemu("exec", "--name", "not-running-" + ProcessHandle.current().pid(), "--", "true");
        assertEquals(125, r.exitCode(), r.toString());
        assertTrue(r.stderr().contains("is running") && r.stderr().contains("scripts/ibemu start"), r.toString());
    }

    @Test
    void topologyCheckOfAMissingFileFails() {
        Result r = Ibemu.ibemu("topology", "check", "/nonexistent/topology");
        assertNotEquals(0, r.exitCode(), r.toString());
        assertTrue(r.stderr().contains("does not exist"), r.toString());
    }
}
