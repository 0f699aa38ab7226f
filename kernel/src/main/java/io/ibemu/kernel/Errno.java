package io.ibemu.kernel;

/** A failed system call: the positive errno the kernel would return. Carries no stack trace. */
public final class Errno extends Exception {

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int ENXIO = 6;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EACCES = 13;
    public static final int EEXIST = 17;
    public static final int ENODEV = 19;
    public static final int ENOTDIR = 20;
    public static final int EINVAL = 22;
    public static final int EMFILE = 24;
    public static final int ENOTTY = 25;
    public static final int ENOSPC = 28;
    public static final int ESPIPE = 29;
    public static final int EPIPE = 32;
    public static final int ERANGE = 34;
    public static final int ENOSYS = 38;
    public static final int ENODATA = 61;
    public static final int ENOTUNIQ = 76;
    public static final int EPROTONOSUPPORT = 93;
    public static final int EOPNOTSUPP = 95;
    public static final int EAFNOSUPPORT = 97;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ENETUNREACH = 101;
    public static final int ECONNRESET = 104;
    public static final int EISCONN = 106;
    public static final int ECONNREFUSED = 111;
    public static final int EHOSTUNREACH = 113;
    public static final int ETIMEDOUT = 110;

    private final int code;

    public Errno(int code) {
        super("errno " + code, null, false, false);
        this.code = code;
    }

    public static Errno of(int code) {
        return new Errno(code);
    }

    public int code() {
        return code;
    }
}
