package io.ibemu.emulator.hca;

import io.ibemu.emulator.fabric.BthOpcode;
import io.ibemu.emulator.fabric.LinkPacket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The packets one message becomes on the wire, for a capture (IBA 9.7.2 segmentation, as
 * rxe_req.c's next_opcode picks FIRST, MIDDLE, LAST or ONLY): the requester's packets with
 * their PSNs, and the responder's ACK, NAK, READ response or atomic acknowledgement. Built
 * only when a port on the path is captured; the model itself moves whole messages.
 */
final class WireMessage {
    static final int PSN_MASK = 0xFFFFFF;
    /** AETH syndromes (IBA 9.7.5.2.2): ACK with no credit count, RNR NAK, the NAK codes. */
    private static final int ACK_NO_CREDITS = 0x1F;
    private static final int RNR_NAK = 0x20;
    private static final int NAK = 0x60;
    private static final int NAK_PSN_SEQUENCE = 0;
    private static final int NAK_INVALID_REQUEST = 1;
    private static final int NAK_REMOTE_ACCESS = 2;
    private static final int NAK_REMOTE_OPERATIONAL = 3;

    private WireMessage() {
    }

    /** How many PSNs a request uses: one per packet, a READ one per response packet (IBA 9.7.1). */
    static int psnSpan(Packet p, int mtu) {
        if (WrOpcode.isAtomic(p.opcode())) {
            return 1;
        }
        return (int) Math.max(1, (p.length() + mtu - 1) / mtu);
    }

    /** The request packets of {@code p} from {@code psn} on, to {@code destQpn}. */
    static List<LinkPacket> request(Packet p, QpType type, int destQpn, int psn, int mtu) {
        List<LinkPacket> out = new ArrayList<>();
        if (type == QpType.UD) {
            out.add(base(p, p.hasImm() ? BthOpcode.UD_SEND_ONLY_IMM : BthOpcode.UD_SEND_ONLY, destQpn, psn, false)
                    .deth(p.qkey(), p.srcQpn()).immediate(p.imm()).payload(p.data()).build());
            return out;
        }
        int transport = switch (type) {
            case UC -> 0x20;
            case XRC_INI -> 0xA0;
            default -> 0x00;
        };
        boolean reliable = type != QpType.UC;
        switch (p.opcode()) {
            case WrOpcode.RDMA_READ -> out.add(base(p, BthOpcode.RC_RDMA_READ_REQUEST.on(transport), destQpn, psn, true)
                    .reth(p.remoteAddr(), p.rkey(), (int) p.length()).build());
            case WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD -> out.add(base(p,
                    (p.opcode() == WrOpcode.ATOMIC_CMP_AND_SWP ? BthOpcode.RC_COMPARE_SWAP : BthOpcode.RC_FETCH_ADD)
                            .on(transport), destQpn, psn, true)
                    .atomic(p.remoteAddr(), p.rkey(), swapAdd(p), p.opcode() == WrOpcode.ATOMIC_CMP_AND_SWP
                            ? p.compareAdd() : 0).build());
            default -> {
                boolean write = p.opcode() == WrOpcode.RDMA_WRITE || p.opcode() == WrOpcode.RDMA_WRITE_WITH_IMM;
                ByteBuffer data = p.data();
                int n = psnSpan(p, mtu);
                for (int i = 0; i < n; i++) {
                    boolean first = i == 0;
                    boolean last = i == n - 1;
                    BthOpcode op = write ? writeOpcode(first, last, p.hasImm()) : sendOpcode(first, last, p.hasImm());
                    int len = Math.min(mtu, data.remaining());
                    ByteBuffer part = data.slice(data.position(), len);
                    data.position(data.position() + len);
                    LinkPacket.Builder b = base(p, op.on(transport), destQpn, (psn + i) & PSN_MASK,
                            reliable && last).payload(part);
                    if (first && write) {
                        b.reth(p.remoteAddr(), p.rkey(), (int) p.length());
                    }
                    if (last) {
                        b.immediate(p.imm());
                    }
                    out.add(b.build());
                }
            }
        }
        return out;
    }

    /** AtomicETH SwapAdd: the swap value of a compare-and-swap, the addend of a fetch-and-add. */
    private static long swapAdd(Packet p) {
        return p.opcode() == WrOpcode.ATOMIC_CMP_AND_SWP ? p.swap() : p.compareAdd();
    }

    private static BthOpcode sendOpcode(boolean first, boolean last, boolean imm) {
        if (first && last) {
            return imm ? BthOpcode.RC_SEND_ONLY_IMM : BthOpcode.RC_SEND_ONLY;
        }
        if (last) {
            return imm ? BthOpcode.RC_SEND_LAST_IMM : BthOpcode.RC_SEND_LAST;
        }
        return first ? BthOpcode.RC_SEND_FIRST : BthOpcode.RC_SEND_MIDDLE;
    }

    private static BthOpcode writeOpcode(boolean first, boolean last, boolean imm) {
        if (first && last) {
            return imm ? BthOpcode.RC_RDMA_WRITE_ONLY_IMM : BthOpcode.RC_RDMA_WRITE_ONLY;
        }
        if (last) {
            return imm ? BthOpcode.RC_RDMA_WRITE_LAST_IMM : BthOpcode.RC_RDMA_WRITE_LAST;
        }
        return first ? BthOpcode.RC_RDMA_WRITE_FIRST : BthOpcode.RC_RDMA_WRITE_MIDDLE;
    }

    private static LinkPacket.Builder base(Packet p, BthOpcode op, int destQpn, int psn, boolean ackRequest) {
        return LinkPacket.builder(op).lrh(0, p.sl(), p.slid(), p.dlid()).grh(p.grh())
                .bth(p.pkey(), destQpn, psn, p.solicited(), ackRequest).xrcSrq(p.xrcSrqNum());
    }

    /**
     * The responder's answer to {@code p}, whose first PSN was {@code psn}, sent back to QP
     * {@code requesterQpn} with the responder's {@code msn}: READ data, an atomic ACK, or one ACK
     * or NAK for the last PSN (an RNR NAK names the first, the one it could not take).
     */
    static List<LinkPacket> response(Packet p, Response r, QpType type, int requesterQpn, int psn, int msn, int mtu) {
        int transport = type == QpType.XRC_INI ? 0xA0 : 0x00;
        List<LinkPacket> out = new ArrayList<>();
        int last = (psn + psnSpan(p, mtu) - 1) & PSN_MASK;
        switch (r.kind()) {
            case ACK -> {
                if (r.data() != null) {
                    ByteBuffer data = r.data().duplicate().rewind();
                    int n = (int) Math.max(1, (data.remaining() + mtu - 1) / mtu);
                    for (int i = 0; i < n; i++) {
                        BthOpcode op = n == 1 ? BthOpcode.RC_RDMA_READ_RESPONSE_ONLY
                                : i == 0 ? BthOpcode.RC_RDMA_READ_RESPONSE_FIRST
                                : i == n - 1 ? BthOpcode.RC_RDMA_READ_RESPONSE_LAST
                                : BthOpcode.RC_RDMA_READ_RESPONSE_MIDDLE;
                        int len = Math.min(mtu, data.remaining());
                        out.add(back(p, op.on(transport), requesterQpn, (psn + i) & PSN_MASK)
                                .aeth(ACK_NO_CREDITS, msn).payload(data.slice(data.position(), len)).build());
                        data.position(data.position() + len);
                    }
                } else if (WrOpcode.isAtomic(p.opcode())) {
                    out.add(back(p, BthOpcode.RC_ATOMIC_ACKNOWLEDGE.on(transport), requesterQpn, psn)
                            .aeth(ACK_NO_CREDITS, msn).originalData(r.original()).build());
                } else {
                    out.add(back(p, BthOpcode.RC_ACKNOWLEDGE.on(transport), requesterQpn, last)
                            .aeth(ACK_NO_CREDITS, msn).build());
                }
            }
            case RNR_NAK -> out.add(back(p, BthOpcode.RC_ACKNOWLEDGE.on(transport), requesterQpn, psn)
                    .aeth(RNR_NAK | r.rnrTimer() & 0x1F, msn).build());
            case NAK_SEQUENCE, NAK_INVALID_REQUEST, NAK_REMOTE_ACCESS, NAK_REMOTE_OPERATION -> {
                int code = switch (r.kind()) {
                    case NAK_SEQUENCE -> NAK_PSN_SEQUENCE;
                    case NAK_INVALID_REQUEST -> NAK_INVALID_REQUEST;
                    case NAK_REMOTE_ACCESS -> NAK_REMOTE_ACCESS;
                    default -> NAK_REMOTE_OPERATIONAL;
                };
                out.add(back(p, BthOpcode.RC_ACKNOWLEDGE.on(transport), requesterQpn, psn)
                        .aeth(NAK | code, msn).build());
            }
            case NONE -> {
            }
        }
        return out;
    }

    /** LRH and GRH of the answer: the request's, source and destination exchanged. */
    private static LinkPacket.Builder back(Packet p, BthOpcode op, int destQpn, int psn) {
        byte[] grh = null;
        if (p.grh() != null) {
            grh = p.grh().clone();
            System.arraycopy(p.grh(), 8, grh, 24, 16);
            System.arraycopy(p.grh(), 24, grh, 8, 16);
        }
        return LinkPacket.builder(op).lrh(0, p.sl(), p.dlid(), p.slid()).grh(grh)
                .bth(p.pkey(), destQpn, psn, false, false);
    }
}
