package io.ibemu.devfs.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One message of a datagram sent to the kernel: {@code struct nlmsghdr} (len, type, flags, seq,
 * pid; host order) and the bytes of the whole message, header included, as the sender wrote them.
 */
public record NetlinkMessage(int type, int flags, int seq, int portId, byte[] bytes) {

    /** sizeof(struct nlmsghdr), NLMSG_HDRLEN. */
    public static final int HEADER = 16;

    // <linux/netlink.h>
    public static final int NLMSG_NOOP = 1;
    public static final int NLMSG_ERROR = 2;
    public static final int NLMSG_DONE = 3;
    public static final int NLMSG_MIN_TYPE = 0x10;
    public static final int NLM_F_REQUEST = 0x01;
    public static final int NLM_F_MULTI = 0x02;
    public static final int NLM_F_ACK = 0x04;
    public static final int NLM_F_ROOT = 0x100;
    public static final int NLM_F_MATCH = 0x200;
    public static final int NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH;
    /** In an NLMSG_ERROR: the request's payload is not echoed. */
    public static final int NLM_F_CAPPED = 0x100;
    /** In an NLMSG_ERROR: extended-ack TLVs follow. */
    public static final int NLM_F_ACK_TLVS = 0x200;

    /** NLMSG_ALIGN. */
    public static int align(int length) {
        return (length + 3) & ~3;
    }

    public int length() {
        return bytes.length;
    }

    /** The payload after the header (nlmsg_data .. nlmsg_len). */
    public ByteBuffer payload() {
        return ByteBuffer.wrap(bytes, HEADER, bytes.length - HEADER).slice().order(ByteOrder.nativeOrder());
    }

    /** The message's header and payload read from {@code datagram} at {@code offset}, {@code length} bytes. */
    public static NetlinkMessage at(byte[] datagram, int offset, int length) {
        ByteBuffer b = ByteBuffer.wrap(datagram, offset, length).order(ByteOrder.nativeOrder());
        byte[] copy = new byte[length];
        System.arraycopy(datagram, offset, copy, 0, length);
        return new NetlinkMessage(b.getShort(offset + 4) & 0xffff, b.getShort(offset + 6) & 0xffff,
                b.getInt(offset + 8), b.getInt(offset + 12), copy);
    }
}
