package io.ibemu.devfs.fuse;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The reply side of linux/fuse.h: each structure this package sends, written into a
 * native-order buffer with absolute puts at {@code at}; each returns the bytes written.
 */
public final class FuseOut {

    private FuseOut() {
    }

    /** struct fuse_out_header. */
    public static final Layout HEADER = Layout.of("fuse_out_header", 16, "len", 0, "error", 4, "unique", 8);
    public static final int HEADER_SIZE = 16;

    public static int header(ByteBuffer b, int at, int length, int error, long unique) {
        b.putInt(at, length);
        b.putInt(at + 4, error);
        b.putLong(at + 8, unique);
        return HEADER_SIZE;
    }

    /** struct fuse_init_out (64 bytes since 7.23; the kernel takes a shorter one from older minors). */
    public static final Layout INIT = Layout.of("fuse_init_out", 64, "major", 0, "minor", 4, "max_readahead", 8,
            "flags", 12, "max_background", 16, "congestion_threshold", 18, "max_write", 20, "time_gran", 24,
            "max_pages", 28, "map_alignment", 30, "flags2", 32);

    public static int init(ByteBuffer b, int at, int major, int minor, int maxReadahead, int flags, int maxWrite,
                           int maxPages) {
        zero(b, at, INIT.size());
        b.putInt(at, major);
        b.putInt(at + 4, minor);
        b.putInt(at + 8, maxReadahead);
        b.putInt(at + 12, flags);
        b.putInt(at + 20, maxWrite);
        b.putInt(at + 24, 1); // time_gran: nanoseconds
        b.putShort(at + 28, (short) maxPages);
        return INIT.size();
    }

    /** struct cuse_init_out; the device info strings ("DEVNAME=...\0") follow it. */
    public static final Layout CUSE_INIT = Layout.of("cuse_init_out", 72, "major", 0, "minor", 4, "unused", 8,
            "flags", 12, "max_read", 16, "max_write", 20, "dev_major", 24, "dev_minor", 28);

    public static int cuseInit(ByteBuffer b, int at, int major, int minor, int flags, int maxRead, int maxWrite,
                               int devMajor, int devMinor, String... info) {
        zero(b, at, CUSE_INIT.size());
        b.putInt(at, major);
        b.putInt(at + 4, minor);
        b.putInt(at + 12, flags);
        b.putInt(at + 16, maxRead);
        b.putInt(at + 20, maxWrite);
        b.putInt(at + 24, devMajor);
        b.putInt(at + 28, devMinor);
        int n = CUSE_INIT.size();
        for (String s : info) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            b.put(at + n, bytes);
            b.put(at + n + bytes.length, (byte) 0);
            n += bytes.length + 1;
        }
        return n;
    }

    /** struct fuse_open_out. */
    public static final Layout OPEN = Layout.of("fuse_open_out", 16, "fh", 0, "open_flags", 8);
    /** FOPEN_DIRECT_IO: every read and write reaches the daemon. */
    public static final int FOPEN_DIRECT_IO = 1;
    public static final int FOPEN_NONSEEKABLE = 1 << 2;
    /** FOPEN_STREAM: no file position, so no f_pos lock around a read that blocks (stream_open). */
    public static final int FOPEN_STREAM = 1 << 4;
    /** FOPEN_PARALLEL_DIRECT_WRITES: writers of one inode do not queue on its lock. */
    public static final int FOPEN_PARALLEL_DIRECT_WRITES = 1 << 6;

    public static int open(ByteBuffer b, int at, long fh, int openFlags) {
        b.putLong(at, fh);
        b.putInt(at + 8, openFlags);
        b.putInt(at + 12, 0);
        return OPEN.size();
    }

    /** struct fuse_write_out. */
    public static final Layout WRITE = Layout.of("fuse_write_out", 8, "size", 0, "padding", 4);

    public static int write(ByteBuffer b, int at, int size) {
        b.putInt(at, size);
        b.putInt(at + 4, 0);
        return WRITE.size();
    }

    /** struct fuse_poll_out. */
    public static final Layout POLL = Layout.of("fuse_poll_out", 8, "revents", 0, "padding", 4);

    public static int poll(ByteBuffer b, int at, int revents) {
        b.putInt(at, revents);
        b.putInt(at + 4, 0);
        return POLL.size();
    }

    /** struct fuse_notify_poll_wakeup_out. */
    public static final Layout POLL_WAKEUP = Layout.of("fuse_notify_poll_wakeup_out", 8, "kh", 0);

    public static int pollWakeup(ByteBuffer b, int at, long kh) {
        b.putLong(at, kh);
        return POLL_WAKEUP.size();
    }

    /** struct fuse_notify_inval_entry_out; the name and a NUL follow it. */
    public static final Layout INVAL_ENTRY = Layout.of("fuse_notify_inval_entry_out", 16, "parent", 0, "namelen", 8,
            "flags", 12);

    /** INVAL_ENTRY and the name after it: the bytes written. */
    public static int invalEntry(ByteBuffer b, int at, long parent, byte[] name) {
        b.putLong(at, parent);
        b.putInt(at + 8, name.length);
        b.putInt(at + 12, 0);
        b.put(at + INVAL_ENTRY.size(), name);
        b.put(at + INVAL_ENTRY.size() + name.length, (byte) 0);
        return INVAL_ENTRY.size() + name.length + 1;
    }

    /** struct fuse_ioctl_out; the output data (or, for a retry, the iovecs) follows it. */
    public static final Layout IOCTL = Layout.of("fuse_ioctl_out", 16, "result", 0, "flags", 4, "in_iovs", 8,
            "out_iovs", 12);
    /** struct fuse_ioctl_iovec. */
    public static final Layout IOCTL_IOVEC = Layout.of("fuse_ioctl_iovec", 16, "base", 0, "len", 8);
    /** FUSE_IOCTL_RETRY: the kernel copies the iovecs given and asks again (unrestricted only). */
    public static final int IOCTL_RETRY = 1 << 2;

    public static int ioctl(ByteBuffer b, int at, int result, int flags, int inIovs, int outIovs) {
        b.putInt(at, result);
        b.putInt(at + 4, flags);
        b.putInt(at + 8, inIovs);
        b.putInt(at + 12, outIovs);
        return IOCTL.size();
    }

    public static int ioctlIovec(ByteBuffer b, int at, long base, long length) {
        b.putLong(at, base);
        b.putLong(at + 8, length);
        return IOCTL_IOVEC.size();
    }

    /** struct fuse_attr. */
    public static final Layout ATTR = Layout.of("fuse_attr", 88, "ino", 0, "size", 8, "blocks", 16, "atime", 24,
            "mtime", 32, "ctime", 40, "atimensec", 48, "mtimensec", 52, "ctimensec", 56, "mode", 60, "nlink", 64,
            "uid", 68, "gid", 72, "rdev", 76, "blksize", 80, "flags", 84);

    /** A file's attributes as this package reports them. */
    public record Attr(long ino, long size, long time, int mode, int nlink, int uid, int gid) {
    }

    public static int attr(ByteBuffer b, int at, Attr a) {
        zero(b, at, ATTR.size());
        b.putLong(at, a.ino());
        b.putLong(at + 8, a.size());
        b.putLong(at + 24, a.time());
        b.putLong(at + 32, a.time());
        b.putLong(at + 40, a.time());
        b.putInt(at + 60, a.mode());
        b.putInt(at + 64, a.nlink());
        b.putInt(at + 68, a.uid());
        b.putInt(at + 72, a.gid());
        b.putInt(at + 80, 4096);
        return ATTR.size();
    }

    /** struct fuse_attr_out. */
    public static final Layout ATTR_OUT = Layout.of("fuse_attr_out", 104, "attr_valid", 0, "attr_valid_nsec", 8,
            "attr", 16);

    public static int attrOut(ByteBuffer b, int at, long validNanos, Attr a) {
        b.putLong(at, validNanos / 1_000_000_000L);
        b.putInt(at + 8, (int) (validNanos % 1_000_000_000L));
        b.putInt(at + 12, 0);
        return 16 + attr(b, at + 16, a);
    }

    /** struct fuse_entry_out. */
    public static final Layout ENTRY = Layout.of("fuse_entry_out", 128, "nodeid", 0, "generation", 8,
            "entry_valid", 16, "attr_valid", 24, "entry_valid_nsec", 32, "attr_valid_nsec", 36, "attr", 40);

    public static int entry(ByteBuffer b, int at, long nodeid, long entryValidNanos, long attrValidNanos, Attr a) {
        b.putLong(at, nodeid);
        b.putLong(at + 8, 0);
        b.putLong(at + 16, entryValidNanos / 1_000_000_000L);
        b.putLong(at + 24, attrValidNanos / 1_000_000_000L);
        b.putInt(at + 32, (int) (entryValidNanos % 1_000_000_000L));
        b.putInt(at + 36, (int) (attrValidNanos % 1_000_000_000L));
        return 40 + attr(b, at + 40, a);
    }

    /** struct fuse_dirent; the name follows, padded to 8 bytes. */
    public static final Layout DIRENT = Layout.of("fuse_dirent", 24, "ino", 0, "off", 8, "namelen", 16, "type", 20);

    /** The bytes a dirent of {@code name} takes (FUSE_DIRENT_SIZE). */
    public static int direntSize(byte[] name) {
        return (DIRENT.size() + name.length + 7) & ~7;
    }

    public static int dirent(ByteBuffer b, int at, long ino, long nextOffset, int type, byte[] name) {
        int size = direntSize(name);
        zero(b, at, size);
        b.putLong(at, ino);
        b.putLong(at + 8, nextOffset);
        b.putInt(at + 16, name.length);
        b.putInt(at + 20, type);
        b.put(at + 24, name);
        return size;
    }

    /** struct fuse_statfs_out (struct fuse_kstatfs). */
    public static final Layout STATFS = Layout.of("fuse_kstatfs", 80, "blocks", 0, "bfree", 8, "bavail", 16,
            "files", 24, "ffree", 32, "bsize", 40, "namelen", 44, "frsize", 48);

    public static int statfs(ByteBuffer b, int at, int blockSize, int nameLength) {
        zero(b, at, STATFS.size());
        b.putInt(at + 40, blockSize);
        b.putInt(at + 44, nameLength);
        return STATFS.size();
    }

    private static void zero(ByteBuffer b, int at, int length) {
        for (int i = 0; i + 8 <= length; i += 8) {
            b.putLong(at + i, 0);
        }
        for (int i = length & ~7; i < length; i++) {
            b.put(at + i, (byte) 0);
        }
    }
}
