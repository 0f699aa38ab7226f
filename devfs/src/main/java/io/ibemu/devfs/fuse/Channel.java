package io.ibemu.devfs.fuse;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;

import java.io.IOException;

/**
 * An open /dev/fuse (or /dev/cuse) descriptor: one request per read(2), one reply or
 * notification per write(2) (fuse_dev_do_read, fuse_dev_do_write). Any thread may write.
 */
public final class Channel implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Channel.class.getName());

    /** Public because jnr-ffi implements it from a class loader of its own. */
    public interface Calls {
        int open(String path, int flags);

        long read(int fd, long buf, long count);

        long write(int fd, long buf, long count);

        int close(int fd);
    }

    static final Calls CALLS = LibraryLoader.create(Calls.class).failImmediately().load("c");
    private static final Runtime RUNTIME = Runtime.getRuntime(CALLS);
    private static final int O_RDWR = 2;
    private static final int O_CLOEXEC = 02000000;
    public static final int EINTR = 4;
    public static final int ENOENT = 2;
    public static final int ENODEV = 19;

    private static final ThreadLocal<IoBuffer> NOTICE = ThreadLocal.withInitial(() -> IoBuffer.collected(FuseOut.HEADER_SIZE + FuseOut.INVAL_ENTRY.size() + 1024 + 1));

    private final int fd;
    private volatile boolean closed;

    private Channel(int fd) {
        this.fd = fd;
    }

    /** Opens {@code device} (/dev/fuse, /dev/cuse) read-write, close-on-exec. */
    public static Channel open(String device) throws IOException {
        int fd = CALLS.open(device, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            throw new IOException("open " + device + ": errno " + errno());
        }
        return new Channel(fd);
    }

    public int fd() {
        return fd;
    }

    /** read(2) of one request into {@code into}: its length, or -errno (ENODEV once the connection is gone). */
    public int receive(IoBuffer into) {
        long n = CALLS.read(fd, into.address, into.capacity());
        return n >= 0 ? (int) n : -errno();
    }

    /** write(2) of {@code length} bytes of {@code from}: 0 or -errno (ENOENT: the request was interrupted away). */
    public int send(IoBuffer from, int length) {
        long n = CALLS.write(fd, from.address, length);
        return n >= 0 ? 0 : -errno();
    }

    /** FUSE_NOTIFY_POLL for the polled file {@code kh}: the kernel wakes its pollers, who poll again. */
    public void notifyPoll(long kh) {
        if (closed) {
            return;
        }
        IoBuffer buffer = NOTICE.get();
        int length = FuseOut.HEADER_SIZE + FuseOut.POLL_WAKEUP.size();
        FuseOut.header(buffer.bytes, 0, length, Opcode.NOTIFY_POLL, 0);
        FuseOut.pollWakeup(buffer.bytes, FuseOut.HEADER_SIZE, kh);
        int result = send(buffer, length);
        if (result < 0 && result != -ENOENT && result != -ENODEV && !closed) {
            LOG.log(System.Logger.Level.WARNING, "poll notification failed: errno {0}", -result);
        }
    }

    /**
     * FUSE_NOTIFY_INVAL_ENTRY of {@code name} in directory {@code parent}: the kernel drops the
     * dentry (fuse_reverse_inval_entry), so the inode is forgotten once its last user closes it
     * rather than when memory runs short. Must not be sent while serving a request of that directory.
     */
    public void notifyInvalEntry(long parent, String name) {
        if (closed) {
            return;
        }
        IoBuffer buffer = NOTICE.get();
        byte[] bytes = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int length = FuseOut.HEADER_SIZE + FuseOut.invalEntry(buffer.bytes, FuseOut.HEADER_SIZE, parent, bytes);
        FuseOut.header(buffer.bytes, 0, length, Opcode.NOTIFY_INVAL_ENTRY, 0);
        int result = send(buffer, length);
        if (result < 0 && result != -ENOENT && result != -ENODEV && !closed) {
            LOG.log(System.Logger.Level.WARNING, "entry invalidation of {0} failed: errno {1}", name, -result);
        }
    }

    /** Closes the descriptor; the last one of a connection aborts it (fuse_dev_release). */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            CALLS.close(fd);
        }
    }

    static int errno() {
        return RUNTIME.getLastError();
    }
}
