package io.ibemu.emulator.hca;

import java.util.List;

/**
 * A completion queue (IBA 11.4.2): a ring of {@code cqe} entries the send and receive queues
 * of QPs complete into. A completion that finds it full is lost and the CQ reports CQ_ERR, as
 * rdmavt's rvt_cq_enter does. {@link #requestNotify} arms one completion event.
 */
public final class CompletionQueue {
    private final Hca hca;
    private final VerbsOwner owner;
    private final int compVector;
    private final CompletionListener listener;
    /** The completions' memory: the model's own until a provider shares a ring ({@link Hca#shareCompletionRing}). */
    private CompletionRing ring;
    private int capacity;
    /** 0: not armed; ARM_NEXT or ARM_SOLICITED. */
    private int armed;
    private boolean overflowed;
    /** QPs and SRQs using it (ib_cq usecnt); under the model lock. */
    int users;
    boolean destroyed;

    private static final int ARM_NEXT = 1;
    private static final int ARM_SOLICITED = 2;

    CompletionQueue(Hca hca, VerbsOwner owner, int capacity, int compVector, CompletionListener listener) {
        this.hca = hca;
        this.owner = owner;
        this.capacity = capacity;
        this.ring = new PrivateCompletionRing(capacity);
        this.compVector = compVector;
        this.listener = listener;
    }

    public Hca hca() {
        return hca;
    }

    /** How many objects use it now (usecnt), read under the model lock. */
    public int users() {
        synchronized (hca().lock()) {
            return users;
        }
    }

    public VerbsOwner owner() {
        return owner;
    }

    /** The number of entries the CQ holds (what create_cq and resize_cq return as cqe). */
    public int cqe() {
        synchronized (hca.lock()) {
            return capacity;
        }
    }

    public int compVector() {
        return compVector;
    }

    /** Takes up to {@code max} completions, oldest first (ibv_poll_cq). */
    public List<WorkCompletion> poll(int max) {
        synchronized (hca.lock()) {
            return ring.poll(max);
        }
    }

    /** Completions waiting to be polled. */
    public int outstanding() {
        synchronized (hca.lock()) {
            return ring.outstanding();
        }
    }

    /**
     * Arms the CQ for one completion event (ibv_req_notify_cq): the next completion, or with
     * {@code solicitedOnly} the next solicited receive or any error completion (IBA 11.4.2.2).
     * Arming for the next completion overrides a solicited-only arm, not the other way round.
     */
    public void requestNotify(boolean solicitedOnly) {
        synchronized (hca.lock()) {
            if (armed != ARM_NEXT) {
                armed = solicitedOnly ? ARM_SOLICITED : ARM_NEXT;
            }
        }
    }

    /** Whether a completion was lost because the CQ was full (it then reported CQ_ERR). */
    public boolean hasOverflowed() {
        synchronized (hca.lock()) {
            return overflowed;
        }
    }

    /** Under the model lock: adds a completion, firing the armed event or CQ_ERR on overflow. */
    void enter(WorkCompletion wc, boolean solicited) {
        if (!ring.offer(wc)) {
            if (!overflowed) {
                overflowed = true;
                hca.fire(new AsyncEvent(AsyncEvent.Type.CQ_ERR, this));
            }
            return;
        }
        if (armed == ARM_NEXT || (armed == ARM_SOLICITED && (solicited || !wc.isSuccess()))) {
            armed = 0;
            if (listener != null) {
                listener.completion(this);
            }
        }
    }

    /** Under the model lock: resize_cq's capacity change; EINVAL-worthy sizes are checked by the caller. */
    void resize(int cqe) {
        capacity = cqe;
        if (ring instanceof PrivateCompletionRing) {
            ring = share(ring, new PrivateCompletionRing(cqe));
        }
    }

    /** Under the model lock: completions move to {@code next} (rvt_resize_cq's copy), which serves from now on. */
    void useRing(CompletionRing next) {
        ring = share(ring, next);
    }

    private static CompletionRing share(CompletionRing from, CompletionRing to) {
        for (WorkCompletion wc : from.poll(Integer.MAX_VALUE)) {
            to.offer(wc);
        }
        return to;
    }

    /** Whether the program polls this CQ's memory itself (POLL_CQ through the ABI is then refused). */
    public boolean shared() {
        synchronized (hca.lock()) {
            return !(ring instanceof PrivateCompletionRing);
        }
    }
}
