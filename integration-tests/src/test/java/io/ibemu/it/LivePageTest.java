package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code scripts/ibemu ui} in Debian's headless Chromium: the page's DOM holds every node and
 * cable of the running fabric, the ports' counters, the verbs objects, a drop rule once set and
 * a node's ports once it is clicked; a screenshot is taken, and a cable cut
 * with {@code ctl link cut} reaches the page by itself (server-sent events). The product
 * promises a second; the test waits generously and reports the latency it saw.
 */
class LivePageTest {
    static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void thePageShowsTheFabricAndFollowsALinkCut() throws Exception {
        Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");
        try (Ibemu ib = Ibemu.start("--topology", topology.toString(), "--local", "a", "--local", "b", "--sm", "preset")) {
            Command.Running ui = Ibemu.launcher("ui", "--name", ib.name(), "--port", "0").timeout(Duration.ofMinutes(10))
                    .start();
            try (Chromium browser = Chromium.start()) {
                String url = awaitUrl(ui);
                browser.navigate(url);
                Set<String> want = Set.of("node:a", "node:b", "node:sw1", "node:sw2", "cable:a/1-sw1/1",
                        "cable:b/1-sw2/1", "cable:sw1/8-sw2/8", "port:a/1", "port:sw2/8");
                String ids = await(browser, "[...document.querySelectorAll('[id]')].map(e => e.id).join('\\n')",
                        s -> s != null && Arrays.asList(s.split("\n")).containsAll(want));
                assertTrue(Arrays.asList(ids.split("\n")).containsAll(want), ids);
                assertEquals("#2e7d32", stroke(browser), "the inter-switch cable Active");
                await(browser, "document.getElementById('objects').textContent",
                        s -> s != null && s.contains("ibemu0 files="));
                Ibemu.ibemu("ctl", "--name", ib.name(), "drop", "sw2", "1", "10%").assertOk();
                Ibemu.ibemu("ctl", "--name", ib.name(), "fault", "add", "on=packet", "corrupt", "prob=0.5", "seed=3")
                        .assertOk();
                Ibemu.ibemu("ctl", "--name", ib.name(), "fault", "add", "on=uverbs:REG_MR", "errno=ENOMEM", "nth=2")
                        .assertOk();
                await(browser, "document.getElementById('faults').textContent",
                        s -> s != null && s.contains("sw2[1] drops 10% of its packets")
                                && s.contains("1 hits=0 matched=0 on=packet corrupt prob=0.5 seed=3")
                                && s.contains("2 hits=0 matched=0 on=uverbs:REG_MR errno=ENOMEM nth=2"));

                // a node picked in the drawing shows its ports
                browser.evaluate("document.getElementById('node:sw1').dispatchEvent(new MouseEvent('click', "
                        + "{bubbles: true})), 'clicked'");
                await(browser, "document.getElementById('node').textContent",
                        s -> s != null && s.contains("\"sw1\"") && s.contains("[8] Active/LinkUp"));

                long t0 = System.nanoTime();
                Ibemu.ibemu("ctl", "--name", ib.name(), "link", "cut", "sw1", "8").assertOk();
                long t1 = System.nanoTime();
                await(browser, STROKE, "#c62828"::equals);
                long t2 = System.nanoTime();
                await(browser, "document.getElementById('node').textContent", s -> s != null && s.contains(" cut"));
                System.out.printf("ctl link cut reached the page's DOM %d ms after ctl started (its JVM included), %d ms"
                        + " after it returned (promise: within a second)%n", (t2 - t0) / 1_000_000, (t2 - t1) / 1_000_000);

                // after the cut, so the picture shows a cut cable beside Active ones
                Path png = Files.createTempDirectory(Ibemu.tmpDir(), "live-").resolve("live-page.png");
                browser.screenshot(png);
                byte[] head = Arrays.copyOf(Files.readAllBytes(png), 8);
                assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'}, head);
                assertTrue(Files.size(png) > 10_000, "a screenshot with something on it: " + Files.size(png));
                System.out.println("live page screenshot: " + png);
            } finally {
                ui.stop();
            }
        }
    }

    private static final String STROKE =
            "(document.querySelector('[id=\"cable:sw1/8-sw2/8\"] path') || {getAttribute: () => ''}).getAttribute('stroke')";

    private static String stroke(Chromium browser) {
        return browser.evaluate(STROKE);
    }

    private static String awaitUrl(Command.Running ui) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        Pattern p = Pattern.compile("serving (http://127\\.0\\.0\\.1:\\d+/)");
        while (System.nanoTime() < deadline) {
            Matcher m = p.matcher(ui.stdoutSoFar());
            if (m.find()) {
                return m.group(1);
            }
            if (!ui.isAlive()) {
                throw new AssertionError("ibemu ui ended: " + ui.await());
            }
            Thread.sleep(100);
        }
        throw new AssertionError("ibemu ui never said where it serves: " + ui.stop());
    }

    /** Evaluates until the answer passes (polling the DOM), or fails after a generous wait. */
    private static String await(Chromium browser, String expression, Predicate<String> ok) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            last = browser.evaluate(expression);
            if (ok.test(last)) {
                return last;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the page never showed it; last: " + last + " for " + List.of(expression));
    }
}
