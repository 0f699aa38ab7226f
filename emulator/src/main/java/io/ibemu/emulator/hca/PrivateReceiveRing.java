package io.ibemu.emulator.hca;

import java.util.ArrayDeque;

/** The model's own receive queue memory, up to {@code capacity} WRs posted through the ABI. */
final class PrivateReceiveRing implements ReceiveRing {
    private final ArrayDeque<ReceiveWorkRequest> queue = new ArrayDeque<>();
    private int capacity;

    PrivateReceiveRing(int capacity) {
        this.capacity = capacity;
    }

    /** modify_srq's max_wr: the caller checked that what is queued fits. */
    void capacity(int capacity) {
        this.capacity = capacity;
    }

    @Override
    public ReceiveWorkRequest peek() {
        return queue.peek();
    }

    @Override
    public void consume() {
        queue.poll();
    }

    @Override
    public boolean offer(ReceiveWorkRequest r) {
        if (queue.size() >= capacity) {
            return false;
        }
        queue.add(r);
        return true;
    }

    @Override
    public int size() {
        return queue.size();
    }

    @Override
    public void clear() {
        queue.clear();
    }
}
