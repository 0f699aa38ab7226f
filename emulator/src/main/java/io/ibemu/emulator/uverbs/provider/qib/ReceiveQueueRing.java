package io.ibemu.emulator.uverbs.provider.qib;

import io.ibemu.kernel.CField;
import io.ibemu.emulator.hca.ReceiveRing;
import io.ibemu.emulator.hca.ReceiveWorkRequest;
import io.ibemu.emulator.uverbs.provider.UverbsSge;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * A QP's or SRQ's {@code rvt_rwq} in memory the program maps: ipathverbs' post_recv writes a WQE
 * at head then stores head (release); the model reads head with acquire order, the WQE at tail,
 * and moves tail on (release) once it used the WQE, as rvt_get_rwqe does. The write() path's
 * post_recv produces here too (rvt_post_recv on a user QP).
 */
final class ReceiveQueueRing implements ReceiveRing {
    private static final VarHandle INT = CqRing.INT;
    private static final int WQ = Rvt.RWQ.size();
    private static final CField WR_ID = Rvt.RWQE.field("wr_id");
    private static final CField NUM_SGE = Rvt.RWQE.field("num_sge");
    private static final int SGE_BASE = Rvt.RWQE.size();

    private final ByteBuffer ring;
    /** rq.size: max_wr + 1 slots, one always empty. */
    private final int slots;
    private final int maxSge;
    private final int wqeBytes;
    private final byte[] wqe;

    ReceiveQueueRing(ByteBuffer ring, int slots, int maxSge) {
        this.ring = ring;
        this.slots = slots;
        this.maxSge = maxSge;
        this.wqeBytes = Rvt.rwqeBytes(maxSge);
        this.wqe = new byte[wqeBytes];
    }

    /** An index the program wrote out of range reads as 0, as rvt_get_rwqe resets a bad tail. */
    private int index(int offset, boolean acquire) {
        int v = acquire ? (int) INT.getAcquire(ring, offset) : (int) INT.get(ring, offset);
        return Integer.compareUnsigned(v, slots) >= 0 ? 0 : v;
    }

    private int next(int index) {
        return index + 1 >= slots ? 0 : index + 1;
    }

    @Override
    public ReceiveWorkRequest peek() {
        int tail = index(Rvt.RQ_TAIL, false);
        if (tail == index(Rvt.RQ_HEAD, true)) {
            return null;
        }
        ring.get(WQ + tail * wqeBytes, wqe);
        int n = Math.min((int) NUM_SGE.get(wqe, 0), maxSge); // never past this WQE's room
        return new ReceiveWorkRequest(WR_ID.get(wqe, 0), UverbsSge.decode(wqe, SGE_BASE, n));
    }

    @Override
    public void consume() {
        INT.setRelease(ring, Rvt.RQ_TAIL, next(index(Rvt.RQ_TAIL, false)));
    }

    @Override
    public boolean offer(ReceiveWorkRequest r) {
        int head = index(Rvt.RQ_HEAD, false);
        int next = next(head);
        if (next == index(Rvt.RQ_TAIL, true) || r.sgList().size() > maxSge) {
            return false;
        }
        byte[] out = new byte[wqeBytes];
        WR_ID.put(out, r.wrId());
        NUM_SGE.put(out, r.sgList().size());
        UverbsSge.encode(r.sgList(), out, SGE_BASE);
        ring.put(WQ + head * wqeBytes, out);
        INT.setRelease(ring, Rvt.RQ_HEAD, next);
        return true;
    }

    @Override
    public int size() {
        int head = index(Rvt.RQ_HEAD, true);
        int tail = index(Rvt.RQ_TAIL, true);
        return head >= tail ? head - tail : head + slots - tail;
    }

    @Override
    public void clear() {
        INT.setRelease(ring, Rvt.RQ_HEAD, 0);
        INT.setRelease(ring, Rvt.RQ_TAIL, 0);
    }
}
