package io.ibemu.emulator.uverbs.ioctl;

/**
 * The kernel releases whose uverbs trees differ in a way libibverbs or a user notices; each entry
 * of the tree says since which one it exists ({@link AttrSpec#since}, {@link MethodSpec#since}).
 * Ordered oldest first.
 */
public enum Kernel {
    /** The oldest release with the ioctl path libibverbs uses for anything. */
    V4_19("4.19"),
    V5_4("5.4"),
    V5_10("5.10"),
    /** 6.1: Debian bookworm's kernel, the one KernelConformanceTest runs. */
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
}
