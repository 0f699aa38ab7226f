package io.ibemu.emulator.mad;

import java.util.List;

/**
 * A subnet management packet's fixed part (IBA 14.2.1, ib_types.h ib_smp_t): the header with the
 * directed-route status word (D bit, 15-bit status), hop pointer and count, M_Key at byte 24, the
 * DR SLID/DLID, and the initial and return paths. The 64-byte attribute lies at
 * {@link Mad#SMP_DATA_OFFSET}. A LID-routed SMP uses the same positions; its direction, hop
 * fields, DR LIDs and paths are reserved (zero).
 */
public record Smp(int baseVersion, int mgmtClass, int classVersion, int method, boolean direction, int status,
                  int hopPointer, int hopCount, long transactionId, int attributeId, int attributeModifier,
                  long mKey, int drSlid, int drDlid, List<Integer> initialPath, List<Integer> returnPath) {
    public static final int PATH_HOPS = 64;
    /** The permissive LID (IBA 14.2.1.2): a directed-route SMP's DR SLID/DLID when the path starts or ends by route. */
    public static final int PERMISSIVE_LID = 0xffff;
    public static final Layout LAYOUT = Layout.of("Smp", Mad.SIZE,
            Field.of("baseVersion", "MadBaseVersion", 0, 8),
            Field.of("mgmtClass", "MadMgmtClass", 8, 8),
            Field.of("classVersion", "MadClassVersion", 16, 8),
            Field.of("method", "MadMethod", 24, 8),
            Field.of("direction", "DrSmpDirection", 32, 1),
            Field.of("status", "DrSmpStatus", 33, 15),
            Field.of("hopPointer", "DrSmpHopPtr", 48, 8),
            Field.of("hopCount", "DrSmpHopCnt", 56, 8),
            Field.of("transactionId", "MadTRID", 64, 64),
            Field.of("attributeId", "MadAttr", 128, 16),
            Field.of("attributeModifier", "MadModifier", 160, 32),
            Field.of("mKey", "MadMkey", 192, 64),
            Field.of("drSlid", "DrSmpSLID", 256, 16),
            Field.of("drDlid", "DrSmpDLID", 272, 16),
            Field.array("initialPath", "DrSmpPath", 1024, 8, PATH_HOPS, 8),
            Field.array("returnPath", "DrSmpRetPath", 1536, 8, PATH_HOPS, 8));
    public static final RecordCodec<Smp> CODEC = RecordCodec.of(Smp.class, LAYOUT);
    /** Byte offsets of the two paths, one port number a byte. */
    public static final int INITIAL_PATH = LAYOUT.field("initialPath").bitOffset() / 8;
    public static final int RETURN_PATH = LAYOUT.field("returnPath").bitOffset() / 8;

    // the fields the subnet management interface steers by, read and written in place
    private static final Field DIRECTION = LAYOUT.field("direction");
    private static final Field HOP_POINTER = LAYOUT.field("hopPointer");
    private static final Field HOP_COUNT = LAYOUT.field("hopCount");
    private static final Field M_KEY = LAYOUT.field("mKey");
    private static final Field DR_SLID = LAYOUT.field("drSlid");
    private static final Field DR_DLID = LAYOUT.field("drDlid");

    public static Smp decode(byte[] mad) {
        return CODEC.decode(mad, 0);
    }

    /** Writes the fixed part, leaving the attribute data (bytes 64..127) as it is. */
    public void encode(byte[] mad) {
        byte[] data = java.util.Arrays.copyOfRange(mad, Mad.SMP_DATA_OFFSET, Mad.SMP_DATA_OFFSET + Mad.SMP_DATA_SIZE);
        CODEC.encode(this, mad, 0);
        System.arraycopy(data, 0, mad, Mad.SMP_DATA_OFFSET, data.length);
    }

    /** The D bit: set on the way back (a response, or a trap's return). */
    public static boolean direction(byte[] mad) {
        return DIRECTION.get(mad, 0) != 0;
    }

    public static int hopPointer(byte[] mad) {
        return (int) HOP_POINTER.get(mad, 0);
    }

    public static void setHopPointer(byte[] mad, int hopPointer) {
        HOP_POINTER.set(mad, 0, hopPointer);
    }

    public static int hopCount(byte[] mad) {
        return (int) HOP_COUNT.get(mad, 0);
    }

    public static long mKey(byte[] mad) {
        return M_KEY.get(mad, 0);
    }

    public static int drSlid(byte[] mad) {
        return (int) DR_SLID.get(mad, 0);
    }

    public static int drDlid(byte[] mad) {
        return (int) DR_DLID.get(mad, 0);
    }

    /** The port of hop {@code hop} on the initial path. */
    public static int initialPath(byte[] mad, int hop) {
        return mad[INITIAL_PATH + hop] & 0xff;
    }

    /** The port of hop {@code hop} on the return path. */
    public static int returnPath(byte[] mad, int hop) {
        return mad[RETURN_PATH + hop] & 0xff;
    }

    public static void setReturnPath(byte[] mad, int hop, int port) {
        mad[RETURN_PATH + hop] = (byte) port;
    }
}
