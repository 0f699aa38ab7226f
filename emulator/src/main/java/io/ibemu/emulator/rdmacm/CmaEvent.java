package io.ibemu.emulator.rdmacm;

/**
 * One {@code struct rdma_cm_event} as cma.c hands it to its user (ucma_event_handler): the event,
 * its status (0 or a negative errno, as the kernel reports it) and the parameters the
 * response's union carries, already coded ({@link Ucma#CONN_PARAM} or {@link Ucma#UD_PARAM}),
 * or null for none. {@code child} is the new id of a CONNECT_REQUEST; {@code multicast} the
 * owner's context of a MULTICAST_JOIN/ERROR (what the kernel passes in the ud param's private
 * data pointer).
 */
record CmaEvent(Type type, int status, byte[] param, CmaId child, Object multicast) {

    CmaEvent(Type type, int status, byte[] param, CmaId child) {
        this(type, status, param, child, null);
    }

    /** enum rdma_cm_event_type. */
    enum Type {
        ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_REQUEST, CONNECT_RESPONSE, CONNECT_ERROR,
        UNREACHABLE, REJECTED, ESTABLISHED, DISCONNECTED, DEVICE_REMOVAL, MULTICAST_JOIN, MULTICAST_ERROR,
        ADDR_CHANGE, TIMEWAIT_EXIT
    }

    static CmaEvent of(Type type, int status) {
        return new CmaEvent(type, status, null, null);
    }
}
