package io.ibemu.it;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * `ibemu ctl link cut` under a connected RC QP, seen through Debian's pyverbs: port error event,
 * RETRY_EXC_ERR after retry_cnt timeouts, the rest flushed (src/test/python/pyverbs_link_cut.py).
 * An instance of its own: the cut reaches OpenSM, which must sweep again afterwards.
 */
class VerbsLinkCutTest {

    @Test
    void aCutCableEndsTheSendWithRetryExceededAndFlushesTheRest() {
        Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");
        try (Ibemu ib = Ibemu.start("--topology", topology.toString(), "--local", "a", "--local", "b", "--sm",
                "opensm")) {
            Path script = Ibemu.root().resolve("integration-tests/src/test/python/pyverbs_link_cut.py");
            Tap.assertPassed(ib.exec(Duration.ofSeconds(120), "/usr/bin/python3", script.toString(),
                    Ibemu.script().toString(), ib.name(), "a", "1"));
        }
    }
}
