package io.ibemu.emulator.hca;

/**
 * A completion event handler (the CQ's completion channel): called once each time an armed CQ
 * ({@link CompletionQueue#requestNotify}) gets the completion it was armed for. Called with the
 * model lock held: it must queue the event and return, never block nor call back into the model.
 */
@FunctionalInterface
public interface CompletionListener {
    void completion(CompletionQueue cq);
}
