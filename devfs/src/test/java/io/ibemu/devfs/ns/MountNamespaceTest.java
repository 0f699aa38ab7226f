package io.ibemu.devfs.ns;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The private view is built in a child JVM under {@code unshare -m}; from here, the host's
 * /dev, /sys and /run and its mount table must look exactly as before.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MountNamespaceTest {

    @TempDir
    Path host;

    @Test
    void refusesToActInTheParentsNamespace() {
        IOException refused = assertThrows(IOException.class, MountNamespace::requirePrivate);
        assertTrue(refused.getMessage().contains("unshare"), refused.getMessage());
        assertThrows(IOException.class, () -> MountNamespace.graft(host, Path.of("/dev/infiniband")));
        assertFalse(Files.exists(Path.of("/dev/infiniband")));
    }

    @Test
    void childSeesGraftsAndOriginalsWhileHostSeesNoChange() throws Exception {
        Files.createDirectory(host.resolve("class-infiniband"));
        Files.writeString(host.resolve("class-infiniband/node_type"), "1: CA\n");
        Files.createDirectory(host.resolve("pci-device"));
        Files.writeString(host.resolve("pci-device/vendor"), "0x1077\n");
        Files.writeString(host.resolve("abi_version"), "5\n");
        Files.createDirectory(host.resolve("state"));
        Files.writeString(host.resolve("state/a"), "host\n");
        String before = snapshot();

        Process child = new ProcessBuilder("unshare", "-m", "--propagation", "private",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "io.ibemu.devfs.NamespaceProbe", host.toString())
                .redirectErrorStream(true).start();
        String output;
        try {
            output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "probe did not finish");
        } finally {
            child.destroyForcibly();
        }
        assertEquals(0, child.exitValue(), output);
        assertFalse(output.contains("FAIL"), output);
        assertEquals(15, output.lines().filter(l -> l.startsWith("ok: ")).count(), output);
        assertTrue(output.contains("layered: [/run, /dev, /sys/class, /sys/devices/pci0000:00]"), output);

        assertEquals(before, snapshot());
        assertEquals("host\n", Files.readString(host.resolve("state/a")));
        assertFalse(Files.exists(host.resolve("state/new")));
    }

    /** What the host shows of the places the probe changes in its namespace. */
    private String snapshot() throws IOException {
        StringBuilder s = new StringBuilder();
        for (String dir : List.of("/dev", "/dev/pts", "/sys/class", "/sys/devices/pci0000:00", "/run", "/run/udev")) {
            s.append(dir).append(": ").append(names(Path.of(dir))).append('\n');
        }
        s.append("state: ").append(names(host.resolve("state"))).append('\n');
        // other tests on this machine mount under /tmp; the probe touches only these
        Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
                .filter(line -> {
                    String mountPoint = line.split(" ")[4];
                    return mountPoint.equals("/") || mountPoint.startsWith("/dev") || mountPoint.startsWith("/sys")
                            || mountPoint.startsWith("/run");
                })
                .forEach(line -> s.append(line).append('\n'));
        return s.toString();
    }

    private static String names(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return "(absent)";
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.map(p -> p.getFileName().toString()).sorted().collect(Collectors.joining(" "));
        }
    }
}
