package io.ibemu.devfs;

import io.ibemu.devfs.ns.MountNamespace;
import jnr.ffi.Pointer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import static io.ibemu.devfs.Posix.LIBC;

/**
 * Run by MountNamespaceTest inside {@code unshare -m}: builds the private view the daemon needs
 * from the sources in args[0] and prints one "ok:" or "FAIL:" line per thing it checks.
 */
public final class NamespaceProbe {

    private static int failures;

    public static void main(String[] args) throws Exception {
        Path host = Path.of(args[0]);
        MountNamespace.requirePrivate();
        Path work = Path.of("/run/ibemu-probe");
        MountNamespace.workDirectory(work);
        Path devices = Files.createDirectory(work.resolve("dev"));
        QueueDevice device = new QueueDevice();
        try (DeviceDirectory directory = new DeviceDirectory("ibemu-probe")) {
            directory.add("umad0", device, 0666);
            directory.mount(devices);
            MountNamespace.graft(devices, Path.of("/dev/infiniband"));
            MountNamespace.graft(host.resolve("class-infiniband"), Path.of("/sys/class/infiniband"));
            MountNamespace.graft(host.resolve("pci-device"), Path.of("/sys/devices/pci0000:00/0000:00:1f.0"));
            MountNamespace.graft(host.resolve("abi_version"), Path.of("/sys/class/infiniband_mad/abi_version"));
            MountNamespace.privateCopy(Path.of("/run/udev"));
            MountNamespace.privateCopy(host.resolve("state"));
            System.out.println("layered: " + MountNamespace.layeredDirectories());
            checkAll(host);
        }
        System.exit(failures == 0 ? 0 : 1);
    }

    private static void checkAll(Path host) {
        check("device file answers through /dev/infiniband", () -> {
            int fd = LIBC.open("/dev/infiniband/umad0", Posix.O_RDWR);
            Pointer buf = Posix.bytes("mad".getBytes(StandardCharsets.US_ASCII));
            boolean ok = fd >= 0 && LIBC.write(fd, buf, 3) == 3 && LIBC.read(fd, Posix.memory(16), 16) == 3;
            LIBC.close(fd);
            return ok;
        });
        check("/dev/null takes writes", () -> {
            Files.writeString(Path.of("/dev/null"), "x");
            return true;
        });
        check("/dev/zero reads zeros", () -> Files.newInputStream(Path.of("/dev/zero")).readNBytes(4)[3] == 0);
        check("/dev/pts is still devpts", () -> Files.exists(Path.of("/dev/pts/ptmx")));
        check("/dev/shm still there", () -> Files.isDirectory(Path.of("/dev/shm")));
        check("/dev/fuse still there", () -> Files.exists(Path.of("/dev/fuse")));
        check("/sys/class/net/lo resolves", () -> Files.isDirectory(Path.of("/sys/class/net/lo")));
        check("/sys/class/infiniband grafted",
            () -> read(Path.of("/sys/class/infiniband/node_type")).equals("1: CA\n"));
        check("/sys/class/infiniband_mad/abi_version grafted",
            () -> read(Path.of("/sys/class/infiniband_mad/abi_version")).equals("5\n"));
        check("/sys/devices/pci0000:00/0000:00:1f.0 grafted",
            () -> read(Path.of("/sys/devices/pci0000:00/0000:00:1f.0/vendor")).equals("0x1077\n"));
        check("/sys/devices/pci0000:00/0000:00:00.0 still there",
            () -> Files.exists(Path.of("/sys/devices/pci0000:00/0000:00:00.0/vendor")));
        check("/sys/fs/cgroup still there", () -> Files.isDirectory(Path.of("/sys/fs/cgroup")));
        check("/run/udev private", () -> {
            Files.createDirectories(Path.of("/run/udev/data"));
            Files.writeString(Path.of("/run/udev/data/+infiniband:umad0"), "E:X=1\n");
            return true;
        });
        check("private copy keeps contents", () -> read(host.resolve("state/a")).equals("host\n"));
        check("private copy takes writes", () -> {
            Files.writeString(host.resolve("state/a"), "namespace\n");
            Files.writeString(host.resolve("state/new"), "namespace\n");
            return read(host.resolve("state/a")).equals("namespace\n");
        });
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file);
    }

    private static void check(String what, Callable<Boolean> test) {
        boolean ok;
        String detail = "";
        try {
            ok = test.call();
        } catch (Exception e) {
            ok = false;
            detail = " (" + e + ")";
        }
        if (!ok) {
            failures++;
        }
        System.out.println((ok ? "ok: " : "FAIL: ") + what + detail);
    }
}
