package io.ibemu.emulator.agent;

/** Directed-route SMP fields (IBA 14.2.1.2) the subnet management interface steers by. */
public final class Smp {
    public static final int MAX_HOPS = 64;
    public static final int INITIAL_PATH = 128;
    public static final int RETURN_PATH = 192;

    private Smp() {
    }

    public static boolean direction(byte[] m) {
        return (m[4] & 0x80) != 0;
    }

    public static int hopPointer(byte[] m) {
        return m[6] & 0xff;
    }

    public static void setHopPointer(byte[] m, int v) {
        m[6] = (byte) v;
    }

    public static int hopCount(byte[] m) {
        return m[7] & 0xff;
    }

    public static int drSlid(byte[] m) {
        return ((m[32] & 0xff) << 8) | (m[33] & 0xff);
    }

    public static int drDlid(byte[] m) {
        return ((m[34] & 0xff) << 8) | (m[35] & 0xff);
    }

    public static int initialPath(byte[] m, int hop) {
        return m[INITIAL_PATH + hop] & 0xff;
    }

    public static int returnPath(byte[] m, int hop) {
        return m[RETURN_PATH + hop] & 0xff;
    }

    public static void setReturnPath(byte[] m, int hop, int port) {
        m[RETURN_PATH + hop] = (byte) port;
    }
}
