package io.ibemu.emulator.hca;

/**
 * Every attribute modify_qp can set and query_qp reports (ibv_qp_attr). Which ones a modify
 * applies is the {@link QpAttributeMask}; the rest are ignored. {@code pathMtu} is the IBA code
 * 1..5 (256..4096), {@code timeout} the local ACK timeout exponent (4.096 us * 2^timeout, 0 =
 * infinite), {@code rnrRetry} 7 = retry forever, {@code minRnrTimer} the IBA table-45 code.
 * {@code cap} carries the granted capabilities in a query; {@code ah}/{@code altAh} may be null
 * when not set.
 */
public record QpAttributes(QpState qpState, QpState curQpState, int pathMtu, int pathMigState, int qkey,
        int rqPsn, int sqPsn, int destQpNum, int qpAccessFlags, QpCapabilities cap, AhAttributes ah,
        AhAttributes altAh, int pkeyIndex, int altPkeyIndex, boolean enSqdAsyncNotify, boolean sqDraining,
        int maxRdAtomic, int maxDestRdAtomic, int minRnrTimer, int portNum, int timeout, int retryCnt,
        int rnrRetry, int altPortNum, int altTimeout, int rateLimit) {

    /** A fresh builder, every field 0 / null. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.qpState = qpState;
        b.curQpState = curQpState;
        b.pathMtu = pathMtu;
        b.pathMigState = pathMigState;
        b.qkey = qkey;
        b.rqPsn = rqPsn;
        b.sqPsn = sqPsn;
        b.destQpNum = destQpNum;
        b.qpAccessFlags = qpAccessFlags;
        b.cap = cap;
        b.ah = ah;
        b.altAh = altAh;
        b.pkeyIndex = pkeyIndex;
        b.altPkeyIndex = altPkeyIndex;
        b.enSqdAsyncNotify = enSqdAsyncNotify;
        b.sqDraining = sqDraining;
        b.maxRdAtomic = maxRdAtomic;
        b.maxDestRdAtomic = maxDestRdAtomic;
        b.minRnrTimer = minRnrTimer;
        b.portNum = portNum;
        b.timeout = timeout;
        b.retryCnt = retryCnt;
        b.rnrRetry = rnrRetry;
        b.altPortNum = altPortNum;
        b.altTimeout = altTimeout;
        b.rateLimit = rateLimit;
        return b;
    }

    /** Fluent construction for callers that set a few fields (tests, the ABI layer's decoder). */
    public static final class Builder {
        private QpState qpState = QpState.RESET;
        private QpState curQpState = QpState.RESET;
        private int pathMtu;
        private int pathMigState;
        private int qkey;
        private int rqPsn;
        private int sqPsn;
        private int destQpNum;
        private int qpAccessFlags;
        private QpCapabilities cap;
        private AhAttributes ah;
        private AhAttributes altAh;
        private int pkeyIndex;
        private int altPkeyIndex;
        private boolean enSqdAsyncNotify;
        private boolean sqDraining;
        private int maxRdAtomic;
        private int maxDestRdAtomic;
        private int minRnrTimer;
        private int portNum;
        private int timeout;
        private int retryCnt;
        private int rnrRetry;
        private int altPortNum;
        private int altTimeout;
        private int rateLimit;

        public Builder qpState(QpState v) { qpState = v; return this; }
        public Builder curQpState(QpState v) { curQpState = v; return this; }
        public Builder pathMtu(int v) { pathMtu = v; return this; }
        public Builder pathMigState(int v) { pathMigState = v; return this; }
        public Builder qkey(int v) { qkey = v; return this; }
        public Builder rqPsn(int v) { rqPsn = v; return this; }
        public Builder sqPsn(int v) { sqPsn = v; return this; }
        public Builder destQpNum(int v) { destQpNum = v; return this; }
        public Builder qpAccessFlags(int v) { qpAccessFlags = v; return this; }
        public Builder cap(QpCapabilities v) { cap = v; return this; }
        public Builder ah(AhAttributes v) { ah = v; return this; }
        public Builder altAh(AhAttributes v) { altAh = v; return this; }
        public Builder pkeyIndex(int v) { pkeyIndex = v; return this; }
        public Builder altPkeyIndex(int v) { altPkeyIndex = v; return this; }
        public Builder enSqdAsyncNotify(boolean v) { enSqdAsyncNotify = v; return this; }
        public Builder sqDraining(boolean v) { sqDraining = v; return this; }
        public Builder maxRdAtomic(int v) { maxRdAtomic = v; return this; }
        public Builder maxDestRdAtomic(int v) { maxDestRdAtomic = v; return this; }
        public Builder minRnrTimer(int v) { minRnrTimer = v; return this; }
        public Builder portNum(int v) { portNum = v; return this; }
        public Builder timeout(int v) { timeout = v; return this; }
        public Builder retryCnt(int v) { retryCnt = v; return this; }
        public Builder rnrRetry(int v) { rnrRetry = v; return this; }
        public Builder altPortNum(int v) { altPortNum = v; return this; }
        public Builder altTimeout(int v) { altTimeout = v; return this; }
        public Builder rateLimit(int v) { rateLimit = v; return this; }

        public QpAttributes build() {
            return new QpAttributes(qpState, curQpState, pathMtu, pathMigState, qkey, rqPsn, sqPsn, destQpNum,
                    qpAccessFlags, cap, ah, altAh, pkeyIndex, altPkeyIndex, enSqdAsyncNotify, sqDraining,
                    maxRdAtomic, maxDestRdAtomic, minRnrTimer, portNum, timeout, retryCnt, rnrRetry, altPortNum,
                    altTimeout, rateLimit);
        }
    }
}
