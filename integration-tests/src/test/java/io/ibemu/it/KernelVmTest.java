package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * scripts/kernel-vm itself: steps report their output and status, the kernel's rxe device
 * exists in the VM and never on the host, and (with the host's root shared over 9p) a
 * character device served through CUSE appears in the VM's devtmpfs with the number asked
 * for — what a CUSE backend of devfs would rely on.
 */
class KernelVmTest {
    private static Result vm(String... args) {
        List<String> argv = new ArrayList<>(List.of(Ibemu.root().resolve("scripts/kernel-vm").toString(),
                "--timeout", "400"));
        argv.addAll(List.of(args));
        return Command.of(argv).timeout(Duration.ofMinutes(8)).run();
    }

    @Test
    void stepsReportOutputAndStatusAndTheRxeDeviceIsTheVmsOnly() throws IOException {
        Path out = Ibemu.targetDir().resolve("kernel-vm-selftest");
        Result r = vm("--out", out.toString(),
                "--cmd", "ls -l /dev/infiniband; /usr/sbin/rdma link",
                "--cmd", "echo failing; exit 3");
        assertEquals(1, r.exitCode(), "one step failed, so the status is 1: " + r);
        String first = Files.readString(out.resolve("cmd1.out"));
        assertTrue(first.matches("(?s).*crw-rw-rw-.*231,\\s+192.*uverbs0.*"), "uverbs0 is 231:192, 0666: " + first);
        assertTrue(first.matches("(?s).*crw-------.*231,\\s+0 .*umad0.*"), "umad0 is 231:0, 0600: " + first);
        assertTrue(first.contains("link rxe0/1 state ACTIVE"), first);
        assertEquals("0", Files.readString(out.resolve("cmd1.status")).trim());
        assertEquals("failing", Files.readString(out.resolve("cmd2.out")).trim());
        assertEquals("3", Files.readString(out.resolve("cmd2.status")).trim());
        assertTrue(r.stdout().contains("=== cmd2 exit 3"), r.stdout());
        assertFalse(Files.exists(Path.of("/dev/infiniband/uverbs0")), "the host's /dev never sees the VM's devices");
    }

    @Test
    void aVmPastItsTimeoutIsKilledAndReported() {
        // a step that never ends by itself, and a step limit far past the VM's: only --timeout can end it
        Result r = Command.of(Ibemu.root().resolve("scripts/kernel-vm").toString(), "--timeout", "5",
                "--step-timeout", "3600", "--cmd", "while :; do sleep 1; done").timeout(Duration.ofMinutes(3)).run();
        assertEquals(3, r.exitCode(), r.toString());
        assertTrue(r.stderr().contains("exceeded --timeout 5s"), r.stderr());
        assertTrue(r.stdout().contains("=== cmd1 did not finish"), r.stdout());
    }

    /** CUSE in the VM, served by the host's libfuse2 (the host's root over 9p, chroot). */
    @Test
    void aCuseDeviceAppearsInTheVmsDevtmpfsAsACharacterDevice() {
        Path echo = CPrograms.compile("cuse_echo");
        String inChroot = echo.toString(); // the host's path: chroot /host sees the host's root
        // no IB modules: ib_umad would hold the 231:* numbers and CUSE could not take 231:9
        Result r = vm("--no-ib", "--share-root", "--mem", "768", "--cmd",
                "for d in proc sys dev; do mount --bind /$d /host/$d; done; "
                        + "(chroot /host " + inChroot + " infiniband/umad9 231 9 >/tmp/echo.log 2>&1 &); "
                        + "while [ ! -e /dev/infiniband/umad9 ]; do sleep 0.1; done; " // the step's limit bounds it
                        + "stat -c '%F %t:%T %a' /dev/infiniband/umad9; dd if=/dev/infiniband/umad9 bs=5 count=1 2>/dev/null; "
                        + "cat /sys/class/cuse/*/dev; cat /tmp/echo.log");
        assertEquals(0, r.exitCode(), r.toString());
        assertTrue(r.stdout().contains("character special file e7:9 600"), "231:9 (0xe7), 0600: " + r.stdout());
        assertTrue(r.stdout().contains("cuse\n"), "read() is served by the daemon: " + r.stdout());
        assertTrue(r.stdout().contains("231:9"), "sysfs class/cuse has the device: " + r.stdout());
        assertFalse(Files.exists(Path.of("/dev/infiniband/umad9")), "the host's /dev never sees it");
    }
}
