package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The raw-ABI probes of src/test/c, each run inside one live instance on the default
 * fabric: every line of their TAP output is one rule of user_mad.c or mad.c, checked for
 * the exact errno or field. A probe's SKIP lines are rules that need a routed fabric: they run too, on an instance
 * configured by {@code opensm -o}.
 */
class UmadAbiTest {
    static Ibemu ib;
    /** The same fabric after {@code opensm -o}: LIDs and routes, so nothing is skipped. */
    static Ibemu configured;

    @BeforeAll
    static void up() {
        ib = Ibemu.start();
        configured = Ibemu.start();
        configured.opensm("-o", "-f", Ibemu.tmpDir().resolve(configured.name() + "-opensm.log").toString())
                .timeout(Duration.ofSeconds(120)).run().assertOk();
    }

    @AfterAll
    static void down() {
        for (Ibemu i : new Ibemu[] {ib, configured}) {
            if (i != null) {
                i.close();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"umad_ioctl", "umad_rw", "umad_fd", "issm", "umad_kill", "umad_libibumad", "umad_rmpp"})
    void probePasses(String probe) {
        String bin = CPrograms.compile(probe).toString();
        Tap.assertPassed(ib.exec(Duration.ofSeconds(120), bin));
    }

    @ParameterizedTest
    @ValueSource(strings = {"umad_rw", "umad_rmpp"})
    void probePassesWithoutSkipsOnAConfiguredSubnet(String probe) {
        String bin = CPrograms.compile(probe).toString();
        Result r = configured.exec(Duration.ofSeconds(120), bin);
        Tap.assertPassed(r);
        org.junit.jupiter.api.Assertions.assertFalse(r.stdout().contains("# SKIP"),
                "with LIDs and an SM-built route every check runs: " + r);
    }

    /**
     * IBEMU_UMAD_READS=native (docs/compatibility.md): the probes whose reads have room for the
     * head packet pass whole, blocking and signals included; umad_rw is not run, since its first
     * short read takes a packet the rest of the probe waits for.
     */
    @ParameterizedTest
    @ValueSource(strings = {"umad_libibumad", "umad_rmpp", "umad_ioctl", "issm", "umad_kill"})
    void probePassesWithNativeReads(String probe) {
        String bin = CPrograms.compile(probe).toString();
        Tap.assertPassed(ib.execCommand(bin).env(NATIVE_READS, "native").timeout(Duration.ofSeconds(120)).run());
    }

    /**
     * umad_fd with IBEMU_UMAD_READS=native fails exactly its readv checks (38-43): a socket's
     * readv scatters one datagram over the segments where ib_umad reads a packet per segment.
     * Everything else holds, the write-only open's EBADF (a FUSE file then) among it.
     */
    @Test
    void umadFdWithNativeReadsDiffersOnlyInReadv() {
        String bin = CPrograms.compile("umad_fd").toString();
        Result r = ib.execCommand(bin).env(NATIVE_READS, "native").timeout(Duration.ofSeconds(120)).run();
        Set<Integer> failed = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^not ok (\\d+) ").matcher(r.stdout());
        while (m.find()) {
            failed.add(Integer.parseInt(m.group(1)));
        }
        assertTrue(r.stdout().contains("1..47"), "umad_fd ran to its end: " + r);
        assertEquals(Set.of(38, 39, 40, 41, 42, 43), failed, r.stdout());
    }

    /** OpenSM sweeps the configured subnet again with native reads, and ibnetdiscover sees it all. */
    @Test
    void openSmAndIbnetdiscoverWorkWithNativeReads() {
        configured.opensm("-o", "-f", Ibemu.tmpDir().resolve(configured.name() + "-opensm-native.log").toString())
                .env(NATIVE_READS, "native").timeout(Duration.ofSeconds(120)).run().assertOk();
        Result discovered = configured.execCommand("ibnetdiscover").env(NATIVE_READS, "native").run().assertOk();
        assertEquals(configured.exec("ibnetdiscover").assertOk().stdout().lines().filter(l -> l.startsWith("Switch")
                || l.startsWith("Ca")).count(), discovered.stdout().lines().filter(l -> l.startsWith("Switch")
                || l.startsWith("Ca")).count(), discovered.stdout());
    }

    /** Any other value is refused before the command runs, with what to set. */
    @Test
    void anUnknownReadsModeIsRefused() {
        Result r = ib.execCommand("true").env(NATIVE_READS, "fast").run();
        assertEquals(125, r.exitCode(), r.toString());
        assertTrue(r.stderr().contains("IBEMU_UMAD_READS is 'fast'") && r.stderr().contains("'native'"), r.stderr());
    }

    private static final String NATIVE_READS = "IBEMU_UMAD_READS";
}
