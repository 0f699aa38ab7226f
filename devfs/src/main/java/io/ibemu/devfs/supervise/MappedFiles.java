package io.ibemu.devfs.supervise;

import io.ibemu.devfs.device.DeviceNode;
import io.ibemu.kernel.Errno;
import io.ibemu.devfs.device.MappableFile;
import io.ibemu.devfs.device.SharedMemory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static io.ibemu.devfs.supervise.Syscalls.MEMORY;

/**
 * Opens of {@link MappableFile} nodes carried by memfds of the daemon's own: the caller's range
 * descriptor is a second open of the memfd, so its mmap (checked first: the stub notifies it)
 * maps the very pages the daemon has mapped. Its other calls are served as for a FUSE node file.
 * The release comes from fsnotify: the close event of the memfd's inode is sent at the final
 * __fput of the caller's open file, which only the last descriptor and the last mapping in
 * every process (fork included) let happen; the daemon's own open never closes before that.
 */
final class MappedFiles implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(MappedFiles.class.getName());
    private static final int SYS_FTRUNCATE = 77;
    private static final int SYS_INOTIFY_ADD_WATCH = 254;
    private static final int SYS_INOTIFY_RM_WATCH = 255;
    private static final int SYS_FALLOCATE = 285;
    private static final int SYS_INOTIFY_INIT1 = 294;
    private static final int SYS_MEMFD_CREATE = 319;
    private static final int MFD_CLOEXEC = 1;
    private static final int MFD_ALLOW_SEALING = 2;
    private static final int F_ADD_SEALS = 1033;
    private static final int F_SEAL_SHRINK = 2;
    private static final int F_SEAL_GROW = 4;
    private static final int FALLOC_FL_KEEP_SIZE = 1;
    private static final int FALLOC_FL_PUNCH_HOLE = 2;
    private static final int IN_NONBLOCK = 04000;
    private static final int IN_CLOEXEC = 02000000;
    private static final int IN_CLOSE_WRITE = 0x8;
    private static final int IN_CLOSE_NOWRITE = 0x10;
    private static final int EVENT_HEADER = 16; // struct inotify_event {int wd; u32 mask, cookie, len; char name[]}
    private static final int EVENTS_BUFFER = 4096;
    private static final int POLL_MS = 500;
    /**
     * Each open file's memory: sparse, so only what queues touch is charged; sealed against
     * shrinking, so no caller's ftruncate can leave the daemon's mapping without pages (SIGBUS).
     */
    static final long SIZE = 256L << 20;

    /** One open: the node file the range descriptor serves, and the daemon's memfd and mapping. */
    private record Carried(NodeFile file, int memfd, int watch, Memory memory) {
    }

    private static final class Memory implements SharedMemory {
        private final MappedByteBuffer mapped;

        Memory(MappedByteBuffer mapped) {
            this.mapped = mapped;
        }

        @Override
        public long size() {
            return SIZE;
        }

        @Override
        public ByteBuffer region(long offset, int length) {
            if (offset < 0 || length < 0 || offset + length > SIZE) {
                throw new IndexOutOfBoundsException("region " + offset + "+" + length + " of " + SIZE);
            }
            return mapped.slice((int) offset, length).order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    private final Map<Long, NodeFile> byInode = new ConcurrentHashMap<>();
    private final Map<Integer, Carried> byWatch = new ConcurrentHashMap<>();
    private final DescriptorCache<Object> descriptors;
    private final int inotify;
    private final long dev;
    private final Thread watcher;
    private volatile boolean closing;

    private MappedFiles(DescriptorCache<Object> descriptors, int inotify, long dev) {
        this.descriptors = descriptors;
        this.inotify = inotify;
        this.dev = dev;
        this.watcher = new Thread(this::watch, "supervise-unmaps");
        this.watcher.setDaemon(true);
    }

    /** The carrier, or null (and why, logged) when this kernel cannot serve it. */
    static MappedFiles start(DescriptorCache<Object> descriptors) {
        int probe = -1;
        int inotify = -1;
        try {
            probe = memfd("ibemu-probe");
            long dev = Supervisor.deviceOfDescriptor(probe);
            inotify = (int) Syscalls.syscall(SYS_INOTIFY_INIT1, IN_NONBLOCK | IN_CLOEXEC, 0, 0, 0, 0);
            MappedFiles m = new MappedFiles(descriptors, inotify, dev);
            m.watcher.start();
            return m;
        } catch (Errno e) {
            LOG.log(System.Logger.Level.WARNING, "no memfd or inotify in this kernel (errno {0}): device files that"
                    + " map memory serve without it (uverbs: write-only queues)", e.code());
            if (inotify >= 0) {
                Syscalls.LIBC.close(inotify);
            }
            return null;
        } finally {
            if (probe >= 0) {
                Syscalls.LIBC.close(probe);
            }
        }
    }

    /** Whether this kernel gives what the carrier needs: memfd_create and inotify. */
    static boolean available() {
        int probe = -1;
        int inotify = -1;
        try {
            probe = memfd("ibemu-probe");
            inotify = (int) Syscalls.syscall(SYS_INOTIFY_INIT1, IN_NONBLOCK | IN_CLOEXEC, 0, 0, 0, 0);
            return true;
        } catch (Errno e) {
            return false;
        } finally {
            if (probe >= 0) {
                Syscalls.LIBC.close(probe);
            }
            if (inotify >= 0) {
                Syscalls.LIBC.close(inotify);
            }
        }
    }

    private static int memfd(String name) throws Errno {
        long at = MEMORY.allocateMemory(name.length() * 3L + 1, false);
        try {
            Syscalls.putString(at, name);
            return (int) Syscalls.syscall(SYS_MEMFD_CREATE, at, MFD_CLOEXEC | MFD_ALLOW_SEALING, 0, 0, 0);
        } finally {
            MEMORY.freeMemory(at);
        }
    }

    /** The device of the memfds' inodes: what tells a range descriptor carried here. */
    long dev() {
        return dev;
    }

    NodeFile byInode(long inode) {
        return byInode.get(inode);
    }

    boolean isEmpty() {
        return byInode.isEmpty();
    }

    /**
     * A memfd-carried open of {@code node}: the caller's descriptor for it returned (the caller of
     * this closes it once installed; if that never happens, that close is the release).
     */
    int open(DeviceNode node, MappableFile file, int openFlags) throws Errno {
        reap();
        int memfd = memfd("ibemu-" + node.name().replace('/', '-'));
        int watch = -1;
        int callerFile = -1;
        try {
            Syscalls.syscall(SYS_FTRUNCATE, memfd, SIZE, 0, 0, 0);
            Syscalls.syscall(Syscalls.SYS_FCNTL, memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW, 0, 0);
            Path self = Path.of("/proc/self/fd/" + memfd);
            MappedByteBuffer mapped;
            try (FileChannel channel = FileChannel.open(self, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, SIZE);
            } catch (IOException e) {
                throw new Errno(Errno.ENOMEM);
            }
            long path = MEMORY.allocateMemory(64, false);
            try {
                Syscalls.putString(path, self.toString());
                // after the daemon's own opens and closes: from here a close event is the caller's
                watch = (int) Syscalls.syscall(SYS_INOTIFY_ADD_WATCH, inotify, path, IN_CLOSE_WRITE | IN_CLOSE_NOWRITE,
                        0, 0);
                callerFile = (int) Syscalls.check(Syscalls.LIBC.open(path, (openFlags & (Syscalls.O_ACCMODE
                        | Syscalls.O_NONBLOCK)) | Syscalls.O_CLOEXEC));
            } finally {
                MEMORY.freeMemory(path);
            }
            NodeFile nodeFile = new NodeFile(node, file, openFlags, byInode, descriptors, true);
            Memory memory = new Memory(mapped);
            file.share(memory);
            nodeFile.register(NetlinkCalls.inode(callerFile));
            byWatch.put(watch, new Carried(nodeFile, memfd, watch, memory));
            return callerFile;
        } catch (Errno | RuntimeException e) {
            if (watch >= 0) {
                Syscalls.LIBC.syscall(SYS_INOTIFY_RM_WATCH, inotify, watch, 0, 0, 0, 0);
            }
            if (callerFile >= 0) {
                Syscalls.LIBC.close(callerFile);
            }
            Syscalls.LIBC.close(memfd);
            file.release();
            throw e;
        }
    }

    private void watch() {
        long pollfd = MEMORY.allocateMemory(8, true);
        try {
            while (!closing) {
                MEMORY.putInt(pollfd, inotify);
                MEMORY.putInt(pollfd + 4, Syscalls.POLLIN);
                if (Syscalls.LIBC.poll(pollfd, 1, POLL_MS) > 0) {
                    reap();
                }
            }
        } finally {
            MEMORY.freeMemory(pollfd);
        }
    }

    /**
     * Releases the files whose last close and unmap have come: called before each open too, since
     * the close event is queued before the caller's close returns, so a new open finds the
     * earlier file released as it would with the kernel's release.
     */
    void reap() {
        if (byWatch.isEmpty()) {
            return;
        }
        long buffer = MEMORY.allocateMemory(EVENTS_BUFFER, false);
        try {
            long got;
            while ((got = Syscalls.LIBC.read(inotify, buffer, EVENTS_BUFFER)) > 0) {
                for (long at = 0; at + EVENT_HEADER <= got; at += EVENT_HEADER + MEMORY.getInt(buffer + at + 12)) {
                    if ((MEMORY.getInt(buffer + at + 4) & (IN_CLOSE_WRITE | IN_CLOSE_NOWRITE)) != 0) {
                        released(MEMORY.getInt(buffer + at));
                    }
                }
            }
        } finally {
            MEMORY.freeMemory(buffer);
        }
    }

    private void released(int watch) {
        Carried c = byWatch.remove(watch);
        if (c == null) {
            return; // seen by another thread already
        }
        Syscalls.LIBC.syscall(SYS_INOTIFY_RM_WATCH, inotify, watch, 0, 0, 0, 0);
        try {
            c.file().release();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "release of a mapped device file failed", e);
        } finally {
            // the pages go now; the daemon's own mapping (reads zeros from here) goes with the GC
            Syscalls.LIBC.syscall(SYS_FALLOCATE, c.memfd(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, SIZE, 0, 0);
            Syscalls.LIBC.close(c.memfd());
        }
    }

    /** Every file released (callers still holding one keep their pages, which the daemon no longer reads). */
    @Override
    public void close() {
        closing = true;
        try {
            watcher.join(2L * POLL_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Integer watch : byWatch.keySet()) {
            released(watch);
        }
        Syscalls.LIBC.close(inotify);
    }
}
