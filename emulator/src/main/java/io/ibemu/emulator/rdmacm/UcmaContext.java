package io.ibemu.emulator.rdmacm;

/**
 * {@code struct ucma_context}: what a ucma id number stands for in its file: the RDMA CM id, the
 * caller's uid (echoed in every event), how many of its events were read, and the listen backlog
 * CONNECT_REQUEST events count against. The file's lock guards the counters.
 */
final class UcmaContext {
    final int id;
    /** The file the context belongs to: MIGRATE_ID moves it (under both files' monitors). */
    volatile UcmaFile file;
    volatile CmaId cmId;
    long uid;
    int eventsReported;
    int backlog;
    /**
     * While ACCEPT runs, the events of a new connection's id wait here rather than being dropped:
     * the kernel sets the uid under rdma_lock_handler, so an RTU answered before the uid is set
     * still gives its ESTABLISHED once it is.
     */
    java.util.List<CmaEvent> held;
    /**
     * ucma_close_id ran (after DEVICE_REMOVAL): the id is destroyed and the table's reference
     * dropped, so every command but DESTROY_ID finds it gone (ENXIO).
     */
    volatile boolean closed;

    UcmaContext(int id, UcmaFile file) {
        this.id = id;
        this.file = file;
    }
}
