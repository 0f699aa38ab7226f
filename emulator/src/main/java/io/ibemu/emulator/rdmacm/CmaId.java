package io.ibemu.emulator.rdmacm;

import io.ibemu.kernel.Errno;

/**
 * One RDMA CM id ({@code struct rdma_id_private} of cma.c): its port space and QP type, its state,
 * and the handler its events go to (ucma's context). State changes follow cma_comp_exch: a
 * command finding the id in another state than it needs is EINVAL.
 */
final class CmaId {

    /** What the id's owner does with its events (the event_handler given to rdma_create_id). */
    @FunctionalInterface
    interface Handler {
        void event(CmaId id, CmaEvent event);
    }

    final PortSpace ps;
    final int qpType;
    private volatile Handler handler;
    private CmaState state = CmaState.IDLE; // guarded by this

    CmaId(PortSpace ps, int qpType, Handler handler) {
        this.ps = ps;
        this.qpType = qpType;
        this.handler = handler;
    }

    synchronized CmaState state() {
        return state;
    }

    /** cma_comp_exch: moves from {@code from} to {@code to}, or EINVAL if the id is elsewhere. */
    synchronized void exchange(CmaState from, CmaState to) throws Errno {
        if (state != from) {
            throw Errno.of(Errno.EINVAL);
        }
        state = to;
    }

    /** A new owner for the id's events (a CONNECT_REQUEST's id handed to its context, MIGRATE_ID). */
    void handler(Handler h) {
        handler = h;
    }

    void report(CmaEvent event) {
        Handler h = handler;
        if (h != null) {
            h.event(this, event);
        }
    }

    /** rdma_destroy_id: no event is reported after it returns. */
    void destroy() {
        synchronized (this) {
            state = CmaState.DESTROYING;
        }
        handler = null;
    }
}
