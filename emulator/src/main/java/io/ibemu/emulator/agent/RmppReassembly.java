package io.ibemu.emulator.agent;

import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.Method;

import java.util.ArrayList;
import java.util.List;

/**
 * struct mad_rmpp_recv: one RMPP message being received by a kernel-RMPP agent — the segments
 * so far in order, the window granted to the sender, and the last segment acknowledged.
 */
final class RmppReassembly {
    /** window_size(): the MAD QP's receive queue depth / 8. */
    static final int WINDOW = 64;

    final long tid;
    final int slid;
    final int srcQp;
    final int mgmtClass;
    final List<byte[]> segments = new ArrayList<>();
    int newWindow = 1;
    int lastAck;
    boolean complete;

    RmppReassembly(long tid, int slid, int srcQp, int mgmtClass) {
        this.tid = tid;
        this.slid = slid;
        this.srcQp = srcQp;
        this.mgmtClass = mgmtClass;
    }

    boolean matches(byte[] mad, ReceivedMad from) {
        return tid == Mad.transactionId(mad) && slid == from.slid() && srcQp == from.srcQp()
                && mgmtClass == Mad.mgmtClass(mad);
    }

    int received() {
        return segments.size();
    }

    /** format_ack: the data's own header with the method's response bit flipped. */
    byte[] ack(byte[] data) {
        byte[] ack = new byte[Mad.SIZE];
        System.arraycopy(data, 0, ack, 0, Rmpp.HEADER_END);
        ack[3] = (byte) (ack[3] ^ Method.RESPONSE);
        lastAck = received();
        Rmpp.set(ack, Rmpp.TYPE_ACK, Rmpp.FLAG_ACTIVE, 0, received(), newWindow);
        return ack;
    }
}
