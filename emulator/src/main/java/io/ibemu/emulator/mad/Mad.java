package io.ibemu.emulator.mad;

/**
 * Sizes, offsets and in-place accessors for a raw 256-byte MAD, read through
 * {@link MadHeader#LAYOUT} and {@link Smp#LAYOUT} so every position is declared once.
 */
public final class Mad {
    public static final int SIZE = 256;
    public static final int HEADER_SIZE = 24;
    public static final int BASE_VERSION = 1;
    /** SMP attribute data: 64 bytes at 64 (IBA 14.2.1.1/14.2.1.2). */
    public static final int SMP_DATA_OFFSET = 64;
    public static final int SMP_DATA_SIZE = 64;
    /** GS classes without RMPP (PerfMgmt): 40 reserved bytes after the header, data at 64 (IBA 16.1.1). */
    public static final int PERF_DATA_OFFSET = 64;
    public static final int PERF_DATA_SIZE = 192;

    private static final Field BASE = MadHeader.LAYOUT.field("baseVersion");
    private static final Field CLASS = MadHeader.LAYOUT.field("mgmtClass");
    private static final Field CLASS_VERSION = MadHeader.LAYOUT.field("classVersion");
    private static final Field METHOD = MadHeader.LAYOUT.field("method");
    private static final Field STATUS = MadHeader.LAYOUT.field("status");
    private static final Field TID = MadHeader.LAYOUT.field("transactionId");
    private static final Field ATTRIBUTE_ID = MadHeader.LAYOUT.field("attributeId");
    private static final Field ATTRIBUTE_MODIFIER = MadHeader.LAYOUT.field("attributeModifier");
    private static final Field M_KEY = Smp.LAYOUT.field("mKey");
    private static final Field HOP_POINTER = Smp.LAYOUT.field("hopPointer");
    private static final Field HOP_COUNT = Smp.LAYOUT.field("hopCount");

    private Mad() {
    }

    public static int baseVersion(byte[] mad) {
        return (int) BASE.get(mad, 0);
    }

    public static int mgmtClass(byte[] mad) {
        return (int) CLASS.get(mad, 0);
    }

    public static int classVersion(byte[] mad) {
        return (int) CLASS_VERSION.get(mad, 0);
    }

    public static int method(byte[] mad) {
        return (int) METHOD.get(mad, 0);
    }

    public static void setMethod(byte[] mad, int method) {
        METHOD.set(mad, 0, method);
    }

    /** The whole 16-bit status word (for a directed-route SMP, D bit included). */
    public static int status(byte[] mad) {
        return (int) STATUS.get(mad, 0);
    }

    public static void setStatus(byte[] mad, int status) {
        STATUS.set(mad, 0, status);
    }

    public static long transactionId(byte[] mad) {
        return TID.get(mad, 0);
    }

    public static int attributeId(byte[] mad) {
        return (int) ATTRIBUTE_ID.get(mad, 0);
    }

    public static int attributeModifier(byte[] mad) {
        return (int) ATTRIBUTE_MODIFIER.get(mad, 0);
    }

    public static long mKey(byte[] mad) {
        return M_KEY.get(mad, 0);
    }

    public static int hopPointer(byte[] mad) {
        return (int) HOP_POINTER.get(mad, 0);
    }

    public static int hopCount(byte[] mad) {
        return (int) HOP_COUNT.get(mad, 0);
    }
}
