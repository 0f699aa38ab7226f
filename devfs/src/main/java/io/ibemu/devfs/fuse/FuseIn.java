package io.ibemu.devfs.fuse;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The request side of linux/fuse.h: the in-header and each request body this package serves,
 * decoded from a native-order buffer with absolute reads ({@code at} is where the structure
 * starts). The kernel sends its own structure sizes whatever minor was negotiated (from 7.9 on).
 */
public final class FuseIn {

    private FuseIn() {
    }

    /** struct fuse_in_header. */
    public record Header(int length, int opcode, long unique, long nodeid, int uid, int gid, int pid) {
        public static final Layout LAYOUT = Layout.of("fuse_in_header", 40,
                "len", 0, "opcode", 4, "unique", 8, "nodeid", 16, "uid", 24, "gid", 28, "pid", 32, "total_extlen", 36);
        public static final int SIZE = 40;

        public static Header decode(ByteBuffer b, int at) {
            return new Header(b.getInt(at), b.getInt(at + 4), b.getLong(at + 8), b.getLong(at + 16),
                    b.getInt(at + 24), b.getInt(at + 28), b.getInt(at + 32));
        }
    }

    /** struct fuse_init_in (the flags2 word since 7.36; older kernels send 16 bytes). */
    public record Init(int major, int minor, int maxReadahead, int flags, int flags2) {
        public static final Layout LAYOUT = Layout.of("fuse_init_in", 64,
                "major", 0, "minor", 4, "max_readahead", 8, "flags", 12, "flags2", 16);

        public static Init decode(ByteBuffer b, int at, int length) {
            return new Init(b.getInt(at), b.getInt(at + 4), b.getInt(at + 8), b.getInt(at + 12),
                    length >= 20 ? b.getInt(at + 16) : 0);
        }
    }

    /** struct cuse_init_in. */
    public record CuseInit(int major, int minor, int flags) {
        public static final Layout LAYOUT = Layout.of("cuse_init_in", 16, "major", 0, "minor", 4, "unused", 8, "flags", 12);

        public static CuseInit decode(ByteBuffer b, int at) {
            return new CuseInit(b.getInt(at), b.getInt(at + 4), b.getInt(at + 12));
        }
    }

    /** struct fuse_open_in (OPEN, OPENDIR). */
    public record Open(int flags) {
        public static final Layout LAYOUT = Layout.of("fuse_open_in", 8, "flags", 0, "open_flags", 4);

        public static Open decode(ByteBuffer b, int at) {
            return new Open(b.getInt(at));
        }
    }

    /** struct fuse_read_in (READ, READDIR); {@code flags} are the file's open flags. */
    public record Read(long fh, long offset, int size, int flags) {
        public static final Layout LAYOUT = Layout.of("fuse_read_in", 40,
                "fh", 0, "offset", 8, "size", 16, "read_flags", 20, "lock_owner", 24, "flags", 32);

        public static Read decode(ByteBuffer b, int at) {
            return new Read(b.getLong(at), b.getLong(at + 8), b.getInt(at + 16), b.getInt(at + 32));
        }
    }

    /** struct fuse_write_in; the data follows it, {@link #DATA} bytes after its start. */
    public record Write(long fh, long offset, int size, int flags) {
        public static final Layout LAYOUT = Layout.of("fuse_write_in", 40,
                "fh", 0, "offset", 8, "size", 16, "write_flags", 20, "lock_owner", 24, "flags", 32);
        public static final int DATA = 40;

        public static Write decode(ByteBuffer b, int at) {
            return new Write(b.getLong(at), b.getLong(at + 8), b.getInt(at + 16), b.getInt(at + 32));
        }
    }

    /** struct fuse_flush_in. */
    public record Flush(long fh, long lockOwner) {
        public static final Layout LAYOUT = Layout.of("fuse_flush_in", 24, "fh", 0, "unused", 8, "lock_owner", 16);

        public static Flush decode(ByteBuffer b, int at) {
            return new Flush(b.getLong(at), b.getLong(at + 16));
        }
    }

    /** struct fuse_release_in (RELEASE, RELEASEDIR). */
    public record Release(long fh, int flags, int releaseFlags) {
        public static final Layout LAYOUT = Layout.of("fuse_release_in", 24,
                "fh", 0, "flags", 8, "release_flags", 12, "lock_owner", 16);

        public static Release decode(ByteBuffer b, int at) {
            return new Release(b.getLong(at), b.getInt(at + 8), b.getInt(at + 12));
        }
    }

    /** struct fuse_poll_in: {@code kh} names the polled file in notifications. */
    public record Poll(long fh, long kh, int flags, int events) {
        public static final Layout LAYOUT = Layout.of("fuse_poll_in", 24, "fh", 0, "kh", 8, "flags", 16, "events", 20);
        /** FUSE_POLL_SCHEDULE_NOTIFY: the kernel waits for a notification of {@code kh}. */
        public static final int SCHEDULE_NOTIFY = 1;

        public static Poll decode(ByteBuffer b, int at) {
            return new Poll(b.getLong(at), b.getLong(at + 8), b.getInt(at + 16), b.getInt(at + 20));
        }

        public boolean scheduleNotify() {
            return (flags & SCHEDULE_NOTIFY) != 0;
        }
    }

    /** struct fuse_ioctl_in; {@code inSize} bytes of input follow it, {@link #DATA} bytes after its start. */
    public record Ioctl(long fh, int flags, int cmd, long arg, int inSize, int outSize) {
        public static final Layout LAYOUT = Layout.of("fuse_ioctl_in", 32,
                "fh", 0, "flags", 8, "cmd", 12, "arg", 16, "in_size", 24, "out_size", 28);
        public static final int DATA = 32;
        /** FUSE_IOCTL_UNRESTRICTED: CUSE only, the reply may ask for a retry with iovecs. */
        public static final int UNRESTRICTED = 1 << 1;

        public static Ioctl decode(ByteBuffer b, int at) {
            return new Ioctl(b.getLong(at), b.getInt(at + 8), b.getInt(at + 12), b.getLong(at + 16),
                    b.getInt(at + 24), b.getInt(at + 28));
        }
    }

    /** struct fuse_interrupt_in: the unique of the request to interrupt. */
    public record Interrupt(long unique) {
        public static final Layout LAYOUT = Layout.of("fuse_interrupt_in", 8, "unique", 0);

        public static Interrupt decode(ByteBuffer b, int at) {
            return new Interrupt(b.getLong(at));
        }
    }

    /** struct fuse_forget_in (the node is the header's). */
    public record Forget(long nlookup) {
        public static final Layout LAYOUT = Layout.of("fuse_forget_in", 8, "nlookup", 0);

        public static Forget decode(ByteBuffer b, int at) {
            return new Forget(b.getLong(at));
        }
    }

    /** struct fuse_batch_forget_in, followed by {@code count} struct fuse_forget_one. */
    public record BatchForget(int count) {
        public static final Layout LAYOUT = Layout.of("fuse_batch_forget_in", 8, "count", 0, "dummy", 4);
        public static final Layout ONE = Layout.of("fuse_forget_one", 16, "nodeid", 0, "nlookup", 8);

        public static BatchForget decode(ByteBuffer b, int at) {
            return new BatchForget(b.getInt(at));
        }

        public static long nodeid(ByteBuffer b, int at, int index) {
            return b.getLong(at + LAYOUT.size() + index * ONE.size());
        }

        public static long nlookup(ByteBuffer b, int at, int index) {
            return b.getLong(at + LAYOUT.size() + index * ONE.size() + 8);
        }
    }

    /** struct fuse_getattr_in. */
    public record Getattr(int flags, long fh) {
        public static final Layout LAYOUT = Layout.of("fuse_getattr_in", 16, "getattr_flags", 0, "dummy", 4, "fh", 8);

        public static Getattr decode(ByteBuffer b, int at) {
            return new Getattr(b.getInt(at), b.getLong(at + 8));
        }
    }

    /** struct fuse_setattr_in: the fields this package acts on. */
    public record Setattr(int valid, long fh, long size, int mode, int uid, int gid) {
        public static final Layout LAYOUT = Layout.of("fuse_setattr_in", 88, "valid", 0, "fh", 8, "size", 16,
                "lock_owner", 24, "atime", 32, "mtime", 40, "ctime", 48, "mode", 68, "uid", 76, "gid", 80);
        public static final int MODE = 1;
        public static final int UID = 1 << 1;
        public static final int GID = 1 << 2;
        public static final int SIZE = 1 << 3;
        public static final int ATIME = 1 << 4;
        public static final int MTIME = 1 << 5;

        public static Setattr decode(ByteBuffer b, int at) {
            return new Setattr(b.getInt(at), b.getLong(at + 8), b.getLong(at + 16), b.getInt(at + 68),
                    b.getInt(at + 76), b.getInt(at + 80));
        }
    }

    /** A NUL-terminated name (LOOKUP's body), at most {@code limit} bytes long. */
    public static String name(ByteBuffer b, int at, int limit) {
        int end = at;
        while (end < limit && b.get(end) != 0) {
            end++;
        }
        byte[] bytes = new byte[end - at];
        b.get(at, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
