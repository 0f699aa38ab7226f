package io.ibemu.sysfstree;

import jnr.ffi.annotations.Delegate;

/**
 * The shapes of the {@code fuse_lowlevel_ops} callbacks {@link TreeFileSystem} fills in
 * (fuse_lowlevel.h, FUSE 2.6), pointers and {@code fuse_ino_t} as {@code long}. Public only
 * because the classes jnr-ffi generates in its own loader must reach them.
 */
public interface LowLevelCallbacks {

    /** init(void *userdata, struct fuse_conn_info *conn). */
    interface Init {
        @Delegate
        void call(long userData, long conn);
    }

    /** lookup(req, parent, const char *name). */
    interface Lookup {
        @Delegate
        void call(long req, long parent, long name);
    }

    /** forget(req, ino, unsigned long nlookup). */
    interface Forget {
        @Delegate
        void call(long req, long inode, long lookups);
    }

    /** getattr, open, release: (req, ino, struct fuse_file_info *fi). */
    interface OnInode {
        @Delegate
        void call(long req, long inode, long fileInfo);
    }

    /** setattr(req, ino, struct stat *attr, int to_set, fi). */
    interface Setattr {
        @Delegate
        void call(long req, long inode, long stat, int toSet, long fileInfo);
    }

    /** readlink(req, ino). */
    interface Readlink {
        @Delegate
        void call(long req, long inode);
    }

    /** read, readdir: (req, ino, size_t size, off_t off, fi). */
    interface Read {
        @Delegate
        void call(long req, long inode, long size, long offset, long fileInfo);
    }

    /** write(req, ino, const char *buf, size_t size, off_t off, fi). */
    interface Write {
        @Delegate
        void call(long req, long inode, long buf, long size, long offset, long fileInfo);
    }

    /**
     * mknod, mkdir, unlink, rmdir, symlink, rename, link, create, all refused: only the request
     * is read. C callers pass more arguments, which a callee taking fewer ignores (SysV x86_64
     * and AAPCS64 pass them in registers the callee does not look at).
     */
    interface Refuse {
        @Delegate
        void call(long req);
    }
}
