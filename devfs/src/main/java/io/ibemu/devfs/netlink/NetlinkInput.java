package io.ibemu.devfs.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * What happens to a datagram sent to a kernel netlink socket, as rdma_nl_rcv_skb (a copy of
 * netlink_rcv_skb) and netlink_ack / netlink_dump do it: each whole message is handed to the
 * family; messages that are not requests, or control messages, are only acked if NLM_F_ACK asks;
 * an error or NLM_F_ACK gives an NLMSG_ERROR; a dump ends in NLMSG_DONE, a datagram of its own.
 * Returns the datagrams
 * the sender then reads, in order, each at most {@code datagramLimit} bytes (the kernel's dump
 * skb size) unless one message alone is larger.
 */
public final class NetlinkInput {

    /** NLMSGERR_ATTR_MSG and NLMSGERR_ATTR_OFFS (<linux/netlink.h>). */
    private static final int NLMSGERR_ATTR_MSG = 1;
    private static final int NLMSGERR_ATTR_OFFS = 2;
    /** NLMSG_GOODSIZE on x86_64 with 4 KiB pages: SKB_WITH_OVERHEAD(PAGE_SIZE). */
    public static final int GOODSIZE = 3776;

    private NetlinkInput() {
    }

    /** Socket options of the sender that shape acks: NETLINK_EXT_ACK and NETLINK_CAP_ACK. */
    public record AckOptions(boolean extAck, boolean capAck) {
    }

    public static List<byte[]> receive(byte[] datagram, NetlinkFamily family, NetlinkFamily.Sender sender,
            AckOptions options, int datagramLimit) {
        List<byte[]> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(datagram).order(ByteOrder.nativeOrder());
        int at = 0;
        while (datagram.length - at >= NetlinkMessage.HEADER) {
            int len = b.getInt(at);
            if (len < NetlinkMessage.HEADER || len > datagram.length - at) {
                break; // rdma_nl_rcv_skb: a bad length ends the datagram silently
            }
            NetlinkMessage m = NetlinkMessage.at(datagram, at, len);
            handle(m, family, sender, options, datagramLimit, out);
            at += Math.min(NetlinkMessage.align(len), datagram.length - at);
        }
        return out;
    }

    private static void handle(NetlinkMessage m, NetlinkFamily family, NetlinkFamily.Sender sender,
            AckOptions options, int limit, List<byte[]> out) {
        boolean ackOnly = (m.flags() & NetlinkMessage.NLM_F_REQUEST) == 0 || m.type() < NetlinkMessage.NLMSG_MIN_TYPE;
        NetlinkFamily.Outcome outcome = ackOnly ? new NetlinkFamily.Reply(List.of()) : family.handle(m, sender);
        if (outcome instanceof NetlinkFamily.Reply r) {
            out.addAll(r.messages());
            if ((m.flags() & NetlinkMessage.NLM_F_ACK) != 0) {
                out.add(ack(m, 0, null, -1, sender.portId(), options));
            }
        } else if (outcome instanceof NetlinkFamily.Failure f) {
            out.add(ack(m, -f.errno(), f.message(), f.attributeOffset(), sender.portId(), options));
        } else if (outcome instanceof NetlinkFamily.Dump d) {
            // netlink_dump: rounds fill datagrams; NLMSG_DONE comes in the round whose callback adds nothing
            out.addAll(pack(d.messages(), limit));
            out.add(new MessageWriter(NetlinkMessage.NLMSG_DONE, NetlinkMessage.NLM_F_MULTI, m.seq(),
                    sender.portId()).raw(intBytes(d.doneErrno())).build());
        }
    }

    /** Dump messages into datagrams of at most {@code limit} bytes, in order (netlink_dump fills one skb a round). */
    static List<byte[]> pack(List<byte[]> messages, int limit) {
        List<byte[]> datagrams = new ArrayList<>();
        List<byte[]> current = new ArrayList<>();
        int size = 0;
        for (byte[] m : messages) {
            if (!current.isEmpty() && size + m.length > limit) {
                datagrams.add(MessageWriter.join(current));
                current.clear();
                size = 0;
            }
            current.add(m);
            size += m.length;
        }
        if (!current.isEmpty()) {
            datagrams.add(MessageWriter.join(current));
        }
        return datagrams;
    }

    /**
     * netlink_ack: NLMSG_ERROR with struct nlmsgerr {int error; struct nlmsghdr msg}, the request's
     * payload echoed for an error unless NETLINK_CAP_ACK (else NLM_F_CAPPED), then with
     * NETLINK_EXT_ACK the message and, for an error, the bad attribute's offset.
     */
    static byte[] ack(NetlinkMessage request, int error, String message, int offset, int portId, AckOptions o) {
        boolean echo = error != 0 && !o.capAck();
        boolean tlvs = o.extAck() && (message != null || (error != 0 && offset >= 0));
        int flags = (echo ? 0 : NetlinkMessage.NLM_F_CAPPED) | (tlvs ? NetlinkMessage.NLM_F_ACK_TLVS : 0);
        MessageWriter w = new MessageWriter(NetlinkMessage.NLMSG_ERROR, flags, request.seq(), portId);
        ByteBuffer e = ByteBuffer.allocate(4 + NetlinkMessage.HEADER).order(ByteOrder.nativeOrder());
        e.putInt(error).put(request.bytes(), 0, NetlinkMessage.HEADER);
        w.raw(e.array());
        if (echo) {
            byte[] payload = new byte[request.length() - NetlinkMessage.HEADER];
            System.arraycopy(request.bytes(), NetlinkMessage.HEADER, payload, 0, payload.length);
            w.raw(payload);
        }
        if (tlvs && message != null) {
            w.string(NLMSGERR_ATTR_MSG, message);
        }
        if (tlvs && error != 0 && offset >= 0) {
            w.u32(NLMSGERR_ATTR_OFFS, offset);
        }
        return w.build();
    }

    private static byte[] intBytes(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(v).array();
    }
}
