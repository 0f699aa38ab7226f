package io.ibemu.emulator.hca;

/**
 * A shared receive queue (IBA 10.2.9): receive WRs any QP attached to it takes from. When the
 * queue falls below its armed limit it reports SRQ_LIMIT_REACHED once and disarms (IBA
 * 11.5.2.4). An XRC SRQ belongs to an XRC domain and completes into its own CQ.
 */
public final class SharedReceiveQueue {
    private final ProtectionDomain pd;
    private final SrqType type;
    private final Xrcd xrcd;
    private final CompletionQueue cq;
    private final int srqNum;
    /** The posted WRs: the model's own until a provider shares a ring ({@link Hca#shareReceiveRing}). */
    ReceiveRing queue;
    int maxWr;
    int maxSge;
    int limit;
    /** QPs using it (ib_srq usecnt); under the model lock. */
    int users;
    boolean destroyed;

    SharedReceiveQueue(ProtectionDomain pd, SrqType type, int maxWr, int maxSge, int limit, Xrcd xrcd,
            CompletionQueue cq, int srqNum) {
        this.pd = pd;
        this.type = type;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.limit = limit;
        this.xrcd = xrcd;
        this.cq = cq;
        this.srqNum = srqNum;
        this.queue = new PrivateReceiveRing(maxWr);
    }

    public ProtectionDomain pd() {
        return pd;
    }

    public SrqType type() {
        return type;
    }

    /** The XRC domain of an XRC SRQ, else null. */
    public Xrcd xrcd() {
        return xrcd;
    }

    /** The CQ an XRC SRQ completes into, else null. */
    public CompletionQueue cq() {
        return cq;
    }

    /** The SRQ number XRC senders name (create_xsrq's srqn). */
    public int srqNum() {
        return srqNum;
    }

    /** Whether the program posts into this SRQ's memory itself (a provider shared a ring). */
    public boolean sharedRing() {
        synchronized (pd.hca().lock()) {
            return !(queue instanceof PrivateReceiveRing);
        }
    }

    /** ibv_query_srq. */
    public SrqAttributes query() {
        synchronized (pd.hca().lock()) {
            return new SrqAttributes(maxWr, maxSge, limit);
        }
    }

    /** Under the model lock: the next receive WR, left in place until {@link #consume}. */
    ReceiveWorkRequest peek() {
        return queue.peek();
    }

    /** Under the model lock: takes the peeked WR, firing the limit event when the queue drops below the limit. */
    void consume() {
        queue.consume();
        if (limit > 0 && queue.size() < limit) {
            limit = 0;
            pd.hca().fire(new AsyncEvent(AsyncEvent.Type.SRQ_LIMIT_REACHED, this));
        }
    }
}
