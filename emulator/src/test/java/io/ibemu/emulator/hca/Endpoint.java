package io.ibemu.emulator.hca;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;

/** One process's verbs on one HCA in tests: a PD, a CQ, its memory, helpers to make and connect QPs. */
final class Endpoint {
    static final int ALL_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;

    final Hca hca;
    final VerbsOwner owner;
    final ArrayHostMemory memory = new ArrayHostMemory();
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final List<AsyncEvent> events = new ArrayList<>();

    Endpoint(Hca hca, int pid) throws Exception {
        this.hca = hca;
        this.owner = new VerbsOwner(pid, "test" + pid);
        this.pd = hca.allocPd(owner);
        this.cq = hca.createCq(owner, 256, 0, null);
        hca.addEventSink(e -> {
            synchronized (events) {
                events.add(e);
            }
        });
    }

    /** A registered buffer of {@code size} bytes with every access. */
    MemoryRegion buffer(int size) throws Exception {
        long addr = memory.allocate(size);
        return hca.registerMr(pd, addr, size, addr, ALL_ACCESS, memory);
    }

    static Sge sge(MemoryRegion mr, int offset, int length) {
        return new Sge(mr.iova() + offset, length, mr.lkey());
    }

    static Sge sge(MemoryRegion mr) {
        return sge(mr, 0, (int) mr.length());
    }

    QueuePair qp(QpType type) throws Exception {
        return hca.createQp(pd, new QpInitAttributes(type, cq, cq, null, new QpCapabilities(64, 64, 4, 4, 64), false,
                null));
    }

    /** RESET -> INIT -> RTR -> RTS toward {@code remote} at {@code dlid}, with test-sized timers. */
    void connect(QueuePair qp, QueuePair remote, int dlid, int timeout, int retry, int rnrRetry) throws Exception {
        hca.modify(qp, QpAttributes.builder().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
                .qpAccessFlags(ALL_ACCESS).build(), QpAttributeMask.STATE | QpAttributeMask.PKEY_INDEX
                | QpAttributeMask.PORT | QpAttributeMask.ACCESS_FLAGS);
        int rtr = QpAttributeMask.STATE | QpAttributeMask.AV | QpAttributeMask.PATH_MTU | QpAttributeMask.DEST_QPN
                | QpAttributeMask.RQ_PSN;
        if (qp.type() == QpType.RC) {
            rtr |= QpAttributeMask.MAX_DEST_RD_ATOMIC | QpAttributeMask.MIN_RNR_TIMER;
        }
        hca.modify(qp, QpAttributes.builder().qpState(QpState.RTR).ah(AhAttributes.lid(dlid, 1)).pathMtu(5)
                .destQpNum(remote.qpNum()).rqPsn(100).maxDestRdAtomic(4).minRnrTimer(1).build(), rtr);
        int rts = QpAttributeMask.STATE | QpAttributeMask.SQ_PSN;
        if (qp.type() == QpType.RC) {
            rts |= QpAttributeMask.TIMEOUT | QpAttributeMask.RETRY_CNT | QpAttributeMask.RNR_RETRY
                    | QpAttributeMask.MAX_QP_RD_ATOMIC;
        }
        hca.modify(qp, QpAttributes.builder().qpState(QpState.RTS).sqPsn(100).timeout(timeout).retryCnt(retry)
                .rnrRetry(rnrRetry).maxRdAtomic(4).build(), rts);
    }

    /** A UD QP in RTS with Q_Key {@code qkey}. */
    QueuePair udQp(int qkey) throws Exception {
        QueuePair qp = qp(QpType.UD);
        hca.modify(qp, QpAttributes.builder().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(qkey).build(),
                QpAttributeMask.STATE | QpAttributeMask.PKEY_INDEX | QpAttributeMask.PORT | QpAttributeMask.QKEY);
        hca.modify(qp, QpAttributes.builder().qpState(QpState.RTR).build(), QpAttributeMask.STATE);
        hca.modify(qp, QpAttributes.builder().qpState(QpState.RTS).sqPsn(1).build(),
                QpAttributeMask.STATE | QpAttributeMask.SQ_PSN);
        return qp;
    }

    /** The completions now in the CQ. */
    List<WorkCompletion> poll() {
        return cq.poll(1000);
    }

    /** The next completion, waiting up to 5 s for it (retries run on the timer thread). */
    WorkCompletion one() throws InterruptedException {
        long end = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < end) {
            List<WorkCompletion> got = cq.poll(1);
            if (!got.isEmpty()) {
                return got.get(0);
            }
            Thread.sleep(1);
        }
        fail("no completion within 5 s");
        return null;
    }

    List<AsyncEvent> events(AsyncEvent.Type type) {
        synchronized (events) {
            return events.stream().filter(e -> e.type() == type).toList();
        }
    }

    void awaitEvent(AsyncEvent.Type type) throws InterruptedException {
        long end = System.nanoTime() + 5_000_000_000L;
        while (events(type).isEmpty()) {
            assertTrue(System.nanoTime() < end, "no " + type + " event");
            Thread.sleep(1);
        }
    }
}
