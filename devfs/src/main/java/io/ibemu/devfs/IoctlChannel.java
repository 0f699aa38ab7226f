package io.ibemu.devfs;

import com.kenai.jffi.MemoryIO;
import jnr.ffi.annotations.Delegate;

/**
 * A {@code struct fuse_chan} that IOCTL requests are processed on, so that a failed ioctl is
 * answered with the errno alone. libfuse 2.9's high-level {@code fuse_lib_ioctl} always replies
 * with {@code fuse_reply_ioctl(req, err, out_buf, out_bufsz)}, and the kernel's
 * {@code fuse_do_ioctl} copies whatever data a reply carries to the caller before returning its
 * result, so an error would overwrite the caller's buffer (with libfuse's uninitialised
 * {@code out_buf} for an {@code _IOR}). The kernel's own ioctls leave the buffer alone on error;
 * this channel's send turns such a reply into what {@code fuse_reply_err} sends: the header
 * with the error and no data. A device that writes and still fails (umad's REGISTER_AGENT2)
 * marks its reply with {@link FuseLoop#errorCarriesData()}.
 */
final class IoctlChannel {

    private static final MemoryIO MEMORY = MemoryIO.getInstance();
    /** sizeof(struct fuse_out_header): uint32_t len; int32_t error; uint64_t unique. */
    private static final int OUT_HEADER = 16;
    /** struct iovec { void *iov_base; size_t iov_len; } on LP64. */
    private static final int IOVEC = 16;

    /** fuse_chan_ops.send: returns 0 or -errno, as fuse_kern_chan_send. */
    public interface Send {
        @Delegate
        int send(long channel, long iov, long count);
    }

    private final int fd;
    private final Send send = this::send; // referenced for as long as the channel lives
    final long channel;

    private IoctlChannel(int fd, long bufferSize) {
        this.fd = fd;
        long ops = MEMORY.allocateMemory(3 * 8, true); // receive, send, destroy
        try {
            long sendPointer = Libc.RUNTIME.getClosureManager().getClosurePointer(Send.class, send).address();
            MEMORY.putAddress(ops + 8, sendPointer);
            // fuse_chan_new copies the ops; receive and destroy stay null: the loop never calls them here
            channel = Fuse2.LIB.fuse_chan_new(ops, fd, bufferSize, 0);
        } finally {
            MEMORY.freeMemory(ops);
        }
    }

    /** A channel writing to {@code mainChannel}'s /dev/fuse descriptor; 0 if libfuse cannot make one. */
    static IoctlChannel of(long mainChannel, long bufferSize) {
        IoctlChannel ioctls = new IoctlChannel(Fuse2.LIB.fuse_chan_fd(mainChannel), bufferSize);
        return ioctls.channel == 0 ? null : ioctls;
    }

    private int send(long ch, long iov, long count) {
        // fuse_reply_ioctl's iovecs: out header, struct fuse_ioctl_out (int32_t result first), data
        boolean carriesData = FuseLoop.takeErrorCarriesData();
        if (count == 3 && MEMORY.getInt(MEMORY.getAddress(iov + IOVEC)) < 0 && !carriesData) {
            return errorOnly(iov);
        }
        return written(Libc.CALLS.writev(fd, iov, (int) count));
    }

    private int errorOnly(long iov) {
        long header = MEMORY.getAddress(iov);
        int result = MEMORY.getInt(MEMORY.getAddress(iov + IOVEC));
        long reply = MEMORY.allocateMemory(OUT_HEADER + IOVEC, false);
        try {
            MEMORY.putInt(reply, OUT_HEADER);
            MEMORY.putInt(reply + 4, result);
            MEMORY.putLong(reply + 8, MEMORY.getLong(header + 8));
            MEMORY.putAddress(reply + OUT_HEADER, reply);
            MEMORY.putLong(reply + OUT_HEADER + 8, OUT_HEADER);
            return written(Libc.CALLS.writev(fd, reply + OUT_HEADER, 1));
        } finally {
            MEMORY.freeMemory(reply);
        }
    }

    private static int written(long result) {
        return result >= 0 ? 0 : -Libc.errno();
    }
}
