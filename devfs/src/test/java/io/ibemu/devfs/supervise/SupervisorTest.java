package io.ibemu.devfs.supervise;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The supervisor end to end: a C probe under the real stub, in a private mount namespace
 * (a child JVM under {@code unshare -m}) with a real FUSE mount and real device nodes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SupervisorTest {

    private static final Path NATIVE = Path.of("target", "native");

    @TempDir
    Path scratch;

    @Test
    void probeUnderTheStubSeesKernelLikeCharDevices() throws Exception {
        Path probe = compile("supervise_probe");
        Path stub = NATIVE.resolve("ibemu-supervise").toAbsolutePath();
        assertTrue(Files.isExecutable(stub), "the build makes " + stub);
        String before = Files.readString(Path.of("/proc/self/mountinfo"));
        Process child = new ProcessBuilder("unshare", "-m", "--propagation", "private",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                SupervisorProbe.class.getName(), stub.toString(), probe.toString(), scratch.toString())
                .redirectErrorStream(true).start();
        String output;
        try {
            output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(child.waitFor(90, TimeUnit.SECONDS), "probe did not finish");
        } finally {
            child.destroyForcibly();
        }
        System.out.println(output);
        assertFalse(output.contains("not ok"), output);
        assertFalse(output.contains("FAIL"), output);
        assertTrue(output.contains("1..38"), output);
        assertEquals(13, output.lines().filter(l -> l.startsWith("ok: ")).count(), output);
        assertEquals(0, child.exitValue(), output);
        assertFalse(Files.exists(Path.of("/dev/infiniband")), "the host's /dev is untouched");
        assertEquals(before.lines().filter(l -> l.contains(" /dev")).count(),
                Files.readString(Path.of("/proc/self/mountinfo")).lines().filter(l -> l.contains(" /dev")).count());
    }

    private Path compile(String name) throws Exception {
        Path out = Files.createDirectories(Path.of("target", "c-bin")).resolve(name).toAbsolutePath();
        Process gcc = new ProcessBuilder("gcc", "-O1", "-Wall", "-Werror", "-pthread", "-o", out.toString(),
                Path.of("src", "test", "c", name + ".c").toString()).redirectErrorStream(true).start();
        String messages = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(gcc.waitFor(60, TimeUnit.SECONDS) && gcc.exitValue() == 0, messages);
        return out;
    }
}
