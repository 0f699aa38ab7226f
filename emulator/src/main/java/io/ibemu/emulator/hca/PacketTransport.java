package io.ibemu.emulator.hca;

import static io.ibemu.emulator.hca.Requester.LOST;
import static io.ibemu.emulator.hca.Requester.RESEND;
import static io.ibemu.emulator.hca.Requester.accepted;
import static io.ibemu.emulator.hca.Requester.requestTraffic;
import static io.ibemu.emulator.hca.Requester.responseTraffic;

import io.ibemu.emulator.fabric.LinkPacket;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.hca.Requester.Kind;
import io.ibemu.emulator.hca.Requester.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The transports packet by packet (IBA 9.7.5.1 responder, 9.7.5.2 requester), taken by the
 * {@link Requester} while packet fault rules are armed: each packet of a message, by PSN, meets
 * the rules on each cable of its way ({@link PacketFault}); the responder's PSN check takes the
 * expected PSN, answers duplicates without delivering them again and NAKs a gap once; the
 * requester acts on the answers that reach it, resending from the NAKed PSN, or after its local
 * ACK timeout. The message itself is still delivered whole, when its last packet is taken in
 * sequence. Runs under the model lock.
 */
final class PacketTransport {
    private final Hca hca;
    private final Requester requester;

    PacketTransport(Hca hca, Requester requester) {
        this.hca = hca;
        this.requester = requester;
    }

    /** An answer the responder put on the wire in one attempt, with the PSN its AETH carries first. */
    private record Answer(Response response, int psn) {
    }

    /** A UD datagram is one packet: lost, corrupt (discarded where it arrives) or delivered, twice if duplicated. */
    Outcome datagram(QueuePair qp, Packet p, Port port, int mtu, int psn, int destQpn) {
        PacketFault.Fate f = fate(hca.packetFault, hca.link().path(port, p.dlid()), qp, p.opcode(), false, psn);
        Traffic request = requestTraffic(p, mtu, true).withFrames(() -> WireMessage.request(p, qp.type(), destQpn,
                psn, mtu));
        List<Port> reached = hca.link().transmit(port, p.dlid(), request);
        if (f != PacketFault.Fate.DROP && f != PacketFault.Fate.CORRUPT) {
            requester.deliverDatagram(qp, p, reached, destQpn);
            if (f == PacketFault.Fate.DUP) {
                requester.deliverDatagram(qp, p, reached, destQpn);
            }
        }
        qp.sendPsn = (psn + 1) & WireMessage.PSN_MASK;
        return Outcome.done(WcStatus.SUCCESS);
    }

    /**
     * One attempt at a connected message, packet by packet: the request packets from {@code
     * w.resume} meet their fates on each cable of their way, the responder checks each PSN, its
     * answers meet theirs, and the requester acts on what reaches it.
     */
    Outcome connected(QueuePair qp, QueuePair.SendWqe w, Packet p, Port port, int mtu, int psn, int destQpn) {
        int op = p.opcode();
        boolean single = op == WrOpcode.RDMA_READ || WrOpcode.isAtomic(op);
        int span = WireMessage.psnSpan(p, mtu);
        int requests = single ? 1 : span;
        int from = w.resume; // a resumed READ asks from the response packet it misses
        List<Port> path = hca.link().path(port, p.dlid());
        List<Integer> arriving = arrivals(from, single ? from + 1 : requests, // PSN offsets from psn
                offset -> fate(hca.packetFault, path, qp, op, false, (psn + offset) & WireMessage.PSN_MASK));
        int sent = single ? 1 : requests - from;
        int firstPsn = (psn + from) & WireMessage.PSN_MASK;
        Traffic request = requestTraffic(p, mtu, false).part(sent).withFrames(() -> single
                ? WireMessage.request(p, qp.type(), destQpn, firstPsn, mtu)
                : tail(WireMessage.request(p, qp.type(), destQpn, psn, mtu), from));
        List<Port> reached = hca.link().transmit(port, p.dlid(), request);
        Outcome lost = qp.type().isReliable() ? LOST : Outcome.done(WcStatus.SUCCESS);
        QueuePair q = requester.peer(qp, reached);
        if (q == null) {
            return lost;
        }
        Port at = reached.get(0);
        Hca h = q.hca();
        List<Answer> answers = respond(h, q, p, psn, span, single, arriving);
        if (!qp.type().isReliable()) {
            return Outcome.done(WcStatus.SUCCESS);
        }
        Outcome o = hear(qp, w, p, h, q, at, answers, psn, span, mtu);
        if (o.kind() == Kind.LOST && !single) {
            w.resume = 0; // no ACK came: the timeout resends from the oldest unacknowledged PSN, the message's first
        }
        return o;
    }

    /**
     * The order packets {@code from} to {@code to - 1} arrive in, each meeting its fate: a lost or
     * corrupt one missing, a duplicate twice, a reordered one after the packet behind it (the last,
     * with none behind it, arrives after this attempt is over: lost to it).
     */
    private static List<Integer> arrivals(int from, int to, IntFunction<PacketFault.Fate> fates) {
        List<Integer> arriving = new ArrayList<>();
        Integer held = null;
        for (int i = from; i < to; i++) {
            PacketFault.Fate f = fates.apply(i);
            if (f == PacketFault.Fate.REORDER) {
                if (held != null) {
                    arriving.add(held);
                }
                held = i;
                continue;
            }
            if (f == PacketFault.Fate.PASS || f == PacketFault.Fate.DUP) {
                arriving.add(i);
            }
            if (f == PacketFault.Fate.DUP) {
                arriving.add(i);
            }
            if (held != null) {
                arriving.add(held);
                held = null;
            }
        }
        return arriving;
    }

    /**
     * A packet's fate along its path: the first cable whose rule harms it decides. A corrupt one
     * fails the VCRC check of the port it reaches, which discards it and counts PortRcvErrors (IBA 7.8.4).
     */
    private static PacketFault.Fate fate(PacketFault fault, List<Port> path, QueuePair requester, int opcode,
            boolean response, int psn) {
        for (Port out : path) {
            PacketFault.Fate f = fault.fate(out, requester, opcode, response, psn);
            if (f != PacketFault.Fate.PASS) {
                if (f == PacketFault.Fate.CORRUPT) {
                    out.peer().ifPresent(in -> in.count(Port.Counter.RCV_ERRORS, 1));
                }
                return f;
            }
        }
        return PacketFault.Fate.PASS;
    }

    private static List<LinkPacket> tail(List<LinkPacket> packets, int from) {
        return packets.subList(Math.min(from, packets.size()), packets.size());
    }

    /**
     * The responder's PSN check (IBA 9.7.5.1.1, rxe_resp.c check_psn): the expected PSN is taken,
     * the last packet of a message delivers it; a duplicate is answered (an ACK for SEND and WRITE,
     * which are not delivered again; a READ executed again; an atomic's kept result) without being
     * delivered; the first packet beyond the expected PSN gets one NAK sequence error, the rest
     * are dropped until the expected PSN comes.
     */
    private static List<Answer> respond(Hca h, QueuePair q, Packet p, int psn, int span, boolean single,
            List<Integer> arriving) {
        List<Answer> answers = new ArrayList<>();
        if (!q.currentState().processRecvOk()) {
            return answers;
        }
        if (!q.type().isReliable()) {
            // UC resends nothing: a new message's first PSN is the one expected (IBA 9.8.3), a gap loses the rest
            q.recvPsn = psn;
        }
        boolean nakSent = false;
        int last = single ? 0 : span - 1;
        for (int offset : arriving) {
            int expected = distance(q.recvPsn, psn);
            if (offset == expected) {
                nakSent = false;
                if (!single && offset < last) {
                    q.recvPsn = (q.recvPsn + 1) & WireMessage.PSN_MASK;
                    continue;
                }
                Response r = h.responder.receive(q, p);
                accepted(q, p, r, psn, span);
                answers.add(new Answer(r, psn));
                if (r.kind() != Response.Kind.ACK && r.kind() != Response.Kind.RNR_NAK) {
                    return answers; // the responder has gone to ERR
                }
            } else if (offset < expected) {
                if (single || offset == last) {
                    answers.add(new Answer(duplicate(h, q, p, psn), psn));
                }
            } else if (!nakSent) {
                nakSent = true;
                answers.add(new Answer(Response.SEQUENCE, q.recvPsn));
            }
        }
        return answers;
    }

    /** PSN {@code a} minus PSN {@code b} in 24-bit serial arithmetic (IBA 9.7.1). */
    private static int distance(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    /** A duplicate request's answer (IBA 9.7.5.1.2): READ executed again, an atomic's kept original, else an ACK. */
    private static Response duplicate(Hca h, QueuePair q, Packet p, int psn) {
        if (p.opcode() == WrOpcode.RDMA_READ) {
            return h.responder.receive(q, p);
        }
        if (WrOpcode.isAtomic(p.opcode())) {
            return q.atomicPsn == psn ? Response.atomic(q.atomicOriginal) : Response.INVALID_REQUEST;
        }
        return Response.ACK;
    }

    /**
     * The requester's side (IBA 9.7.5.2, rxe_comp.c): the answers cross back, each packet meeting
     * its fate on each cable of the way; the first that settles the WR decides. READ response
     * packets must come in PSN order: a gap resends the READ from the missing one.
     */
    private Outcome hear(QueuePair qp, QueuePair.SendWqe w, Packet p, Hca h, QueuePair q, Port at,
            List<Answer> answers, int psn, int span, int mtu) {
        for (Answer a : answers) {
            Response r = a.response();
            boolean read = r.data() != null;
            int first = read ? w.resume : 0;
            int packets = read ? span : 1;
            int msn = q.msn;
            Traffic answer = responseTraffic(p, r, mtu).part(packets - first).withFrames(() -> tail(
                    WireMessage.response(p, r, qp.type(), qp.qpNum(), a.psn(), msn, mtu), first));
            if (r.kind() == Response.Kind.NONE || h.link().transmit(at, p.slid(), answer).isEmpty()) {
                continue;
            }
            List<Port> path = h.link().path(at, p.slid());
            List<Integer> arriving = arrivals(first, packets,
                    i -> fate(h.packetFault, path, qp, p.opcode(), true, (a.psn() + i) & WireMessage.PSN_MASK));
            if (arriving.isEmpty()) {
                continue;
            }
            if (read && r.kind() == Response.Kind.ACK) {
                int got = w.resume;
                for (int i : arriving) {
                    if (i == got) {
                        got++;
                    } else if (i > got) {
                        w.resume = got;
                        return RESEND;
                    }
                }
                w.resume = got;
                if (got < span) {
                    continue;
                }
                return requester.answered(qp, w, r);
            }
            if (r.kind() == Response.Kind.NAK_SEQUENCE) {
                w.resume = Math.max(0, distance(a.psn(), psn));
                return RESEND;
            }
            if (r.kind() == Response.Kind.RNR_NAK) {
                w.resume = 0; // the message starts again from its first packet
            }
            return requester.answered(qp, w, r);
        }
        return LOST;
    }
}
