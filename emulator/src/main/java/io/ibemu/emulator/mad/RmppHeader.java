package io.ibemu.emulator.mad;

/**
 * The RMPP header that follows the common MAD header in the RMPP classes (IBA 13.6.2,
 * ib_rmpp_hdr): version, type, the response time sharing a byte with the three flags, status,
 * then SegmentNumber and PayloadLength/NewWindowLast. Read and written in place.
 */
public final class RmppHeader {
    public static final int VERSION = 1;
    public static final int TYPE_DATA = 1;
    public static final int TYPE_ACK = 2;
    public static final int TYPE_STOP = 3;
    public static final int TYPE_ABORT = 4;
    public static final int FLAG_ACTIVE = 0x1;
    public static final int FLAG_FIRST = 0x2;
    public static final int FLAG_LAST = 0x4;

    public static final Layout LAYOUT = Layout.of("RmppHeader", 36,
            Field.of("version", "RmppVers", 192, 8),
            Field.of("type", "RmppType", 200, 8),
            Field.of("responseTime", "RmppResp", 208, 5),
            Field.of("flags", "RmppFlags", 213, 3),
            Field.of("status", "RmppStatus", 216, 8),
            Field.of("segment", "RmppData1", 224, 32),
            Field.of("lengthOrWindow", "RmppData2", 256, 32));
    /** Where the header ends: the common MAD header and these 12 bytes. */
    public static final int END = LAYOUT.sizeBytes();

    private static final Field VERSION_FIELD = LAYOUT.field("version");
    private static final Field TYPE = LAYOUT.field("type");
    private static final Field FLAGS = LAYOUT.field("flags");
    private static final Field STATUS = LAYOUT.field("status");
    private static final Field SEGMENT = LAYOUT.field("segment");
    private static final Field LENGTH_OR_WINDOW = LAYOUT.field("lengthOrWindow");

    private RmppHeader() {
    }

    public static int version(byte[] mad) {
        return (int) VERSION_FIELD.get(mad, 0);
    }

    public static int type(byte[] mad) {
        return (int) TYPE.get(mad, 0);
    }

    public static int flags(byte[] mad) {
        return (int) FLAGS.get(mad, 0);
    }

    public static int status(byte[] mad) {
        return (int) STATUS.get(mad, 0);
    }

    /** SegmentNumber for DATA, the segment acknowledged for ACK. */
    public static int segment(byte[] mad) {
        return (int) SEGMENT.get(mad, 0);
    }

    /** PayloadLength in DATA (first and last segment), NewWindowLast in ACK. */
    public static int lengthOrWindow(byte[] mad) {
        return (int) LENGTH_OR_WINDOW.get(mad, 0);
    }

    public static boolean active(byte[] mad) {
        return active(mad, 0);
    }

    /** The Active flag of the MAD that starts at {@code base} of {@code b} (after a umad header). */
    public static boolean active(byte[] b, int base) {
        return (FLAGS.get(b, base) & FLAG_ACTIVE) != 0;
    }

    /** Writes the header (version 1), leaving the response time as it is. */
    public static void set(byte[] mad, int type, int flags, int status, int segment, int lengthOrWindow) {
        VERSION_FIELD.set(mad, 0, VERSION);
        TYPE.set(mad, 0, type);
        FLAGS.set(mad, 0, flags);
        STATUS.set(mad, 0, status);
        SEGMENT.set(mad, 0, segment & 0xFFFFFFFFL);
        LENGTH_OR_WINDOW.set(mad, 0, lengthOrWindow & 0xFFFFFFFFL);
    }
}
