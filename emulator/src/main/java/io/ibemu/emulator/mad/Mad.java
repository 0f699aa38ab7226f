package io.ibemu.emulator.mad;

/**
 * Sizes, offsets and in-place accessors for a raw 256-byte MAD, read through
 * {@link MadHeader#LAYOUT} so every position is declared once: what the MAD layer routes by
 * (class, method, TID, the response bit) on the hot path, and where a class's data begins. The
 * directed-route fields are {@link Smp}'s.
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
    /** The vendor range-2 OUI, after the RMPP header and a reserved byte (IBA 16.5.3). */
    private static final Field VENDOR_OUI = Field.of("oui", "VendorOui", 37 * 8, 24);
    /** Baseboard management marks responses in its own header (bm_hdr), byte 24 bit 7. */
    private static final Field BM_RESPONSE = Field.of("bmResponse", "BmResponse", 24 * 8, 1);

    private Mad() {
    }

    public static int baseVersion(byte[] mad) {
        return (int) BASE.get(mad, 0);
    }

    public static int mgmtClass(byte[] mad) {
        return (int) CLASS.get(mad, 0);
    }

    /** The class of the MAD that starts at {@code base} of {@code b} (after a umad header). */
    public static int mgmtClass(byte[] b, int base) {
        return (int) CLASS.get(b, base);
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

    public static void setTransactionId(byte[] mad, long transactionId) {
        TID.set(mad, 0, transactionId);
    }

    public static int attributeId(byte[] mad) {
        return (int) ATTRIBUTE_ID.get(mad, 0);
    }

    public static int attributeModifier(byte[] mad) {
        return (int) ATTRIBUTE_MODIFIER.get(mad, 0);
    }

    /** ib_response_mad(): the R bit, TrapRepress, and the BM class's response flag. */
    public static boolean isResponse(byte[] mad) {
        int method = method(mad);
        if (Method.isResponse(method) || method == Method.TRAP_REPRESS) {
            return true;
        }
        return mgmtClass(mad) == MgmtClass.BM && mad.length > HEADER_SIZE && BM_RESPONSE.get(mad, 0) != 0;
    }

    /** A subnet management packet (LID-routed or directed-route): one that travels on QP0. */
    public static boolean isSmp(byte[] mad) {
        return MgmtClass.isSubnetManagement(mgmtClass(mad));
    }

    /** ib_get_mad_data_offset(): where a class's data (and so an RMPP segment's payload) begins. */
    public static int dataOffset(int mgmtClass) {
        if (mgmtClass == MgmtClass.SUBN_ADM) {
            return 56;
        }
        if (mgmtClass == MgmtClass.DEVICE_MGMT || mgmtClass == MgmtClass.DEVICE_ADM || mgmtClass == MgmtClass.BIS) {
            return 64;
        }
        if (MgmtClass.isVendorHighRange(mgmtClass)) {
            return 40;
        }
        return HEADER_SIZE;
    }

    /** The vendor range-2 OUI at bytes 37..39. */
    public static int vendorOui(byte[] mad) {
        return (int) VENDOR_OUI.get(mad, 0);
    }
}
