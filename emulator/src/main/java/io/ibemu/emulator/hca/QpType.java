package io.ibemu.emulator.hca;

/**
 * QP transport types with their {@code enum ib_qp_type} / {@code ibv_qp_type} numbers. SMI and
 * GSI (QP0, QP1) are the kernel's own; user space cannot create them (uverbs: EINVAL).
 */
public enum QpType {
    SMI(0), GSI(1), RC(2), UC(3), UD(4), RAW_PACKET(8), XRC_INI(9), XRC_TGT(10);

    private final int code;

    QpType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** @throws IllegalArgumentException for a number no type has (the ABI layer answers EINVAL) */
    public static QpType ofCode(int code) {
        for (QpType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new IllegalArgumentException("QP type " + code);
    }

    /** Connected types: one remote QP, PSNs, acknowledgements for RC and XRC. */
    boolean isConnected() {
        return this == RC || this == UC || this == XRC_INI || this == XRC_TGT;
    }

    /** Reliable: acknowledged, retried, RDMA READ and atomics allowed. */
    boolean isReliable() {
        return this == RC || this == XRC_INI || this == XRC_TGT;
    }

    boolean isDatagram() {
        return this == UD || this == SMI || this == GSI;
    }
}
