package io.ibemu.emulator.fabric;

/**
 * A change the port's users hear of, as the kernel's ib_event types name them
 * (include/rdma/ib_verbs.h): what uverbs reports as async events and what a real SMA would turn
 * into traps (port state change, capability mask change).
 */
public record PortEvent(Port port, Kind kind) {
    public enum Kind {
        /** The physical link went to or from LinkUp (what a switch reports with trap 128). */
        LINK_STATE_CHANGE,
        /** The port reached Active. */
        PORT_ACTIVE,
        /** The port left Active (or Armed/Init) for Down. */
        PORT_ERROR,
        LID_CHANGE,
        PKEY_CHANGE,
        SM_CHANGE,
        CLIENT_REREGISTER,
        GID_CHANGE,
        CAPABILITY_MASK_CHANGE
    }
}
