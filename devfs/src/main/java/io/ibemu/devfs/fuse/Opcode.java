package io.ibemu.devfs.fuse;

/** The request opcodes and notification codes of linux/fuse.h (enum fuse_opcode, enum fuse_notify_code). */
public final class Opcode {
    public static final int LOOKUP = 1;
    public static final int FORGET = 2;
    public static final int GETATTR = 3;
    public static final int SETATTR = 4;
    public static final int OPEN = 14;
    public static final int READ = 15;
    public static final int WRITE = 16;
    public static final int STATFS = 17;
    public static final int RELEASE = 18;
    public static final int FLUSH = 25;
    public static final int INIT = 26;
    public static final int OPENDIR = 27;
    public static final int READDIR = 28;
    public static final int RELEASEDIR = 29;
    public static final int INTERRUPT = 36;
    public static final int DESTROY = 38;
    public static final int IOCTL = 39;
    public static final int POLL = 40;
    public static final int BATCH_FORGET = 42;
    /** CUSE's INIT, sent on /dev/cuse instead of {@link #INIT}. */
    public static final int CUSE_INIT = 4096;
    /** The largest opcode a handler table holds. */
    static final int MAX = CUSE_INIT;

    /** fuse_notify_code: FUSE_NOTIFY_POLL. */
    public static final int NOTIFY_POLL = 1;
    /** fuse_notify_code: FUSE_NOTIFY_INVAL_ENTRY. */
    public static final int NOTIFY_INVAL_ENTRY = 3;

    /** Set in an INTERRUPT request's own unique (FUSE_INT_REQ_BIT). */
    public static final long INTERRUPT_BIT = 1;

    private Opcode() {
    }
}
