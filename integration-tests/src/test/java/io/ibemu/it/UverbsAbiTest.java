package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The raw uverbs probes of src/test/c against a live instance with two local HCAs
 * (ibemu0, ibemu1) through two switches, configured by OpenSM ({@code --sm opensm}, so its SA
 * answers the multicast join of uverbs_data): every TAP line
 * is one rule of the kernel's uverbs write() ABI (uverbs_abi), of its ioctl ABI
 * (uverbs_ioctl) or one data-path fact (uverbs_data). A process SIGKILLed with a PD, MR, CQ and QP open must leave the
 * daemon's object counts ({@code scripts/ibemu ctl objects}) at zero.
 */
class UverbsAbiTest {
    static Ibemu ib;

    @BeforeAll
    static void up() {
        Path topology = CPrograms.sourceDir().resolve("../resources/topology/uverbs-two-switches.net").normalize();
        ib = Ibemu.start("--topology", topology.toString(), "--local", "hca-a", "--local", "hca-b", "--sm", "opensm");
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    @Test
    void abiProbePasses() {
        String bin = CPrograms.compile("uverbs_abi").toString();
        Tap.assertPassed(ib.exec(Duration.ofSeconds(180), bin));
    }

    @Test
    void ioctlProbePasses() {
        String bin = CPrograms.compile("uverbs_ioctl").toString();
        Tap.assertPassed(ib.exec(Duration.ofSeconds(180), bin));
    }

    @Test
    void dataProbePasses() {
        String bin = CPrograms.compile("uverbs_data").toString();
        Tap.assertPassed(ib.exec(Duration.ofSeconds(300), bin,
                "/dev/infiniband/uverbs0", "/dev/infiniband/uverbs1"));
    }

    @Test
    void aKilledProcessLeavesNoObjects() throws InterruptedException {
        String bin = CPrograms.compile("uverbs_abi").toString();
        Command.Running child = ib.execCommand(bin, "--child-objects").timeout(Duration.ofSeconds(60)).start();
        try {
            String ready = child.awaitLine("ready ", Duration.ofSeconds(30));
            Matcher pid = Pattern.compile("pid=(\\d+)").matcher(ready);
            assertTrue(pid.find(), "child printed its pid: " + ready);
            Map<String, Integer> live = ib.objects("ibemu0");
            for (String kind : new String[] {"pd", "mr", "cq", "qp"}) {
                assertTrue(live.getOrDefault(kind, 0) >= 1, kind + " counted while the child lives: " + live);
            }
            Ibemu.host("kill", "-KILL", pid.group(1)).assertOk();
            Map<String, Integer> after = live;
            long end = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (System.nanoTime() < end) {
                after = ib.objects("ibemu0");
                if (after.values().stream().allMatch(v -> v == 0)) {
                    break;
                }
                Thread.sleep(200);
            }
            for (Map.Entry<String, Integer> e : after.entrySet()) {
                assertEquals(0, e.getValue(), e.getKey() + " after the SIGKILL: " + after);
            }
        } finally {
            child.stop();
        }
    }
}
