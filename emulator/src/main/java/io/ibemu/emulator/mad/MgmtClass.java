package io.ibemu.emulator.mad;

/** Management class codes (IBA 13.4.4, ib_types.h IB_MCLASS_*). */
public final class MgmtClass {
    public static final int SUBN_LID_ROUTED = 0x01;
    public static final int SUBN_DIRECTED_ROUTE = 0x81;
    public static final int SUBN_ADM = 0x03;
    public static final int PERF = 0x04;
    public static final int BM = 0x05;
    public static final int DEVICE_MGMT = 0x06;
    public static final int COMM_MGMT = 0x07;
    public static final int SNMP = 0x08;
    public static final int VENDOR_LOW_RANGE_MIN = 0x09;
    public static final int VENDOR_LOW_RANGE_MAX = 0x0F;
    public static final int DEVICE_ADM = 0x10;
    public static final int BIS = 0x12;
    public static final int CONGESTION_CONTROL = 0x21;
    public static final int VENDOR_HIGH_RANGE_MIN = 0x30;
    public static final int VENDOR_HIGH_RANGE_MAX = 0x4F;

    private MgmtClass() {
    }

    /** The two subnet management classes, whose MADs travel on QP0. */
    public static boolean isSubnetManagement(int mgmtClass) {
        return mgmtClass == SUBN_LID_ROUTED || mgmtClass == SUBN_DIRECTED_ROUTE;
    }

    /** The vendor classes of range 2, which carry an OUI and may use RMPP. */
    public static boolean isVendorHighRange(int mgmtClass) {
        return mgmtClass >= VENDOR_HIGH_RANGE_MIN && mgmtClass <= VENDOR_HIGH_RANGE_MAX;
    }

    /** ib_is_mad_class_rmpp(): the classes whose MADs may be RMPP transfers. */
    public static boolean isRmpp(int mgmtClass) {
        return mgmtClass == SUBN_ADM || mgmtClass == DEVICE_MGMT || mgmtClass == DEVICE_ADM || mgmtClass == BIS
                || isVendorHighRange(mgmtClass);
    }
}
