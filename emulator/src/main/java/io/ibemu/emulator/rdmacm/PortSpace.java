package io.ibemu.emulator.rdmacm;

import io.ibemu.emulator.hca.QpType;
import io.ibemu.kernel.Errno;

/**
 * enum rdma_ucm_port_space and the QP type each implies (ucma_get_qp_type): TCP is RC, UDP and
 * IPOIB are UD, IB takes the type the caller gives. The service id of a port in a space is
 * {@code (ps << 16) + port} (cma_get_service_id).
 */
enum PortSpace {
    IPOIB(Ucma.PS_IPOIB), IB(Ucma.PS_IB), TCP(Ucma.PS_TCP), UDP(Ucma.PS_UDP);

    final int number;

    PortSpace(int number) {
        this.number = number;
    }

    /** ucma_get_qp_type: an unknown space is EINVAL. */
    static PortSpace of(int number) throws Errno {
        for (PortSpace ps : values()) {
            if (ps.number == number) {
                return ps;
            }
        }
        throw Errno.of(Errno.EINVAL);
    }

    /** The QP type of an id of this space; {@code requested} is CREATE_ID's qp_type (used for IB only). */
    int qpType(int requested) {
        return switch (this) {
            case TCP -> QpType.RC.code();
            case UDP, IPOIB -> QpType.UD.code();
            case IB -> requested;
        };
    }

    /** rdma_ps_from_service_id: the space a service id's bits 16..31 name; null for none. */
    static PortSpace ofServiceId(long sid) {
        for (PortSpace ps : values()) {
            if (ps.number == ((sid >>> 16) & 0xffff)) {
                return ps;
            }
        }
        return null;
    }

    long serviceId(int port) {
        return ((long) number << 16) + (port & 0xffff);
    }
}
