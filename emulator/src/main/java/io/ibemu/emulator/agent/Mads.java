package io.ibemu.emulator.agent;

/**
 * The few common-MAD-header fields the MAD layer routes by (IBA 13.4.2), read straight from
 * the bytes on the hot path; attribute contents are the agents' business.
 */
public final class Mads {
    public static final int SIZE = 256;
    public static final int HEADER = 24;
    public static final int BASE_VERSION = 1;

    public static final int CLASS_SUBN_LID_ROUTED = 0x01;
    public static final int CLASS_SUBN_ADM = 0x03;
    public static final int CLASS_PERF = 0x04;
    public static final int CLASS_DEVICE_MGMT = 0x06;
    public static final int CLASS_CM = 0x07;
    public static final int CLASS_DEVICE_ADM = 0x10;
    public static final int CLASS_BIS = 0x12;
    public static final int CLASS_VENDOR_RANGE2_START = 0x30;
    public static final int CLASS_VENDOR_RANGE2_END = 0x4f;
    public static final int CLASS_SUBN_DIRECTED_ROUTE = 0x81;

    public static final int METHOD_GET = 0x01;
    public static final int METHOD_SET = 0x02;
    public static final int METHOD_RESP = 0x80;
    public static final int METHOD_GET_RESP = 0x81;
    public static final int METHOD_TRAP_REPRESS = 0x07;

    public static final int STATUS_UNSUPPORTED_METHOD_ATTRIB = 0x000c;
    public static final int DR_DIRECTION = 0x8000;
    public static final int PERMISSIVE_LID = 0xffff;
    public static final int ATTR_CLASS_PORT_INFO = 0x0001;

    private Mads() {
    }

    public static int baseVersion(byte[] m) {
        return m[0] & 0xff;
    }

    public static int mgmtClass(byte[] m) {
        return m[1] & 0xff;
    }

    public static int classVersion(byte[] m) {
        return m[2] & 0xff;
    }

    public static int method(byte[] m) {
        return m[3] & 0xff;
    }

    public static int status(byte[] m) {
        return ((m[4] & 0xff) << 8) | (m[5] & 0xff);
    }

    public static void setStatus(byte[] m, int status) {
        m[4] = (byte) (status >>> 8);
        m[5] = (byte) status;
    }

    public static long tid(byte[] m) {
        long v = 0;
        for (int i = 8; i < 16; i++) {
            v = (v << 8) | (m[i] & 0xff);
        }
        return v;
    }

    public static void setTid(byte[] m, long tid) {
        for (int i = 15; i >= 8; i--) {
            m[i] = (byte) tid;
            tid >>>= 8;
        }
    }

    public static int attributeId(byte[] m) {
        return ((m[16] & 0xff) << 8) | (m[17] & 0xff);
    }

    /** ib_response_mad(): the R bit, TrapRepress, and the BM class's response flag. */
    public static boolean isResponse(byte[] m) {
        int method = method(m);
        if ((method & METHOD_RESP) != 0 || method == METHOD_TRAP_REPRESS) {
            return true;
        }
        // Baseboard management marks responses in its own header (bm_hdr), byte 24 bit 7.
        return mgmtClass(m) == 0x05 && m.length > 24 && (m[24] & 0x80) != 0;
    }

    public static boolean isSmp(byte[] m) {
        int c = mgmtClass(m);
        return c == CLASS_SUBN_LID_ROUTED || c == CLASS_SUBN_DIRECTED_ROUTE;
    }

    public static boolean isVendorRange2(int mgmtClass) {
        return mgmtClass >= CLASS_VENDOR_RANGE2_START && mgmtClass <= CLASS_VENDOR_RANGE2_END;
    }

    /** ib_is_mad_class_rmpp(). */
    public static boolean isRmppClass(int mgmtClass) {
        return mgmtClass == CLASS_SUBN_ADM || mgmtClass == CLASS_DEVICE_MGMT || mgmtClass == CLASS_DEVICE_ADM
                || mgmtClass == CLASS_BIS || isVendorRange2(mgmtClass);
    }

    /** ib_get_mad_data_offset(): where a class's data (and so an RMPP segment's payload) begins. */
    public static int dataOffset(int mgmtClass) {
        if (mgmtClass == CLASS_SUBN_ADM) {
            return 56;
        }
        if (mgmtClass == CLASS_DEVICE_MGMT || mgmtClass == CLASS_DEVICE_ADM || mgmtClass == CLASS_BIS) {
            return 64;
        }
        if (isVendorRange2(mgmtClass)) {
            return 40;
        }
        return HEADER;
    }

    /** The vendor range-2 OUI at bytes 37..39 (after the RMPP header and a reserved byte). */
    public static int vendorOui(byte[] m) {
        return ((m[37] & 0xff) << 16) | ((m[38] & 0xff) << 8) | (m[39] & 0xff);
    }
}
