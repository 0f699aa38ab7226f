package io.ibemu.it;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
}
