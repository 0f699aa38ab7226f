package io.ibemu.emulator.mad;

/** Subnet management attribute ids (IBA 14.2.5, ib_types.h IB_MAD_ATTR_*). */
public final class SmAttribute {
    public static final int NOTICE = 0x0002;
    public static final int NODE_DESCRIPTION = 0x0010;
    public static final int NODE_INFO = 0x0011;
    public static final int SWITCH_INFO = 0x0012;
    public static final int GUID_INFO = 0x0014;
    public static final int PORT_INFO = 0x0015;
    public static final int P_KEY_TABLE = 0x0016;
    public static final int SL_TO_VL_MAPPING_TABLE = 0x0017;
    public static final int VL_ARBITRATION_TABLE = 0x0018;
    public static final int LINEAR_FORWARDING_TABLE = 0x0019;
    public static final int RANDOM_FORWARDING_TABLE = 0x001A;
    public static final int MULTICAST_FORWARDING_TABLE = 0x001B;
    public static final int SM_INFO = 0x0020;
    public static final int VENDOR_DIAG = 0x0030;
    public static final int LED_INFO = 0x0031;
    public static final int PORT_INFO_EXTENDED = 0x0033;
    public static final int MLNX_EXTENDED_PORT_INFO = 0xFF90;

    private SmAttribute() {
    }
}
