package io.ibemu.emulator.uverbs;

import io.ibemu.emulator.uverbs.ioctl.UapiIds;

/** The uverbs object types a file's handles name: the idr kinds of enum uverbs_default_objects. */
public enum ObjectType {
    PD("pd", UapiIds.OBJECT_PD),
    MR("mr", UapiIds.OBJECT_MR),
    MW("mw", UapiIds.OBJECT_MW),
    CQ("cq", UapiIds.OBJECT_CQ),
    QP("qp", UapiIds.OBJECT_QP),
    SRQ("srq", UapiIds.OBJECT_SRQ),
    AH("ah", UapiIds.OBJECT_AH),
    XRCD("xrcd", UapiIds.OBJECT_XRCD);

    private final String label;
    private final int uapiId;

    ObjectType(String label, int uapiId) {
        this.label = label;
        this.uapiId = uapiId;
    }

    /** The object's id in the ioctl tree (UVERBS_OBJECT_*). */
    public int uapiId() {
        return uapiId;
    }

    /** The type of an ioctl object id, or null for one that is no idr kind of this device. */
    static ObjectType ofUapi(int id) {
        for (ObjectType t : values()) {
            if (t.uapiId == id) {
                return t;
            }
        }
        return null;
    }

    /** The name {@code rdma res} and {@code ibemu ctl objects} print. */
    public String label() {
        return label;
    }
}
