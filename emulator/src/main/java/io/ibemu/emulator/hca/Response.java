package io.ibemu.emulator.hca;

import java.nio.ByteBuffer;

/**
 * What a responder answers a request with (IBA 9.7.5: ACK or NAK in the AETH, READ response
 * data, the atomic's original value), or {@link Kind#NONE} when it drops the packet silently.
 */
record Response(Kind kind, int rnrTimer, ByteBuffer data, long original) {
    enum Kind {
        ACK, RNR_NAK, NAK_SEQUENCE, NAK_INVALID_REQUEST, NAK_REMOTE_ACCESS, NAK_REMOTE_OPERATION, NONE
    }

    static final Response ACK = new Response(Kind.ACK, 0, null, 0);
    static final Response NONE = new Response(Kind.NONE, 0, null, 0);
    static final Response INVALID_REQUEST = new Response(Kind.NAK_INVALID_REQUEST, 0, null, 0);
    static final Response REMOTE_ACCESS = new Response(Kind.NAK_REMOTE_ACCESS, 0, null, 0);
    static final Response REMOTE_OPERATION = new Response(Kind.NAK_REMOTE_OPERATION, 0, null, 0);
    /** PSN sequence error: a request beyond the expected PSN (the AETH names the expected one). */
    static final Response SEQUENCE = new Response(Kind.NAK_SEQUENCE, 0, null, 0);

    static Response rnr(int minRnrTimer) {
        return new Response(Kind.RNR_NAK, minRnrTimer, null, 0);
    }

    static Response readData(ByteBuffer data) {
        return new Response(Kind.ACK, 0, data, 0);
    }

    static Response atomic(long original) {
        return new Response(Kind.ACK, 0, null, original);
    }
}
