package io.ibemu.emulator.rdmacm;

/** enum rdma_cm_state (cma_priv.h): where an RDMA CM id is in its life. */
enum CmaState {
    IDLE, ADDR_QUERY, ADDR_RESOLVED, ROUTE_QUERY, ROUTE_RESOLVED, CONNECT, DISCONNECT, ADDR_BOUND, LISTEN,
    DEVICE_REMOVAL, DESTROYING
}
