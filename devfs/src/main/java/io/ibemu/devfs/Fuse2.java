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
