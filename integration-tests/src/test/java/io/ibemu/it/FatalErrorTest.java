package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A daemon that can no longer serve stops whole (issue 10): it unmounts, every caller gets an
 * answer, the state directory's {@code failed} says why and {@code scripts/ibemu status} says
 * {@code failed}; a daemon that runs but whose devices do not answer is {@code unusable}, not
 * {@code alive}; SIGUSR1/SIGUSR2 leave it serving; the JVM writes no file into the caller's
 * directory.
 */
class FatalErrorTest {

    private static final Duration GONE_TIMEOUT = Duration.ofSeconds(40);

    @Test
    void heapExhaustedByAClientStopsTheDaemonWholeAndStatusSaysWhy() throws Exception {
        Path flood = CPrograms.compile("umad_flood");
        Path callerDir = Files.createTempDirectory(Ibemu.targetDir(), "fatal-cwd");
        // a heap too small for 400,000 queued replies (the receive list's bound is 200,000 each)
        try (Ibemu ib = Ibemu.start(Map.of("IBEMU_JAVA_OPTS", "-Xmx16m"))) {
            long pid = ib.pid();
            // a request pending when the daemon fails must be answered too
            KillMatrixTest.Blocked reader = KillMatrixTest.Blocked.start(ib, "umad-read");
            Result r = ib.execCommand(flood.toString(), "400000").cwd(callerDir)
                    .timeout(Duration.ofMinutes(3)).run();
            assertEquals(1, r.exitCode(), "the flood must end in a failed write: " + r);
            assertTrue(r.stdout().startsWith("error E"), r.toString());
            awaitGone(pid);
            reader.awaitEnded(10_000);
            String failed = Files.readString(ib.stateDir().resolve("failed"));
            assertTrue(failed.contains("OutOfMemoryError"), failed);
            Result st = Ibemu.ibemu("status", "--name", ib.name()).assertExit(3);
            assertTrue(st.stdout().lines().anyMatch(l -> l.matches(ib.name() + "\\s+" + pid + "\\s+failed\\s+.*")),
                    st.toString());
            assertTrue(st.stderr().contains("OutOfMemoryError"), st.toString());
            Result exec = ib.exec("true");
            assertEquals(125, exec.exitCode(), exec.toString());
            assertTrue(exec.stderr().contains("failed: fatal"), exec.toString());
            assertNoMountOfTheInstanceOnTheHost(ib);
            assertNoJvmFiles(callerDir);
            assertNoJvmFiles(Ibemu.root());
            Result stop = ib.stop();
            assertTrue(stop.ok() && stop.stderr().contains("had failed"), stop.toString());
            assertFalse(Files.exists(ib.stateDir()), "stop removes a failed instance's state");
        }
    }

    @Test
    void aJvmCrashWritesItsReportIntoTheStateDirectoryNotTheCallers() throws Exception {
        Path flood = CPrograms.compile("umad_flood");
        Path callerDir = Files.createTempDirectory(Ibemu.targetDir(), "crash-cwd");
        // HotSpot itself crashes at the first OutOfMemoryError: its hs_err file goes where ErrorFile says
        try (Ibemu ib = Ibemu.start(Map.of("IBEMU_JAVA_OPTS", "-Xmx16m -XX:+CrashOnOutOfMemoryError"))) {
            long pid = ib.pid();
            assertEquals(ib.stateDir().toRealPath(), Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "cwd")),
                    "the daemon runs in its state directory");
            Result r = ib.execCommand(flood.toString(), "400000").cwd(callerDir)
                    .timeout(Duration.ofMinutes(3)).run();
            assertEquals(1, r.exitCode(), r.toString());
            awaitGone(pid);
            assertTrue(Files.exists(ib.stateDir().resolve("hs_err_pid" + pid + ".log")),
                    "no JVM error report in " + ib.stateDir() + ":\n" + ib.log());
            assertNoJvmFiles(callerDir);
            assertNoJvmFiles(Ibemu.root());
        }
    }

    @Test
    void anAbortedFuseConnectionStopsTheDaemonWhole() throws Exception {
        try (Ibemu ib = Ibemu.start()) {
            long pid = ib.pid();
            // fusectl in the instance's namespace only; the connection is the one of the daemon's devfs mount
            String mnt = ib.stateDir().resolve("mnt/dev").toString();
            Result abort = ib.sh("mount -t fusectl fusectl /sys/fs/fuse/connections"
                    + " && d=$(stat -c %d " + mnt + ") && echo 1 > /sys/fs/fuse/connections/$(( (d & 255) | ((d >> 12) & 0xfff00) ))/abort");
            abort.assertOk();
            awaitGone(pid);
            String failed = Files.readString(ib.stateDir().resolve("failed"));
            assertTrue(failed.contains("FUSE loop of ibemu ended"), failed);
            Ibemu.ibemu("status", "--name", ib.name()).assertExit(3);
            assertNoMountOfTheInstanceOnTheHost(ib);
        }
    }

    @Test
    void aStoppedDaemonIsUnusableNotAliveAndUserSignalsAreIgnored() throws Exception {
        try (Ibemu ib = Ibemu.start()) {
            long pid = ib.pid();
            Ibemu.host("kill", "-USR1", Long.toString(pid)).assertOk();
            Ibemu.host("kill", "-USR2", Long.toString(pid)).assertOk();
            Ibemu.host("kill", "-STOP", Long.toString(pid)).assertOk();
            try {
                Result st = Ibemu.ibemu("status", "--name", ib.name()).assertExit(3);
                assertTrue(st.stdout().lines().anyMatch(l -> l.matches(ib.name() + "\\s+" + pid + "\\s+unusable\\s+.*")),
                        st.toString());
            } finally {
                Ibemu.host("kill", "-CONT", Long.toString(pid)).assertOk();
            }
            Ibemu.ibemu("status", "--name", ib.name()).assertExit(0);
            assertTrue(ib.isAlive(), "SIGUSR1/SIGUSR2 ended the daemon:\n" + ib.log());
            ib.exec("ibstat", "-l").assertOk();
            String log = ib.log();
            assertTrue(log.contains("SIGUSR1 ignored") && log.contains("SIGUSR2 ignored"), log);
            assertFalse(Files.exists(ib.stateDir().resolve("failed")));
        }
    }

    private static void awaitGone(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + GONE_TIMEOUT.toNanos();
        while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            assertTrue(System.nanoTime() < deadline, "daemon " + pid + " still runs after a fatal error");
            Thread.sleep(100);
        }
    }

    private static void assertNoMountOfTheInstanceOnTheHost(Ibemu ib) throws IOException {
        String mounts = Files.readString(Path.of("/proc/self/mountinfo"));
        assertFalse(mounts.contains(ib.stateDir().toString()), "a mount of the instance is on the host:\n" + mounts);
    }

    private static void assertNoJvmFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<String> jvm = files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("hs_err_pid") || n.endsWith(".hprof") || n.startsWith("replay_pid"))
                    .toList();
            assertTrue(jvm.isEmpty(), "JVM files in " + dir + ": " + jvm);
        }
    }
}
