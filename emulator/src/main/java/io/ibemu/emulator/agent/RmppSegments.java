package io.ibemu.emulator.agent;

import io.ibemu.emulator.mad.Mad;

import java.util.Arrays;

/**
 * How an RMPP message is cut into 256-byte segments and put back together (mad_rmpp.c): each
 * segment repeats the class header (up to the class data offset) and carries the next
 * {@code 256 - offset} bytes of data; PayloadLength counts 220 bytes per segment (everything
 * after the RMPP header) less the last segment's padding.
 */
final class RmppSegments {
    /** IB_MGMT_RMPP_DATA: a segment's payload after the 36-byte MAD and RMPP headers. */
    static final int RMPP_DATA = Mad.SIZE - Rmpp.HEADER_END;

    private RmppSegments() {
    }

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
        int flags = Rmpp.FLAG_ACTIVE | (n == 1 ? Rmpp.FLAG_FIRST : 0) | (n == count ? Rmpp.FLAG_LAST : 0);
        int payload = n == count ? RMPP_DATA - pad : n == 1 ? count * RMPP_DATA - pad : 0;
        Rmpp.set(seg, Rmpp.TYPE_DATA, flags, 0, n, payload);
        return seg;
    }

    /** get_mad_len and copy_recv_mad's layout: first segment whole, then each later one's data. */
    static byte[] join(java.util.List<byte[]> segments) {
        byte[] first = segments.get(0);
        byte[] last = segments.get(segments.size() - 1);
        int offset = Mad.dataOffset(Mad.mgmtClass(first));
        int per = Mad.SIZE - offset;
        int pad = RMPP_DATA - Rmpp.lengthOrWindow(last);
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
}
