package io.ibemu.emulator.mad;

/** Performance management attribute ids (IBA 16.1.3, ib_types.h IB_MAD_ATTR_PORT_*). */
public final class PerfAttribute {
    public static final int CLASS_PORT_INFO = 0x0001;
    public static final int PORT_SAMPLES_CONTROL = 0x0010;
    public static final int PORT_SAMPLES_RESULT = 0x0011;
    public static final int PORT_COUNTERS = 0x0012;
    public static final int PORT_COUNTERS_EXTENDED = 0x001D;
    public static final int PORT_XMIT_DATA_SL = 0x0036;
    public static final int PORT_RCV_DATA_SL = 0x0037;

    /** ClassPortInfo CapabilityMask bits of the PMA (IBA 16.1.3.1, ib_types.h IB_PM_*). */
    public static final int CAP_ALL_PORT_SELECT = 1 << 8;
    public static final int CAP_EXTENDED_WIDTH = 1 << 9;
    public static final int CAP_EXTENDED_WIDTH_NO_IETF = 1 << 10;
    public static final int CAP_SAMPLES_ONLY = 1 << 11;
    public static final int CAP_PORT_XMIT_WAIT = 1 << 12;

    /** PortSelect value meaning "every port" where AllPortSelect is supported. */
    public static final int ALL_PORTS = 0xFF;

    private PerfAttribute() {
    }
}
