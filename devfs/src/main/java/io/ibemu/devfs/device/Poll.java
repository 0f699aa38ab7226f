package io.ibemu.devfs.device;

/** poll(2) event bits, as in {@code <poll.h>}. */
public final class Poll {
    public static final int IN = 0x001;
    public static final int PRI = 0x002;
    public static final int OUT = 0x004;
    public static final int ERR = 0x008;
    public static final int HUP = 0x010;
    public static final int RDNORM = 0x040;
    public static final int WRNORM = 0x100;
    /** DEFAULT_POLLMASK: what the VFS reports for a file whose driver has no .poll. */
    public static final int DEFAULT_MASK = IN | OUT | RDNORM | WRNORM;

    private Poll() {
    }
}
