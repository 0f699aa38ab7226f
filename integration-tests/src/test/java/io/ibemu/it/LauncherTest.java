package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
