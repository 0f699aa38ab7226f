package io.ibemu.emulator.cm;

/** {@code enum ib_cm_state} (include/rdma/ib_cm.h), in the kernel's order. */
public enum CmState {
    IDLE,
    LISTEN,
    REQ_SENT,
    REQ_RCVD,
    MRA_REQ_SENT,
    MRA_REQ_RCVD,
    REP_SENT,
    REP_RCVD,
    MRA_REP_SENT,
    MRA_REP_RCVD,
    ESTABLISHED,
    DREQ_SENT,
    DREQ_RCVD,
    TIMEWAIT,
    SIDR_REQ_SENT,
    SIDR_REQ_RCVD
}
