package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * `ctl hca remove` while a process holds a verbs context with a PD, an MR, a CQ on an armed
 * completion channel and an RC QP, with threads blocked in ibv_get_async_event and
 * ibv_get_cq_event (src/test/c/uverbs_unplug.c): as the kernel's ib_uverbs_free_hw_resources, the
 * objects are destroyed at the removal while the file stays open, the async reader gets
 * IB_EVENT_DEVICE_FATAL, the channel reader EIO, every later command EIO, destroys and close
 * succeed (with RDMAV_ALLOW_DISASSOC_DESTROY), and then nothing of the device is left. The other
 * HCA keeps its objects and works on.
 */
class VerbsHotUnplugTest {
    static final Path TOPOLOGY = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");

    /** `ctl objects` as device -> counts. */
    static Map<String, Map<String, Integer>> objects(Ibemu ib) {
        Map<String, Map<String, Integer>> m = new TreeMap<>();
        for (String line : Ibemu.ibemu("ctl", "--name", ib.name(), "objects").assertOk().lines()) {
            int first = line.indexOf('=');
            if (first < 0) {
                continue;
            }
            String device = line.substring(0, line.lastIndexOf(' ', first)).strip();
            Map<String, Integer> counts = new TreeMap<>();
            for (String kv : line.substring(device.length()).strip().split(" ")) {
                String[] p = kv.split("=");
                counts.put(p[0], Integer.parseInt(p[1]));
            }
            m.put(device, counts);
        }
        return m;
    }

    static void waitFor(Command.Running r, String line) throws InterruptedException {
        for (int i = 0; i < 600 && !r.stdoutSoFar().lines().toList().contains(line); i++) {
            assertTrue(r.isAlive() || r.stdoutSoFar().lines().toList().contains(line),
                    "the probe ended before '" + line + "': " + r.stdoutSoFar());
            Thread.sleep(50);
        }
        assertTrue(r.stdoutSoFar().lines().toList().contains(line), "no '" + line + "' in " + r.stdoutSoFar());
    }

    @Test
    void removalDestroysTheObjectsAtOnceAndLeavesOnlyClose() throws Exception {
        Path probe = CPrograms.compile("uverbs_unplug");
        try (Ibemu ib = Ibemu.startWithTopology(TOPOLOGY, "a", "b")) {
            Path go = Ibemu.tmpDir().resolve(ib.name() + "-unplug-go");
            Files.deleteIfExists(go);
            Command.Running run = ib.execCommand(probe.toString(), "ibemu1", go.toString()).start();
            Command.Running other = ib.execCommand(probe.toString(), "ibemu0", go.toString()).start();
            waitFor(run, "ready");
            waitFor(other, "ready");
            Map<String, Integer> before = objects(ib).get("ibemu1");
            assertEquals(List.of(1, 1, 1, 1, 1), List.of(before.get("files"), before.get("pd"), before.get("mr"),
                    before.get("cq"), before.get("qp")), before.toString());

            Ibemu.ibemu("ctl", "--name", ib.name(), "hca", "remove", "ibemu1").assertOk();
            waitFor(run, "async local catastrophic error");
            waitFor(run, "comp errno 5");
            Map<String, Map<String, Integer>> after = objects(ib);
            Map<String, Integer> removed = after.get("ibemu1 (removed)");
            assertEquals(1, removed.get("files"), after.toString());
            for (String kind : List.of("pd", "mr", "mw", "cq", "qp", "srq", "ah", "xrcd")) {
                assertEquals(0, removed.get(kind), kind + " destroyed at the removal, the file still open: " + after);
            }
            assertEquals(before, after.get("ibemu0"), "the other HCA keeps its objects: " + after);
            String res = ib.exec("rdma", "res").assertOk().stdout();
            assertFalse(res.contains("ibemu1"), res);

            Files.createFile(go);
            List<String> out = run.await().assertOk().lines();
            assertTrue(out.contains("async again errno 11"), "the async queue stays open, empty: " + out);
            for (String command : List.of("alloc_pd", "reg_mr", "create_cq", "query_port", "req_notify_cq")) {
                assertTrue(out.contains(command + " errno 5"), command + " fails with EIO: " + out);
            }
            for (String destroy : List.of("destroy_qp", "dereg_mr", "destroy_cq", "destroy_comp_channel", "dealloc_pd",
                    "close_device")) {
                assertTrue(out.contains(destroy + " rc 0"), destroy + " succeeds: " + out);
            }
            assertEquals("closed", out.get(out.size() - 1), out.toString());
            assertFalse(objects(ib).containsKey("ibemu1 (removed)"), "closed: nothing of ibemu1 is left");

            // the other HCA's probe was never disturbed: still blocked, its objects alive
            assertTrue(other.isAlive(), other.stdoutSoFar());
            assertEquals(before, objects(ib).get("ibemu0"));
            other.stop();
        }
    }
}
