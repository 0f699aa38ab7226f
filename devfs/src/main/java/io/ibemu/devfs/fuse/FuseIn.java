package io.ibemu.devfs.fuse;

import io.ibemu.kernel.CField;
import io.ibemu.kernel.CStruct;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The request side of linux/fuse.h: the in-header and each request body this package serves,
 * each declared once as a {@link CStruct} (offsets computed from the members, checked against
 * the system's header by a unit test) and decoded through its fields from a native-order buffer
 * ({@code at} is where the structure starts). The kernel sends its own structure sizes whatever
 * minor was negotiated (from 7.9 on).
 */
public final class FuseIn {

    private FuseIn() {
    }

    /** struct fuse_in_header. */
    public record Header(int length, int opcode, long unique, long nodeid, int uid, int gid, int pid) {
        public static final CStruct LAYOUT = CStruct.named("fuse_in_header").u32("len").u32("opcode").u64("unique")
                .u64("nodeid").u32("uid").u32("gid").u32("pid").u16("total_extlen").u16("padding").build();
        public static final int SIZE = LAYOUT.size();
        private static final CField LEN = LAYOUT.field("len");
        private static final CField OPCODE = LAYOUT.field("opcode");
        private static final CField UNIQUE = LAYOUT.field("unique");
        private static final CField NODEID = LAYOUT.field("nodeid");
        private static final CField UID = LAYOUT.field("uid");
        private static final CField GID = LAYOUT.field("gid");
        private static final CField PID = LAYOUT.field("pid");

        public static Header decode(ByteBuffer b, int at) {
            return new Header(LEN.getInt(b, at), OPCODE.getInt(b, at), UNIQUE.get(b, at), NODEID.get(b, at),
                    UID.getInt(b, at), GID.getInt(b, at), PID.getInt(b, at));
        }
    }

    /** struct fuse_init_in (the flags2 word since 7.36; older kernels send 16 bytes). */
    public record Init(int major, int minor, int maxReadahead, int flags, int flags2) {
        public static final CStruct LAYOUT = CStruct.named("fuse_init_in").u32("major").u32("minor")
                .u32("max_readahead").u32("flags").u32("flags2").pad(4, 11).build();
        private static final CField MAJOR = LAYOUT.field("major");
        private static final CField MINOR = LAYOUT.field("minor");
        private static final CField MAX_READAHEAD = LAYOUT.field("max_readahead");
        private static final CField FLAGS = LAYOUT.field("flags");
        private static final CField FLAGS2 = LAYOUT.field("flags2");

        public static Init decode(ByteBuffer b, int at, int length) {
            return new Init(MAJOR.getInt(b, at), MINOR.getInt(b, at), MAX_READAHEAD.getInt(b, at), FLAGS.getInt(b, at),
                    length >= FLAGS2.end() ? FLAGS2.getInt(b, at) : 0);
        }
    }

    /** struct cuse_init_in. */
    public record CuseInit(int major, int minor, int flags) {
        public static final CStruct LAYOUT = CStruct.named("cuse_init_in").u32("major").u32("minor").u32("unused")
                .u32("flags").build();
        private static final CField MAJOR = LAYOUT.field("major");
        private static final CField MINOR = LAYOUT.field("minor");
        private static final CField FLAGS = LAYOUT.field("flags");

        public static CuseInit decode(ByteBuffer b, int at) {
            return new CuseInit(MAJOR.getInt(b, at), MINOR.getInt(b, at), FLAGS.getInt(b, at));
        }
    }

    /** struct fuse_open_in (OPEN, OPENDIR). */
    public record Open(int flags) {
        public static final CStruct LAYOUT = CStruct.named("fuse_open_in").u32("flags").u32("open_flags").build();
        private static final CField FLAGS = LAYOUT.field("flags");

        public static Open decode(ByteBuffer b, int at) {
            return new Open(FLAGS.getInt(b, at));
        }
    }

    /** struct fuse_read_in (READ, READDIR); {@code flags} are the file's open flags. */
    public record Read(long fh, long offset, int size, int flags) {
        public static final CStruct LAYOUT = CStruct.named("fuse_read_in").u64("fh").u64("offset").u32("size")
                .u32("read_flags").u64("lock_owner").u32("flags").u32("padding").build();
        private static final CField FH = LAYOUT.field("fh");
        private static final CField OFFSET = LAYOUT.field("offset");
        private static final CField SIZE = LAYOUT.field("size");
        private static final CField FLAGS = LAYOUT.field("flags");

        public static Read decode(ByteBuffer b, int at) {
            return new Read(FH.get(b, at), OFFSET.get(b, at), SIZE.getInt(b, at), FLAGS.getInt(b, at));
        }
    }

    /** struct fuse_write_in; the data follows it, {@link #DATA} bytes after its start. */
    public record Write(long fh, long offset, int size, int flags) {
        public static final CStruct LAYOUT = CStruct.named("fuse_write_in").u64("fh").u64("offset").u32("size")
                .u32("write_flags").u64("lock_owner").u32("flags").u32("padding").build();
        public static final int DATA = LAYOUT.size();
        private static final CField FH = LAYOUT.field("fh");
        private static final CField OFFSET = LAYOUT.field("offset");
        private static final CField SIZE = LAYOUT.field("size");
        private static final CField FLAGS = LAYOUT.field("flags");

        public static Write decode(ByteBuffer b, int at) {
            return new Write(FH.get(b, at), OFFSET.get(b, at), SIZE.getInt(b, at), FLAGS.getInt(b, at));
        }
    }

    /** struct fuse_flush_in. */
    public record Flush(long fh, long lockOwner) {
        public static final CStruct LAYOUT = CStruct.named("fuse_flush_in").u64("fh").u32("unused").u32("padding")
                .u64("lock_owner").build();
        private static final CField FH = LAYOUT.field("fh");
        private static final CField LOCK_OWNER = LAYOUT.field("lock_owner");

        public static Flush decode(ByteBuffer b, int at) {
            return new Flush(FH.get(b, at), LOCK_OWNER.get(b, at));
        }
    }

    /** struct fuse_release_in (RELEASE, RELEASEDIR). */
    public record Release(long fh, int flags, int releaseFlags) {
        public static final CStruct LAYOUT = CStruct.named("fuse_release_in").u64("fh").u32("flags")
                .u32("release_flags").u64("lock_owner").build();
        private static final CField FH = LAYOUT.field("fh");
        private static final CField FLAGS = LAYOUT.field("flags");
        private static final CField RELEASE_FLAGS = LAYOUT.field("release_flags");

        public static Release decode(ByteBuffer b, int at) {
            return new Release(FH.get(b, at), FLAGS.getInt(b, at), RELEASE_FLAGS.getInt(b, at));
        }
    }

    /** struct fuse_poll_in: {@code kh} names the polled file in notifications. */
    public record Poll(long fh, long kh, int flags, int events) {
        public static final CStruct LAYOUT = CStruct.named("fuse_poll_in").u64("fh").u64("kh").u32("flags")
                .u32("events").build();
        /** FUSE_POLL_SCHEDULE_NOTIFY: the kernel waits for a notification of {@code kh}. */
        public static final int SCHEDULE_NOTIFY = 1;
        private static final CField FH = LAYOUT.field("fh");
        private static final CField KH = LAYOUT.field("kh");
        private static final CField FLAGS = LAYOUT.field("flags");
        private static final CField EVENTS = LAYOUT.field("events");

        public static Poll decode(ByteBuffer b, int at) {
            return new Poll(FH.get(b, at), KH.get(b, at), FLAGS.getInt(b, at), EVENTS.getInt(b, at));
        }

        public boolean scheduleNotify() {
            return (flags & SCHEDULE_NOTIFY) != 0;
        }
    }

    /** struct fuse_ioctl_in; {@code inSize} bytes of input follow it, {@link #DATA} bytes after its start. */
    public record Ioctl(long fh, int flags, int cmd, long arg, int inSize, int outSize) {
        public static final CStruct LAYOUT = CStruct.named("fuse_ioctl_in").u64("fh").u32("flags").u32("cmd")
                .u64("arg").u32("in_size").u32("out_size").build();
        public static final int DATA = LAYOUT.size();
        /** FUSE_IOCTL_UNRESTRICTED: CUSE only, the reply may ask for a retry with iovecs. */
        public static final int UNRESTRICTED = 1 << 1;
        private static final CField FH = LAYOUT.field("fh");
        private static final CField FLAGS = LAYOUT.field("flags");
        private static final CField CMD = LAYOUT.field("cmd");
        private static final CField ARG = LAYOUT.field("arg");
        private static final CField IN_SIZE = LAYOUT.field("in_size");
        private static final CField OUT_SIZE = LAYOUT.field("out_size");

        public static Ioctl decode(ByteBuffer b, int at) {
            return new Ioctl(FH.get(b, at), FLAGS.getInt(b, at), CMD.getInt(b, at), ARG.get(b, at),
                    IN_SIZE.getInt(b, at), OUT_SIZE.getInt(b, at));
        }
    }

    /** struct fuse_interrupt_in: the unique of the request to interrupt. */
    public record Interrupt(long unique) {
        public static final CStruct LAYOUT = CStruct.named("fuse_interrupt_in").u64("unique").build();
        private static final CField UNIQUE = LAYOUT.field("unique");

        public static Interrupt decode(ByteBuffer b, int at) {
            return new Interrupt(UNIQUE.get(b, at));
        }
    }

    /** struct fuse_forget_in (the node is the header's). */
    public record Forget(long nlookup) {
        public static final CStruct LAYOUT = CStruct.named("fuse_forget_in").u64("nlookup").build();
        private static final CField NLOOKUP = LAYOUT.field("nlookup");

        public static Forget decode(ByteBuffer b, int at) {
            return new Forget(NLOOKUP.get(b, at));
        }
    }

    /** struct fuse_batch_forget_in, followed by {@code count} struct fuse_forget_one. */
    public record BatchForget(int count) {
        public static final CStruct LAYOUT = CStruct.named("fuse_batch_forget_in").u32("count").u32("dummy").build();
        public static final CStruct ONE = CStruct.named("fuse_forget_one").u64("nodeid").u64("nlookup").build();
        private static final CField COUNT = LAYOUT.field("count");
        private static final CField NODEID = ONE.field("nodeid");
        private static final CField NLOOKUP = ONE.field("nlookup");

        public static BatchForget decode(ByteBuffer b, int at) {
            return new BatchForget(COUNT.getInt(b, at));
        }

        public static long nodeid(ByteBuffer b, int at, int index) {
            return NODEID.get(b, at + LAYOUT.size() + index * ONE.size());
        }

        public static long nlookup(ByteBuffer b, int at, int index) {
            return NLOOKUP.get(b, at + LAYOUT.size() + index * ONE.size());
        }
    }

    /** struct fuse_getattr_in. */
    public record Getattr(int flags, long fh) {
        public static final CStruct LAYOUT = CStruct.named("fuse_getattr_in").u32("getattr_flags").u32("dummy")
                .u64("fh").build();
        private static final CField FLAGS = LAYOUT.field("getattr_flags");
        private static final CField FH = LAYOUT.field("fh");

        public static Getattr decode(ByteBuffer b, int at) {
            return new Getattr(FLAGS.getInt(b, at), FH.get(b, at));
        }
    }

    /** struct fuse_setattr_in: the fields this package acts on. */
    public record Setattr(int valid, long fh, long size, int mode, int uid, int gid) {
        public static final CStruct LAYOUT = CStruct.named("fuse_setattr_in").u32("valid").u32("padding").u64("fh")
                .u64("size").u64("lock_owner").u64("atime").u64("mtime").u64("ctime").u32("atimensec")
                .u32("mtimensec").u32("ctimensec").u32("mode").u32("unused4").u32("uid").u32("gid").u32("unused5")
                .build();
        public static final int MODE = 1;
        public static final int UID = 1 << 1;
        public static final int GID = 1 << 2;
        public static final int SIZE = 1 << 3;
        public static final int ATIME = 1 << 4;
        public static final int MTIME = 1 << 5;
        private static final CField VALID = LAYOUT.field("valid");
        private static final CField FH = LAYOUT.field("fh");
        private static final CField SIZE_FIELD = LAYOUT.field("size");
        private static final CField MODE_FIELD = LAYOUT.field("mode");
        private static final CField UID_FIELD = LAYOUT.field("uid");
        private static final CField GID_FIELD = LAYOUT.field("gid");

        public static Setattr decode(ByteBuffer b, int at) {
            return new Setattr(VALID.getInt(b, at), FH.get(b, at), SIZE_FIELD.get(b, at), MODE_FIELD.getInt(b, at),
                    UID_FIELD.getInt(b, at), GID_FIELD.getInt(b, at));
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
