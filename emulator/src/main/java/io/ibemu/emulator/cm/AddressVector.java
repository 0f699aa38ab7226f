package io.ibemu.emulator.cm;

import io.ibemu.emulator.agent.ReceivedMad;

/**
 * cm_av: where a connection's MADs go and what its QP's address vector becomes — the local
 * port, the peer's LID, SL, P_Key index, static rate, and the ACK timeout exponent
 * ({@code timeout}, 4.096 us * 2^t) that also sets how long timewait lasts.
 */
record AddressVector(CmPort port, int dlid, int sl, int srcPathBits, int pkeyIndex, int rate, int timeout) {

    /** cm_init_av_for_response: back to where {@code mad} came from. */
    static AddressVector responseTo(CmPort port, ReceivedMad mad) {
        return new AddressVector(port, mad.slid(), mad.sl(), mad.pathBits(), mad.pkeyIndex(), 0, 0);
    }

    AddressVector withTimeout(int t) {
        return new AddressVector(port, dlid, sl, srcPathBits, pkeyIndex, rate, t);
    }
}
