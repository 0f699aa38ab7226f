package io.ibemu.emulator.abi;

/** The kernel's _IOC encoding of ioctl request numbers ({@code <asm-generic/ioctl.h>}). */
public final class Ioc {
    public static final int NONE = 0;
    public static final int WRITE = 1;
    public static final int READ = 2;

    private Ioc() {
    }

    public static int io(int type, int nr) {
        return encode(NONE, type, nr, 0);
    }

    public static int iow(int type, int nr, int size) {
        return encode(WRITE, type, nr, size);
    }

    public static int iowr(int type, int nr, int size) {
        return encode(READ | WRITE, type, nr, size);
    }

    public static int encode(int dir, int type, int nr, int size) {
        return (dir << 30) | (size << 16) | (type << 8) | nr;
    }

    public static int size(int cmd) {
        return (cmd >>> 16) & 0x3fff;
    }

    public static int dir(int cmd) {
        return cmd >>> 30;
    }
}
