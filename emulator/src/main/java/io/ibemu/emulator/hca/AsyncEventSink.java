package io.ibemu.emulator.hca;

/**
 * Hears an HCA's asynchronous events ({@link Hca#addEventSink}). Called with the model lock held
 * (QP, CQ, SRQ events, on the thread that caused them) or on the model's timer thread (port
 * events): it must queue the event and return, never block nor call back into the model.
 */
@FunctionalInterface
public interface AsyncEventSink {
    void event(AsyncEvent event);
}
