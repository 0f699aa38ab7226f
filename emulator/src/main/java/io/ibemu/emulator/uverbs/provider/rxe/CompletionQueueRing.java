package io.ibemu.emulator.uverbs.provider.rxe;

import io.ibemu.emulator.hca.CompletionRing;
import io.ibemu.emulator.hca.WorkCompletion;
import io.ibemu.emulator.uverbs.provider.UverbsWc;

import java.util.ArrayList;
import java.util.List;

/**
 * A user CQ's rxe_queue (QUEUE_TYPE_TO_CLIENT): the model produces as rxe_cq_post does (full when
 * the next slot is the program's consumer index, loaded with acquire; the entry, then the
 * producer index with release), the provider's rxe_poll_cq consumes. The producer index is the
 * daemon's own copy; the program's stores to it are never read back.
 */
final class CompletionQueueRing implements CompletionRing {
    private final RxeQueue queue;
    private final byte[] entry = new byte[UverbsWc.SIZE]; // under the model lock
    private int producer;

    CompletionQueueRing(RxeQueue queue) {
        this.queue = queue;
    }

    @Override
    public boolean offer(WorkCompletion wc) {
        int next = queue.next(producer);
        if (next == queue.acquireConsumer()) {
            return false;
        }
        UverbsWc.encode(wc, entry);
        queue.write(producer, entry);
        producer = next;
        queue.releaseProducer(producer);
        return true;
    }

    /** The waiting completions, oldest first: what rxe_queue_resize copies into the new queue. */
    @Override
    public List<WorkCompletion> poll(int max) {
        int consumer = queue.acquireConsumer();
        List<WorkCompletion> out = new ArrayList<>();
        while (consumer != producer && out.size() < max) {
            queue.read(consumer, entry);
            out.add(UverbsWc.decode(entry));
            consumer = queue.next(consumer);
        }
        queue.releaseConsumer(consumer);
        return out;
    }

    @Override
    public int outstanding() {
        return queue.count(producer, queue.acquireConsumer());
    }
}
