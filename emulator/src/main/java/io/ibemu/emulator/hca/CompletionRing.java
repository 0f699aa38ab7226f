package io.ibemu.emulator.hca;

import java.util.List;

/**
 * Where a {@link CompletionQueue}'s completions wait to be polled: the model's own queue
 * ({@link PrivateCompletionRing}, polled through the verbs ABI), or memory a provider layer
 * shares with the program, which polls it with no system call (rdmavt's user {@code rvt_cq_wc}).
 * The model calls it under its lock; the program's side runs concurrently, so an implementation
 * orders its index stores (release) and loads (acquire) as the provider expects.
 */
public interface CompletionRing {

    /** Appends {@code wc} for the program; false, and nothing written, when the ring is full. */
    boolean offer(WorkCompletion wc);

    /** Takes up to {@code max} completions, oldest first (the ABI's poll, or a resize's copy). */
    List<WorkCompletion> poll(int max);

    /** Completions written and not yet polled. */
    int outstanding();
}
