package io.ibemu.emulator.hca;

import io.ibemu.kernel.Errno;

/**
 * modify_qp of one HCA, as rxe_qp.c keeps it apart from the verbs: the transition and mask
 * check ({@link QpTransitions}, ib_modify_qp_is_ok), the attribute values' ranges
 * (rxe_qp_chk_attr, rvt_check_ah), the merge of the attributes the mask selects
 * (rxe_qp_from_attr) and what entering the new state does to the queues. Runs under the model
 * lock, on a QP the caller has found live.
 */
final class QpModify {

    private final Hca hca;

    QpModify(Hca hca) {
        this.hca = hca;
    }

    /** Applies the attributes {@code mask} selects. @throws Errno EINVAL as {@link Hca#modify} says */
    void apply(QueuePair qp, QpAttributes attrs, int mask) throws Errno {
        QpState cur = (mask & QpAttributeMask.CUR_STATE) != 0 ? attrs.curQpState() : qp.currentState();
        QpState next = (mask & QpAttributeMask.STATE) != 0 ? attrs.qpState() : cur;
        if (cur == null || next == null || (mask & ~QpAttributeMask.ALL) != 0
                || !QpTransitions.isOk(cur, next, qp.type(), mask)) {
            throw Errno.of(Errno.EINVAL);
        }
        checkValues(qp, attrs, mask);
        QpState was = qp.currentState();
        qp.attrs = merge(qp.attrs, attrs, mask, next);
        if ((mask & QpAttributeMask.SQ_PSN) != 0) {
            qp.sendPsn = qp.attrs.sqPsn();
        }
        if ((mask & QpAttributeMask.RQ_PSN) != 0) {
            qp.recvPsn = qp.attrs.rqPsn();
        }
        transitioned(qp, was, next, attrs, mask);
    }

    private void checkValues(QueuePair qp, QpAttributes a, int mask) throws Errno {
        int port = (mask & QpAttributeMask.PORT) != 0 ? a.portNum() : qp.attrs.portNum();
        boolean bad = (mask & QpAttributeMask.PORT) != 0 && !hca.hasPort(a.portNum())
                || (mask & QpAttributeMask.PKEY_INDEX) != 0 && (a.pkeyIndex() < 0
                        || a.pkeyIndex() >= hca.fabricPort(hca.hasPort(port) ? port : 1).pkeyCount())
                || (mask & QpAttributeMask.AV) != 0 && !validPath(a.ah(), port)
                || (mask & QpAttributeMask.ALT_PATH) != 0 && !validPath(a.altAh(), a.altAh() == null ? 0
                        : a.altAh().portNum())
                || (mask & QpAttributeMask.PATH_MTU) != 0 && (a.pathMtu() < 1 || a.pathMtu() > 5)
                || (mask & QpAttributeMask.MAX_DEST_RD_ATOMIC) != 0 && (a.maxDestRdAtomic() < 0
                        || a.maxDestRdAtomic() > Hca.MAX_RD_ATOMIC)
                || (mask & QpAttributeMask.MAX_QP_RD_ATOMIC) != 0 && (a.maxRdAtomic() < 0
                        || a.maxRdAtomic() > Hca.MAX_INIT_RD_ATOMIC)
                || (mask & QpAttributeMask.MIN_RNR_TIMER) != 0 && (a.minRnrTimer() < 0 || a.minRnrTimer() > 31)
                || (mask & QpAttributeMask.TIMEOUT) != 0 && (a.timeout() < 0 || a.timeout() > 31)
                || (mask & QpAttributeMask.RETRY_CNT) != 0 && (a.retryCnt() < 0 || a.retryCnt() > 7)
                || (mask & QpAttributeMask.RNR_RETRY) != 0 && (a.rnrRetry() < 0 || a.rnrRetry() > 7)
                || (mask & QpAttributeMask.PATH_MIG_STATE) != 0 && (a.pathMigState() < 0 || a.pathMigState() > 2)
                || (mask & QpAttributeMask.ACCESS_FLAGS) != 0 && (a.qpAccessFlags() & ~Access.SUPPORTED) != 0;
        if (bad) {
            throw Errno.of(Errno.EINVAL);
        }
    }

    /** rvt_check_ah: a port of this HCA, SL 0..15, a unicast DLID (multicast only with a GRH, not for a QP path). */
    private boolean validPath(AhAttributes ah, int port) {
        return ah != null && hca.hasPort(ah.portNum() == 0 ? port : ah.portNum()) && ah.sl() >= 0 && ah.sl() <= 15
                && ah.dlid() >= 0 && ah.dlid() < 0xC000;
    }

    private static QpAttributes merge(QpAttributes old, QpAttributes a, int m, QpState next) {
        QpAttributes.Builder b = old.toBuilder().qpState(next).curQpState(next);
        if ((m & QpAttributeMask.EN_SQD_ASYNC_NOTIFY) != 0) {
            b.enSqdAsyncNotify(a.enSqdAsyncNotify());
        }
        if ((m & QpAttributeMask.ACCESS_FLAGS) != 0) {
            b.qpAccessFlags(a.qpAccessFlags());
        }
        if ((m & QpAttributeMask.PKEY_INDEX) != 0) {
            b.pkeyIndex(a.pkeyIndex());
        }
        if ((m & QpAttributeMask.PORT) != 0) {
            b.portNum(a.portNum());
        }
        if ((m & QpAttributeMask.QKEY) != 0) {
            b.qkey(a.qkey());
        }
        if ((m & QpAttributeMask.AV) != 0) {
            b.ah(a.ah());
        }
        if ((m & QpAttributeMask.PATH_MTU) != 0) {
            b.pathMtu(a.pathMtu());
        }
        if ((m & QpAttributeMask.TIMEOUT) != 0) {
            b.timeout(a.timeout());
        }
        if ((m & QpAttributeMask.RETRY_CNT) != 0) {
            b.retryCnt(a.retryCnt());
        }
        if ((m & QpAttributeMask.RNR_RETRY) != 0) {
            b.rnrRetry(a.rnrRetry());
        }
        if ((m & QpAttributeMask.RQ_PSN) != 0) {
            b.rqPsn(a.rqPsn() & Hca.QPN_MASK);
        }
        if ((m & QpAttributeMask.MAX_QP_RD_ATOMIC) != 0) {
            b.maxRdAtomic(a.maxRdAtomic());
        }
        if ((m & QpAttributeMask.ALT_PATH) != 0) {
            b.altAh(a.altAh()).altPkeyIndex(a.altPkeyIndex()).altPortNum(a.altPortNum()).altTimeout(a.altTimeout());
        }
        if ((m & QpAttributeMask.MIN_RNR_TIMER) != 0) {
            b.minRnrTimer(a.minRnrTimer());
        }
        if ((m & QpAttributeMask.SQ_PSN) != 0) {
            b.sqPsn(a.sqPsn() & Hca.QPN_MASK);
        }
        if ((m & QpAttributeMask.MAX_DEST_RD_ATOMIC) != 0) {
            b.maxDestRdAtomic(a.maxDestRdAtomic());
        }
        if ((m & QpAttributeMask.PATH_MIG_STATE) != 0) {
            b.pathMigState(a.pathMigState());
        }
        if ((m & QpAttributeMask.DEST_QPN) != 0) {
            b.destQpNum(a.destQpNum() & Hca.QPN_MASK);
        }
        if ((m & QpAttributeMask.RATE_LIMIT) != 0) {
            b.rateLimit(a.rateLimit());
        }
        return b.build();
    }

    /** What entering {@code next} does to the queues (rvt_modify_qp's side effects). */
    private void transitioned(QueuePair qp, QpState was, QpState next, QpAttributes a, int mask) {
        if (next != QpState.SQD) {
            qp.sqDraining = false;
        }
        if (next == QpState.RESET && was != QpState.RESET) {
            hca.requester.cancelRetry(qp);
            qp.clearSend();
            qp.rq.clear();
        } else if (next == QpState.ERR && was != QpState.ERR) {
            hca.completer.entered(qp);
        } else if (next == QpState.SQD && was == QpState.RTS) {
            // rvt_modify_qp: draining while a begun WQE is unfinished (s_last != s_cur); the
            // WQEs not yet begun wait for RTS
            QueuePair.SendWqe head = qp.sq.peek();
            qp.sqDraining = head != null && head.started;
            if (!qp.sqDraining) {
                hca.sqDrained(qp);
            }
        } else if (next == QpState.RTS) {
            hca.requester.drain(qp);
        }
    }
}
