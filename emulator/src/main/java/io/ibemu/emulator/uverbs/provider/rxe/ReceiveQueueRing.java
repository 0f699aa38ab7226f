package io.ibemu.emulator.uverbs.provider.rxe;

import io.ibemu.emulator.hca.ReceiveRing;
import io.ibemu.emulator.hca.ReceiveWorkRequest;
import io.ibemu.emulator.uverbs.provider.UverbsSge;
import io.ibemu.kernel.CField;

/**
 * A QP's or SRQ's receive rxe_queue (QUEUE_TYPE_FROM_CLIENT): the provider's post_recv writes an
 * rxe_recv_wqe at the producer index and stores it (release); the model loads the producer with
 * acquire, reads the WQE at its own consumer index and stores the consumer on (release) once the
 * message used it, as rxe's responder does. The write() path's post_recv produces here too
 * (rxe_post_recv's post_one_recv).
 */
final class ReceiveQueueRing implements ReceiveRing {
    private static final CField WR_ID = Rxe.RECV_WQE.field("wr_id");
    private static final CField LENGTH = Rxe.RECV_WQE.field("dma.length");
    private static final CField RESID = Rxe.RECV_WQE.field("dma.resid");
    private static final CField NUM_SGE = Rxe.RECV_WQE.field("dma.num_sge");
    private static final int SGE_BASE = Rxe.RECV_WQE.size();

    private final RxeQueue queue;
    private final int maxSge;
    private final byte[] wqe;
    private int consumer;

    ReceiveQueueRing(RxeQueue queue, int maxSge) {
        this.queue = queue;
        this.maxSge = maxSge;
        this.wqe = new byte[Rxe.recvWqeBytes(maxSge)];
    }

    @Override
    public ReceiveWorkRequest peek() {
        if (consumer == queue.acquireProducer()) {
            return null;
        }
        queue.read(consumer, wqe);
        // never past this queue's room, whatever num_sge the program wrote
        int n = (int) Math.min(NUM_SGE.get(wqe, 0), maxSge);
        return new ReceiveWorkRequest(WR_ID.get(wqe, 0), UverbsSge.decode(wqe, SGE_BASE, n));
    }

    @Override
    public void consume() {
        consumer = queue.next(consumer);
        queue.releaseConsumer(consumer);
    }

    @Override
    public boolean offer(ReceiveWorkRequest r) {
        int producer = queue.acquireProducer();
        int next = queue.next(producer);
        if (next == consumer || r.sgList().size() > maxSge) {
            return false;
        }
        byte[] out = new byte[wqe.length];
        WR_ID.put(out, r.wrId());
        UverbsSge.encode(r.sgList(), out, SGE_BASE);
        long length = r.totalLength();
        LENGTH.put(out, length & 0xffffffffL);
        RESID.put(out, length & 0xffffffffL);
        NUM_SGE.put(out, r.sgList().size());
        queue.write(producer, out);
        queue.releaseProducer(next);
        return true;
    }

    @Override
    public int size() {
        return queue.count(queue.acquireProducer(), consumer);
    }

    /** rxe_qp_reset: nothing posted stays; the program's producer is where the queue starts again. */
    @Override
    public void clear() {
        consumer = queue.acquireProducer();
        queue.releaseConsumer(consumer);
    }
}
