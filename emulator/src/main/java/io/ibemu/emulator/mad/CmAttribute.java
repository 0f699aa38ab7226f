package io.ibemu.emulator.mad;

/**
 * The Communication Management class (0x07, version 2; IBA vol 1 12.6): its attribute IDs
 * (table 104, cm_msgs.h CM_*_ATTR_ID) and where every CM message's fields begin, right after the
 * common MAD header. CM messages travel with method Send only.
 */
public final class CmAttribute {
    public static final int CLASS_VERSION = 2;
    /** Every CM message's fields start after the 24-byte MAD header (CM_FIELD_* add sizeof(ib_mad_hdr)). */
    public static final int DATA_OFFSET = Mad.HEADER_SIZE;
    public static final int CLASS_PORT_INFO = 0x0001;
    public static final int REQ = 0x0010;
    public static final int MRA = 0x0011;
    public static final int REJ = 0x0012;
    public static final int REP = 0x0013;
    public static final int RTU = 0x0014;
    public static final int DREQ = 0x0015;
    public static final int DREP = 0x0016;
    public static final int SIDR_REQ = 0x0017;
    public static final int SIDR_REP = 0x0018;
    public static final int LAP = 0x0019;
    public static final int APR = 0x001A;

    /** The MRA's and REJ's "message MRAed / rejected" codes (IBA tables 107, 108). */
    public static final int MESSAGE_REQ = 0;
    public static final int MESSAGE_REP = 1;
    public static final int MESSAGE_OTHER = 2;

    private CmAttribute() {
    }

    /** A MAD of the CM class carrying {@code attributeId}, method Send, with {@code transactionId}. */
    public static byte[] mad(int attributeId, long transactionId) {
        byte[] mad = new byte[Mad.SIZE];
        new MadHeader(Mad.BASE_VERSION, MgmtClass.COMM_MGMT, CLASS_VERSION, Method.SEND, 0, 0, transactionId,
                attributeId, 0).encode(mad);
        return mad;
    }
}
