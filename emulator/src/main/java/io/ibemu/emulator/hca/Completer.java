package io.ibemu.emulator.hca;

/**
 * Ends work requests: successful ones into their CQ when signaled, errors always, and the
 * error path of a QP (IBA 10.3.1 Error state, rdmavt rvt_error_qp): state ERR, the send queue
 * and then the receive queue flushed with WR_FLUSH_ERR in order, QP_LAST_WQE_REACHED for a QP
 * on an SRQ. Runs under the model lock.
 */
final class Completer {
    private final Hca hca;

    Completer(Hca hca) {
        this.hca = hca;
    }

    /** The requester finished {@code w} with {@code status}; {@code byteLen} for READ and atomics. */
    void send(QueuePair qp, QueuePair.SendWqe w, int status, int byteLen) {
        if (status == WcStatus.SUCCESS && !w.signaled) {
            return;
        }
        int opcode = WrOpcode.completionOpcode(w.wr.opcode());
        qp.sendCq().enter(new WorkCompletion(w.wr.wrId(), status, opcode, 0, byteLen, 0, qp.qpNum(), 0, 0, 0, 0, 0,
                0), false);
    }

    /** A receive finished on {@code cq}. */
    void receive(CompletionQueue cq, WorkCompletion wc, boolean solicited) {
        cq.enter(wc, solicited);
    }

    void flushReceive(QueuePair qp, ReceiveWorkRequest r) {
        qp.recvCq().enter(WorkCompletion.of(r.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, qp.qpNum()), false);
    }

    void flushSend(QueuePair qp, QueuePair.SendWqe w) {
        qp.sendCq().enter(WorkCompletion.of(w.wr.wrId(), WcStatus.WR_FLUSH_ERR,
                WrOpcode.completionOpcode(w.wr.opcode()), qp.qpNum()), false);
    }

    /** The QP enters ERR (from the data path): retries stop, everything queued is flushed. */
    void error(QueuePair qp) {
        boolean entering = qp.currentState() != QpState.ERR;
        qp.attrs = qp.attrs.toBuilder().qpState(QpState.ERR).curQpState(QpState.ERR).build();
        flush(qp, entering);
    }

    /** modify_qp has just set ERR: flush as {@link #error} does. */
    void entered(QueuePair qp) {
        flush(qp, true);
    }

    private void flush(QueuePair qp, boolean entering) {
        hca.requester.cancelRetry(qp);
        qp.sqDraining = false; // whichever side failed: ERR drains nothing
        while (!qp.sq.isEmpty()) {
            flushSend(qp, qp.takeSend());
        }
        for (ReceiveWorkRequest r = qp.rq.peek(); r != null; r = qp.rq.peek()) {
            qp.rq.consume();
            flushReceive(qp, r);
        }
        if (entering && qp.srq() != null) {
            hca.fire(new AsyncEvent(AsyncEvent.Type.QP_LAST_WQE_REACHED, qp));
        }
    }
}
