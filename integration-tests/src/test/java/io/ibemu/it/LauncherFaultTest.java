package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * scripts/ibemu's own behaviour, with a stand-in daemon (src/test/fake-daemon/bin/java,
 * through JAVA_HOME and IBEMU_JAR) so that every path can be forced: a daemon that
 * reports a failure, dies early, never gets ready, ignores SIGTERM. The fake follows
 * the daemon contract (refuses to run outside a new mount namespace, mounts a tmpfs at
 * STATE/ns-probe inside it, writes STATE/ready, exits on SIGTERM). These tests do not
 * need the real emulator; {@link LauncherTest} runs the same commands against it.
 */
class LauncherFaultTest {
    static Path fakeJavaHome;
    static Path states;

    @BeforeAll
    static void locateFake() throws IOException {
        fakeJavaHome = Ibemu.root().resolve("integration-tests/src/test/fake-daemon");
        Path java = fakeJavaHome.resolve("bin/java");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        states = Ibemu.targetDir().resolve("ibemu-state-fake");
    }

    @BeforeEach
    @AfterEach
    void noInstancesLeft() throws IOException {
        // Stop whatever a failed test left (through the launcher, by recorded pid).
        if (Files.isDirectory(states)) {
            try (Stream<Path> s = Files.list(states)) {
                for (Path d : s.filter(Files::isDirectory).toList()) {
                    fake("stop", "--name", d.getFileName().toString()).run();
                }
            }
        }
    }

    /** scripts/ibemu ARGS with the fake daemon and a state root of its own. */
    static Command fake(String... args) {
        return Ibemu.launcher(args)
                .env("JAVA_HOME", fakeJavaHome.toString())
                .env("IBEMU_JAR", fakeJavaHome.resolve("bin/java").toString())
                .env("IBEMU_STATE_DIR", states.toString())
                .unsetEnv("FAKE_DAEMON_MODE")
                .timeout(Duration.ofSeconds(60));
    }

    static List<String> stateEntries() throws IOException {
        if (!Files.isDirectory(states)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(states)) {
            return s.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    static long pidOf(String name) throws IOException {
        return Long.parseLong(Files.readString(states.resolve(name).resolve("pid")).strip());
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    static void awaitGone(long pid) throws InterruptedException {
        for (int i = 0; i < 100 && alive(pid); i++) {
            Thread.sleep(100);
        }
        assertFalse(alive(pid), "process " + pid + " is still there");
    }

    // ------------------------------------------------------------ run

    @Test
    void runExitsWithTheCommandsStatus() throws IOException {
        fake("run", "--", "true").run().assertExit(0);
        fake("run", "--", "false").run().assertExit(1);
        fake("run", "--", "sh", "-c", "exit 7").run().assertExit(7);
        assertEquals(List.of(), stateEntries(), "run leaves no state behind");
    }

    @Test
    void runKeepsTheCallersDirectoryAndStdin() {
        Path dir = Ibemu.targetDir();
        Result r = fake("run", "--", "sh", "-c", "pwd; cat").cwd(dir).stdin("hello\n").run().assertOk();
        assertEquals(dir.toString() + "\nhello", r.out());
    }

    @Test
    void runCommandSeesThePrivateMountAndTheHostDoesNot() throws IOException {
        Result r = fake("run", "--", "sh", "-c", "ls \"$IBEMU_STATE_DIR\"/run-*/ns-probe/").run().assertOk();
        assertEquals("inside", r.out());
        assertFalse(Files.readString(Path.of("/proc/self/mountinfo")).contains("ibemu-fake"),
                "the namespace's mount shows on the host");
    }

    @Test
    void runReportsTheDaemonsFailureMessage() throws IOException {
        Result r = fake("run", "--", "true").env("FAKE_DAEMON_MODE", "fail").run().assertExit(125);
        assertTrue(r.stderr().contains("failed to start: fake failure: topology node 'x' is unknown"), r.toString());
        assertEquals(List.of(), stateEntries());
    }

    @Test
    void startReportsAnEarlyExitWithTheLogsTail() throws IOException {
        Result r = fake("start", "--name", "dies").env("FAKE_DAEMON_MODE", "die").run().assertExit(1);
        assertTrue(r.stderr().contains("exited with status 3 before it was ready"), r.toString());
        assertTrue(r.stderr().contains("| fake daemon: dying before ready"), r.toString());
        assertEquals(List.of(), stateEntries());
    }

    @Test
    void aDaemonThatNeverGetsReadyIsStoppedAfterTheTimeout() throws IOException {
        Result r = fake("run", "--", "true").env("FAKE_DAEMON_MODE", "hang").env("IBEMU_READY_TIMEOUT", "2")
                .run().assertExit(125);
        assertTrue(r.stderr().contains("did not become ready within 2 s"), r.toString());
        assertTrue(r.stderr().contains("fake daemon: SIGTERM"), "stopped with SIGTERM: " + r);
        assertEquals(List.of(), stateEntries());
    }

    @Test
    void stopSendsSigkillToADaemonThatIgnoresSigterm() throws Exception {
        fake("start", "--name", "stubborn").env("FAKE_DAEMON_MODE", "ignore-term").run().assertOk();
        long pid = pidOf("stubborn");
        Result r = fake("stop", "--name", "stubborn").env("IBEMU_STOP_TIMEOUT", "1").run().assertOk();
        assertTrue(r.stderr().contains("sending SIGKILL"), r.toString());
        awaitGone(pid);
        assertEquals(List.of(), stateEntries());
    }

    @Test
    void sigtermToRunIsPassedToTheCommandAndTheDaemonIsStopped() throws Exception {
        Command.Running run = fake("run", "--", "sleep", "300").start();
        Path dir = null;
        for (int i = 0; i < 200 && dir == null; i++) {
            Thread.sleep(100);
            List<String> e = stateEntries();
            if (e.size() == 1 && Files.exists(states.resolve(e.get(0)).resolve("ready"))) {
                dir = states.resolve(e.get(0));
            }
        }
        assertTrue(dir != null, "the run's daemon did not get ready");
        Thread.sleep(300); // let the command start
        long daemon = Long.parseLong(Files.readString(dir.resolve("pid")).strip());
        run.signal("TERM");
        Result r = run.await();
        assertEquals(143, r.exitCode(), "sleep killed by SIGTERM: " + r);
        assertTrue(r.elapsed().compareTo(Duration.ofSeconds(30)) < 0, r.toString());
        awaitGone(daemon);
        assertEquals(List.of(), stateEntries());
    }

    // ------------------------------------------------------------ start / exec / status / stop

    @Test
    void startStatusExecStop() throws Exception {
        fake("start", "--name", "a").run().assertOk();
        Result st = fake("status").run().assertOk();
        assertTrue(st.stdout().lines().anyMatch(l -> l.matches("a\\s+\\d+\\s+alive\\s+\\(built-in default\\)")), st.toString());
        fake("status", "--name", "a").run().assertExit(0);

        Path probe = states.resolve("a/ns-probe/inside");
        fake("exec", "--name", "a", "--", "test", "-e", probe.toString()).run().assertExit(0);
        assertFalse(Files.exists(probe), "the namespace's tmpfs shows on the host");
        fake("exec", "--name", "a", "--", "sh", "-c", "exit 5").run().assertExit(5);

        long pid = pidOf("a");
        Result stop = fake("stop", "--name", "a").run().assertOk();
        assertTrue(stop.stdout().contains("stopped"), stop.toString());
        awaitGone(pid);
        assertEquals(List.of(), stateEntries());
        fake("status", "--name", "a").run().assertExit(3);
    }

    @Test
    void twoNamedInstancesRunAtOnceInTheirOwnNamespaces() throws Exception {
        fake("start", "--name", "one").run().assertOk();
        fake("start", "--name", "two").run().assertOk();
        Result st = fake("status").run().assertOk();
        assertTrue(st.stdout().contains("one") && st.stdout().contains("two"), st.toString());
        String ns1 = fake("exec", "--name", "one", "--", "readlink", "/proc/self/ns/mnt").run().assertOk().out();
        String ns2 = fake("exec", "--name", "two", "--", "readlink", "/proc/self/ns/mnt").run().assertOk().out();
        String host = Files.readSymbolicLink(Path.of("/proc/self/ns/mnt")).toString();
        assertNotEquals(ns1, ns2);
        assertNotEquals(host, ns1);
        assertNotEquals(host, ns2);
        fake("stop", "--name", "one").run().assertOk();
        fake("exec", "--name", "two", "--", "true").run().assertOk();
        fake("stop", "--name", "two").run().assertOk();
    }

    @Test
    void aSecondStartOfARunningNameIsRefused() throws IOException {
        fake("start", "--name", "dup").run().assertOk();
        long pid = pidOf("dup");
        Result r = fake("start", "--name", "dup").run().assertExit(1);
        assertTrue(r.stderr().contains("already running"), r.toString());
        assertTrue(alive(pid));
        assertEquals(pid, pidOf("dup"));
    }

    @Test
    void aKilledDaemonLeavesAStaleInstanceThatStopCleans() throws Exception {
        fake("start", "--name", "victim").run().assertOk();
        long pid = pidOf("victim");
        Ibemu.host("kill", "-KILL", Long.toString(pid)).assertOk();
        awaitGone(pid);
        Result st = fake("status").run().assertOk();
        assertTrue(st.stdout().lines().anyMatch(l -> l.matches("victim\\s+" + pid + "\\s+dead\\s+.*")), st.toString());
        Result ex = fake("exec", "--name", "victim", "--", "true").run().assertExit(125);
        assertTrue(ex.stderr().contains("is gone"), ex.toString());
        Result stop = fake("stop", "--name", "victim").run().assertOk();
        assertTrue(stop.stderr().contains("stale"), stop.toString());
        assertEquals(List.of(), stateEntries());
    }

    @Test
    void startCleansAStaleInstanceOfTheSameName() throws Exception {
        fake("start", "--name", "again").run().assertOk();
        long pid = pidOf("again");
        Ibemu.host("kill", "-KILL", Long.toString(pid)).assertOk();
        awaitGone(pid);
        Result r = fake("start", "--name", "again").run().assertOk();
        assertTrue(r.stderr().contains("stale"), r.toString());
        assertNotEquals(pid, pidOf("again"));
    }

    @Test
    void execOrStopOfANameThatIsNotRunningFailsClearly() {
        Result ex = fake("exec", "--name", "nope", "--", "true").run().assertExit(125);
        assertTrue(ex.stderr().contains("no instance named 'nope' is running"), ex.toString());
        assertTrue(ex.stderr().contains("scripts/ibemu start --name nope"), ex.toString());
        Result stop = fake("stop", "--name", "nope").run().assertExit(1);
        assertTrue(stop.stderr().contains("no instance named 'nope'"), stop.toString());
    }

    // ------------------------------------------------------------ usage and help

    @Test
    void helpEverywhere() {
        Result top = fake("--help").run().assertOk();
        assertTrue(top.stdout().startsWith("Usage: scripts/ibemu COMMAND"), top.toString());
        for (String c : List.of("run", "start", "exec", "stop", "status", "log", "topology")) {
            Result h = fake(c, "--help").run().assertOk();
            assertTrue(h.stdout().startsWith("Usage: scripts/ibemu " + c), h.toString());
            assertEquals(h.stdout(), fake("help", c).run().assertOk().stdout());
        }
    }

    @Test
    void usageErrors() {
        fake().run().assertExit(2);
        assertTrue(fake("bogus").run().assertExit(2).stderr().contains("unknown command 'bogus'"));
        assertTrue(fake("run", "true").run().assertExit(125).stderr().contains("after '--'"));
        assertTrue(fake("run", "--").run().assertExit(125).stderr().contains("no command"));
        assertTrue(fake("start", "--name", "a/b").run().assertExit(2).stderr().contains("bad instance name"));
        assertTrue(fake("run", "--topology", "/nonexistent/topo", "--", "true").run().assertExit(125)
                .stderr().contains("does not exist"));
    }

    // ------------------------------------------------------------ prerequisites

    /**
     * A PATH holding everything the host has except java and unshare, and an
     * ldconfig that knows no library: what a machine without them looks like.
     */
    @Test
    void missingPrerequisitesAreNamedWithHowToGetThem() throws IOException {
        Path bin = Ibemu.targetDir().resolve("path-without-prereqs");
        if (!Files.isDirectory(bin)) {
            Files.createDirectories(bin);
            for (String d : List.of("/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin")) {
                Path dir = Path.of(d);
                if (!Files.isDirectory(dir)) {
                    continue;
                }
                try (Stream<Path> s = Files.list(dir)) {
                    for (Path f : s.toList()) {
                        String n = f.getFileName().toString();
                        if (List.of("java", "unshare", "ldconfig", "mvn").contains(n) || Files.exists(bin.resolve(n), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                            continue;
                        }
                        Files.createSymbolicLink(bin.resolve(n), f);
                    }
                }
            }
            Path ldconfig = bin.resolve("ldconfig");
            Files.writeString(ldconfig, "#!/bin/sh\nexit 0\n");
            Files.setPosixFilePermissions(ldconfig, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Result r = Ibemu.launcher("start", "--name", "prereq")
                .env("PATH", bin.toString())
                .env("IBEMU_STATE_DIR", states.toString())
                .unsetEnv("JAVA_HOME")
                .run().assertExit(1);
        String err = r.stderr();
        assertTrue(err.contains("missing prerequisites"), r.toString());
        assertTrue(err.contains("libfuse2") && err.contains("apt-get install libfuse2") && err.contains("libfuse2t64"), r.toString());
        assertTrue(err.contains("'fuse' package"), "warns against Debian's fuse package: " + r);
        assertTrue(err.contains("java") && err.contains("default-jdk-headless"), r.toString());
        assertTrue(err.contains("unshare") && err.contains("util-linux"), r.toString());
        assertFalse(Files.exists(states.resolve("prereq")), "nothing is started");
        // As root it first lets scripts/setup-deps install what is missing (here dpkg has every
        // package, the PATH hides them: setup-deps finds nothing to do and the check still fails).
        assertTrue(err.contains("missing: libfuse2 java unshare; installing what is missing with scripts/setup-deps"), r.toString());
        assertTrue(err.contains("setup-deps: all "), "setup-deps ran: " + r);

        Result skipped = Ibemu.launcher("start", "--name", "prereq")
                .env("PATH", bin.toString())
                .env("IBEMU_STATE_DIR", states.toString())
                .env("IBEMU_NO_SETUP", "1")
                .unsetEnv("JAVA_HOME")
                .run().assertExit(1);
        assertTrue(skipped.stderr().contains("missing prerequisites"), skipped.toString());
        assertFalse(skipped.stderr().contains("setup-deps:"), "IBEMU_NO_SETUP: setup-deps does not run: " + skipped);
    }

    /** Issue 10: a non-root stop waited out 20 s and blamed the kernel. */
    @Test
    void stopAsAnotherUserIsPermissionDeniedAtOnce() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv");
        assumeTrue(Command.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "--", "test", "-r", Ibemu.script().toString()).cwd(Path.of("/")).run().ok(),
                "user nobody cannot read " + Ibemu.script() + " (a checkout under a private directory)");
        fake("start", "--name", "roots").run().assertOk();
        long pid = pidOf("roots");
        long start = System.nanoTime();
        Result r = Command.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        "--", Ibemu.script().toString(), "stop", "--name", "roots")
                .env(Ibemu.launcherEnv()).env("IBEMU_STATE_DIR", states.toString())
                .cwd(Path.of("/")).run().assertExit(1);
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(r.stderr().contains("permission denied"), r.toString());
        assertTrue(ms < 5000, "answered in " + ms + " ms");
        assertTrue(alive(pid), "the daemon was left alone");
    }

    /** /var/run is a link to /run: the check is on the resolved path. */
    @Test
    void aStateDirectoryUnderRunThroughALinkIsRefused() {
        assumeTrue(Files.isSymbolicLink(Path.of("/var/run")), "/var/run is not a link here");
        Result r = Ibemu.launcher("status").env("IBEMU_STATE_DIR", "/var/run/ibemu-harden-test").run().assertExit(1);
        assertTrue(r.stderr().contains("must not be under /dev, /sys, /run or /proc"), r.toString());
        assertFalse(Files.exists(Path.of("/run/ibemu-harden-test")));
    }

    /** Not being root is no longer a refusal: the user namespace path (RootlessTest has the rest). */
    @Test
    void notBeingRootRunsInAUserNamespace() throws IOException {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv");
        assumeTrue(Command.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "--", "test", "-r", Ibemu.script().toString()).cwd(Path.of("/")).run().ok(),
                "user nobody cannot read " + Ibemu.script() + " (a checkout under a private directory)");
        Path mine = Files.createTempDirectory(Path.of("/tmp"), "ibemu-nobody-");
        try {
            Ibemu.host("chown", "65534:65534", mine.toString()).assertOk();
            Result r = Command.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            "--", Ibemu.script().toString(), "run", "--", "id", "-u")
                    .env(Ibemu.launcherEnv()).env("IBEMU_STATE_DIR", mine.resolve("state").toString())
                    .cwd(Path.of("/")).timeout(Duration.ofMinutes(2)).run();
            if (r.exitCode() == 125 && r.stderr().contains("user namespaces:")) {
                return; // this machine refuses unprivileged user namespaces, and the message says which sysctl
            }
            r.assertOk();
            assertEquals("0", r.out(), "root of its own user namespace: " + r);
        } finally {
            Ibemu.host("rm", "-rf", "--", mine.toString());
        }
    }
}
