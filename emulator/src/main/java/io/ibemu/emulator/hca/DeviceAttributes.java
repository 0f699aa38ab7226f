package io.ibemu.emulator.hca;

/**
 * What query_device reports (ibv_device_attr / ib_uverbs_query_device_resp), with the limits
 * this model enforces. Values are qib/rdmavt-like: the adapter ipathverbs drives.
 */
public record DeviceAttributes(long fwVer, long nodeGuid, long sysImageGuid, long maxMrSize, long pageSizeCap,
        int vendorId, int vendorPartId, int hwVer, int maxQp, int maxQpWr, int deviceCapFlags, int maxSge,
        int maxSgeRd, int maxCq, int maxCqe, int maxMr, int maxPd, int maxQpRdAtom, int maxEeRdAtom,
        int maxResRdAtom, int maxQpInitRdAtom, int maxEeInitRdAtom, int atomicCap, int maxEe, int maxRdd, int maxMw,
        int maxRawIpv6Qp, int maxRawEthyQp, int maxMcastGrp, int maxMcastQpAttach, int maxTotalMcastQpAttach,
        int maxAh, int maxFmr, int maxMapPerFmr, int maxSrq, int maxSrqWr, int maxSrqSge, int maxPkeys,
        int localCaAckDelay, int physPortCnt, int maxInlineData) {

    /** IB_DEVICE_* capability bits (include/rdma/ib_verbs.h). */
    public static final int CAP_BAD_PKEY_CNTR = 1 << 1;
    public static final int CAP_BAD_QKEY_CNTR = 1 << 2;
    public static final int CAP_SHUTDOWN_PORT = 1 << 8;
    public static final int CAP_PORT_ACTIVE_EVENT = 1 << 10;
    public static final int CAP_SYS_IMAGE_GUID = 1 << 11;
    public static final int CAP_RC_RNR_NAK_GEN = 1 << 12;
    public static final int CAP_SRQ_RESIZE = 1 << 13;
    public static final int CAP_XRC = 1 << 20;
    /** IB_ATOMIC_HCA: atomics are atomic among this HCA's QPs. */
    public static final int ATOMIC_HCA = 1;
}
