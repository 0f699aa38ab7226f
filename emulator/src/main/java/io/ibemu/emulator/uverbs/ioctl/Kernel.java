package io.ibemu.emulator.uverbs.ioctl;

/**
 * The kernel releases whose ioctl trees a device can present: each entry of the tree says since
 * which of them it exists ({@link AttrSpec#since}, {@link MethodSpec#since},
 * {@link ObjectSpec#since}). Ordered oldest first; an entry that came in a release between two
 * of these is marked with the later one, and its comment names the release.
 */
public enum Kernel {
    /**
     * 5.4 (Ubuntu 20.04's): INVOKE_WRITE, so libibverbs tunnels every command through ioctl,
     * but GET_CONTEXT and the async event file are write commands (ASYNC_EVENT is 5.7's) and
     * the GID table comes from sysfs (the GID queries are 5.10's).
     */
    V5_4("5.4"),
    /** 6.1: Debian bookworm's kernel, the one KernelConformanceTest runs in the VM. */
    V6_1("6.1");

    private final String release;

    Kernel(String release) {
        this.release = release;
    }

    public String release() {
        return release;
    }

    public boolean atLeast(Kernel other) {
        return compareTo(other) >= 0;
    }

    /** The newest release ibemu presents. */
    public static Kernel newest() {
        return values()[values().length - 1];
    }

    public static Kernel oldest() {
        return values()[0];
    }
}
