package io.ibemu.sysfstree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.kernel.Errno;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Real FUSE mounts of a tree, read with Java file APIs and with cat, ls, readlink, find, sh. */
@Timeout(60)
class SysfsTreeMountTest {

    private static final String FS_NAME = "sysfs-tree-test";

    private SysfsTree tree;
    private Path mount;

    @BeforeEach
    void mount() throws IOException {
        mount = Files.createTempDirectory("sysfs-tree-test");
        tree = new SysfsTree(FS_NAME);
        tree.mount(mount);
    }

    @AfterEach
    void unmount() throws IOException {
        try {
            tree.close();
        } finally {
            Files.deleteIfExists(mount);
        }
        boolean loopAlive = Thread.getAllStackTraces().keySet().stream()
                .anyMatch(thread -> thread.getName().equals("sysfs-tree " + mount));
        assertFalse(loopAlive, "the FUSE loop outlived close()");
    }

    /** Never leave a mount behind, even when a test broke in the middle of one. */
    @AfterAll
    static void noMountsLeft() throws IOException, InterruptedException {
        List<String> left = Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
                .filter(line -> line.contains(" " + FS_NAME + " ")).collect(Collectors.toList());
        for (String line : left) {
            Shell.run(Path.of("/"), "umount -l '" + line.split(" ")[4] + "'");
        }
        assertEquals(List.of(), left);
    }

    @Test
    void valueIsFormattedAfreshAtEveryOpen() throws Exception {
        AtomicInteger counter = new AtomicInteger();
        tree.root().attribute("counter", () -> counter.incrementAndGet() + "\n");

        assertEquals("1\n", Files.readString(mount.resolve("counter")));
        assertEquals("2\n", Files.readString(mount.resolve("counter")));
        assertEquals("3\n", Shell.run(mount, "cat counter").ok().stdout());
        assertEquals("4\n", Shell.run(mount, "cat counter").ok().stdout());
    }

    @Test
    void readsOfOneOpenFileAreServedFromOneValueUntilOffsetZero() throws Exception {
        AtomicInteger counter = new AtomicInteger(100);
        tree.root().attribute("value", () -> "v" + counter.incrementAndGet() + "\n");

        try (FileChannel channel = FileChannel.open(mount.resolve("value"))) {
            assertEquals("v10", read(channel, 0, 3));
            assertEquals("1\n", read(channel, 3, 100));
            assertEquals("", read(channel, 5, 100));
            assertEquals("v102\n", read(channel, 0, 100));
        }
    }

    @Test
    void looksLikeSysfsToLs() throws Exception {
        SysDir device = tree.root().dir("device");
        device.attribute("ro", () -> "r\n");
        device.attribute("rw", () -> "w\n", value -> { });
        device.attribute("wo", 0200, null, value -> { });
        device.link("self", ".");

        String listing = Shell.run(mount, "ls -l device").ok().stdout();
        assertTrue(listing.matches("(?s).*-r--r--r-- 1 root root 4096 .* ro\n.*"), listing);
        assertTrue(listing.matches("(?s).*-rw-r--r-- 1 root root 4096 .* rw\n.*"), listing);
        assertTrue(listing.matches("(?s).*--w------- 1 root root 4096 .* wo\n.*"), listing);
        assertTrue(listing.matches("(?s).*lrwxrwxrwx 1 root root +1 .* self -> \\.\n.*"), listing);
        assertTrue(Shell.run(mount, "ls -ld device").ok().stdout().startsWith("drwxr-xr-x 2 root root"));
        assertEquals(List.of(".", "..", "ro", "rw", "self", "wo"),
                List.of(Shell.run(mount, "ls -a device").ok().stdout().split("\n")));
        assertEquals(4096, Files.size(mount.resolve("device/ro")));
    }

    @Test
    void entriesAddedAndRemovedWhileMountedShowAtOnce() throws Exception {
        Path port = mount.resolve("ports/1/state");
        assertFalse(Files.exists(port));
        assertEquals(1, Shell.run(mount, "cat ports/1/state").exitCode());

        tree.root().dir("ports").dir("1").attribute("state", () -> "4: ACTIVE\n");
        assertEquals("4: ACTIVE\n", Files.readString(port));
        assertEquals("1\n", Shell.run(mount, "ls ports").ok().stdout());

        tree.root().subdir("ports").orElseThrow().remove("1");
        assertFalse(Files.exists(port));
        assertFalse(Files.exists(port.getParent()));
        assertEquals("", Shell.run(mount, "ls ports").ok().stdout());
        assertThrows(NoSuchFileException.class, () -> Files.readString(port));

        tree.root().dir("ports").dir("1").attribute("state", () -> "1: DOWN\n");
        assertEquals("1: DOWN\n", Shell.run(mount, "cat ports/1/state").ok().stdout());
    }

    @Test
    void relativeLinkResolvesIntoAnotherDirectory() throws Exception {
        tree.root().dir("devices").dir("pci0000:00").dir("0000:00:04.0").attribute("node_type", () -> "1: CA\n");
        tree.root().dir("class").dir("infiniband").link("mlx4_0", "../../devices/pci0000:00/0000:00:04.0");

        Path link = mount.resolve("class/infiniband/mlx4_0");
        assertEquals(Path.of("../../devices/pci0000:00/0000:00:04.0"), Files.readSymbolicLink(link));
        assertEquals("../../devices/pci0000:00/0000:00:04.0\n", Shell.run(mount, "readlink class/infiniband/mlx4_0").ok().stdout());
        assertEquals(mount.resolve("devices/pci0000:00/0000:00:04.0").toRealPath(), link.toRealPath());
        assertEquals("1: CA\n", Shell.run(mount, "cat class/infiniband/mlx4_0/node_type").ok().stdout());
        assertEquals("1: CA\n", Files.readString(link.resolve("node_type")));
    }

    @Test
    void writingReadOnlyAttributeIsPermissionDenied() throws Exception {
        tree.root().attribute("node_guid", () -> "0002:c903:0000:1234\n");
        tree.root().attribute("no_store", 0644, () -> "x\n", null);

        Shell echo = Shell.run(mount, "echo x > node_guid");
        assertNotEquals(0, echo.exitCode());
        assertTrue(echo.stderr().contains("Permission denied"), echo.stderr());
        assertTrue(Shell.run(mount, "echo x > no_store").stderr().contains("Permission denied"));
        assertThrows(AccessDeniedException.class, () -> Files.writeString(mount.resolve("node_guid"), "x"));
        assertEquals("0002:c903:0000:1234\n", Files.readString(mount.resolve("node_guid")));
    }

    @Test
    void storeReceivesTheWrittenTextAndItsErrnoFailsTheWrite() throws Exception {
        List<String> stored = new CopyOnWriteArrayList<>();
        tree.root().attribute("mode", () -> "datagram\n", value -> {
            if (value.startsWith("bad")) {
                throw Errno.of(Errno.EINVAL);
            }
            stored.add(value);
        });

        Shell.run(mount, "echo connected > mode").ok();
        Files.writeString(mount.resolve("mode"), "datagram");
        assertEquals(List.of("connected\n", "datagram"), stored);

        // coreutils echo, since dash's builtin reports every failed write as "I/O error"
        Shell bad = Shell.run(mount, "/bin/echo bad > mode");
        assertNotEquals(0, bad.exitCode());
        assertTrue(bad.stderr().contains("Invalid argument"), bad.stderr());
        assertEquals(2, stored.size());
    }

    /** node_desc written with a byte 0xFF read back as EF BF BD: attributes are bytes, not text. */
    @Test
    void bytesAttributeStoresAndShowsEveryByteExactly() throws Exception {
        java.util.concurrent.atomic.AtomicReference<byte[]> value = new java.util.concurrent.atomic.AtomicReference<>(
                new byte[0]);
        tree.root().bytesAttribute("raw", 0644, value::get, value::set);
        byte[] written = {'a', (byte) 0xff, (byte) 0x80, 0, (byte) 0xc3, '\n'};
        Files.write(mount.resolve("raw"), written);
        assertArrayEquals(written, value.get());
        assertArrayEquals(written, Files.readAllBytes(mount.resolve("raw")));
        // a text attribute's store still sees what it was given, decoded
        List<String> texts = new CopyOnWriteArrayList<>();
        tree.root().attribute("text", () -> "x\n", texts::add);
        Files.write(mount.resolve("text"), "h\u00e9\n".getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of("h\u00e9\n"), texts);
    }

    @Test
    void fallibleAttributeFailsTheReadWithItsErrno() throws Exception {
        tree.root().fallibleAttribute("speed", 0444, () -> {
            throw io.ibemu.kernel.Errno.of(io.ibemu.kernel.Errno.EINVAL);
        }, null);
        assertTrue(Shell.run(mount, "cat speed").stderr().contains("Invalid argument"));
        tree.root().fallibleAttribute("mtu", 0444, () -> "2044\n".getBytes(StandardCharsets.US_ASCII), null);
        assertEquals("2044\n", Files.readString(mount.resolve("mtu")));
    }

    @Test
    void writeOnlyAttributeRefusesReadsAndTakesWrites() throws Exception {
        List<String> stored = new CopyOnWriteArrayList<>();
        tree.root().attribute("reset", 0200, null, stored::add);

        assertTrue(Shell.run(mount, "cat reset").stderr().contains("Permission denied"));
        Shell.run(mount, "echo 1 > reset").ok();
        assertEquals(List.of("1\n"), stored);
    }

    @Test
    void writeLongerThanAPageIsRefusedLikeSysfs() throws Exception {
        List<String> stored = new CopyOnWriteArrayList<>();
        tree.root().attribute("text", () -> "\n", stored::add);

        IOException refused = assertThrows(IOException.class,
                () -> Files.writeString(mount.resolve("text"), "x".repeat(5000)));
        assertTrue(refused.getMessage().contains("Argument list too long"), refused.getMessage());
        assertEquals(List.of(), stored);
    }

    @Test
    void valueLongerThanAPageIsReadWhole() throws Exception {
        String big = "0123456789".repeat(500);
        tree.root().attribute("big", () -> big);

        assertEquals(5000, big.length());
        assertEquals(big, Shell.run(mount, "cat big").ok().stdout());
        assertEquals(big, Files.readString(mount.resolve("big")));
        assertEquals("5000", Shell.run(mount, "wc -c < big").ok().stdout().trim());
    }

    @Test
    void failingShowIsAnIoErrorAndTheDaemonStaysUp() throws Exception {
        tree.root().attribute("broken", () -> {
            throw new IllegalStateException("deliberately broken show");
        });
        tree.root().attribute("empty", () -> null);
        tree.root().attribute("fine", () -> "ok\n");

        for (String name : List.of("broken", "empty")) {
            Shell cat = Shell.run(mount, "cat " + name);
            assertNotEquals(0, cat.exitCode());
            assertTrue(cat.stderr().contains("Input/output error"), cat.stderr());
        }
        assertThrows(IOException.class, () -> Files.readString(mount.resolve("broken")));
        assertEquals("ok\n", Shell.run(mount, "cat fine").ok().stdout());
    }

    @Test
    void openFileOfARemovedAttributeFailsWithNoSuchDevice() throws Exception {
        tree.root().attribute("gone", () -> "here\n");
        try (FileChannel channel = FileChannel.open(mount.resolve("gone"))) {
            assertEquals("here\n", read(channel, 0, 100));
            tree.root().remove("gone");
            IOException e = assertThrows(IOException.class, () -> read(channel, 0, 100));
            assertTrue(e.getMessage().contains("No such device"), e.getMessage());
        }
    }

    @Test
    void inodesAreStableAndFindWalksTheTree() throws Exception {
        SysDir port = tree.root().dir("class").dir("infiniband").dir("mthca0").dir("ports").dir("1");
        port.attribute("lid", () -> "0x1\n");
        port.attribute("state", () -> "4: ACTIVE\n");
        port.link("device", "../..");

        Object lid = Files.getAttribute(mount.resolve("class/infiniband/mthca0/ports/1/lid"), "unix:ino");
        assertEquals(lid, Files.getAttribute(mount.resolve("class/infiniband/mthca0/ports/1/lid"), "unix:ino"));
        assertNotEquals(lid, Files.getAttribute(mount.resolve("class/infiniband/mthca0/ports/1/state"), "unix:ino"));
        assertEquals(1L, Files.getAttribute(mount, "unix:ino"));

        Set<String> found = Set.of(Shell.run(mount, "find . | sort").ok().stdout().split("\n"));
        assertEquals(Set.of(".", "./class", "./class/infiniband", "./class/infiniband/mthca0",
                "./class/infiniband/mthca0/ports", "./class/infiniband/mthca0/ports/1",
                "./class/infiniband/mthca0/ports/1/lid", "./class/infiniband/mthca0/ports/1/state",
                "./class/infiniband/mthca0/ports/1/device"), found);
        assertEquals("./class/infiniband/mthca0/ports/1/device\n", Shell.run(mount, "find . -type l").ok().stdout());

        String inodes = Shell.run(mount, "ls -i class/infiniband/mthca0/ports/1").ok().stdout();
        assertTrue(inodes.contains(lid + " lid"), inodes);
    }

    @Test
    void outsidersCannotCreateOrRemoveEntries() throws Exception {
        tree.root().dir("dir").attribute("file", () -> "x\n");

        assertTrue(Shell.run(mount, "mkdir dir/new").stderr().contains("Operation not permitted"));
        assertTrue(Shell.run(mount, "touch dir/new").stderr().contains("Permission denied"));
        assertTrue(Shell.run(mount, "echo x > dir/new").stderr().contains("Permission denied"));
        assertTrue(Shell.run(mount, "rm dir/file").stderr().contains("Operation not permitted"));
        assertTrue(Shell.run(mount, "rmdir dir").stderr().contains("Operation not permitted"));
        assertTrue(Shell.run(mount, "ln -s file dir/link").stderr().contains("Operation not permitted"));
        assertTrue(Shell.run(mount, "mv dir/file dir/moved").stderr().contains("Operation not permitted"));
        assertEquals(Set.of("file"), tree.root().subdir("dir").orElseThrow().names());
    }

    @Test
    void otherUsersReadButCannotWrite() throws Exception {
        List<String> stored = new CopyOnWriteArrayList<>();
        tree.root().attribute("rw", () -> "shown\n", stored::add);
        String asNobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";

        assertEquals("shown\n", Shell.run(mount, asNobody + "cat rw").ok().stdout());
        assertTrue(Shell.run(mount, asNobody + "sh -c 'echo x > rw'").stderr().contains("Permission denied"));
        assertEquals(List.of(), stored);
    }

    @Test
    void mountingTwiceOrOnAMissingDirectoryFails() throws Exception {
        assertThrows(IllegalStateException.class, () -> tree.mount(mount));
        try (SysfsTree other = new SysfsTree(FS_NAME)) {
            assertThrows(IOException.class, () -> other.mount(mount.resolve("missing")));
        }
    }

    @Test
    void treeChangesFromAnotherThreadWhileReadersWalkIt() throws Exception {
        SysDir devices = tree.root().dir("devices");
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        Thread churn = new Thread(() -> {
            try {
                for (int round = 0; round < 200; round++) {
                    SysDir device = devices.dir("dev" + (round % 5));
                    device.attribute("uevent", () -> "DEVTYPE=x\n");
                    devices.remove("dev" + ((round + 2) % 5));
                }
            } catch (Throwable e) {
                failures.add(e);
            }
        });
        churn.start();
        List<String> listings = new ArrayList<>();
        while (churn.isAlive()) {
            try (Stream<Path> walk = Files.walk(mount)) {
                listings.add(walk.map(Path::toString).collect(Collectors.joining(",")));
            } catch (IOException | java.io.UncheckedIOException raced) {
                // an entry vanishing between readdir and stat is what a reader of sysfs sees too
            }
        }
        churn.join();
        assertEquals(List.of(), failures);
        assertEquals(devices.names().stream().map(n -> n).collect(Collectors.toSet()),
                Set.of(Shell.run(mount, "ls devices").ok().stdout().split("\n")));
        assertEquals("DEVTYPE=x\n", Shell.run(mount, "cat devices/" + devices.names().iterator().next() + "/uevent").ok().stdout());
    }

    /**
     * The kernel caches entries and attributes (TreeFileSystem.CACHE_SECONDS) and each change
     * invalidates them: a replaced entry, a removed directory and a parent's link count show at
     * once, well within the cache time.
     */
    @Test
    void cachedEntriesAndAttributesChangeAtOnce() throws Exception {
        SysDir ports = tree.root().dir("ports");
        ports.attribute("state", () -> "4: ACTIVE\n");
        Path state = mount.resolve("ports/state");
        Object before = Files.getAttribute(state, "unix:ino");
        assertEquals(before, Files.getAttribute(state, "unix:ino"));
        assertEquals(2, Files.getAttribute(mount.resolve("ports"), "unix:nlink"));

        ports.attribute("state", () -> "1: DOWN\n"); // a new node under the same name
        assertNotEquals(before, Files.getAttribute(state, "unix:ino"));
        assertEquals("1: DOWN\n", Files.readString(state));

        ports.dir("1").attribute("lid", () -> "0x1\n");
        assertEquals(3, Files.getAttribute(mount.resolve("ports"), "unix:nlink"));
        assertEquals("0x1\n", Shell.run(mount, "cat ports/1/lid").ok().stdout());
        ports.remove("1");
        assertEquals(2, Files.getAttribute(mount.resolve("ports"), "unix:nlink"));
        assertFalse(Files.exists(mount.resolve("ports/1/lid")));
        assertEquals(1, Shell.run(mount, "cat ports/1/lid").exitCode());
    }

    private static String read(FileChannel channel, long position, int size) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(size);
        int n = channel.read(buffer, position);
        return n <= 0 ? "" : new String(buffer.array(), 0, n, StandardCharsets.UTF_8);
    }
}
