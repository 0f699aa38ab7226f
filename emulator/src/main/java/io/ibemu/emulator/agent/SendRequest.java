package io.ibemu.emulator.agent;

import io.ibemu.emulator.mad.Mad;

import java.util.concurrent.ScheduledFuture;

/**
 * ib_mad_send_buf plus its address handle: a message an agent posts, with where it goes and how
 * long to wait for a response. The message is one MAD, or a whole RMPP message (first segment's
 * headers followed by all the payload) when {@code rmppActive}.
 */
public final class SendRequest {
    final MadAgent agent;
    final byte[] message;
    final int dlid;
    final int sl;
    final int pathBits;
    final int remoteQpn;
    final int remoteQkey;
    final int pkeyIndex;
    /** Changed by ib_modify_mad (an MRA extends the wait). */
    int timeoutMs;
    final boolean rmppActive;
    private final Object context;

    final int maxRetries;
    int retriesLeft;
    ScheduledFuture<?> timer;
    boolean done;

    // RMPP sender window (mad_rmpp.c): segments sent, acknowledged, and allowed.
    int segmentsSent;
    int lastAck;
    int newWindow = 1;

    public SendRequest(MadAgent agent, byte[] message, int dlid, int sl, int pathBits, int remoteQpn,
                       int remoteQkey, int pkeyIndex, int timeoutMs, int retries, boolean rmppActive,
                       Object context) {
        this.agent = agent;
        this.message = message;
        this.dlid = dlid;
        this.sl = sl;
        this.pathBits = pathBits;
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        this.pkeyIndex = pkeyIndex;
        this.timeoutMs = timeoutMs;
        this.retriesLeft = retries;
        this.maxRetries = retries;
        this.rmppActive = rmppActive;
        this.context = context;
    }

    public byte[] message() {
        return message;
    }

    public Object context() {
        return context;
    }

    /** ib_mad_send_buf.retries: how many times the MAD layer sent it again. */
    public int retries() {
        return maxRetries - retriesLeft;
    }

    long tid() {
        return Mad.transactionId(message);
    }
}
