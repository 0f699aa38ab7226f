package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * stop and run end every process still running inside the instance (the exec'd OpenSM
 * that outlived its instance and spun on ENOTCONN): SIGTERM, SIGKILL after IBEMU_STOP_TIMEOUT
 * for one that ignores SIGTERM, each named on stderr; nothing is left on the host.
 */
class InstanceStopTest {

    private static boolean alive(long pid) {
        return Ibemu.running(pid);
    }

    /** Starts SCRIPT in the background inside the instance and returns its pid. */
    private static long background(Ibemu ib, String script) {
        String out = ib.sh(script + " </dev/null >/dev/null 2>&1 & echo $!").assertOk().out();
        long pid = Long.parseLong(out.strip());
        assertTrue(alive(pid), "the background command did not start: " + script);
        return pid;
    }

    /** Waits until {@code pid} ignores signal {@code sig} (SigIgn of /proc/PID/status), at most 20 s. */
    private static void awaitIgnoring(long pid, int sig) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                    if (line.startsWith("SigIgn:") && (Long.parseLong(line.substring(7).strip(), 16) & (1L << (sig - 1))) != 0) {
                        return;
                    }
                }
                Thread.sleep(20);
            } catch (IOException | InterruptedException e) {
                throw new AssertionError("pid " + pid + " gone before it ignored signal " + sig, e);
            }
        }
        throw new AssertionError("pid " + pid + " never ignored signal " + sig);
    }

    @Test
    void stopEndsAnExecdSleepOpenSmAndAProcessThatIgnoresSigterm() {
        Ibemu ib = Ibemu.start(Map.of("IBEMU_STOP_TIMEOUT", "3"));
        try {
            String dir = ib.stateDir().resolve("opensm").toString();
            ib.sh("mkdir -p " + dir).assertOk();
            long sleep = background(ib, "exec sleep 1000");
            long opensm = background(ib, "OSM_CACHE_DIR=" + dir + " OSM_TMP_DIR=" + dir
                    + " exec opensm -f " + dir + "/opensm.log");
            long stubborn = background(ib, "exec /usr/bin/python3 -c 'import signal, time; "
                    + "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(1000)'");
            awaitIgnoring(stubborn, 15); // python's start-up takes a while: stop must meet the SIG_IGN

            Result stopped = ib.stop().assertOk();

            for (long pid : List.of(sleep, opensm, stubborn)) {
                assertFalse(alive(pid), "pid " + pid + " outlived stop: " + stopped);
                assertTrue(stopped.stderr().contains(pid + " ("), "stop does not name " + pid + ": " + stopped);
            }
            assertTrue(stopped.stderr().contains("(sleep)") && stopped.stderr().contains("(opensm)"), stopped.toString());
            assertTrue(stopped.stderr().contains("sending SIGKILL: " + stubborn), stopped.toString());
            assertFalse(stopped.stderr().contains("SIGKILL: " + sleep), "sleep ends on SIGTERM: " + stopped);
        } finally {
            ib.close();
        }
    }

    @Test
    void runEndsWhatItsCommandLeftBehind() throws Exception {
        // the pid is printed once the background child has exec'd sleep, so the launcher names it so
        Result r = Ibemu.launcher("run", "--", "sh", "-c", "sleep 1000 </dev/null >/dev/null 2>&1 & p=$!; "
                + "while [ \"$(cat /proc/$p/comm)\" != sleep ]; do :; done; echo $p")
                .timeout(LauncherTest.RUN_TIMEOUT).run().assertOk();
        long sleep = Long.parseLong(r.out().strip());
        assertFalse(alive(sleep), "the command's background sleep outlived run: " + r);
        assertTrue(r.stderr().contains(sleep + " (sleep)"), r.toString());
        assertEquals(List.of(), LauncherTest.runInstances(), "run removes its state");
    }
}
