package io.ibemu.emulator.ipoib;

import io.ibemu.emulator.hca.CompletionQueue;
import io.ibemu.emulator.hca.PostError;
import io.ibemu.emulator.hca.WorkCompletion;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A receive CQ's thread, for the UD QP and connected mode's shared receive queue alike
 * (ipoib_ib_rx_poll, ipoib_cm_handle_rx_wc): poll, arm and poll again before sleeping on the
 * completion event, hand each good completion on, then post its buffer slot (the wr_id) again.
 */
final class ReceiveLoop {
    private static final System.Logger LOG = System.getLogger("ipoib");
    private static final int BATCH = 16;

    /** Posts the receive of buffer slot {@code slot} again. */
    interface Repost {
        void post(int slot) throws PostError;
    }

    private ReceiveLoop() {
    }

    /** Runs until {@code closed}; {@code event} is what the CQ's completion handler releases. */
    static void run(String name, CompletionQueue cq, Semaphore event, BooleanSupplier closed,
            Consumer<WorkCompletion> deliver, Repost repost) {
        while (!closed.getAsBoolean()) {
            List<WorkCompletion> wcs = cq.poll(BATCH);
            if (wcs.isEmpty()) {
                cq.requestNotify(false);
                wcs = cq.poll(BATCH);
                if (wcs.isEmpty()) {
                    event.acquireUninterruptibly();
                    continue;
                }
            }
            for (WorkCompletion wc : wcs) {
                if (wc.isSuccess()) {
                    try {
                        deliver.accept(wc);
                    } catch (RuntimeException e) {
                        LOG.log(System.Logger.Level.WARNING, name + ": receive: " + e);
                    }
                }
                if (closed.getAsBoolean()) {
                    return;
                }
                try {
                    repost.post((int) wc.wrId());
                } catch (PostError e) {
                    LOG.log(System.Logger.Level.WARNING, name + ": post receive: " + e.getMessage());
                }
            }
        }
    }
}
