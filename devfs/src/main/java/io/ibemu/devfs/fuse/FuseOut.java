package io.ibemu.devfs.fuse;

import io.ibemu.kernel.CField;
import io.ibemu.kernel.CStruct;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The reply side of linux/fuse.h: each structure this package sends, declared once as a
 * {@link CStruct} and written through its fields into a native-order buffer at {@code at};
 * each returns the bytes written. Members not written are zero.
 */
public final class FuseOut {

    private FuseOut() {
    }

    /** struct fuse_out_header. */
    public static final CStruct HEADER = CStruct.named("fuse_out_header").u32("len").u32("error").u64("unique")
            .build();
    public static final int HEADER_SIZE = HEADER.size();
    private static final CField HEADER_LEN = HEADER.field("len");
    private static final CField HEADER_ERROR = HEADER.field("error");
    private static final CField HEADER_UNIQUE = HEADER.field("unique");

    public static int header(ByteBuffer b, int at, int length, int error, long unique) {
        HEADER_LEN.put(b, at, length);
        HEADER_ERROR.put(b, at, error);
        HEADER_UNIQUE.put(b, at, unique);
        return HEADER_SIZE;
    }

    /** struct fuse_init_out (64 bytes since 7.23; the kernel takes a shorter one from older minors). */
    public static final CStruct INIT = CStruct.named("fuse_init_out").u32("major").u32("minor").u32("max_readahead")
            .u32("flags").u16("max_background").u16("congestion_threshold").u32("max_write").u32("time_gran")
            .u16("max_pages").u16("map_alignment").u32("flags2").pad(4, 7).build();

    public static int init(ByteBuffer b, int at, int major, int minor, int maxReadahead, int flags, int maxWrite,
                           int maxPages) {
        zero(b, at, INIT.size());
        INIT.field("major").put(b, at, major);
        INIT.field("minor").put(b, at, minor);
        INIT.field("max_readahead").put(b, at, maxReadahead);
        INIT.field("flags").put(b, at, flags);
        INIT.field("max_write").put(b, at, maxWrite);
        INIT.field("time_gran").put(b, at, 1); // nanoseconds
        INIT.field("max_pages").put(b, at, maxPages);
        return INIT.size();
    }

    /** struct cuse_init_out; the device info strings ("DEVNAME=...\0") follow it. */
    public static final CStruct CUSE_INIT = CStruct.named("cuse_init_out").u32("major").u32("minor").u32("unused")
            .u32("flags").u32("max_read").u32("max_write").u32("dev_major").u32("dev_minor").pad(4, 10).build();

    public static int cuseInit(ByteBuffer b, int at, int major, int minor, int flags, int maxRead, int maxWrite,
                               int devMajor, int devMinor, String... info) {
        zero(b, at, CUSE_INIT.size());
        CUSE_INIT.field("major").put(b, at, major);
        CUSE_INIT.field("minor").put(b, at, minor);
        CUSE_INIT.field("flags").put(b, at, flags);
        CUSE_INIT.field("max_read").put(b, at, maxRead);
        CUSE_INIT.field("max_write").put(b, at, maxWrite);
        CUSE_INIT.field("dev_major").put(b, at, devMajor);
        CUSE_INIT.field("dev_minor").put(b, at, devMinor);
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
    public static final CStruct OPEN = CStruct.named("fuse_open_out").u64("fh").u32("open_flags").u32("padding")
            .build();
    private static final CField OPEN_FH = OPEN.field("fh");
    private static final CField OPEN_FLAGS = OPEN.field("open_flags");
    private static final CField OPEN_PADDING = OPEN.field("padding");
    /** FOPEN_DIRECT_IO: every read and write reaches the daemon. */
    public static final int FOPEN_DIRECT_IO = 1;
    public static final int FOPEN_NONSEEKABLE = 1 << 2;
    /** FOPEN_STREAM: no file position, so no f_pos lock around a read that blocks (stream_open). */
    public static final int FOPEN_STREAM = 1 << 4;
    /** FOPEN_PARALLEL_DIRECT_WRITES: writers of one inode do not queue on its lock. */
    public static final int FOPEN_PARALLEL_DIRECT_WRITES = 1 << 6;

    public static int open(ByteBuffer b, int at, long fh, int openFlags) {
        OPEN_FH.put(b, at, fh);
        OPEN_FLAGS.put(b, at, openFlags);
        OPEN_PADDING.put(b, at, 0);
        return OPEN.size();
    }

    /** struct fuse_write_out. */
    public static final CStruct WRITE = CStruct.named("fuse_write_out").u32("size").u32("padding").build();
    private static final CField WRITE_SIZE = WRITE.field("size");
    private static final CField WRITE_PADDING = WRITE.field("padding");

    public static int write(ByteBuffer b, int at, int size) {
        WRITE_SIZE.put(b, at, size);
        WRITE_PADDING.put(b, at, 0);
        return WRITE.size();
    }

    /** struct fuse_poll_out. */
    public static final CStruct POLL = CStruct.named("fuse_poll_out").u32("revents").u32("padding").build();
    private static final CField POLL_REVENTS = POLL.field("revents");
    private static final CField POLL_PADDING = POLL.field("padding");

    public static int poll(ByteBuffer b, int at, int revents) {
        POLL_REVENTS.put(b, at, revents);
        POLL_PADDING.put(b, at, 0);
        return POLL.size();
    }

    /** struct fuse_notify_poll_wakeup_out. */
    public static final CStruct POLL_WAKEUP = CStruct.named("fuse_notify_poll_wakeup_out").u64("kh").build();
    private static final CField POLL_WAKEUP_KH = POLL_WAKEUP.field("kh");

    public static int pollWakeup(ByteBuffer b, int at, long kh) {
        POLL_WAKEUP_KH.put(b, at, kh);
        return POLL_WAKEUP.size();
    }

    /** struct fuse_notify_inval_entry_out; the name and a NUL follow it. */
    public static final CStruct INVAL_ENTRY = CStruct.named("fuse_notify_inval_entry_out").u64("parent")
            .u32("namelen").u32("flags").build();

    /** INVAL_ENTRY and the name after it: the bytes written. */
    public static int invalEntry(ByteBuffer b, int at, long parent, byte[] name) {
        INVAL_ENTRY.field("parent").put(b, at, parent);
        INVAL_ENTRY.field("namelen").put(b, at, name.length);
        INVAL_ENTRY.field("flags").put(b, at, 0);
        b.put(at + INVAL_ENTRY.size(), name);
        b.put(at + INVAL_ENTRY.size() + name.length, (byte) 0);
        return INVAL_ENTRY.size() + name.length + 1;
    }

    /** struct fuse_ioctl_out; the output data (or, for a retry, the iovecs) follows it. */
    public static final CStruct IOCTL = CStruct.named("fuse_ioctl_out").u32("result").u32("flags").u32("in_iovs")
            .u32("out_iovs").build();
    private static final CField IOCTL_RESULT = IOCTL.field("result");
    private static final CField IOCTL_FLAGS = IOCTL.field("flags");
    private static final CField IOCTL_IN_IOVS = IOCTL.field("in_iovs");
    private static final CField IOCTL_OUT_IOVS = IOCTL.field("out_iovs");
    /** struct fuse_ioctl_iovec. */
    public static final CStruct IOCTL_IOVEC = CStruct.named("fuse_ioctl_iovec").u64("base").u64("len").build();
    /** FUSE_IOCTL_RETRY: the kernel copies the iovecs given and asks again (unrestricted only). */
    public static final int IOCTL_RETRY = 1 << 2;

    public static int ioctl(ByteBuffer b, int at, int result, int flags, int inIovs, int outIovs) {
        IOCTL_RESULT.put(b, at, result);
        IOCTL_FLAGS.put(b, at, flags);
        IOCTL_IN_IOVS.put(b, at, inIovs);
        IOCTL_OUT_IOVS.put(b, at, outIovs);
        return IOCTL.size();
    }

    public static int ioctlIovec(ByteBuffer b, int at, long base, long length) {
        IOCTL_IOVEC.field("base").put(b, at, base);
        IOCTL_IOVEC.field("len").put(b, at, length);
        return IOCTL_IOVEC.size();
    }

    /** struct fuse_attr. */
    public static final CStruct ATTR = CStruct.named("fuse_attr").u64("ino").u64("size").u64("blocks").u64("atime")
            .u64("mtime").u64("ctime").u32("atimensec").u32("mtimensec").u32("ctimensec").u32("mode").u32("nlink")
            .u32("uid").u32("gid").u32("rdev").u32("blksize").u32("flags").build();
    private static final CField ATTR_INO = ATTR.field("ino");
    private static final CField ATTR_SIZE = ATTR.field("size");
    private static final CField ATTR_ATIME = ATTR.field("atime");
    private static final CField ATTR_MTIME = ATTR.field("mtime");
    private static final CField ATTR_CTIME = ATTR.field("ctime");
    private static final CField ATTR_MODE = ATTR.field("mode");
    private static final CField ATTR_NLINK = ATTR.field("nlink");
    private static final CField ATTR_UID = ATTR.field("uid");
    private static final CField ATTR_GID = ATTR.field("gid");
    private static final CField ATTR_BLKSIZE = ATTR.field("blksize");

    /** A file's attributes as this package reports them. */
    public record Attr(long ino, long size, long time, int mode, int nlink, int uid, int gid) {
    }

    public static int attr(ByteBuffer b, int at, Attr a) {
        zero(b, at, ATTR.size());
        ATTR_INO.put(b, at, a.ino());
        ATTR_SIZE.put(b, at, a.size());
        ATTR_ATIME.put(b, at, a.time());
        ATTR_MTIME.put(b, at, a.time());
        ATTR_CTIME.put(b, at, a.time());
        ATTR_MODE.put(b, at, a.mode());
        ATTR_NLINK.put(b, at, a.nlink());
        ATTR_UID.put(b, at, a.uid());
        ATTR_GID.put(b, at, a.gid());
        ATTR_BLKSIZE.put(b, at, 4096);
        return ATTR.size();
    }

    /** struct fuse_attr_out. */
    public static final CStruct ATTR_OUT = CStruct.named("fuse_attr_out").u64("attr_valid").u32("attr_valid_nsec")
            .u32("dummy").struct("attr", ATTR).build();

    public static int attrOut(ByteBuffer b, int at, long validNanos, Attr a) {
        ATTR_OUT.field("attr_valid").put(b, at, validNanos / 1_000_000_000L);
        ATTR_OUT.field("attr_valid_nsec").put(b, at, validNanos % 1_000_000_000L);
        ATTR_OUT.field("dummy").put(b, at, 0);
        int nested = ATTR_OUT.field("attr.ino").offset();
        return nested + attr(b, at + nested, a);
    }

    /** struct fuse_entry_out. */
    public static final CStruct ENTRY = CStruct.named("fuse_entry_out").u64("nodeid").u64("generation")
            .u64("entry_valid").u64("attr_valid").u32("entry_valid_nsec").u32("attr_valid_nsec").struct("attr", ATTR)
            .build();

    public static int entry(ByteBuffer b, int at, long nodeid, long entryValidNanos, long attrValidNanos, Attr a) {
        ENTRY.field("nodeid").put(b, at, nodeid);
        ENTRY.field("generation").put(b, at, 0);
        ENTRY.field("entry_valid").put(b, at, entryValidNanos / 1_000_000_000L);
        ENTRY.field("attr_valid").put(b, at, attrValidNanos / 1_000_000_000L);
        ENTRY.field("entry_valid_nsec").put(b, at, entryValidNanos % 1_000_000_000L);
        ENTRY.field("attr_valid_nsec").put(b, at, attrValidNanos % 1_000_000_000L);
        int nested = ENTRY.field("attr.ino").offset();
        return nested + attr(b, at + nested, a);
    }

    /** struct fuse_dirent; the name follows, padded to 8 bytes. */
    public static final CStruct DIRENT = CStruct.named("fuse_dirent").u64("ino").u64("off").u32("namelen")
            .u32("type").build();
    private static final CField DIRENT_INO = DIRENT.field("ino");
    private static final CField DIRENT_OFF = DIRENT.field("off");
    private static final CField DIRENT_NAMELEN = DIRENT.field("namelen");
    private static final CField DIRENT_TYPE = DIRENT.field("type");

    /** The bytes a dirent of {@code name} takes (FUSE_DIRENT_SIZE). */
    public static int direntSize(byte[] name) {
        return (DIRENT.size() + name.length + 7) & ~7;
    }

    public static int dirent(ByteBuffer b, int at, long ino, long nextOffset, int type, byte[] name) {
        int size = direntSize(name);
        zero(b, at, size);
        DIRENT_INO.put(b, at, ino);
        DIRENT_OFF.put(b, at, nextOffset);
        DIRENT_NAMELEN.put(b, at, name.length);
        DIRENT_TYPE.put(b, at, type);
        b.put(at + DIRENT.size(), name);
        return size;
    }

    /** struct fuse_statfs_out (struct fuse_kstatfs). */
    public static final CStruct STATFS = CStruct.named("fuse_kstatfs").u64("blocks").u64("bfree").u64("bavail")
            .u64("files").u64("ffree").u32("bsize").u32("namelen").u32("frsize").u32("padding").pad(4, 6).build();

    public static int statfs(ByteBuffer b, int at, int blockSize, int nameLength) {
        zero(b, at, STATFS.size());
        STATFS.field("bsize").put(b, at, blockSize);
        STATFS.field("namelen").put(b, at, nameLength);
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
