package io.ibemu.emulator.hca;

import java.util.List;

/**
 * Where a QP's send work requests come from when the program posts them into memory a provider
 * layer shares with it (rxe's send queue): post_send is then only the doorbell, and the model
 * fetches what the program produced since the last one (rxe_requester's wqe_index). A request's
 * slot goes back to the program once the request has left the send queue (completed, flushed or
 * dropped at RESET), as rxe's completer advances the consumer index. Called under the model's
 * lock; implementations over shared memory order their indices (acquire/release).
 */
public interface SendRing {

    /**
     * The requests produced since the last fetch, oldest first. A slot that cannot be decoded
     * (an unknown opcode, an AH that does not exist) gives a request the model finds invalid and
     * completes with an error, as rxe's requester does.
     */
    List<SendWorkRequest> fetch();

    /** The oldest fetched request has left the send queue: its slot is the program's again. */
    void retire();
}
