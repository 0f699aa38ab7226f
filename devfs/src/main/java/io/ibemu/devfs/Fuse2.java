package io.ibemu.devfs;

import com.kenai.jffi.MemoryIO;
import jnr.ffi.LibraryLoader;
import jnr.ffi.annotations.IgnoreError;
import ru.serce.jnrfuse.struct.FuseOperations;

/**
 * The libfuse2 calls jnr-fuse binds unusably (it wraps every context in a new struct) or not at
 * all. Pointers travel as addresses in {@code long}s, which x86_64 and aarch64 pass alike.
 */
final class Fuse2 {

    /** The symbols of libfuse.so.2 this module calls directly (public: jnr-ffi implements it). */
    public interface Lib {
        @IgnoreError
        long fuse_get_context();

        @IgnoreError
        int fuse_interrupted();

        @IgnoreError
        int fuse_notify_poll(long pollHandle);

        @IgnoreError
        void fuse_pollhandle_destroy(long pollHandle);

        @IgnoreError
        void fuse_exit(long fuse);

        // ---- the pieces of fuse_main that FuseLoop runs itself ----

        /** Parses argv, mounts, builds the file system; returns struct fuse * or 0. */
        long fuse_setup(int argc, String[] argv, FuseOperations ops, long opSize, long mountpointOut,
                        long multithreadedOut, long userData);

        @IgnoreError
        void fuse_teardown(long fuse, long mountpoint);

        @IgnoreError
        long fuse_get_session(long fuse);

        @IgnoreError
        long fuse_session_next_chan(long session, long channel);

        @IgnoreError
        long fuse_chan_bufsize(long channel);

        /** Reads one request from /dev/fuse into buf: its length, 0 once unmounted, or -errno. */
        @IgnoreError
        int fuse_chan_recv(long channelInOut, long buf, long size);

        @IgnoreError
        void fuse_session_process(long session, long buf, long length, long channel);

        @IgnoreError
        int fuse_chan_fd(long channel);

        /** struct fuse_chan *fuse_chan_new(struct fuse_chan_ops *op, int fd, size_t bufsize, void *data). */
        @IgnoreError
        long fuse_chan_new(long ops, int fd, long bufferSize, long data);

        @IgnoreError
        int fuse_session_exited(long session);

        @IgnoreError
        void fuse_session_exit(long session);

        // ---- the low-level API (fuse_lowlevel.h, FUSE 2.6 symbols), for LowLevelMount ----

        /** struct fuse_chan *fuse_mount(const char *mountpoint, struct fuse_args *args). */
        long fuse_mount(String mountpoint, long args);

        @IgnoreError
        void fuse_unmount(String mountpoint, long channel);

        /** struct fuse_session *fuse_lowlevel_new(struct fuse_args *, const struct fuse_lowlevel_ops *, size_t, void *). */
        @IgnoreError
        long fuse_lowlevel_new(long args, long ops, long opsSize, long userData);

        @IgnoreError
        void fuse_session_add_chan(long session, long channel);

        @IgnoreError
        void fuse_opt_free_args(long args);

        @IgnoreError
        void fuse_session_remove_chan(long channel);

        @IgnoreError
        void fuse_session_destroy(long session);

        @IgnoreError
        int fuse_reply_err(long req, int err);

        @IgnoreError
        void fuse_reply_none(long req);

        @IgnoreError
        int fuse_reply_entry(long req, long entryParam);

        @IgnoreError
        int fuse_reply_attr(long req, long stat, double attrTimeout);

        @IgnoreError
        int fuse_reply_readlink(long req, long link);

        @IgnoreError
        int fuse_reply_open(long req, long fileInfo);

        @IgnoreError
        int fuse_reply_write(long req, long count);

        @IgnoreError
        int fuse_reply_buf(long req, long buf, long size);

        @IgnoreError
        int fuse_lowlevel_notify_inval_inode(long channel, long inode, long offset, long length);

        @IgnoreError
        int fuse_lowlevel_notify_inval_entry(long channel, long parent, long name, long nameLength);
    }

    static final Lib LIB = LibraryLoader.create(Lib.class).failImmediately().load("libfuse.so.2");

    // struct fuse_context { struct fuse *fuse; uid_t uid; gid_t gid; pid_t pid; ... } on LP64
    private static final long CONTEXT_FUSE = 0;
    private static final long CONTEXT_UID = 8;
    private static final long CONTEXT_GID = 12;
    private static final long CONTEXT_PID = 16;

    private static final MemoryIO MEMORY = MemoryIO.getInstance();

    private Fuse2() {
    }

    /** The calling thread's fuse_context, as an address valid while its request runs. */
    static long context() {
        return LIB.fuse_get_context();
    }

    static int tid(long context) {
        return MEMORY.getInt(context + CONTEXT_PID);
    }

    static int uid(long context) {
        return MEMORY.getInt(context + CONTEXT_UID);
    }

    static int gid(long context) {
        return MEMORY.getInt(context + CONTEXT_GID);
    }

    static long fuse(long context) {
        return MEMORY.getAddress(context + CONTEXT_FUSE);
    }
}
