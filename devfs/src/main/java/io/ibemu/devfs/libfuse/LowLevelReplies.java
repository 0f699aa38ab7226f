package io.ibemu.devfs.libfuse;

/**
 * libfuse2's low-level replies (fuse_reply_*), for the callbacks of a {@link LowLevelMount}.
 * Pointers are native addresses; each call answers the request {@code req} and returns 0 or a
 * negative errno (e.g. -ENOENT when the caller was interrupted meanwhile).
 */
public final class LowLevelReplies {

    private LowLevelReplies() {
    }

    public static int error(long req, int errno) {
        return Fuse2.LIB.fuse_reply_err(req, errno);
    }

    /** forget's answer: none. */
    public static void none(long req) {
        Fuse2.LIB.fuse_reply_none(req);
    }

    /** {@code entry} is a struct fuse_entry_param. */
    public static int entry(long req, long entry) {
        return Fuse2.LIB.fuse_reply_entry(req, entry);
    }

    /** {@code stat} is a struct stat. */
    public static int attributes(long req, long stat, double timeoutSeconds) {
        return Fuse2.LIB.fuse_reply_attr(req, stat, timeoutSeconds);
    }

    public static int readlink(long req, long cString) {
        return Fuse2.LIB.fuse_reply_readlink(req, cString);
    }

    /** {@code fileInfo} is the request's struct fuse_file_info, with fh and the open flags set. */
    public static int open(long req, long fileInfo) {
        return Fuse2.LIB.fuse_reply_open(req, fileInfo);
    }

    public static int write(long req, long count) {
        return Fuse2.LIB.fuse_reply_write(req, count);
    }

    public static int buffer(long req, long buf, long size) {
        return Fuse2.LIB.fuse_reply_buf(req, buf, size);
    }
}
