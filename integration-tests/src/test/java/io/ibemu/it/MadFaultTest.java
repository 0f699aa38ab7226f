package io.ibemu.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * OpenSM (Debian's, unmodified) bringing up a two-switch fabric while a seeded rule loses a fifth
 * of the directed-route SMPs it sends: it still gets every local port Active, the rule's
 * hits are counted and logged, and OpenSM's log shows what it retried.
 */
class MadFaultTest {

    @Test
    void openSmSweepsThroughAFifthOfItsSmpsLost() throws IOException {
        Path rules = Files.createTempFile(Ibemu.tmpDir(), "mad", ".rules");
        // the SMPs OpenSM sends, as they leave its port (a rule on every cable would lose a fifth at each hop)
        Files.writeString(rules, "on=mad drop node=a port=1 class=0x81 prob=0.2 seed=24   # directed-route SMPs\n");
        Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");
        try (Ibemu ib = Ibemu.start("--topology", topology.toString(), "--local", "a", "--local", "b", "--sm", "opensm",
                "--faults", rules.toString())) {
            Result list = Ibemu.launcher("ctl", "--name", ib.name(), "fault", "list").run().assertOk();
            Matcher m = Pattern.compile("^1 hits=(\\d+) matched=(\\d+) on=mad node=a port=1 class=129 drop prob=0.2 seed=24", Pattern.MULTILINE)
                    .matcher(list.stdout());
            assertTrue(m.find() && Long.parseLong(m.group(1)) > 0, list.stdout());
            assertTrue(ib.log().contains("fault rule 1 dropped a MAD leaving"), ib.log());
            String osm = Files.readString(ib.stateDir().resolve("opensm.log"));
            assertTrue(osm.contains("SUBNET UP"), osm);
            for (String dev : new String[] {"ibemu0", "ibemu1"}) {
                Result r = ib.exec("ibstat", dev).assertOk();
                assertTrue(r.stdout().contains("State: Active"), r.toString());
            }
            System.out.println("fault list: " + list.stdout().strip());
            osm.lines().filter(l -> l.contains("imeout") || l.contains("retr") || l.contains("ERR "))
                    .limit(20).forEach(l -> System.out.println("opensm: " + l));
        } finally {
            Files.deleteIfExists(rules);
        }
    }

    /**
     * The MAD layer's retries as OpenSM sees them: the first four NodeInfo SMPs leaving its port
     * (the one to the first switch and its three retries, OpenSM's transaction_retries) are lost,
     * so the kernel side reports the timeout and OpenSM logs it (osm_vendor_ibumad.c log_send_error
     * ERR 5411, osm_sm_mad_ctrl.c ERR 3120), sweeps again and brings the subnet up; meanwhile a
     * fifth of its SMPs cross a slow link (delay=), late but whole.
     */
    @Test
    void openSmLogsTheTimeoutOfASmpLostWithItsRetriesAndSweepsOverASlowLink() throws IOException {
        Path rules = Files.createTempFile(Ibemu.tmpDir(), "mad", ".rules");
        Files.writeString(rules, String.join("\n",
                "on=mad drop node=a port=1 class=0x81 attr=0x11 count=4   # NodeInfo: the first SMP and its retries",
                "on=mad delay=20ms node=a port=1 class=0x81 prob=0.2 seed=7   # a slow SM link",
                ""));
        Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");
        try (Ibemu ib = Ibemu.start("--topology", topology.toString(), "--local", "a", "--local", "b", "--sm", "opensm",
                "--faults", rules.toString())) {
            String list = Ibemu.launcher("ctl", "--name", ib.name(), "fault", "list").run().assertOk().stdout();
            assertTrue(list.contains("1 hits=4 "), list);
            Matcher m = Pattern.compile("^2 hits=(\\d+) ", Pattern.MULTILINE).matcher(list);
            assertTrue(m.find() && Long.parseLong(m.group(1)) > 0, list);
            assertTrue(ib.log().contains("fault rule 2 delayed by 20000 us a MAD leaving a[1]"), ib.log());
            String osm = Files.readString(ib.stateDir().resolve("opensm.log"));
            assertTrue(osm.contains("ERR 5411: DR SMP Send completed with error (IB_TIMEOUT) -- dropping"), osm);
            assertTrue(osm.contains("ERR 3120: Timeout while getting attribute 0x11 (NodeInfo)"), osm);
            assertTrue(osm.contains("SUBNET UP"), osm);
            for (String dev : new String[] {"ibemu0", "ibemu1"}) {
                Result r = ib.exec("ibstat", dev).assertOk();
                assertTrue(r.stdout().contains("State: Active"), r.toString());
            }
        } finally {
            Files.deleteIfExists(rules);
        }
    }
}
