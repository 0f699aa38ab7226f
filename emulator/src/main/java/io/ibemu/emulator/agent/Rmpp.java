package io.ibemu.emulator.agent;

/** The RMPP header that follows the common MAD header in RMPP classes (IBA 13.6.2). */
public final class Rmpp {
    public static final int VERSION = 1;
    public static final int TYPE_DATA = 1;
    public static final int TYPE_ACK = 2;
    public static final int TYPE_STOP = 3;
    public static final int TYPE_ABORT = 4;
    public static final int FLAG_ACTIVE = 0x1;
    public static final int FLAG_FIRST = 0x2;
    public static final int FLAG_LAST = 0x4;
    public static final int HEADER_END = 36;

    private Rmpp() {
    }

    public static int version(byte[] m) {
        return m[24] & 0xff;
    }

    public static int type(byte[] m) {
        return m[25] & 0xff;
    }

    /** The response-time field shares the byte with the flags; flags are its low 3 bits. */
    public static int flags(byte[] m) {
        return m[26] & 0x07;
    }

    public static int status(byte[] m) {
        return m[27] & 0xff;
    }

    /** seg_num for DATA, the segment acknowledged for ACK. */
    public static int segment(byte[] m) {
        return getInt(m, 28);
    }

    /** paylen_newwin: payload length in DATA (first and last segment), NewWindowLast in ACK. */
    public static int lengthOrWindow(byte[] m) {
        return getInt(m, 32);
    }

    public static boolean active(byte[] m) {
        return (flags(m) & FLAG_ACTIVE) != 0;
    }

    public static void set(byte[] m, int type, int flags, int status, int segment, int lengthOrWindow) {
        m[24] = VERSION;
        m[25] = (byte) type;
        m[26] = (byte) ((m[26] & 0xf8) | flags);
        m[27] = (byte) status;
        putInt(m, 28, segment);
        putInt(m, 32, lengthOrWindow);
    }

    static int getInt(byte[] m, int off) {
        return ((m[off] & 0xff) << 24) | ((m[off + 1] & 0xff) << 16) | ((m[off + 2] & 0xff) << 8) | (m[off + 3] & 0xff);
    }

    static void putInt(byte[] m, int off, int v) {
        m[off] = (byte) (v >>> 24);
        m[off + 1] = (byte) (v >>> 16);
        m[off + 2] = (byte) (v >>> 8);
        m[off + 3] = (byte) v;
    }
}
