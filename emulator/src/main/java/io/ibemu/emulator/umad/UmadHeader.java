package io.ibemu.emulator.umad;

import io.ibemu.kernel.CField;
import io.ibemu.kernel.CStruct;

/**
 * {@code struct ib_user_mad_hdr} (and {@code _old}, which lacks {@code pkey_index} and the
 * reserved tail), as {@code <rdma/ib_user_mad.h>} lays it out.
 */
public record UmadHeader(int id, int status, int timeoutMs, int retries, int length, int qpn, int qkey,
                         int lid, int sl, int pathBits, boolean grhPresent, int gidIndex, int hopLimit,
                         int trafficClass, byte[] gid, int flowLabel, int pkeyIndex) {

    /** struct ib_user_mad_hdr: the old one's members, then pkey_index and reserved bytes. */
    public static final CStruct LAYOUT = common("ib_user_mad_hdr").u16("pkey_index").pad(1, 6).build();
    /** struct ib_user_mad_hdr_old: what a file without IB_USER_MAD_ENABLE_PKEY reads and writes. */
    public static final CStruct LAYOUT_OLD = common("ib_user_mad_hdr_old").build();
    public static final int SIZE_OLD = LAYOUT_OLD.size();
    public static final int SIZE = LAYOUT.size();

    static final CField ID = LAYOUT.field("id");
    static final CField STATUS = LAYOUT.field("status");
    static final CField TIMEOUT_MS = LAYOUT.field("timeout_ms");
    static final CField RETRIES = LAYOUT.field("retries");
    static final CField LENGTH = LAYOUT.field("length");
    static final CField QPN = LAYOUT.field("qpn");
    static final CField QKEY = LAYOUT.field("qkey");
    static final CField LID = LAYOUT.field("lid");
    static final CField SL = LAYOUT.field("sl");
    static final CField PATH_BITS = LAYOUT.field("path_bits");
    static final CField GRH_PRESENT = LAYOUT.field("grh_present");
    static final CField GID_INDEX = LAYOUT.field("gid_index");
    static final CField HOP_LIMIT = LAYOUT.field("hop_limit");
    static final CField TRAFFIC_CLASS = LAYOUT.field("traffic_class");
    static final CField GID = LAYOUT.field("gid");
    static final CField FLOW_LABEL = LAYOUT.field("flow_label");
    static final CField PKEY_INDEX = LAYOUT.field("pkey_index");

    /** The members both headers share, in <rdma/ib_user_mad.h>'s order. */
    private static CStruct.Builder common(String name) {
        return CStruct.named(name).u32("id").u32("status").u32("timeout_ms").u32("retries").u32("length")
                .be32("qpn").be32("qkey").be16("lid").u8("sl").u8("path_bits").u8("grh_present").u8("gid_index")
                .u8("hop_limit").u8("traffic_class").bytes("gid", 16).be32("flow_label");
    }

    public static int size(boolean withPkeyIndex) {
        return withPkeyIndex ? SIZE : SIZE_OLD;
    }

    public static UmadHeader decode(byte[] b, boolean withPkeyIndex) {
        return new UmadHeader(ID.getInt(b), STATUS.getInt(b), TIMEOUT_MS.getInt(b), RETRIES.getInt(b),
                LENGTH.getInt(b), QPN.getInt(b), QKEY.getInt(b), LID.getInt(b), SL.getInt(b),
                PATH_BITS.getInt(b), GRH_PRESENT.getInt(b) != 0, GID_INDEX.getInt(b), HOP_LIMIT.getInt(b),
                TRAFFIC_CLASS.getInt(b), GID.slice(b), FLOW_LABEL.getInt(b),
                withPkeyIndex ? PKEY_INDEX.getInt(b) : 0);
    }

    public byte[] encode(boolean withPkeyIndex) {
        byte[] b = new byte[size(withPkeyIndex)];
        ID.put(b, id);
        STATUS.put(b, status);
        TIMEOUT_MS.put(b, timeoutMs);
        RETRIES.put(b, retries);
        LENGTH.put(b, length);
        QPN.put(b, qpn);
        QKEY.put(b, qkey);
        LID.put(b, lid);
        SL.put(b, sl);
        PATH_BITS.put(b, pathBits);
        GRH_PRESENT.put(b, grhPresent ? 1 : 0);
        GID_INDEX.put(b, gidIndex);
        HOP_LIMIT.put(b, hopLimit);
        TRAFFIC_CLASS.put(b, trafficClass);
        GID.putBytes(b, gid);
        FLOW_LABEL.put(b, flowLabel);
        if (withPkeyIndex) {
            PKEY_INDEX.put(b, pkeyIndex);
        }
        return b;
    }

    public UmadHeader withId(int newId) {
        return new UmadHeader(newId, status, timeoutMs, retries, length, qpn, qkey, lid, sl, pathBits,
                grhPresent, gidIndex, hopLimit, trafficClass, gid, flowLabel, pkeyIndex);
    }

    public UmadHeader withStatus(int newStatus) {
        return new UmadHeader(id, newStatus, timeoutMs, retries, length, qpn, qkey, lid, sl, pathBits,
                grhPresent, gidIndex, hopLimit, trafficClass, gid, flowLabel, pkeyIndex);
    }
}
