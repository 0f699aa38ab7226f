package io.ibemu.emulator.umad;

import io.ibemu.emulator.abi.CField;

/**
 * {@code struct ib_user_mad_hdr} (and {@code _old}, which lacks {@code pkey_index} and the
 * reserved tail), as {@code <rdma/ib_user_mad.h>} lays it out.
 */
public record UmadHeader(int id, int status, int timeoutMs, int retries, int length, int qpn, int qkey,
                         int lid, int sl, int pathBits, boolean grhPresent, int gidIndex, int hopLimit,
                         int trafficClass, byte[] gid, int flowLabel, int pkeyIndex) {

    public static final int SIZE_OLD = 56;
    public static final int SIZE = 64;

    static final CField ID = CField.host("id", 0, 4);
    static final CField STATUS = CField.host("status", 4, 4);
    static final CField TIMEOUT_MS = CField.host("timeout_ms", 8, 4);
    static final CField RETRIES = CField.host("retries", 12, 4);
    static final CField LENGTH = CField.host("length", 16, 4);
    static final CField QPN = CField.be("qpn", 20, 4);
    static final CField QKEY = CField.be("qkey", 24, 4);
    static final CField LID = CField.be("lid", 28, 2);
    static final CField SL = CField.host("sl", 30, 1);
    static final CField PATH_BITS = CField.host("path_bits", 31, 1);
    static final CField GRH_PRESENT = CField.host("grh_present", 32, 1);
    static final CField GID_INDEX = CField.host("gid_index", 33, 1);
    static final CField HOP_LIMIT = CField.host("hop_limit", 34, 1);
    static final CField TRAFFIC_CLASS = CField.host("traffic_class", 35, 1);
    static final CField GID = CField.bytes("gid", 36, 16);
    static final CField FLOW_LABEL = CField.be("flow_label", 52, 4);
    static final CField PKEY_INDEX = CField.host("pkey_index", 56, 2);

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
