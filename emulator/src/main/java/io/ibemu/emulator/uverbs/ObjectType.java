package io.ibemu.emulator.uverbs;

/** The uverbs object types a file's handles name (enum uverbs_default_objects, the idr kinds). */
public enum ObjectType {
    PD("pd"),
    MR("mr"),
    MW("mw"),
    CQ("cq"),
    QP("qp"),
    SRQ("srq"),
    AH("ah"),
    XRCD("xrcd");

    private final String label;

    ObjectType(String label) {
        this.label = label;
    }

    /** The name {@code rdma res} and {@code ibemu ctl objects} print. */
    public String label() {
        return label;
    }
}
