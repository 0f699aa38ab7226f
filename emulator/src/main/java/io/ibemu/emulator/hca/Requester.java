package io.ibemu.emulator.hca;

import io.ibemu.emulator.fabric.Port;
import io.ibemu.kernel.Errno;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * The send side of the transports (IBA 9.7 requester, rxe_req.c/rxe_comp.c by role): checks and
 * queues posted send WRs, then runs the send queue in order: gathers the payload from local
 * memory, sends the message through the {@link DataLink}, hands it to the remote {@link
 * Responder} and acts on its answer. An RNR NAK or a lost message makes the head WR wait for a
 * retry on the timer thread (min_rnr_timer / local ACK timeout), holding back the WRs behind it,
 * until rnr_retry / retry_cnt run out. While packet fault rules are armed a message moves packet
 * by packet instead ({@link PacketTransport}). Runs under the model lock.
 */
final class Requester {
    private static final System.Logger LOG = System.getLogger(Requester.class.getName());
    /** IBA table 45 (RNR NAK timer field), in nanoseconds: code 0 is the longest, 655.36 ms. */
    private static final long[] RNR_NANOS = {655_360_000, 10_000, 20_000, 30_000, 40_000, 60_000, 80_000,
        120_000, 160_000, 240_000, 320_000, 480_000, 640_000, 960_000, 1_280_000, 1_920_000, 2_560_000,
        3_840_000, 5_120_000, 7_680_000, 10_240_000, 15_360_000, 20_480_000, 30_720_000, 40_960_000, 61_440_000,
        81_920_000, 122_880_000, 163_840_000, 245_760_000, 327_680_000, 491_520_000};
    /** rnr_retry 7 means retry for ever (IBA 9.7.5.2.8). */
    private static final int RNR_INFINITE = 7;

    private final Hca hca;
    /** Larger payloads get a buffer of their own (and give it back to the GC) rather than one kept. */
    private final StagingBuffer staging = new StagingBuffer(); // guarded by the model lock
    /** The packet-by-packet path, taken while packet fault rules are armed. */
    private final PacketTransport packets;

    /**
     * DONE: the WR ends; RNR: retry after the NAK's timer; LOST: retry after the local ACK timeout;
     * RESEND: retry now (a NAK sequence error, a READ response gap).
     */
    enum Kind { DONE, RNR, LOST, RESEND }

    static final Outcome LOST = new Outcome(Kind.LOST, 0, 0, 0);
    static final Outcome RESEND = new Outcome(Kind.RESEND, 0, 0, 0);

    record Outcome(Kind kind, int status, int byteLen, long delayNanos) {
        static Outcome done(int status) {
            return new Outcome(Kind.DONE, status, 0, 0);
        }
    }

    Requester(Hca hca) {
        this.hca = hca;
        this.packets = new PacketTransport(hca, this);
    }

    // ---- posting ----

    void post(QueuePair qp, List<SendWorkRequest> wrs) throws PostError {
        if (qp.destroyed || !qp.currentState().postSendOk()) {
            throw new PostError(Errno.EINVAL, PostError.NONE_NAMED); // rvt_post_send leaves *bad_wr unset
        }
        if (qp.sendRing != null) {
            fetch(qp);
            return;
        }
        for (int i = 0; i < wrs.size(); i++) {
            SendWorkRequest wr = wrs.get(i);
            if (!valid(qp, wr)) {
                throw new PostError(Errno.EINVAL, i);
            }
            if (qp.sq.size() >= qp.capabilities().maxSendWr()) {
                throw new PostError(Errno.ENOMEM, i);
            }
            boolean signaled = qp.sqSigAll() || (wr.sendFlags() & WrOpcode.FLAG_SIGNALED) != 0;
            QueuePair.SendWqe w = new QueuePair.SendWqe(wr, signaled);
            if (qp.currentState() == QpState.ERR) {
                hca.completer.flushSend(qp, w);
            } else {
                qp.sq.add(w);
            }
        }
    }

    /**
     * The doorbell of a shared send ring: what the program produced joins the send queue (the
     * ring bounds it, not max_send_wr); a WR the QP cannot run completes with an error in its
     * turn, where the write() path would refuse it (rxe_requester's local operation error).
     */
    private void fetch(QueuePair qp) {
        for (SendWorkRequest wr : qp.sendRing.fetch()) {
            boolean signaled = qp.sqSigAll() || (wr.sendFlags() & WrOpcode.FLAG_SIGNALED) != 0;
            QueuePair.SendWqe w = new QueuePair.SendWqe(wr, signaled);
            w.invalid = !valid(qp, wr);
            qp.sq.add(w);
        }
        if (qp.currentState() == QpState.ERR) {
            while (!qp.sq.isEmpty()) {
                hca.completer.flushSend(qp, qp.takeSend());
            }
        }
    }

    /** rvt_qp_valid_operation and the checks of rvt_post_one_wr. */
    private boolean valid(QueuePair qp, SendWorkRequest wr) {
        QpType t = qp.type();
        int op = wr.opcode();
        boolean opOk = switch (t) {
            case UD -> op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM;
            // rxe_wr_opcode_info: UC binds windows but has no invalidation (next_opcode_uc refuses SEND_WITH_INV)
            case UC -> op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM || op == WrOpcode.RDMA_WRITE
                    || op == WrOpcode.RDMA_WRITE_WITH_IMM || op == WrOpcode.BIND_MW;
            case RC -> op >= WrOpcode.RDMA_WRITE && op <= WrOpcode.ATOMIC_FETCH_AND_ADD
                    || op == WrOpcode.SEND_WITH_INV || isLocal(op);
            case XRC_INI -> op >= WrOpcode.RDMA_WRITE && op <= WrOpcode.ATOMIC_FETCH_AND_ADD;
            default -> false;
        };
        if (!opOk || wr.sgList().size() > qp.capabilities().maxSendSge()) {
            return false;
        }
        if ((wr.sendFlags() & WrOpcode.FLAG_INLINE) != 0
                && (wr.inlineData() == null || wr.inlineData().length > qp.capabilities().maxInlineData()
                        || WrOpcode.isAtomic(op) || op == WrOpcode.RDMA_READ)) {
            return false;
        }
        if (t == QpType.UD && (wr.ah() == null || wr.ah().pd().hca() != hca)) {
            return false;
        }
        return !WrOpcode.isAtomic(op) || wr.sgList().size() == 1 && wr.sgList().get(0).length() == 8;
    }

    /** BIND_MW and LOCAL_INV: done in the HCA, no message (rxe_do_local_ops). */
    private static boolean isLocal(int op) {
        return op == WrOpcode.BIND_MW || op == WrOpcode.LOCAL_INV;
    }

    /** A local operation's status: MW_BIND_ERR for a refused bind, LOC_QP_OP_ERR for a refused invalidation. */
    private int local(QueuePair qp, SendWorkRequest wr) {
        if (wr.opcode() == WrOpcode.BIND_MW) {
            return hca.bindWindow(qp, wr.bind());
        }
        return hca.invalidateWindow(qp, wr.immData()) ? WcStatus.SUCCESS : WcStatus.LOC_QP_OP_ERR;
    }

    // ---- running the send queue ----

    /**
     * Runs the send queue from its head until it is empty, waits for a retry, or may not go on:
     * RTS starts WQEs, SQD only finishes the one it had begun.
     */
    void drain(QueuePair qp) {
        while (!qp.destroyed && qp.retry == null && !qp.stalled) {
            QueuePair.SendWqe w = qp.sq.peek();
            if (w == null || !(qp.currentState().processSendOk() || qp.sqDraining && w.started)) {
                return;
            }
            if (!w.started) {
                w.started = true;
                w.retryLeft = qp.attrs.retryCnt();
                w.rnrLeft = qp.attrs.rnrRetry();
            }
            Outcome o = w.invalid ? Outcome.done(WcStatus.LOC_QP_OP_ERR)
                    : isLocal(w.wr.opcode()) ? Outcome.done(local(qp, w.wr)) : execute(qp, w);
            switch (o.kind()) {
                case DONE -> finish(qp, w, o.status(), o.byteLen());
                case RNR -> {
                    if (w.rnrLeft == 0) {
                        finish(qp, w, WcStatus.RNR_RETRY_EXC_ERR, 0);
                    } else {
                        if (w.rnrLeft != RNR_INFINITE) {
                            w.rnrLeft--;
                        }
                        scheduleRetry(qp, o.delayNanos());
                    }
                }
                case LOST -> {
                    int timeout = qp.attrs.timeout();
                    if (timeout == 0) {
                        // no local ACK timer: the WR waits for an answer that never comes (IBA 9.7.6.1.3)
                        qp.stalled = true;
                    } else if (w.retryLeft == 0) {
                        finish(qp, w, WcStatus.RETRY_EXC_ERR, 0);
                    } else {
                        w.retryLeft--;
                        retransmits(qp, w, "local ACK timeout");
                        scheduleRetry(qp, 4096L << timeout);
                    }
                }
                case RESEND -> {
                    // a NAK-sequence error or a READ response gap costs a retry too (rxe_comp.c COMPST_ERROR_RETRY)
                    if (w.retryLeft == 0) {
                        finish(qp, w, WcStatus.RETRY_EXC_ERR, 0);
                    } else {
                        w.retryLeft--;
                        retransmits(qp, w, "PSN sequence error");
                        scheduleRetry(qp, 0);
                    }
                }
            }
        }
    }

    /** The retransmissions are what a lossy link costs: logged while packet rules act (they cause them). */
    private void retransmits(QueuePair qp, QueuePair.SendWqe w, String why) {
        if (hca.packetFault.armed()) {
            LOG.log(System.Logger.Level.INFO, "{0} retransmits wr_id {1} from PSN 0x{2} after a {3} ({4} retries left)",
                    qp, Long.toUnsignedString(w.wr.wrId()), Integer.toHexString(qp.sendPsn + w.resume
                    & WireMessage.PSN_MASK), why, w.retryLeft);
        }
    }

    private void finish(QueuePair qp, QueuePair.SendWqe w, int outcome, int byteLen) {
        int status = hca.completionFault.status(qp, w.wr, outcome);
        qp.takeSend();
        hca.completer.send(qp, w, status, status == outcome ? byteLen : 0);
        if (status != WcStatus.SUCCESS) {
            hca.completer.error(qp);
        } else if (qp.sqDraining) {
            hca.sqDrained(qp);
        }
    }

    private void scheduleRetry(QueuePair qp, long nanos) {
        int generation = ++qp.retryGeneration;
        qp.retry = hca.link().schedule(() -> {
            synchronized (hca.lock()) {
                if (qp.retryGeneration == generation && qp.retry != null) {
                    qp.retry = null;
                    drain(qp);
                }
            }
        }, nanos);
    }

    void cancelRetry(QueuePair qp) {
        qp.retryGeneration++;
        qp.stalled = false;
        if (qp.retry != null) {
            qp.retry.cancel(false);
            qp.retry = null;
        }
    }

    // ---- one work request ----

    private Outcome execute(QueuePair qp, QueuePair.SendWqe w) {
        SendWorkRequest wr = w.wr;
        boolean ud = qp.type() == QpType.UD;
        AhAttributes ah = ud ? wr.ah().attributes() : qp.attrs.ah();
        int portNum = ah.portNum() != 0 ? ah.portNum() : qp.attrs.portNum();
        if (!hca.hasPort(portNum)) {
            return Outcome.done(WcStatus.LOC_QP_OP_ERR);
        }
        Port port = hca.fabricPort(portNum);
        int mtu = PortAttributes.mtuBytes(ud ? Hca.activeMtu(port) : qp.attrs.pathMtu());
        long length = wr.totalLength();
        if (ud && length > mtu || length > Hca.MAX_MSG) {
            return Outcome.done(WcStatus.LOC_LEN_ERR);
        }
        ByteBuffer payload = null;
        int op = wr.opcode();
        if (op != WrOpcode.RDMA_READ && !WrOpcode.isAtomic(op)) {
            payload = gather(qp, wr, (int) length);
            if (payload == null) {
                return Outcome.done(WcStatus.LOC_PROT_ERR);
            }
        }
        int lmcMask = (1 << port.lmc()) - 1;
        int slid = port.lid() & ~lmcMask | ah.srcPathBits() & lmcMask;
        int pkey = port.pkey(qp.attrs.pkeyIndex());
        int qkey = ud ? (wr.remoteQkey() < 0 ? qp.attrs.qkey() : wr.remoteQkey()) : 0;
        byte[] grh = null;
        if (ah.isGlobal()) {
            int index = ah.grh().sgidIndex() < port.guidCount() ? ah.grh().sgidIndex() : 0;
            int headers = Traffic.BTH + (ud ? Traffic.DETH : 0) + Traffic.ICRC + (wr.hasImm() ? Traffic.IMM : 0);
            grh = Packet.grh(ah.grh(), Hca.gid(port.subnetPrefix(), port.guid(index)), ((length + 3) & ~3L) + headers);
        }
        Packet p = new Packet(op, qp.qpNum(), slid, ah.dlid(), ah.sl(), pkey, qkey, payload, length,
                wr.remoteAddr(), wr.rkey(), wr.immData(), (wr.sendFlags() & WrOpcode.FLAG_SOLICITED) != 0,
                wr.compareAdd(), wr.swap(), grh, wr.xrcRemoteSrqNum());
        int psn = qp.sendPsn;
        int destQpn = ud ? wr.remoteQpn() : qp.attrs.destQpNum();
        if (hca.packetFault.armed()) {
            return ud ? packets.datagram(qp, p, port, mtu, psn, destQpn) : advanced(qp, p, mtu, psn,
                    packets.connected(qp, w, p, port, mtu, psn, destQpn));
        }
        Traffic request = requestTraffic(p, mtu, ud)
                .withFrames(() -> WireMessage.request(p, qp.type(), destQpn, psn, mtu));
        List<Port> reached = hca.link().transmit(port, ah.dlid(), request);
        if (ud) {
            deliverDatagram(qp, p, reached, wr.remoteQpn());
            qp.sendPsn = (psn + 1) & WireMessage.PSN_MASK;
            return Outcome.done(WcStatus.SUCCESS);
        }
        return advanced(qp, p, mtu, psn, connected(qp, w, p, reached, mtu, psn));
    }

    private static Outcome advanced(QueuePair qp, Packet p, int mtu, int psn, Outcome o) {
        if (o.kind() == Kind.DONE) {
            // a retried message (RNR, timeout) is sent again with the same PSNs
            qp.sendPsn = (psn + WireMessage.psnSpan(p, mtu)) & WireMessage.PSN_MASK;
        }
        return o;
    }

    /** UD: every reached port's QP (or, for a multicast DLID, every attached QP but the sender). */
    void deliverDatagram(QueuePair qp, Packet p, List<Port> reached, int destQpn) {
        boolean multicast = p.dlid() >= 0xC000 && p.dlid() != 0xFFFF;
        for (Port at : reached) {
            Hca h = hca.link().hcaAt(at);
            if (h == null) {
                continue;
            }
            if (multicast) {
                for (QueuePair q : h.multicast.lookup(p.dgid(), p.dlid(), at.number())) {
                    if (q != qp) {
                        h.responder.receive(q, p);
                    }
                }
            } else {
                QueuePair q = h.qp(destQpn);
                if (q != null && q.type() == QpType.UD && q.attrs.portNum() == at.number()) {
                    h.responder.receive(q, p);
                }
            }
        }
    }

    private Outcome connected(QueuePair qp, QueuePair.SendWqe w, Packet p, List<Port> reached, int mtu, int psn) {
        boolean reliable = qp.type().isReliable();
        Outcome lost = reliable ? LOST : Outcome.done(WcStatus.SUCCESS);
        QueuePair q = peer(qp, reached);
        if (q == null) {
            return lost;
        }
        Port at = reached.get(0);
        Response r = q.hca().responder.receive(q, p);
        if (!reliable) {
            return Outcome.done(WcStatus.SUCCESS);
        }
        accepted(q, p, r, psn, WireMessage.psnSpan(p, mtu));
        int msn = q.msn;
        Traffic answer = responseTraffic(p, r, mtu)
                .withFrames(() -> WireMessage.response(p, r, qp.type(), qp.qpNum(), psn, msn, mtu));
        if (r.kind() == Response.Kind.NONE || hca.link().transmit(at, p.slid(), answer).isEmpty()) {
            return lost;
        }
        return answered(qp, w, r);
    }

    /** What an answer that settles the WR makes of it (rxe_comp.c): an ACK's data landing, an RNR wait, or a NAK's error status. */
    Outcome answered(QueuePair qp, QueuePair.SendWqe w, Response r) {
        return switch (r.kind()) {
            case ACK -> acknowledged(qp, w, r);
            case RNR_NAK -> new Outcome(Kind.RNR, 0, 0, RNR_NANOS[r.rnrTimer() & 31]);
            case NAK_INVALID_REQUEST -> Outcome.done(WcStatus.REM_INV_REQ_ERR);
            case NAK_REMOTE_ACCESS -> Outcome.done(WcStatus.REM_ACCESS_ERR);
            default -> Outcome.done(WcStatus.REM_OP_ERR);
        };
    }

    /**
     * The QP a connected {@code qp}'s message reached: the destination QP of the HCA behind the
     * first port reached ({@code reached.get(0)}), bound to that port; null if none (the message is lost).
     */
    QueuePair peer(QueuePair qp, List<Port> reached) {
        if (reached.isEmpty()) {
            return null;
        }
        Port at = reached.get(0);
        Hca h = hca.link().hcaAt(at);
        QueuePair q = h == null ? null : h.qp(qp.attrs.destQpNum());
        return q == null || q.attrs.portNum() != at.number() || !q.type().isConnected() ? null : q;
    }

    /** The responder took the whole message: its MSN and ePSN move on, an atomic's result is kept for a duplicate. */
    static void accepted(QueuePair q, Packet p, Response r, int psn, int span) {
        if (r.kind() == Response.Kind.ACK) {
            q.msn = (q.msn + 1) & WireMessage.PSN_MASK;
            q.recvPsn = (psn + span) & WireMessage.PSN_MASK;
            if (WrOpcode.isAtomic(p.opcode())) {
                q.atomicPsn = psn;
                q.atomicOriginal = r.original();
            }
        } else if (r.kind() == Response.Kind.RNR_NAK) {
            q.recvPsn = psn; // nothing taken: the message starts again from its first packet
        }
    }

    /** An ACK: READ data and atomic originals land in the local SGEs (needing local write). */
    private Outcome acknowledged(QueuePair qp, QueuePair.SendWqe w, Response r) {
        SendWorkRequest wr = w.wr;
        if (wr.opcode() == WrOpcode.RDMA_READ) {
            ByteBuffer data = r.data();
            return scatter(qp.pd(), wr.sgList(), data, 0)
                    ? new Outcome(Kind.DONE, WcStatus.SUCCESS, data.limit(), 0) : Outcome.done(WcStatus.LOC_PROT_ERR);
        }
        if (WrOpcode.isAtomic(wr.opcode())) {
            ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, r.original());
            return scatter(qp.pd(), wr.sgList(), b, 0)
                    ? new Outcome(Kind.DONE, WcStatus.SUCCESS, 8, 0) : Outcome.done(WcStatus.LOC_PROT_ERR);
        }
        return new Outcome(Kind.DONE, WcStatus.SUCCESS, (int) wr.totalLength(), 0);
    }

    static Traffic requestTraffic(Packet p, int mtu, boolean ud) {
        int every = (p.grh() != null ? Traffic.GRH : 0) + (ud ? Traffic.DETH : 0);
        int last = p.hasImm() ? Traffic.IMM : 0;
        return switch (p.opcode()) {
            case WrOpcode.RDMA_READ -> Traffic.single(every + Traffic.RETH);
            case WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD -> Traffic.single(every
                    + Traffic.ATOMIC_ETH);
            case WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM -> Traffic.of(p.length(), mtu, every, Traffic.RETH,
                    last);
            default -> Traffic.of(p.length(), mtu, every, 0, last);
        };
    }

    /** The answer's packets: READ responses carry the data (AETH on first and last), others one ACK/NAK. */
    static Traffic responseTraffic(Packet p, Response r, int mtu) {
        int grh = p.grh() != null ? Traffic.GRH : 0;
        if (r.data() != null) {
            long len = r.data().limit();
            return Traffic.of(len, mtu, grh, Traffic.AETH, len > mtu ? Traffic.AETH : 0);
        }
        if (WrOpcode.isAtomic(p.opcode()) && r.kind() == Response.Kind.ACK) {
            return Traffic.single(grh + Traffic.AETH + Traffic.ATOMIC_ACK_ETH);
        }
        return Traffic.single(grh + Traffic.AETH);
    }

    // ---- local memory (rvt_lkey_ok) ----

    /** The payload of a SEND or WRITE: inline bytes or the SGEs read from the QP's PD's regions; null on a fault. */
    private ByteBuffer gather(QueuePair qp, SendWorkRequest wr, int length) {
        if (wr.isInline()) {
            return ByteBuffer.wrap(wr.inlineData().clone());
        }
        ByteBuffer data = staging.get(length);
        for (Sge s : wr.sgList()) {
            if (s.length() == 0) {
                continue;
            }
            MemoryRegion mr = hca.region(s.lkey());
            long host = mr == null || mr.pd() != qp.pd() ? -1 : mr.translate(s.addr(), s.unsignedLength(), 0);
            if (host < 0) {
                return null;
            }
            ByteBuffer slice = data.slice(data.position(), s.length());
            try {
                mr.memory().read(host, slice);
            } catch (MemoryFault e) {
                return null;
            }
            data.position(data.position() + s.length());
        }
        return data.flip();
    }


    /**
     * Writes {@code data} (from its position) across {@code sges} starting {@code skip} bytes
     * into them, each SGE's region of {@code pd} granting local write; false on any fault.
     */
    static boolean scatter(ProtectionDomain pd, List<Sge> sges, ByteBuffer data, long skip) {
        ByteBuffer src = data.duplicate();
        for (Sge s : sges) {
            if (!src.hasRemaining()) {
                break;
            }
            long len = s.unsignedLength();
            if (skip >= len) {
                skip -= len;
                continue;
            }
            int n = (int) Math.min(len - skip, src.remaining());
            MemoryRegion mr = pd.hca().region(s.lkey());
            long host = mr == null || mr.pd() != pd ? -1 : mr.translate(s.addr() + skip, n, Access.LOCAL_WRITE);
            if (host < 0) {
                return false;
            }
            ByteBuffer part = src.slice(src.position(), n);
            try {
                mr.memory().write(host, part);
            } catch (MemoryFault e) {
                return false;
            }
            src.position(src.position() + n);
            skip = 0;
        }
        return !src.hasRemaining();
    }
}
