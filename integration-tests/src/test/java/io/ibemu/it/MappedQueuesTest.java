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
 * The mapped queues of {@code --provider qib2} (ipathverbs at driver ABI 2 over rdmavt's rings):
 * the ring probe (mmap rules, post, doorbell, poll, overflow, resize, fork) at the raw ABI; the
 * data probe, whose creates give no udata room and so keep the write() data path; the release
 * of a file whose last descriptor closed while a mapping held it, which must wait for the
 * munmap; and the ibverbs pingpongs, which then poll and post receives with no system call.
 */
class MappedQueuesTest {
    static Ibemu ib;

    @BeforeAll
    static void up() {
        ib = start("qib2");
    }

    /** Two HCAs on the two-switch fabric under OpenSM, serving {@code provider}'s profile. */
    static Ibemu start(String provider) {
        Path topology = CPrograms.sourceDir().resolve("../resources/topology/uverbs-two-switches.net").normalize();
        return Ibemu.start("--topology", topology.toString(), "--local", "hca-a", "--local", "hca-b", "--sm", "opensm",
                "--provider", provider);
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    @Test
    void theDeviceSaysDriverAbi2() {
        assertEquals("2", ib.cat("/sys/class/infiniband_verbs/uverbs0/abi_version").strip());
    }

    @Test
    void anUnknownProfileIsOneClearMessage() {
        Result r = Ibemu.ibemu("run", "--provider", "qib9", "--", "true");
        assertTrue(r.exitCode() != 0, r.toString());
        assertTrue(r.stderr().contains("--provider is qib1, qib2 or rxe, not 'qib9'"), r.toString());
    }

    @Test
    void ringProbePasses() {
        String bin = CPrograms.compile("uverbs_rings").toString();
        Tap.assertPassed(ib.exec(Duration.ofSeconds(180), bin));
    }

    @Test
    void dataProbePassesOnTheWritePath() {
        String bin = CPrograms.compile("uverbs_data").toString();
        Tap.assertPassed(ib.exec(Duration.ofSeconds(300), bin, "/dev/infiniband/uverbs0", "/dev/infiniband/uverbs1"));
    }

    @Test
    void theFileIsReleasedAtTheLastUnmapNotAtTheClose() throws InterruptedException {
        String bin = CPrograms.compile("uverbs_rings").toString();
        Command.Running child = ib.execCommand(bin, "--hold").timeout(Duration.ofSeconds(120)).start();
        try {
            String mapped = child.awaitLine("mapped ", Duration.ofSeconds(60));
            Matcher pid = Pattern.compile("pid=(\\d+)").matcher(mapped);
            assertTrue(pid.find(), mapped);
            Map<String, Integer> held = ib.objects("ibemu0");
            assertEquals(1, held.get("files"), "the closed descriptor's file, held by the mapping: " + held);
            assertEquals(1, held.get("cq"), "its CQ: " + held);
            Ibemu.host("kill", "-USR1", pid.group(1)).assertOk();
            child.awaitLine("unmapped", Duration.ofSeconds(60));
            Map<String, Integer> after = held;
            long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < end && after.get("files") != 0) {
                Thread.sleep(200);
                after = ib.objects("ibemu0");
            }
            assertEquals(0, after.get("files"), "released at the munmap: " + after);
            assertEquals(0, after.get("cq"), "its CQ destroyed with it: " + after);
        } finally {
            child.stop();
        }
    }

    @Test
    void pingpongsPollTheirRings() {
        for (String program : new String[] {"ibv_rc_pingpong", "ibv_srq_pingpong", "ibv_uc_pingpong"}) {
            int port = Loopback.freePort();
            Result r = ib.exec(Duration.ofSeconds(180), "sh", "-c", program + " -d ibemu0 -g 0 -n 200 -p " + port
                    + " > /dev/null 2>&1 & srv=$!; " + Loopback.awaitListening(port, "srv") + "; timeout 150 " + program
                    + " -d ibemu1 -g 0 -n 200 -p " + port + " localhost; s=$?; wait; exit $s");
            r.assertOk();
            assertTrue(r.stdout().contains("200 iters"), program + ": " + r);
        }
    }

    /**
     * strace -f -c of ib_send_lat's client: its verbs commands (write()s, or ioctls where the
     * kernel ABI offers RDMA_VERBS_IOCTL) are its sends (one POST_SEND per iteration, plus the
     * set-up), not its polls or receive posts, which under qib1 add at least two more per iteration.
     */
    @Test
    void aPollingIbSendLatMakesNoSystemCallPerPoll() {
        int n = 1000;
        int port = Loopback.freePort();
        Result r = ib.exec(Duration.ofSeconds(240), "sh", "-c",
                "ib_send_lat -d ibemu0 -s 8 -n " + n + " -p " + port + " > /dev/null 2>&1 & srv=$!; "
                        + Loopback.awaitListening(port, "srv") + "; "
                        + "out=$(mktemp); timeout 200 strace -f -c -o $out ib_send_lat -d ibemu1 -s 8 -n " + n
                        + " -p " + port + " localhost > /dev/null; s=$?; wait; cat $out; rm -f $out; exit $s");
        r.assertOk();
        long commands = 0; // write() or, on a kernel ABI with ioctl, RDMA_VERBS_IOCTL (INVOKE_WRITE)
        for (String line : r.lines()) {
            String[] w = line.trim().split("\\s+");
            if (w.length >= 5 && (w[w.length - 1].equals("write") || w[w.length - 1].equals("ioctl"))) {
                commands += Long.parseLong(w[3]);
            }
        }
        assertTrue(commands >= n, "one command per send at least: " + r);
        assertTrue(commands < n + n / 2, "no command per poll or per posted receive: " + commands + "\n" + r);
    }
}
