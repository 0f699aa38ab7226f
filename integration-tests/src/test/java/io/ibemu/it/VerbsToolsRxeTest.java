package io.ibemu.it;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every case of {@link VerbsToolsTest} with the devices bound to rdma-core's rxe provider
 * ({@code --provider rxe}): every queue mapped, receives posted and completions polled with no
 * system call, each send one doorbell write(), UD sends naming their AH by number.
 */
class VerbsToolsRxeTest extends VerbsToolsTest {

    @BeforeAll
    static void up() {
        ib = start(null, "rxe");
    }

    /**
     * The rxe provider's own verbs with Debian's pyverbs (src/test/python/pyverbs_rxe.py): the
     * extended CQ and QP over the mapped queues, a type 2 memory window bound with
     * ibv_wr_bind_mw, written through, and invalidated by SEND_WITH_INV.
     */
    @Test
    void pyverbsExtendedQpCqAndMemoryWindows() {
        Path script = Ibemu.root().resolve("integration-tests/src/test/python/pyverbs_rxe.py");
        Tap.assertPassed(ib.exec(TIMEOUT, "/usr/bin/python3", script.toString(), "ibemu0", "ibemu1"));
    }
}
