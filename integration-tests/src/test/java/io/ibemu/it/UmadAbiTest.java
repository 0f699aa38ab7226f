package io.ibemu.it;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The raw-ABI probes of src/test/c, each run inside one live instance on the default
 * fabric: every line of their TAP output is one rule of user_mad.c or mad.c, checked for
 * the exact errno or field. A probe's SKIP lines are rules that need a routed fabric.
 */
class UmadAbiTest {
    static Ibemu ib;

    @BeforeAll
    static void up() {
        ib = Ibemu.start();
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"umad_ioctl", "umad_rw", "issm", "umad_kill", "umad_libibumad", "umad_rmpp"})
    void probePasses(String probe) {
        String bin = CPrograms.compile(probe).toString();
        Tap.assertPassed(ib.exec(Duration.ofSeconds(120), bin));
    }
}
