package io.ibemu.emulator.uverbs.provider.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.hca.ReceiveWorkRequest;
import io.ibemu.emulator.hca.SendWorkRequest;
import io.ibemu.emulator.hca.Sge;
import io.ibemu.emulator.hca.WorkCompletion;
import io.ibemu.emulator.hca.WrOpcode;
import io.ibemu.emulator.uverbs.provider.UverbsSge;
import io.ibemu.emulator.uverbs.provider.UverbsWc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The rxe_queues of {@code --provider rxe} against a program side written as rdma-core's
 * providers/rxe does it (rxe_queue.h: acquire on the other side's index, release on its own):
 * layout and header, a poller on another thread while the model fills the CQ, send WQEs fetched
 * at the doorbell and retired in order, receive WQEs peeked and consumed, and indices the program
 * scribbled on masked as the kernel masks them.
 */
class RxeQueuesTest {
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private static ByteBuffer memory(int slots, int element) {
        return ByteBuffer.allocateDirect(RxeQueue.bytes(slots, element)).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static WorkCompletion wc(long id) {
        return new WorkCompletion(id, 0, 128, 0, (int) id * 3, (int) id, 7, 8, 0, 0, 1, 0, 0);
    }

    /** rxe_poll_cq of one entry: null when empty. */
    private static WorkCompletion programPoll(ByteBuffer b) {
        int mask = b.getInt(Rxe.INDEX_MASK);
        int log2 = b.getInt(Rxe.LOG2_ELEM_SIZE);
        int cons = (int) INT.get(b, Rxe.CONSUMER);
        if (cons == (int) INT.getAcquire(b, Rxe.PRODUCER)) {
            return null;
        }
        byte[] e = new byte[UverbsWc.SIZE];
        b.get(Rxe.DATA + (cons << log2), e);
        INT.setRelease(b, Rxe.CONSUMER, (cons + 1) & mask);
        return UverbsWc.decode(e);
    }

    @Test
    void layoutsAreRdmaUserRxeHs() {
        assertEquals(128, Rxe.PRODUCER);
        assertEquals(256, Rxe.CONSUMER);
        assertEquals(384, Rxe.DATA);
        assertEquals(208, Rxe.SEND_WQE.size());
        assertEquals(40, Rxe.RECV_WQE.size());
        assertEquals(16, Rxe.MMINFO.size());
        assertEquals(24, Rxe.SEND_WQE.field("wr.wr").offset());
        assertEquals(36 - 24, Rxe.WR_UD.field("ah_num").offset());
        assertEquals(8, Rxe.slots(5));
        assertEquals(8, Rxe.slots(7));
        assertEquals(16, Rxe.slots(8));
        assertEquals(1, Rxe.slots(0));
        assertEquals(128, Rxe.elementSize(Rxe.KERNEL_CQE));
        assertEquals(256, Rxe.elementSize(Rxe.sendWqeBytes(1, 0)));
        assertEquals(64, Rxe.elementSize(Rxe.recvWqeBytes(1)));
    }

    @Test
    void theHeaderNamesTheElementSizeAndMask() {
        ByteBuffer b = memory(8, 128);
        new RxeQueue(b, 8, 128);
        assertEquals(7, b.getInt(Rxe.LOG2_ELEM_SIZE));
        assertEquals(7, b.getInt(Rxe.INDEX_MASK));
    }

    @Test
    void aPollerOnAnotherThreadSeesEveryCompletionInOrderWhileTheRingFills() throws InterruptedException {
        ByteBuffer b = memory(8, 128);
        CompletionQueueRing ring = new CompletionQueueRing(new RxeQueue(b, 8, 128));
        int total = 20_000;
        List<Long> seen = new ArrayList<>(total);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread poller = new Thread(() -> {
            try {
                while (seen.size() < total) {
                    WorkCompletion w = programPoll(b);
                    if (w == null) {
                        Thread.onSpinWait();
                        continue;
                    }
                    assertEquals(wc(w.wrId()), w);
                    seen.add(w.wrId());
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        poller.start();
        int full = 0;
        for (long id = 0; id < total; ) {
            if (ring.offer(wc(id))) {
                id++;
            } else {
                full++; // the ring was full: the producer never overtakes the consumer
                Thread.onSpinWait();
            }
        }
        poller.join();
        assertNull(failure.get());
        for (int i = 0; i < total; i++) {
            assertEquals(i, seen.get(i));
        }
        assertTrue(full >= 0);
        assertEquals(0, ring.outstanding());
    }

    @Test
    void aFullCqRingRefusesTheNextCompletion() {
        ByteBuffer b = memory(4, 128);
        CompletionQueueRing ring = new CompletionQueueRing(new RxeQueue(b, 4, 128));
        assertTrue(ring.offer(wc(1)) && ring.offer(wc(2)) && ring.offer(wc(3)));
        assertFalse(ring.offer(wc(4)), "index_mask slots: one always empty");
        assertEquals(3, ring.outstanding());
        assertEquals(List.of(wc(1), wc(2), wc(3)), ring.poll(10));
    }

    /** post_one_send: a WQE at the producer, then the producer (release). */
    private static void programSend(ByteBuffer b, int element, long wrId, int opcode, long addr, int length, int lkey,
            long remoteAddr, int rkey, int ahNum) {
        int prod = (int) INT.get(b, Rxe.PRODUCER);
        int at = Rxe.DATA + prod * element;
        byte[] w = new byte[element];
        Rxe.SEND_WQE.field("wr.wr_id").put(w, wrId);
        Rxe.SEND_WQE.field("wr.opcode").put(w, opcode);
        Rxe.SEND_WQE.field("wr.send_flags").put(w, WrOpcode.FLAG_SIGNALED);
        int union = Rxe.SEND_WQE.field("wr.wr").offset();
        Rxe.WR_RDMA.field("remote_addr").put(w, union, remoteAddr);
        Rxe.WR_RDMA.field("rkey").put(w, union, rkey & 0xffffffffL);
        if (ahNum != 0) {
            Rxe.WR_UD.field("remote_qpn").put(w, union, 0x55);
            Rxe.WR_UD.field("remote_qkey").put(w, union, 0x11111111);
            Rxe.WR_UD.field("ah_num").put(w, union, ahNum);
        }
        Rxe.SEND_WQE.field("dma.num_sge").put(w, 1);
        Rxe.SEND_WQE.field("dma.length").put(w, length);
        int sge = Rxe.SEND_WQE.size();
        UverbsSge.LAYOUT.field("addr").put(w, sge, addr);
        UverbsSge.LAYOUT.field("length").put(w, sge, length);
        UverbsSge.LAYOUT.field("lkey").put(w, sge, lkey);
        b.put(at, w);
        INT.setRelease(b, Rxe.PRODUCER, (prod + 1) & b.getInt(Rxe.INDEX_MASK));
    }

    @Test
    void theDoorbellFetchesWhatWasProducedAndRetireReturnsTheSlots() {
        int element = Rxe.elementSize(Rxe.sendWqeBytes(1, 0));
        ByteBuffer b = memory(8, element);
        SendQueueRing ring = new SendQueueRing(new RxeQueue(b, 8, element), false, n -> null);
        assertEquals(List.of(), ring.fetch());
        programSend(b, element, 0x51, WrOpcode.RDMA_WRITE, 0x1000, 64, 0x77, 0xabc000, 0x99, 0);
        programSend(b, element, 0x52, WrOpcode.SEND, 0x2000, 8, 0x77, 0, 0, 0);
        List<SendWorkRequest> wrs = ring.fetch();
        assertEquals(2, wrs.size());
        SendWorkRequest w = wrs.get(0);
        assertEquals(0x51, w.wrId());
        assertEquals(WrOpcode.RDMA_WRITE, w.opcode());
        assertEquals(0xabc000, w.remoteAddr());
        assertEquals(0x99, w.rkey());
        assertEquals(List.of(new Sge(0x1000, 64, 0x77)), w.sgList());
        assertEquals(WrOpcode.SEND, wrs.get(1).opcode());
        assertEquals(List.of(), ring.fetch(), "each WQE fetched once");
        assertEquals(0, (int) INT.getAcquire(b, Rxe.CONSUMER), "not retired yet: the slots are still the device's");
        ring.retire();
        assertEquals(1, (int) INT.getAcquire(b, Rxe.CONSUMER));
        ring.retire();
        assertEquals(2, (int) INT.getAcquire(b, Rxe.CONSUMER));
    }

    @Test
    void aUdWqeNamesItsAhByNumber() {
        int element = Rxe.elementSize(Rxe.sendWqeBytes(1, 0));
        ByteBuffer b = memory(4, element);
        List<Integer> asked = new ArrayList<>();
        SendQueueRing ring = new SendQueueRing(new RxeQueue(b, 4, element), true, n -> {
            asked.add(n);
            return null;
        });
        programSend(b, element, 1, WrOpcode.SEND, 0x1000, 8, 1, 0, 0, 42);
        SendWorkRequest w = ring.fetch().get(0);
        assertEquals(List.of(42), asked);
        assertEquals(0x55, w.remoteQpn());
        assertEquals(0x11111111, w.remoteQkey());
        assertNull(w.ah(), "an AH number the driver does not know: none, which the model completes with an error");
    }

    @Test
    void receiveWqesArePeekedThenConsumedAndAScribbledProducerIsMasked() {
        int element = Rxe.elementSize(Rxe.recvWqeBytes(2));
        ByteBuffer b = memory(4, element);
        ReceiveQueueRing ring = new ReceiveQueueRing(new RxeQueue(b, 4, element), 2);
        assertNull(ring.peek());
        assertTrue(ring.offer(new ReceiveWorkRequest(7, List.of(new Sge(0x3000, 100, 5)))));
        assertEquals(1, ring.size());
        ReceiveWorkRequest r = ring.peek();
        assertEquals(7, r.wrId());
        assertEquals(List.of(new Sge(0x3000, 100, 5)), r.sgList());
        assertEquals(r, ring.peek(), "peek leaves it posted");
        ring.consume();
        assertEquals(1, (int) INT.getAcquire(b, Rxe.CONSUMER));
        assertEquals(0, ring.size());
        INT.setRelease(b, Rxe.PRODUCER, 0x7fff_fff1); // masked to 1: nothing new
        assertNull(ring.peek());
    }
}
