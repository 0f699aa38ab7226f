package io.ibemu.devfs;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.IoctlResult;
import io.ibemu.devfs.device.Poll;
import io.ibemu.devfs.device.PollWaiter;
import io.ibemu.devfs.device.ReadRequest;
import io.ibemu.devfs.device.ReadResult;
import io.ibemu.kernel.Errno;

import jnr.ffi.Pointer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.ibemu.devfs.Posix.LIBC;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real FUSE mount of a {@link QueueDevice}, driven through libc as a C program would; served
 * directly on /dev/fuse here, through libfuse in {@link DeviceDirectoryLibfuseTest}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeviceDirectoryTest {

    @TempDir
    Path temp;

    private DeviceDirectory directory;
    private QueueDevice device;
    private Path mount;
    private String queue;
    private Process child;

    @BeforeEach
    void mount() throws IOException {
        mount = Files.createDirectory(temp.resolve("mnt"));
        device = new QueueDevice();
        directory = new DeviceDirectory("devfs-test");
        directory.add("queue", device, 0666);
        directory.mount(mount);
        queue = mount.resolve("queue").toString();
    }

    @AfterEach
    void unmount() throws InterruptedException {
        if (child != null && child.isAlive()) {
            child.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        directory.close();
    }

    private int open(int flags) {
        int fd = LIBC.open(queue, flags);
        assertTrue(fd >= 0, "open errno " + Posix.errno());
        return fd;
    }

    private static void writeAll(int fd, byte[] data) {
        assertEquals(data.length, LIBC.write(fd, Posix.bytes(data), data.length), "write errno " + Posix.errno());
    }

    private static byte[] readSome(int fd, int count) {
        Pointer buf = Posix.memory(count);
        long n = LIBC.read(fd, buf, count);
        assertTrue(n >= 0, "read errno " + Posix.errno());
        return Posix.get(buf, 0, (int) n);
    }

    @Test
    void listsAndStatsFiles() throws IOException {
        directory.add("second", device, 0600);
        try (Stream<Path> files = Files.list(mount)) {
            assertEquals(List.of("queue", "second"),
                    files.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList()));
        }
        assertTrue(Files.isRegularFile(mount.resolve("queue")));
        assertEquals("rw-rw-rw-", PosixFilePermissions.toString(Files.getPosixFilePermissions(mount.resolve("queue"))));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(mount.resolve("second"))));
        directory.remove("second");
        assertEquals(-1, LIBC.open(mount.resolve("second").toString(), Posix.O_RDWR));
        assertEquals(Errno.ENOENT, Posix.errno());
    }

    @Test
    void oneShotOpensLeaveNoNodesBehind() throws Errno {
        for (int i = 0; i < 200; i++) {
            int fd = directory.openFile(device.open(null, Posix.O_RDWR), Posix.O_RDWR);
            assertTrue(fd >= 0);
            writeAll(fd, "x".getBytes(StandardCharsets.US_ASCII));
            assertEquals(0, LIBC.close(fd));
        }
        // each open's name is invalidated once taken, so the kernel forgets its node at the close
        assertTrue(directory.nodeCount() <= 2, "nodes left: " + directory.nodeCount());
    }

    @Test
    void writeThenReadOneMessage() throws IOException {
        int fd = open(Posix.O_RDWR);
        writeAll(fd, "hello".getBytes(StandardCharsets.US_ASCII));
        writeAll(fd, "world!".getBytes(StandardCharsets.US_ASCII));
        assertEquals("hello", new String(readSome(fd, 4096), StandardCharsets.US_ASCII));
        assertEquals("world!", new String(readSome(fd, 4096), StandardCharsets.US_ASCII));
        assertEquals(List.of(4096, 4096), device.readCounts);
        // as a shell's `echo > file` does it: O_WRONLY|O_CREAT|O_TRUNC
        Files.write(Path.of(queue), "echo".getBytes(StandardCharsets.US_ASCII));
        assertEquals("echo", new String(readSome(fd, 4096), StandardCharsets.US_ASCII));
        assertEquals(0, LIBC.close(fd));
        assertEquals(2, device.opens.get());
        awaitTrue(() -> device.releases.get() == 2);
    }

    @Test
    void ioctlCopiesInAndOut() {
        int fd = open(Posix.O_RDWR);
        byte[] in = new byte[16];
        for (int i = 0; i < in.length; i++) {
            in[i] = (byte) i;
        }
        Pointer arg = Posix.bytes(in);
        assertEquals(0, LIBC.ioctl(fd, QueueDevice.ECHO, arg), "errno " + Posix.errno());
        for (int i = 0; i < in.length; i++) {
            assertEquals(i + 1, arg.getByte(i));
        }
        writeAll(fd, new byte[3]);
        Pointer count = Posix.memory(4);
        assertEquals(0, LIBC.ioctl(fd, QueueDevice.COUNT, count));
        assertEquals(1, count.getInt(0));
        assertEquals(7, LIBC.ioctl(fd, QueueDevice.NOTHING, null));
        assertEquals(-1, LIBC.ioctl(fd, Posix.ioc(0, 'q', 99, 0), null));
        assertEquals(Errno.ENOTTY, Posix.errno());
        Pointer limit = Posix.memory(4);
        limit.putInt(0, 10);
        assertEquals(0, LIBC.ioctl(fd, QueueDevice.LIMIT, limit));
        assertEquals(-1, LIBC.write(fd, Posix.bytes(new byte[11]), 11));
        assertEquals(Errno.EINVAL, Posix.errno());
        LIBC.close(fd);
    }

    @Test
    void ioctlErrorStillWritesItsData() {
        int fd = open(Posix.O_RDWR);
        Pointer arg = Posix.bytes(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        assertEquals(-1, LIBC.ioctl(fd, QueueDevice.FAIL, arg));
        assertEquals(Errno.EINVAL, Posix.errno());
        assertArrayEquals(new byte[] {8, 7, 6, 5, 4, 3, 2, 1}, Posix.get(arg, 0, 8));
        LIBC.close(fd);
    }

    /** The kernel leaves an ioctl's buffer alone when it fails; libfuse2 alone would send its out buffer. */
    @Test
    void ioctlErrorsLeaveTheCallersBufferAlone() {
        int fd = open(Posix.O_RDWR);
        byte[] pattern = new byte[64];
        java.util.Arrays.fill(pattern, (byte) 0x5a);
        for (int cmd : new int[] {Posix.ioc(2, 'x', 7, 64), Posix.ioc(3, 'x', 8, 64), Posix.ioc(2, 'q', 99, 16)}) {
            Pointer arg = Posix.bytes(pattern);
            assertEquals(-1, LIBC.ioctl(fd, cmd, arg));
            assertEquals(Errno.ENOTTY, Posix.errno());
            assertArrayEquals(pattern, Posix.get(arg, 0, 64), "cmd " + Integer.toHexString(cmd));
        }
        Pointer arg = Posix.bytes(pattern);
        assertEquals(-1, LIBC.ioctl(fd, Posix.ioc(2, 'q', 7, 64), arg), "BROKEN as an _IOR: EIO");
        assertEquals(Errno.EIO, Posix.errno());
        assertArrayEquals(pattern, Posix.get(arg, 0, 64));
        LIBC.close(fd);
    }

    @Test
    void deviceReachesCallerMemory() {
        int fd = open(Posix.O_RDWR);
        Pointer target = Posix.bytes(new byte[] {10, 20, 30});
        Pointer arg = Posix.memory(16);
        arg.putLong(0, target.address());
        arg.putInt(8, 3);
        assertEquals(0, LIBC.ioctl(fd, QueueDevice.TOUCH, arg), "errno " + Posix.errno());
        assertArrayEquals(new byte[] {11, 21, 31}, Posix.get(target, 0, 3));
        LIBC.close(fd);
    }

    @Test
    void deviceBugsBecomeEioAndServiceGoesOn() {
        directory.add("broken", (caller, flags) -> {
            throw new IllegalStateException("a device bug");
        }, 0666);
        assertEquals(-1, LIBC.open(mount.resolve("broken").toString(), Posix.O_RDWR));
        assertEquals(Errno.EIO, Posix.errno());
        int fd = open(Posix.O_RDWR);
        assertEquals(-1, LIBC.ioctl(fd, QueueDevice.BROKEN, null));
        assertEquals(Errno.EIO, Posix.errno());
        writeAll(fd, new byte[] {3});
        assertArrayEquals(new byte[] {3}, readSome(fd, 8));
        LIBC.close(fd);
    }

    @Test
    void mountsOnce() {
        assertThrows(IllegalStateException.class, () -> directory.mount(mount));
        DeviceDirectory other = new DeviceDirectory("devfs-test");
        assertThrows(IOException.class, () -> other.mount(temp.resolve("absent")));
    }

    @Test
    void blockingReadWakesOnWrite() throws Exception {
        int reader = open(Posix.O_RDWR);
        int writer = open(Posix.O_RDWR);
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> readSome(reader, 256));
        awaitTrue(() -> device.blockedReaders.get() == 1);
        Thread.sleep(100);
        assertFalse(read.isDone());
        writeAll(writer, new byte[] {42});
        assertArrayEquals(new byte[] {42}, read.get(5, TimeUnit.SECONDS));
        LIBC.close(reader);
        LIBC.close(writer);
    }

    @Test
    void nonBlockingReadFailsWithEagain() {
        int fd = open(Posix.O_RDWR | Posix.O_NONBLOCK);
        assertEquals(-1, LIBC.read(fd, Posix.memory(64), 64));
        assertEquals(Errno.EAGAIN, Posix.errno());
        LIBC.close(fd);
        // O_NONBLOCK set later with fcntl reaches the device too
        int later = open(Posix.O_RDWR);
        assertEquals(0, LIBC.fcntl(later, Posix.F_SETFL, LIBC.fcntl(later, Posix.F_GETFL, 0) | Posix.O_NONBLOCK));
        assertEquals(-1, LIBC.read(later, Posix.memory(64), 64));
        assertEquals(Errno.EAGAIN, Posix.errno());
        LIBC.close(later);
    }

    @Test
    void pollBlocksUntilTheDeviceWakes() throws Exception {
        int fd = open(Posix.O_RDWR);
        int writer = open(Posix.O_RDWR);
        Pointer fds = Posix.memory(8);
        fds.putInt(0, fd);
        fds.putShort(4, (short) Posix.POLLIN);
        fds.putShort(6, (short) 0);
        long start = System.nanoTime();
        CompletableFuture<Integer> polled = CompletableFuture.supplyAsync(() -> LIBC.poll(fds, 1, 10_000));
        Thread.sleep(300);
        assertFalse(polled.isDone(), "poll returned before any data");
        writeAll(writer, new byte[] {1});
        assertEquals(1, polled.get(5, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(250));
        assertEquals(Posix.POLLIN, fds.getShort(6) & Posix.POLLIN);
        // with data queued, poll answers at once; again after the queue is drained it blocks
        assertEquals(1, LIBC.poll(fds, 1, 0));
        readSome(fd, 16);
        fds.putShort(6, (short) 0);
        assertEquals(0, LIBC.poll(fds, 1, 100));
        LIBC.close(fd);
        LIBC.close(writer);
    }

    @Test
    void selectBlocksUntilTheDeviceWakes() throws Exception {
        int fd = open(Posix.O_RDWR);
        int writer = open(Posix.O_RDWR);
        Pointer readable = Posix.memory(128);
        readable.putLong(8 * (fd / 64), 1L << (fd % 64));
        CompletableFuture<Integer> selected =
            CompletableFuture.supplyAsync(() -> LIBC.select(fd + 1, readable, null, null, null));
        Thread.sleep(300);
        assertFalse(selected.isDone(), "select returned before any data");
        writeAll(writer, new byte[] {1});
        assertEquals(1, selected.get(5, TimeUnit.SECONDS));
        assertTrue((readable.getLong(8 * (fd / 64)) & (1L << (fd % 64))) != 0);
        LIBC.close(fd);
        LIBC.close(writer);
    }

    @Test
    void epollWaitsUntilTheDeviceWakes() throws Exception {
        int fd = open(Posix.O_RDWR);
        int writer = open(Posix.O_RDWR);
        int epoll = LIBC.epoll_create1(0);
        Pointer event = Posix.memory(12);
        event.putInt(0, Posix.EPOLLIN);
        event.putLong(4, 77);
        assertEquals(0, LIBC.epoll_ctl(epoll, Posix.EPOLL_CTL_ADD, fd, event));
        Pointer events = Posix.memory(12 * 4);
        for (int round = 0; round < 3; round++) {
            CompletableFuture<Integer> waited = CompletableFuture.supplyAsync(() -> LIBC.epoll_wait(epoll, events, 4, 10_000));
            Thread.sleep(200);
            assertFalse(waited.isDone(), "epoll_wait returned before any data, round " + round);
            writeAll(writer, new byte[] {(byte) round});
            assertEquals(1, waited.get(5, TimeUnit.SECONDS));
            assertEquals(77, events.getLong(4));
            assertArrayEquals(new byte[] {(byte) round}, readSome(fd, 16));
        }
        LIBC.close(epoll);
        LIBC.close(fd);
        LIBC.close(writer);
    }

    @Test
    void largeWriteAndReadPassWhole() {
        int fd = open(Posix.O_RDWR);
        byte[] message = random(300_000);
        writeAll(fd, message);
        assertEquals(List.of(300_000), device.writeSizes);
        int count = 1 << 20;
        Pointer buf = Posix.memory(count);
        assertEquals(300_000, LIBC.read(fd, buf, count));
        assertArrayEquals(message, Posix.get(buf, 0, 300_000));
        assertEquals(List.of(count), device.readCounts);
        LIBC.close(fd);
    }

    /** copy_from_user of the whole buffer fails: EFAULT, never the count of the pieces FUSE got. */
    @Test
    void aWriteWhoseTailIsUnmappedFailsWithEfault() {
        int fd = open(Posix.O_RDWR);
        long length = 64 * 4096;
        Pointer area = LIBC.mmap(null, length, Posix.PROT_READ_WRITE, Posix.MAP_PRIVATE_ANONYMOUS, -1, 0);
        assertTrue(area.address() != -1, "mmap errno " + Posix.errno());
        try {
            assertEquals(0, LIBC.munmap(area.slice(length - 4096), 4096));
            Pointer buf = area;
            buf.put(0, random((int) length - 4096), 0, (int) length - 4096);
            assertEquals(-1, LIBC.write(fd, buf, length));
            assertEquals(Errno.EFAULT, Posix.errno());
            assertEquals(List.of(), device.writeSizes, "the device saw no piece of it");
            assertEquals(length - 4096, LIBC.write(fd, buf, length - 4096), "the mapped part is fine");
            assertEquals(List.of((int) length - 4096), device.writeSizes);
        } finally {
            LIBC.munmap(area, length - 4096);
            LIBC.close(fd);
        }
    }

    /** Past the join limit a write is refused whole (ENOMEM, as an allocation that fails), never short. */
    @Test
    void aWriteTooLargeToJoinFailsWhole() {
        int fd = open(Posix.O_RDWR);
        long length = (64L << 20) + 4096;
        Pointer area = LIBC.mmap(null, length, Posix.PROT_READ_WRITE, Posix.MAP_PRIVATE_ANONYMOUS, -1, 0);
        assertTrue(area.address() != -1, "mmap errno " + Posix.errno());
        try {
            assertEquals(-1, LIBC.write(fd, area, length));
            assertEquals(Errno.ENOMEM, Posix.errno());
            assertEquals(List.of(), device.writeSizes);
        } finally {
            LIBC.munmap(area, length);
            LIBC.close(fd);
        }
    }

    @Test
    void unalignedLargeBuffersPassWhole() {
        int fd = open(Posix.O_RDWR);
        byte[] message = random(200_003);
        Pointer source = Posix.memory(message.length + 4096);
        source.put(100, message, 0, message.length);
        assertEquals(message.length, LIBC.write(fd, source.slice(100), message.length));
        assertEquals(List.of(message.length), device.writeSizes);
        Pointer buf = Posix.memory(400_000 + 4096);
        assertEquals(message.length, LIBC.read(fd, buf.slice(333), 400_000));
        assertArrayEquals(message, Posix.get(buf, 333, message.length));
        assertEquals(List.of(400_000), device.readCounts);
        LIBC.close(fd);
    }

    @Test
    void messageOfExactlyOneRequestEndsTheRead() {
        int fd = open(Posix.O_RDWR);
        byte[] message = random(DeviceRequests.MAX_REQUEST);
        writeAll(fd, message);
        writeAll(fd, new byte[] {9});
        Pointer buf = Posix.memory(3 * DeviceRequests.MAX_REQUEST);
        assertEquals(message.length, LIBC.read(fd, buf, 3 * DeviceRequests.MAX_REQUEST));
        assertArrayEquals(message, Posix.get(buf, 0, message.length));
        assertEquals(1, LIBC.read(fd, buf, 3 * DeviceRequests.MAX_REQUEST));
        assertEquals(9, buf.getByte(0));
        LIBC.close(fd);
    }

    @Test
    void readTooSmallGetsStartOfMessageAndEnospc() {
        int fd = open(Posix.O_RDWR);
        byte[] message = random(100);
        writeAll(fd, message);
        Pointer buf = Posix.memory(64);
        assertEquals(-1, LIBC.read(fd, buf, 40));
        assertEquals(Errno.ENOSPC, Posix.errno());
        assertArrayEquals(java.util.Arrays.copyOf(message, 40), Posix.get(buf, 0, 40));
        assertEquals(0, buf.getByte(40));
        // and for a split read: 300 000 bytes into a 200 000-byte buffer
        byte[] large = random(300_000);
        writeAll(fd, large);
        Pointer big = Posix.memory(200_000);
        assertEquals(-1, LIBC.read(fd, big, 200_000));
        assertEquals(Errno.ENOSPC, Posix.errno());
        assertArrayEquals(java.util.Arrays.copyOf(large, 200_000), Posix.get(big, 0, 200_000));
        LIBC.close(fd);
    }

    @Test
    void killedReaderIsReapedAndServiceGoesOn() throws Exception {
        child = new ProcessBuilder("cat", queue).redirectErrorStream(true).start();
        awaitTrue(() -> device.blockedReaders.get() == 1);
        long start = System.nanoTime();
        child.destroyForcibly();
        assertTrue(child.waitFor(1, TimeUnit.SECONDS), "cat blocked in read was not reaped within 1 s");
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1));
        assertEquals(List.of(DeviceRequests.MAX_REQUEST), device.readCounts);
        int fd = open(Posix.O_RDWR);
        writeAll(fd, new byte[] {5});
        assertArrayEquals(new byte[] {5}, readSome(fd, 8));
        LIBC.close(fd);
        awaitTrue(() -> device.releases.get() == device.opens.get());
    }

    /**
     * A caught signal during a blocked read: the kernel sends FUSE_INTERRUPT and waits for the
     * answer (request_wait_answer), so only a device that sees the interruption lets read return EINTR.
     */
    @Test
    void aSignalEndsABlockedReadWithEintr() throws Exception {
        String script = String.join("\n",
                "import os, signal, sys",
                "class Hit(Exception): pass",
                "def hit(s, f): raise Hit()",
                "signal.signal(signal.SIGUSR1, hit)",
                "fd = os.open(sys.argv[1], os.O_RDWR)",
                "try:",
                "    os.read(fd, 64); print('read returned', flush=True)",
                "except Hit:",
                "    print('interrupted', flush=True)",
                "os.write(fd, b'x')",
                "print(os.read(fd, 8), flush=True)");
        child = new ProcessBuilder("/usr/bin/python3", "-c", script, queue).redirectErrorStream(true).start();
        awaitTrue(() -> device.blockedReaders.get() == 1);
        Process kill = new ProcessBuilder("kill", "-USR1", Long.toString(child.pid())).start();
        assertEquals(0, kill.waitFor());
        assertTrue(child.waitFor(5, TimeUnit.SECONDS), "the interrupted read did not return");
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals("interrupted\nb'x'\n", out);
        awaitTrue(() -> device.blockedReaders.get() == 0);
    }

    /** No create, mknod or mkdir (libfuse had no such callbacks): ENOSYS, as the kernel passes it on. */
    @Test
    void creatingInTheDirectoryIsNotImplemented() {
        java.nio.file.FileSystemException file = assertThrows(java.nio.file.FileSystemException.class,
                () -> Files.createFile(mount.resolve("new")));
        assertTrue(file.getMessage().contains("Function not implemented"), file.getMessage());
        java.nio.file.FileSystemException dir = assertThrows(java.nio.file.FileSystemException.class,
                () -> Files.createDirectory(mount.resolve("dir")));
        assertTrue(dir.getMessage().contains("Function not implemented"), dir.getMessage());
    }

    @Test
    void closeAnswersABlockedReader() throws Exception {
        int fd = open(Posix.O_RDWR);
        CompletableFuture<Long> read = CompletableFuture.supplyAsync(() -> LIBC.read(fd, Posix.memory(16), 16));
        awaitTrue(() -> device.blockedReaders.get() == 1);
        long start = System.nanoTime();
        directory.close();
        assertEquals(-1L, read.get(5, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
        assertEquals(1, device.releases.get());
        LIBC.close(fd);
    }

    private static byte[] random(int size) {
        byte[] data = new byte[size];
        new Random(size).nextBytes(data);
        return data;
    }

    /** A file that asks for its release at the last close, as issm's port is freed in ib_umad_sm_close. */
    @Test
    void aFileReleasedAtLastCloseIsReleasedWhenCloseReturns() {
        java.util.concurrent.atomic.AtomicInteger releases = new java.util.concurrent.atomic.AtomicInteger();
        directory.add("held", (caller, flags) -> new DeviceFile() {
            @Override
            public ReadResult read(ReadRequest request) throws Errno {
                throw Errno.of(Errno.EINVAL);
            }

            @Override
            public int write(Caller caller, ByteBuffer data, int fileFlags) throws Errno {
                throw Errno.of(Errno.EINVAL);
            }

            @Override
            public IoctlResult ioctl(Caller caller, int cmd, byte[] in) throws Errno {
                throw Errno.of(Errno.ENOTTY);
            }

            @Override
            public int poll(Caller caller, PollWaiter waiter) {
                return Poll.DEFAULT_MASK;
            }

            @Override
            public boolean releaseAtLastClose() {
                return true;
            }

            @Override
            public void release() {
                releases.incrementAndGet();
            }
        }, 0666);
        String held = mount.resolve("held").toString();
        for (int i = 1; i <= 200; i++) {
            int fd = LIBC.open(held, Posix.O_RDWR);
            assertTrue(fd >= 0, "open errno " + Posix.errno());
            assertEquals(0, LIBC.close(fd));
            assertEquals(i, releases.get(), "released by the time close returned, once");
        }
        int fd = LIBC.open(held, Posix.O_RDWR);
        int copy = LIBC.dup(fd);
        assertEquals(0, LIBC.close(fd));
        assertEquals(200, releases.get(), "a dup'd descriptor still holds the file");
        assertEquals(0, LIBC.close(copy));
        assertEquals(201, releases.get(), "the last descriptor's close releases it");
        directory.close(); // RELEASE (sent after close returned) or the unmount: neither releases again
        assertEquals(201, releases.get());
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 5 s");
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }
}
