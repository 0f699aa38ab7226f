package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The daemon's Communication Manager seen from outside, on the wire: a raw umad client on a's
 * port (cm_wire.c) writes a CM REQ for a service nobody listens on to b's QP1; {@code ctl
 * capture} on b's cable, read by Debian's tshark, shows the REQ arrive and b's CM answer with
 * a REJ, reason 8 (invalid service ID), in the REQ's TID and with the ids swapped; b's
 * {@code ports/1/cm_rx_msgs/req} and {@code cm_tx_msgs/rej} count them. Two hosts on two
 * switches, LIDs from --sm preset.
 */
class CmWireTest {
    static final Duration TIMEOUT = Duration.ofSeconds(180);
    static Ibemu ib;
    static Path dir;

    @BeforeAll
    static void up() throws IOException {
        Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");
        ib = Ibemu.start("--topology", topology.toString(), "--local", "a", "--local", "b", "--sm", "preset");
        dir = Files.createTempDirectory(Ibemu.tmpDir(), "cm-wire-");
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    @Test
    void aReqToNoListenerCrossesTheFabricAndIsRejectedWithInvalidServiceId() {
        String peerLid = ib.exec(TIMEOUT, "cat", "/sys/class/infiniband/ibemu1/ports/1/lid").assertOk().stdout().strip();
        Path pcap = dir.resolve("cm.pcap");
        // the REQ coming in and the REJ going out: two packets on b's cable
        Command.Running capture = Ibemu.launcher("ctl", "--name", ib.name(), "capture", "b/1", "-c", "2", "-w",
                pcap.toString()).timeout(TIMEOUT).start();
        awaitTapped("b/1");
        String probe = CPrograms.compile("cm_wire").toString();
        Tap.assertPassed(ib.exec(TIMEOUT, probe, peerLid));
        capture.await().assertOk();

        List<String[]> rows = tshark(pcap, "infiniband.mad.mgmtclass", "infiniband.mad.attributeid",
                "infiniband.mad.transactionid", "infiniband.cm.rej.reason", "infiniband.cm.rej.localcommid",
                "infiniband.lrh.dlid");
        assertEquals(2, rows.size(), rows.stream().map(Arrays::toString).toList().toString());
        String[] req = rows.get(0);
        String[] rej = rows.get(1);
        assertEquals("0x07", req[0], "CM class: " + Arrays.toString(req));
        assertEquals("0x0010", req[1], "a REQ: " + Arrays.toString(req));
        assertEquals(Integer.decode(peerLid).toString(), req[5], "to b");
        assertEquals("0x07", rej[0]);
        assertEquals("0x0012", rej[1], "b's CM answers with a REJ: " + Arrays.toString(rej));
        assertEquals(req[2], rej[2], "in the REQ's TID");
        assertEquals(8, Integer.decode(rej[3]), "reason 8, invalid service ID");
        assertEquals(0L, Long.decode(rej[4]), "no local communication ID: b created no id for it");
        Result objects = Ibemu.ibemu("ctl", "--name", ib.name(), "objects").assertOk();
        assertTrue(objects.stdout().contains("cm_id=0"), "no CM id is left: " + objects);
        // ib_cm's counters in sysfs: the REQ received and the REJ sent on b's port
        String counters = ib.exec(TIMEOUT, "sh", "-c", "cd /sys/class/infiniband/ibemu1/ports/1 && cat"
                + " cm_rx_msgs/req cm_tx_msgs/rej cm_tx_retries/rej cm_rx_duplicates/req cm_tx_msgs/rep").assertOk()
                .stdout();
        assertEquals(List.of("1", "1", "0", "0", "0"), counters.lines().toList(), counters);
        Result ids = Ibemu.ibemu("ctl", "--name", ib.name(), "cm").assertOk();
        assertEquals("", ids.stdout().strip(), "ctl cm lists no id");
    }

    private static void awaitTapped(String port) {
        String node = port.substring(0, port.indexOf('/'));
        String mark = "[" + port.substring(port.indexOf('/') + 1) + "] ";
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            Result dump = Ibemu.ibemu("ctl", "--name", ib.name(), "dump", node).assertOk();
            if (dump.lines().stream().anyMatch(l -> l.strip().startsWith(mark) && l.contains(" captured"))) {
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("the capture of " + port + " never started");
    }

    private static List<String[]> tshark(Path pcap, String... fields) {
        List<String> argv = new ArrayList<>(List.of("tshark", "-r", pcap.toString(), "-T", "fields"));
        for (String f : fields) {
            argv.add("-e");
            argv.add(f);
        }
        Result r = Command.of(argv).timeout(TIMEOUT).run();
        r.assertOk();
        return r.stdout().lines().filter(l -> !l.isBlank()).map(l -> l.split("\t", -1)).toList();
    }
}
