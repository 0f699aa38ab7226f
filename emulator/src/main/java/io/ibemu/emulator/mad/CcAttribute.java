package io.ibemu.emulator.mad;

/** Congestion Control class (0x21) attribute ids and MAD layout (IBA annex A10.4, ib_types.h ib_cc_mad_t). */
public final class CcAttribute {
    public static final int CLASS_PORT_INFO = 0x0001;
    public static final int NOTICE = 0x0002;
    public static final int CONGESTION_INFO = 0x0011;
    public static final int CONGESTION_KEY_INFO = 0x0012;
    public static final int CONGESTION_LOG = 0x0013;
    public static final int SWITCH_CONGESTION_SETTING = 0x0014;
    public static final int SWITCH_PORT_CONGESTION_SETTING = 0x0015;
    public static final int CA_CONGESTION_SETTING = 0x0016;
    public static final int CONGESTION_CONTROL_TABLE = 0x0017;
    public static final int TIME_STAMP = 0x0018;

    /** The class version the annex gives CC MADs (libibmad and OpenSM send 2). */
    public static final int CLASS_VERSION = 2;
    /** CC_Key: 8 bytes after the common header. */
    public static final int KEY_OFFSET = 24;
    /** CongestionLog uses the 32 reserved bytes too: its data starts right after the CC_Key. */
    public static final int LOG_DATA_OFFSET = 32;
    /** Every other attribute: 192 bytes at 64. */
    public static final int DATA_OFFSET = 64;

    private CcAttribute() {
    }
}
