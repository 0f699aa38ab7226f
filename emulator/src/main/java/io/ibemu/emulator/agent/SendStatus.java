package io.ibemu.emulator.agent;

/** How a send ended (ib_wc_status as the MAD layer reports it to send_handler). */
public enum SendStatus {
    SUCCESS,
    /** IB_WC_RESP_TIMEOUT_ERR: no response within timeout_ms after every retry. */
    RESPONSE_TIMEOUT,
    /** IB_WC_WR_FLUSH_ERR: the agent was unregistered first. */
    FLUSHED,
    /** IB_WC_REM_ABORT_ERR: the RMPP peer sent STOP or ABORT, or a window rule was broken. */
    REMOTE_ABORT
}
