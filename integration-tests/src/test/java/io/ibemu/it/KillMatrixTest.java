package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kill -9 in every blocking state (src/test/c/kill_states.c): a client blocked in a umad read or
 * poll, a completion-channel read, a verbs command loop, an issm open or holding issm is reaped at
 * once (never left in uninterruptible sleep), and the daemon goes on serving with nothing of the
 * client left (verbs objects, the IsSM bit). Then the daemon itself is killed under load: every
 * blocked client ends, no mount or file is left on the host, and a fresh instance works.
 */
class KillMatrixTest {
    static Ibemu ib;

    @BeforeAll
    static void up() {
        CPrograms.compile("kill_states"); // a compile error fails here, before any instance starts
        ib = Ibemu.start();
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    /** A client inside an instance, blocked in STATE: the launcher process and the program's pid. */
    record Blocked(Process launcher, long pid, String state) {
        static Blocked start(Ibemu in, String state) throws Exception {
            return start(in, CPrograms.compile("kill_states"), state);
        }

        static Blocked start(Ibemu in, Path program, String state) throws Exception {
            ProcessBuilder pb = new ProcessBuilder(Ibemu.script().toString(), "exec", "--name", in.name(), "--",
                    program.toString(), state).redirectErrorStream(true);
            pb.environment().putAll(Ibemu.launcherEnv());
            Process p = pb.start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = CompletableFuture.supplyAsync(() -> {
                try {
                    return out.readLine();
                } catch (IOException e) {
                    return null;
                }
            }).get(60, TimeUnit.SECONDS);
            if (line == null || !line.startsWith("ready ")) {
                p.destroyForcibly();
                throw new AssertionError(state + ": no 'ready' line, got: " + line);
            }
            Thread.sleep(300); // from "ready" into the blocking call
            return new Blocked(p, Long.parseLong(line.substring(6).strip()), state);
        }

        /** The kernel's view of the program: R, S (interruptible: killable), D (stuck), or gone. */
        String schedState() {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
            } catch (IOException e) {
                return "gone";
            }
        }

        boolean alive() {
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }

        void killAndAwaitReaped() throws Exception {
            assertTrue(alive(), state + ": the program ended before it was killed");
            Ibemu.host("kill", "-9", Long.toString(pid)).assertOk();
            awaitEnded(2_000);
        }

        void awaitEnded(long ms) throws Exception {
            long deadline = System.currentTimeMillis() + ms;
            while (alive()) {
                assertTrue(System.currentTimeMillis() < deadline,
                        state + ": pid " + pid + " still there after " + ms + " ms (state " + schedState() + ")");
                Thread.sleep(20);
            }
            assertTrue(launcher.waitFor(10, TimeUnit.SECONDS), state + ": the launcher did not end");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"umad-read", "umad-poll", "comp-read", "verbs-loop"})
    void aClientKilledWhileBlockedIsReapedAndLeavesNothing(String state) throws Exception {
        Blocked b = Blocked.start(ib, state);
        assertFalse(b.schedState().equals("D"), state + ": uninterruptible sleep in the device");
        b.killAndAwaitReaped();
        assertNoVerbsFilesLeft();
        ib.exec("smpquery", "-D", "nodeinfo", "0").assertOk();
    }

    @Test
    void issmWaiterAndHolderKilledFreeThePort() throws Exception {
        Blocked holder = Blocked.start(ib, "issm-hold");
        Blocked waiter = Blocked.start(ib, "issm-open");
        assertTrue(waiter.alive(), "the second open must wait while issm is held");
        assertEquals("1", isSmBit(), "IsSM set while held");
        waiter.killAndAwaitReaped();
        holder.killAndAwaitReaped();
        assertEquals("0", isSmBit(), "IsSM cleared when the killed holder's file closed");
        Blocked again = Blocked.start(ib, "issm-hold"); // a non-blocking open: EAGAIN would bail
        again.killAndAwaitReaped();
    }

    @Test
    void theDaemonKilledUnderLoadLeavesNothingAndAFreshInstanceWorks() throws Exception {
        HostUntouchedTest.HostView before = HostUntouchedTest.HostView.capture();
        Ibemu victim = Ibemu.start();
        List<Blocked> clients = new ArrayList<>();
        try {
            for (String state : List.of("umad-read", "umad-poll", "comp-read", "verbs-loop", "issm-hold")) {
                clients.add(Blocked.start(victim, state));
            }
            Ibemu.host("kill", "-9", Long.toString(victim.pid())).assertOk();
            for (Blocked c : clients) {
                if (!c.state().equals("issm-hold")) { // it only sleeps: it has no call to fail
                    c.awaitEnded(10_000);
                }
            }
            clients.get(clients.size() - 1).killAndAwaitReaped();
            Result st = Ibemu.ibemu("status", "--name", victim.name());
            assertTrue(st.stdout().contains(" dead "), st.toString());
        } finally {
            for (Blocked c : clients) {
                if (c.alive()) {
                    Ibemu.host("kill", "-9", Long.toString(c.pid()));
                }
            }
            victim.close();
        }
        assertEquals(before, HostUntouchedTest.HostView.capture(), "the host changed");
        try (Ibemu fresh = Ibemu.start()) {
            fresh.exec("smpquery", "-D", "nodeinfo", "0").assertOk();
            Blocked b = Blocked.start(fresh, "comp-read");
            b.killAndAwaitReaped();
        }
    }

    private static String isSmBit() {
        long mask = Long.decode(ib.cat("/sys/class/infiniband/ibemu0/ports/1/cap_mask"));
        return (mask & 2) != 0 ? "1" : "0";
    }

    private static void assertNoVerbsFilesLeft() throws InterruptedException {
        String objects = "";
        for (int i = 0; i < 50; i++) { // the release of a killed client's file is asynchronous
            objects = Ibemu.ibemu("ctl", "--name", ib.name(), "objects").assertOk().stdout();
            if (objects.contains("files=0 ")) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("verbs objects left after the kill: " + objects);
    }
}
