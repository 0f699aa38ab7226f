package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Random and mutated operations on umad, issm, the sysfs tree, the control socket and the
 * uverbs file (src/test/c/fuzz.c, fixed seeds, bounded in time: about 45 s of fuzzing): every
 * failure an errno the kernel could give, no caller buffer touched by a failed call, every
 * control line answered. Afterwards the daemon still serves (an SMP through umad, sysfs, a
 * control command) and its threads, descriptors and live heap are back at the baseline taken
 * after a warm-up run (the FUSE worker pool grows to its idle limit there). docs/reliability.md
 * has the longer runs done by hand.
 */
class FuzzTest {
    /** Seeds and seconds of the CI run; the long runs use the same program with more. */
    private static final int[] SEEDS = {1, 2, 3};
    private static final int SECONDS_PER_SEED = 15;
    /** Allowed growth after the fuzz: a spare FUSE worker or two, a descriptor in flight. */
    private static final int SLACK_THREADS = 3;
    private static final int SLACK_FDS = 3;
    private static final long SLACK_HEAP_KB = 2048;
    /**
     * Idle FUSE workers are kept up to libfuse's limit of 10 per mount (+ the loop's own thread):
     * a bounded pool, counted apart from the other threads, which must return to the baseline.
     */
    private static final int FUSE_WORKER_LIMIT = 2 * 11;
    private static final Pattern FUSE_WORKER = Pattern.compile("devfs-ibemu-.*|sysfs-tree.*");

    static Ibemu ib;
    static Path fuzz;

    @BeforeAll
    static void up() {
        fuzz = CPrograms.compile("fuzz");
        ib = Ibemu.start();
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    @Test
    void everyInterfaceHoldsUnderRandomAndMutatedOperations() throws Exception {
        run(100, 3000, 10); // warm-up: worker pool, class loading, the first objects of each kind
        Footprint before = Footprint.of(ib.pid());
        for (int seed : SEEDS) {
            Result r = run(seed, 1_000_000, SECONDS_PER_SEED);
            System.out.println("fuzz: " + r.stdout().strip().replace('\n', ' '));
        }
        // still serving: umad (an SMP to the local port), sysfs, the control socket
        ib.exec("smpquery", "-D", "nodeinfo", "0").assertOk();
        ib.exec("ibstat", "-l").assertOk();
        Ibemu.ibemu("ctl", "--name", ib.name(), "objects").assertOk();
        Footprint after = Footprint.of(ib.pid());
        // control connection threads end 10 s after their last use
        for (int i = 0; i < 30 && after.threads > before.threads + SLACK_THREADS; i++) {
            Thread.sleep(1000);
            after = Footprint.of(ib.pid());
        }
        System.out.println("fuzz: before " + before + ", after " + after);
        assertTrue(after.fuseWorkers <= FUSE_WORKER_LIMIT, "FUSE workers past the idle limit: " + after);
        assertTrue(after.threads <= before.threads + SLACK_THREADS, "threads: " + before + " -> " + after);
        assertTrue(after.fds <= before.fds + SLACK_FDS, "descriptors: " + before + " -> " + after);
        assertTrue(after.heapKb <= before.heapKb + SLACK_HEAP_KB, "live heap: " + before + " -> " + after);
    }

    private static Result run(int seed, int ops, int seconds) {
        Result r = ib.execCommand(fuzz.toString(), Integer.toString(seed), Integer.toString(ops),
                        Integer.toString(seconds))
                .env("IBEMU_CONTROL", ib.stateDir().resolve("control.sock").toString())
                .timeout(Duration.ofSeconds(seconds + 60)).run();
        assertEquals(0, r.exitCode(), "seed " + seed + ": " + r);
        assertTrue(r.stdout().contains(" 0 failed"), r.toString());
        return r;
    }

    /**
     * The daemon's threads (FUSE workers apart) and descriptors from /proc, its live heap after a
     * full GC (jcmd).
     */
    record Footprint(int threads, int fuseWorkers, int fds, long heapKb) {
        private static final Pattern USED = Pattern.compile("generation\\s+total \\d+K, used (\\d+)K");

        static Footprint of(long pid) throws IOException {
            Ibemu.host("jcmd", Long.toString(pid), "GC.run").assertOk();
            String heap = Ibemu.host("jcmd", Long.toString(pid), "GC.heap_info").assertOk().stdout();
            long used = 0;
            Matcher m = USED.matcher(heap);
            while (m.find()) {
                used += Long.parseLong(m.group(1));
            }
            assertTrue(used > 0, "no heap figures from jcmd: " + heap);
            int threads = 0;
            int workers = 0;
            int fds;
            try (var t = Files.list(Path.of("/proc", Long.toString(pid), "task"));
                 var f = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
                for (Path task : t.toList()) {
                    String comm;
                    try {
                        comm = Files.readString(task.resolve("comm")).strip();
                    } catch (IOException gone) {
                        continue;
                    }
                    if (FUSE_WORKER.matcher(comm).matches()) {
                        workers++;
                    } else {
                        threads++;
                    }
                }
                fds = (int) f.count();
            }
            return new Footprint(threads, workers, fds, used);
        }

        @Override
        public String toString() {
            return threads + " threads + " + fuseWorkers + " FUSE workers, " + fds + " fds, " + heapKb + " KB live heap";
        }
    }
}
