package io.ibemu.emulator.agent;

import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.RmppHeader;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * RMPP for kernel-RMPP agents, in one place as mad_rmpp.c keeps it: how a message is cut into
 * 256-byte segments and joined again, the sender's window (send_next_seg, process_rmpp_ack,
 * stop and abort), and the receiver's reassembly with its ACKs (process_rmpp_data). The header
 * itself is {@link RmppHeader}'s; the {@link MadPort} carries the MADs, times the retries and
 * completes the sends.
 */
final class Rmpp {
    /** window_size(): the MAD QP's receive queue depth / 8. */
    static final int WINDOW = 64;

    private final MadPort port;

    Rmpp(MadPort port) {
        this.port = port;
    }

    /** An active RMPP MAD for a kernel-RMPP agent: DATA, ACK, STOP or ABORT. */
    void receive(MadAgent agent, ReceivedMad r) {
        byte[] mad = r.message();
        switch (RmppHeader.type(mad)) {
            case RmppHeader.TYPE_DATA -> receiveSegment(agent, r);
            case RmppHeader.TYPE_ACK -> receiveAck(agent, mad);
            case RmppHeader.TYPE_STOP, RmppHeader.TYPE_ABORT -> abortSend(agent, mad);
            default -> { }
        }
    }

    /** send_next_seg for every segment the window allows, then wait for the ACK. */
    void sendWindow(SendRequest s) {
        int count = count(s.message);
        while (s.segmentsSent < s.newWindow && s.segmentsSent < count) {
            port.transmitSegment(s, segment(s.message, ++s.segmentsSent));
        }
        if (!s.done && s.lastAck < count) {
            // 2 seconds for an ACK, as the kernel waits when it knows no packet lifetime.
            port.arm(s, s.timeoutMs <= 0 || s.timeoutMs > 2000 ? 2000 : s.timeoutMs);
        }
    }

    /** process_rmpp_ack: move the window, finish when the last segment is acknowledged. */
    private void receiveAck(MadAgent agent, byte[] ack) {
        SendRequest s = port.sendAnswered(agent, ack);
        if (s == null || !s.rmppActive) {
            return;
        }
        int segment = RmppHeader.segment(ack);
        int window = RmppHeader.lengthOrWindow(ack);
        int count = count(s.message);
        if (s.lastAck == count && s.timeoutMs > 0) {
            return;
        }
        if (window < segment || segment > count || segment > s.newWindow) {
            port.end(s, SendStatus.REMOTE_ABORT);
            return;
        }
        if (window < s.newWindow || segment < s.lastAck) {
            return;
        }
        if (segment > s.lastAck) {
            s.lastAck = segment;
            s.retriesLeft = s.maxRetries;
        }
        s.newWindow = window;
        if (s.lastAck == count) {
            if (s.timeoutMs <= 0) {
                port.end(s, SendStatus.SUCCESS);
            } else {
                port.arm(s, s.timeoutMs);
            }
        } else if (s.segmentsSent < s.newWindow) {
            sendWindow(s);
        }
    }

    /** process_rmpp_stop / process_rmpp_abort. */
    private void abortSend(MadAgent agent, byte[] mad) {
        SendRequest s = port.sendAnswered(agent, mad);
        if (s != null && s.rmppActive) {
            port.end(s, SendStatus.REMOTE_ABORT);
        }
    }

    /** process_rmpp_data: start_rmpp and continue_rmpp, in-order segments only. */
    private void receiveSegment(MadAgent agent, ReceivedMad r) {
        byte[] mad = r.message();
        int segment = RmppHeader.segment(mad);
        boolean first = (RmppHeader.flags(mad) & RmppHeader.FLAG_FIRST) != 0;
        if (RmppHeader.status(mad) != 0 || (segment == 1) != first) {
            return;
        }
        Reassembly ra = null;
        for (Reassembly candidate : agent.reassemblies) {
            if (candidate.matches(mad, r)) {
                ra = candidate;
            }
        }
        if (segment == 1) {
            if (ra != null) {
                ack(ra, mad, r);
                return;
            }
            ra = new Reassembly(Mad.transactionId(mad), r.slid(), r.srcQp(), Mad.mgmtClass(mad));
            agent.reassemblies.removeIf(old -> old.complete);
            agent.reassemblies.add(ra);
        } else if (ra == null || segment > ra.newWindow) {
            return;
        } else if (segment <= ra.lastAck || ra.complete) {
            ack(ra, mad, r);
            return;
        } else if (segment != ra.received() + 1) {
            return;
        }
        ra.segments.add(mad);
        if ((RmppHeader.flags(mad) & RmppHeader.FLAG_LAST) != 0) {
            ra.complete = true;
            ack(ra, mad, r);
            port.deliverWhole(agent, new ReceivedMad(join(ra.segments), r.slid(), r.sl(), r.pathBits(),
                    r.srcQp(), r.pkeyIndex()));
        } else if (ra.received() == ra.newWindow) {
            ra.newWindow += WINDOW;
            ack(ra, mad, r);
        }
    }

    private void ack(Reassembly ra, byte[] data, ReceivedMad from) {
        port.transmitAck(from, ra.ack(data));
    }

    // ---- segments ----

    /** IB_MGMT_RMPP_DATA: a segment's payload after the 36-byte MAD and RMPP headers. */
    static final int RMPP_DATA = Mad.SIZE - RmppHeader.END;

    static int dataPerSegment(byte[] message) {
        return Mad.SIZE - Mad.dataOffset(Mad.mgmtClass(message));
    }

    static int count(byte[] message) {
        int offset = Mad.dataOffset(Mad.mgmtClass(message));
        int data = message.length - offset;
        int per = Mad.SIZE - offset;
        return Math.max(1, (data + per - 1) / per);
    }

    /** Segment {@code n} (1-based) of the message, with the RMPP DATA header for it. */
    static byte[] segment(byte[] message, int n) {
        int offset = Mad.dataOffset(Mad.mgmtClass(message));
        int per = Mad.SIZE - offset;
        int count = count(message);
        int pad = count * per - (message.length - offset);
        byte[] seg = new byte[Mad.SIZE];
        System.arraycopy(message, 0, seg, 0, offset);
        int from = offset + (n - 1) * per;
        System.arraycopy(message, from, seg, offset, Math.max(0, Math.min(per, message.length - from)));
        int flags = RmppHeader.FLAG_ACTIVE | (n == 1 ? RmppHeader.FLAG_FIRST : 0)
                | (n == count ? RmppHeader.FLAG_LAST : 0);
        int payload = n == count ? RMPP_DATA - pad : n == 1 ? count * RMPP_DATA - pad : 0;
        RmppHeader.set(seg, RmppHeader.TYPE_DATA, flags, 0, n, payload);
        return seg;
    }

    /** get_mad_len and copy_recv_mad's layout: first segment whole, then each later one's data. */
    static byte[] join(List<byte[]> segments) {
        byte[] first = segments.get(0);
        byte[] last = segments.get(segments.size() - 1);
        int offset = Mad.dataOffset(Mad.mgmtClass(first));
        int per = Mad.SIZE - offset;
        int pad = RMPP_DATA - RmppHeader.lengthOrWindow(last);
        if (pad > RMPP_DATA || pad < 0) {
            pad = 0;
        }
        int length = offset + segments.size() * per - pad;
        byte[] message = Arrays.copyOf(first, Math.max(length, Mad.SIZE));
        for (int i = 1; i < segments.size(); i++) {
            int at = offset + i * per;
            int n = Math.min(per, Math.max(0, message.length - at));
            System.arraycopy(segments.get(i), offset, message, at, n);
        }
        return Arrays.copyOf(message, length);
    }

    /**
     * struct mad_rmpp_recv: one RMPP message being received — the segments so far in order, the
     * window granted to the sender, and the last segment acknowledged.
     */
    static final class Reassembly {
        final long tid;
        final int slid;
        final int srcQp;
        final int mgmtClass;
        final List<byte[]> segments = new ArrayList<>();
        int newWindow = 1;
        int lastAck;
        boolean complete;

        Reassembly(long tid, int slid, int srcQp, int mgmtClass) {
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
            System.arraycopy(data, 0, ack, 0, RmppHeader.END);
            Mad.setMethod(ack, Mad.method(ack) ^ Method.RESPONSE);
            lastAck = received();
            RmppHeader.set(ack, RmppHeader.TYPE_ACK, RmppHeader.FLAG_ACTIVE, 0, received(), newWindow);
            return ack;
        }
    }
}
