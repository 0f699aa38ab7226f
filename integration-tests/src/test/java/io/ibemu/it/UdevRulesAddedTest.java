package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --rules DIR} adds DIR's rules to the system's, as a file dropped into /etc/udev/rules.d
 * does on a real machine: rdma-core's own rules still run beside the user's
 * ({@code ID_RDMA_INFINIBAND=1} from 75-rdma-description.rules). {@code --rules-only DIR} keeps the
 * user's rules alone.
 */
class UdevRulesAddedTest {

    private static Path rules() throws IOException {
        Path dir = Files.createDirectories(Files.createTempDirectory(Ibemu.tmpDir(), "rules-added").resolve("rules.d"));
        Files.writeString(dir.resolve("70-user.rules"),
                "SUBSYSTEM==\"infiniband\", ENV{IBEMU_USER_RULE}=\"applied\"\n");
        return dir;
    }

    /** The properties `udevadm test` prints for the HCA after the rules ran, in an instance started with {@code option DIR}. */
    private static Map<String, String> properties(String option) throws IOException {
        // with the system's rules, 60-rdma-persistent-naming.rules has renamed ibemu0 already (NAME_FALLBACK)
        Result r = Ibemu.launcher("run", option, rules().toString(), "--", "sh", "-c",
                        "for d in /sys/class/infiniband/*; do exec udevadm test $d; done")
                .timeout(Duration.ofMinutes(3)).run().assertOk();
        Map<String, String> props = new LinkedHashMap<>();
        boolean started = false;
        for (String line : r.stdout().split("\n")) {
            started |= line.startsWith("DEVPATH=");
            int eq = line.indexOf('=');
            if (started && eq > 0) {
                props.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        assertTrue(started, "udevadm test printed no properties: " + r);
        return props;
    }

    @Test
    void rulesAddsTheUsersRulesToRdmaCoresOwn() throws IOException {
        Map<String, String> p = properties("--rules");
        assertEquals("applied", p.get("IBEMU_USER_RULE"), "the user's rule: " + p);
        assertEquals("1", p.get("ID_RDMA_INFINIBAND"), "rdma-core's 75-rdma-description.rules still runs: " + p);
        assertTrue(p.getOrDefault("NAME", "").startsWith("ibp"), "and its persistent naming renamed the HCA: " + p);
    }

    @Test
    void rulesOnlyReadsNothingButTheUsersRules() throws IOException {
        Map<String, String> p = properties("--rules-only");
        assertEquals("applied", p.get("IBEMU_USER_RULE"), "the user's rule: " + p);
        assertFalse(p.containsKey("ID_RDMA_INFINIBAND"), "no system rule runs: " + p);
    }
}
