package io.ibemu.devfs.libfuse;

import jnr.ffi.LibraryLoader;
import jnr.ffi.annotations.IgnoreError;

/**
 * The libfuse2 calls of the sysfs tree's low-level mount ({@link LowLevelMount}) and its loop
 * ({@link FuseLoop}), which jnr-fuse does not bind. Pointers travel as addresses in {@code long}s, which x86_64 and aarch64 pass alike.
 */
final class Fuse2 {

    /** The symbols of libfuse.so.2 this module calls directly (public: jnr-ffi implements it). */
    public interface Lib {

        // ---- the session loop FuseLoop runs itself ----

        @IgnoreError
        long fuse_chan_bufsize(long channel);

        /** Reads one request from /dev/fuse into buf: its length, 0 once unmounted, or -errno. */
        @IgnoreError
        int fuse_chan_recv(long channelInOut, long buf, long size);

        @IgnoreError
        void fuse_session_process(long session, long buf, long length, long channel);

        @IgnoreError
        int fuse_chan_fd(long channel);

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

    private Fuse2() {
    }
}
