package io.ibemu.emulator.hca;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** The model's own completion queue memory: {@code cqe} entries, polled through the ABI (rvt's kernel CQ). */
final class PrivateCompletionRing implements CompletionRing {
    private final ArrayDeque<WorkCompletion> entries = new ArrayDeque<>();
    private final int capacity;

    PrivateCompletionRing(int capacity) {
        this.capacity = capacity;
    }

    @Override
    public boolean offer(WorkCompletion wc) {
        if (entries.size() >= capacity) {
            return false;
        }
        entries.add(wc);
        return true;
    }

    @Override
    public List<WorkCompletion> poll(int max) {
        int n = Math.min(max, entries.size());
        List<WorkCompletion> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(entries.poll());
        }
        return out;
    }

    @Override
    public int outstanding() {
        return entries.size();
    }
}
