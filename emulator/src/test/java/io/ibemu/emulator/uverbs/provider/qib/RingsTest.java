package io.ibemu.emulator.uverbs.provider.qib;

import io.ibemu.emulator.uverbs.provider.UverbsWc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.hca.ReceiveWorkRequest;
import io.ibemu.emulator.hca.Sge;
import io.ibemu.emulator.hca.WorkCompletion;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * rdmavt's rings against a program on another thread that does what ipathverbs does, byte for
 * byte on the same memory (a direct buffer, as the mapped file is): the CQ's producer fills the
 * ring while the poller drains it, and the receive ring's program posts while the model takes.
 * Every entry arrives once, in order, whole; a full ring refuses without writing.
 */
class RingsTest {
    private static final VarHandle INT = CqRing.INT;
    private static final int ENTRY = UverbsWc.SIZE;

    private static ByteBuffer memory(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static WorkCompletion wc(long id) {
        return new WorkCompletion(id, 0, 128, 0, (int) id * 3, (int) id, 7, 8, 0, 0, 1, 0, 0);
    }

    /** ipath_poll_cq: head with acquire, the entry, tail with release. */
    private static WorkCompletion programPoll(ByteBuffer ring, int cqe) {
        int tail = (int) INT.get(ring, Rvt.CQ_TAIL);
        if (tail == (int) INT.getAcquire(ring, Rvt.CQ_HEAD)) {
            return null;
        }
        byte[] e = new byte[ENTRY];
        ring.get(Rvt.CQ_WC.size() + tail * ENTRY, e);
        INT.setRelease(ring, Rvt.CQ_TAIL, tail == cqe ? 0 : tail + 1);
        return UverbsWc.decode(e);
    }

    @Test
    void aPollerOnAnotherThreadSeesEveryCompletionOnceInOrderWhileTheRingFills() throws Exception {
        int cqe = 7;
        int total = 200_000;
        ByteBuffer ring = memory(Rvt.cqBytes(cqe));
        CqRing cq = new CqRing(ring, cqe);
        AtomicReference<String> wrong = new AtomicReference<>();
        Thread poller = new Thread(() -> {
            long next = 0;
            while (next < total) {
                WorkCompletion w = programPoll(ring, cqe);
                if (w == null) {
                    Thread.onSpinWait();
                    continue;
                }
                if (!w.equals(wc(next))) {
                    wrong.compareAndSet(null, "expected " + wc(next) + ", polled " + w);
                    return;
                }
                next++;
            }
        });
        poller.start();
        int refused = 0;
        for (long id = 0; id < total; ) {
            if (cq.offer(wc(id))) {
                id++;
            } else {
                refused++;
                assertTrue(cq.outstanding() <= cqe, "never more than cqe outstanding");
                Thread.onSpinWait();
            }
        }
        poller.join(60_000);
        assertFalse(poller.isAlive(), "the poller finished");
        assertNull(wrong.get());
        assertEquals(0, cq.outstanding());
        assertTrue(refused > 0, "the producer found the ring full at times (the poller is slower): " + refused);
    }

    @Test
    void aFullRingRefusesAndKeepsWhatItHolds() {
        int cqe = 3;
        ByteBuffer ring = memory(Rvt.cqBytes(cqe));
        CqRing cq = new CqRing(ring, cqe);
        for (int i = 0; i < cqe; i++) {
            assertTrue(cq.offer(wc(i)));
        }
        assertFalse(cq.offer(wc(99)), "cqe + 1 slots hold cqe completions");
        assertEquals(cqe, cq.outstanding());
        List<WorkCompletion> all = cq.poll(10);
        assertEquals(List.of(wc(0), wc(1), wc(2)), all);
    }

    /** ipath post_recv: the WQE at head, then head with release; false when full. */
    private static boolean programPost(ByteBuffer ring, int slots, int maxSge, long id) {
        int head = (int) INT.get(ring, Rvt.RQ_HEAD);
        int next = head + 1 >= slots ? 0 : head + 1;
        if (next == (int) INT.getAcquire(ring, Rvt.RQ_TAIL)) {
            return false;
        }
        int at = Rvt.RWQ.size() + head * Rvt.rwqeBytes(maxSge);
        ring.putLong(at, id);
        ring.put(at + 8, (byte) 1);
        ring.putLong(at + 16, 0x1000 + id);
        ring.putInt(at + 24, (int) id + 1);
        ring.putInt(at + 28, 0x55);
        INT.setRelease(ring, Rvt.RQ_HEAD, next);
        return true;
    }

    @Test
    void theModelTakesEveryPostedReceiveOnceInOrderWhileTheProgramFillsTheRing() throws Exception {
        int slots = 5;
        int maxSge = 2;
        int total = 200_000;
        ByteBuffer ring = memory(Rvt.rqBytes(slots, maxSge));
        ReceiveQueueRing rq = new ReceiveQueueRing(ring, slots, maxSge);
        Thread program = new Thread(() -> {
            for (long id = 0; id < total; ) {
                if (programPost(ring, slots, maxSge, id)) {
                    id++;
                } else {
                    Thread.onSpinWait();
                }
            }
        });
        program.start();
        for (long id = 0; id < total; ) {
            ReceiveWorkRequest r = rq.peek();
            if (r == null) {
                Thread.onSpinWait();
                continue;
            }
            assertEquals(new ReceiveWorkRequest(id, List.of(new Sge(0x1000 + id, (int) id + 1, 0x55))), r);
            assertEquals(r, rq.peek(), "a peek leaves the WQE in place");
            rq.consume();
            id++;
        }
        program.join(60_000);
        assertFalse(program.isAlive());
        assertEquals(0, rq.size());
    }

    @Test
    void aWqeClaimingMoreSgesThanTheQueueHasReadsOnlyItsOwnRoom() {
        ByteBuffer ring = memory(Rvt.rqBytes(2, 1));
        ReceiveQueueRing rq = new ReceiveQueueRing(ring, 2, 1);
        assertTrue(programPost(ring, 2, 1, 9));
        ring.put(Rvt.RWQ.size() + 8, (byte) 200);
        assertEquals(1, rq.peek().sgList().size());
    }

    @Test
    void indicesOutOfRangeAreClampedNotFollowed() {
        ByteBuffer ring = memory(Rvt.cqBytes(3));
        CqRing cq = new CqRing(ring, 3);
        INT.set(ring, Rvt.CQ_HEAD, 1 << 30);
        INT.set(ring, Rvt.CQ_TAIL, 2);
        assertTrue(cq.offer(wc(1)), "head clamped to cqe (rvt_cq_enter), the entry written in its last slot");
        assertEquals(0, (int) INT.get(ring, Rvt.CQ_HEAD), "and head wraps from the last slot");
        byte[] e = new byte[ENTRY];
        ring.get(Rvt.CQ_WC.size() + 3 * ENTRY, e);
        assertEquals(wc(1), UverbsWc.decode(e));
    }
}
