package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The RDMA connection manager's device, /dev/infiniband/rdma_cm, between two local HCAs separated
 * by switches under OpenSM with IPoIB: its write() ABI raw (src/test/python/ucma_check.py) and
 * unmodified librdmacm (pyverbs' CMEventChannel and CMID, which find the device through RDMA
 * netlink's GET_CHARDEV and open it with open_cdev's char-device checks).
 */
class RdmaCmTest {
    private static final Path TOPOLOGY = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");
    private static Ibemu ib;

    @BeforeAll
    static void up() {
        ib = Ibemu.start("--topology", TOPOLOGY.toString(), "--local", "a", "--local", "b", "--sm", "opensm", "--ipoib");
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    @Test
    void theWriteAbiAnswersAsUcmaDoes() {
        Path script = Ibemu.root().resolve("integration-tests/src/test/python/ucma_check.py");
        Tap.assertPassed(ib.exec(Duration.ofSeconds(300), "/usr/bin/python3", script.toString(),
                Ibemu.script().toString(), ib.name()));
    }

    @Test
    void librdmacmOpensTheDeviceAndCreatesIds() {
        String program = """
                from pyverbs.cmid import CMEventChannel, CMID
                import pyverbs.cm_enums as e
                ch = CMEventChannel()
                ids = [CMID(creator=ch, port_space=ps) for ps in (e.RDMA_PS_TCP, e.RDMA_PS_UDP, e.RDMA_PS_IPOIB)]
                for i in ids:
                    i.close()
                ch.close()
                print("created", len(ids))
                """;
        Result r = ib.exec("/usr/bin/python3", "-c", program).assertOk();
        assertTrue(r.stdout().contains("created 3"), r.toString());
    }
}
