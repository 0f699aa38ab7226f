package io.ibemu.emulator.hca;

/**
 * The status a finished send work request completes with, as an outside rule may change it (fault
 * injection). Consulted once per send completion under the model lock: it must not block. A status
 * other than SUCCESS then ends the WR and moves the QP to ERR, as any error completion does.
 */
@FunctionalInterface
public interface CompletionFault {
    CompletionFault NONE = (qp, wr, status) -> status;

    int status(QueuePair qp, SendWorkRequest wr, int status);

    /**
     * The status a successful receive completion {@code wc} of {@code qp} gets instead (its own
     * when none): an error then ends the receive and moves the QP to ERR, as a responder's local error does.
     */
    default int receiveStatus(QueuePair qp, WorkCompletion wc) {
        return wc.status();
    }
}
