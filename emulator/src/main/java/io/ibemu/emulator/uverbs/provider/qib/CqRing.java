package io.ibemu.emulator.uverbs.provider.qib;

import io.ibemu.emulator.hca.CompletionRing;
import io.ibemu.emulator.hca.WorkCompletion;
import io.ibemu.emulator.uverbs.provider.UverbsWc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A CQ's {@code rvt_cq_wc} in memory the program maps: the model produces at head as
 * rvt_cq_enter does (entry first, then head with release order, the kernel's smp_wmb), the
 * program's ipath_poll_cq consumes at tail (acquire on head, then the entry). Indices the
 * program may have scribbled on are clamped as the kernel clamps them.
 */
final class CqRing implements CompletionRing {
    static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int ENTRY = UverbsWc.SIZE;
    private static final int QUEUE = Rvt.CQ_WC.size();

    private final ByteBuffer ring;
    /** ibcq.cqe: the last slot's index (cqe + 1 slots). */
    private final int cqe;
    private final byte[] entry = new byte[ENTRY]; // under the model lock

    CqRing(ByteBuffer ring, int cqe) {
        this.ring = ring;
        this.cqe = cqe;
    }

    private int clamp(int index) {
        return Integer.compareUnsigned(index, cqe) > 0 ? cqe : index;
    }

    private int next(int index) {
        return index >= cqe ? 0 : index + 1;
    }

    @Override
    public boolean offer(WorkCompletion wc) {
        int head = clamp((int) INT.get(ring, Rvt.CQ_HEAD));
        int next = next(head);
        if (next == clamp((int) INT.getAcquire(ring, Rvt.CQ_TAIL))) {
            return false;
        }
        UverbsWc.encode(wc, entry);
        ring.put(QUEUE + head * ENTRY, entry);
        INT.setRelease(ring, Rvt.CQ_HEAD, next);
        return true;
    }

    @Override
    public List<WorkCompletion> poll(int max) {
        int tail = clamp((int) INT.get(ring, Rvt.CQ_TAIL));
        int head = clamp((int) INT.getAcquire(ring, Rvt.CQ_HEAD));
        List<WorkCompletion> out = new ArrayList<>();
        while (tail != head && out.size() < max) {
            ring.get(QUEUE + tail * ENTRY, entry);
            out.add(UverbsWc.decode(entry));
            tail = next(tail);
        }
        INT.setRelease(ring, Rvt.CQ_TAIL, tail);
        return out;
    }

    @Override
    public int outstanding() {
        int head = clamp((int) INT.getAcquire(ring, Rvt.CQ_HEAD));
        int tail = clamp((int) INT.getAcquire(ring, Rvt.CQ_TAIL));
        return head >= tail ? head - tail : head + cqe + 1 - tail;
    }
}
