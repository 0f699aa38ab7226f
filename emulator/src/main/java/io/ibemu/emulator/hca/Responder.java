package io.ibemu.emulator.hca;

import io.ibemu.emulator.fabric.Port;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The receive side of the transports (IBA 9.7.4 responder, rxe_resp.c by role): checks an
 * arriving message against the QP (state, source QP, P_Key, Q_Key), takes a receive WR for
 * SEND and WRITE with immediate (none: RNR NAK on RC, dropped otherwise), checks R_Keys and
 * bounds for RDMA and atomics, moves the data, and completes receives. Errors follow the
 * spec's responder classes: a too-long message completes LOC_LEN_ERR and NAKs Invalid
 * Request; an R_Key violation NAKs Remote Access; either puts an RC QP in ERR with its
 * affiliated async event. UD follows qib: a message too long for the receive buffer is
 * dropped and the buffer kept. Runs under the model lock.
 */
final class Responder {
    /** Space a UD receive buffer gives the GRH, present or not (IBA 11.4.1.1). */
    static final int GRH_SPACE = 40;

    private final Hca hca;
    private final StagingBuffer staging = new StagingBuffer(); // guarded by the model lock

    Responder(Hca hca) {
        this.hca = hca;
    }

    Response receive(QueuePair q, Packet p) {
        if (!q.currentState().processRecvOk()) {
            return Response.NONE;
        }
        Port at = hca.fabricPort(q.attrs.portNum());
        if (!at.acceptsPKey(p.pkey())) {
            at.countPKeyViolation();
            return Response.NONE;
        }
        if (q.type().isConnected() ? q.attrs.destQpNum() != p.srcQpn() : q.attrs.qkey() != p.qkey()) {
            return Response.NONE;
        }
        return switch (p.opcode()) {
            case WrOpcode.SEND, WrOpcode.SEND_WITH_IMM -> q.type() == QpType.UD ? datagram(q, p, at) : send(q, p);
            case WrOpcode.SEND_WITH_INV -> send(q, p);
            case WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM -> write(q, p);
            case WrOpcode.RDMA_READ -> read(q, p);
            default -> atomic(q, p);
        };
    }

    // ---- receive queue ----

    /** The SRQ a message uses: the QP's, or for an XRC target the one the sender named in its domain. */
    private SharedReceiveQueue srqOf(QueuePair q, Packet p) {
        if (q.type() == QpType.XRC_TGT) {
            SharedReceiveQueue s = hca.srq(p.xrcSrqNum());
            return s != null && s.xrcd() == q.xrcd() ? s : null;
        }
        return q.srq();
    }

    /** The WR a message would use, left posted until {@link #consume}: an RNR or a drop leaves it for the next. */
    private ReceiveWorkRequest peek(QueuePair q, Packet p) {
        SharedReceiveQueue s = srqOf(q, p);
        return s != null ? s.peek() : q.rq.peek();
    }

    private void consume(QueuePair q, Packet p) {
        SharedReceiveQueue s = srqOf(q, p);
        if (s != null) {
            s.consume();
        } else {
            q.rq.consume();
        }
    }

    private CompletionQueue receiveCq(QueuePair q, Packet p) {
        SharedReceiveQueue s = srqOf(q, p);
        return s != null && s.cq() != null ? s.cq() : q.recvCq();
    }

    private ProtectionDomain memoryDomain(QueuePair q, Packet p) {
        SharedReceiveQueue s = srqOf(q, p);
        return q.type() == QpType.XRC_TGT && s != null ? s.pd() : q.pd();
    }

    private WorkCompletion received(QueuePair q, Packet p, long wrId, int status, int opcode, long byteLen, int flags) {
        int lmc = hca.fabricPort(q.attrs.portNum()).lmc();
        boolean ex = p.hasImm() || (flags & WcOpcode.FLAG_WITH_INV) != 0;
        return new WorkCompletion(wrId, status, opcode, 0, (int) byteLen, ex ? p.imm() : 0, q.qpNum(),
                p.srcQpn(), flags | (p.hasImm() ? WcOpcode.FLAG_WITH_IMM : 0), q.attrs.pkeyIndex(), p.slid(), p.sl(),
                p.dlid() & ((1 << lmc) - 1));
    }

    // ---- operations ----

    private Response datagram(QueuePair q, Packet p, Port at) {
        ReceiveWorkRequest r = peek(q, p);
        if (r == null) {
            return Response.NONE;
        }
        if (GRH_SPACE + p.length() > r.totalLength()) {
            return Response.NONE;
        }
        consume(q, p);
        boolean ok = p.grh() == null || Requester.scatter(q.pd(), r.sgList(), ByteBuffer.wrap(p.grh()), 0);
        ok = ok && Requester.scatter(q.pd(), r.sgList(), p.data(), GRH_SPACE);
        if (!ok) {
            hca.completer.receive(q.recvCq(), received(q, p, r.wrId(), WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0),
                    false);
            hca.completer.error(q);
            return Response.NONE;
        }
        int flags = p.grh() != null ? WcOpcode.FLAG_GRH : 0;
        return delivered(q, q.recvCq(), received(q, p, r.wrId(), WcStatus.SUCCESS, WcOpcode.RECV,
                GRH_SPACE + p.length(), flags), p.solicited());
    }

    private Response send(QueuePair q, Packet p) {
        if (q.type() == QpType.XRC_TGT && srqOf(q, p) == null) {
            return invalidRequest(q);
        }
        ReceiveWorkRequest r = peek(q, p);
        if (r == null) {
            return q.type().isReliable() ? Response.rnr(q.attrs.minRnrTimer()) : Response.NONE;
        }
        consume(q, p);
        CompletionQueue cq = receiveCq(q, p);
        if (p.length() > r.totalLength()) {
            hca.completer.receive(cq, received(q, p, r.wrId(), WcStatus.LOC_LEN_ERR, WcOpcode.RECV, 0, 0), false);
            return invalidRequest(q);
        }
        if (!Requester.scatter(memoryDomain(q, p), r.sgList(), p.data(), 0)) {
            hca.completer.receive(cq, received(q, p, r.wrId(), WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0), false);
            hca.completer.error(q);
            return q.type().isReliable() ? Response.REMOTE_OPERATION : Response.NONE;
        }
        int flags = 0;
        if (p.opcode() == WrOpcode.SEND_WITH_INV) {
            // the IETH's rkey: a type 2 window of this QP goes free (rxe's invalidate_rkey)
            if (!hca.invalidateWindow(q, p.imm())) {
                hca.completer.receive(cq, received(q, p, r.wrId(), WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV, 0, 0),
                        false);
                return invalidRequest(q);
            }
            flags = WcOpcode.FLAG_WITH_INV;
        }
        return delivered(q, cq, received(q, p, r.wrId(), WcStatus.SUCCESS, WcOpcode.RECV, p.length(), flags),
                p.solicited());
    }

    private Response write(QueuePair q, Packet p) {
        if (q.type() == QpType.UD) {
            return Response.NONE;
        }
        ReceiveWorkRequest r = null;
        if (p.hasImm()) {
            r = peek(q, p);
            if (r == null) {
                return q.type().isReliable() ? Response.rnr(q.attrs.minRnrTimer()) : Response.NONE;
            }
        }
        if (p.length() > 0) {
            MemoryRegistration.Target t = remote(q, p, Access.REMOTE_WRITE, p.length());
            boolean ok = t != null;
            if (ok) {
                try {
                    t.mr().memory().write(t.host(), p.data());
                } catch (MemoryFault e) {
                    ok = false;
                }
            }
            if (!ok) {
                return remoteAccess(q); // the WR stays posted (flushed by the error that follows)
            }
        }
        if (r != null) {
            consume(q, p);
            return delivered(q, receiveCq(q, p), received(q, p, r.wrId(), WcStatus.SUCCESS,
                    WcOpcode.RECV_RDMA_WITH_IMM, p.length(), 0), p.solicited());
        }
        return Response.ACK;
    }

    private Response read(QueuePair q, Packet p) {
        if (!q.type().isReliable() || q.attrs.maxDestRdAtomic() == 0) {
            return invalidRequest(q);
        }
        ByteBuffer data = staging.get((int) p.length());
        if (p.length() > 0) {
            MemoryRegistration.Target t = remote(q, p, Access.REMOTE_READ, p.length());
            if (t == null) {
                return remoteAccess(q);
            }
            try {
                t.mr().memory().read(t.host(), data);
            } catch (MemoryFault e) {
                return remoteAccess(q);
            }
        }
        return Response.readData(data.flip());
    }


    /** Atomics: 8 bytes at an 8-aligned address, done under the model lock (IBV_ATOMIC_HCA). */
    private Response atomic(QueuePair q, Packet p) {
        if (!q.type().isReliable() || q.attrs.maxDestRdAtomic() == 0 || (p.remoteAddr() & 7) != 0) {
            return invalidRequest(q);
        }
        MemoryRegistration.Target t = remote(q, p, Access.REMOTE_ATOMIC, 8);
        if (t == null) {
            return remoteAccess(q);
        }
        MemoryRegion mr = t.mr();
        long host = t.host();
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        try {
            mr.memory().read(host, b);
            long original = b.getLong(0);
            long next = p.opcode() == WrOpcode.ATOMIC_CMP_AND_SWP
                    ? (original == p.compareAdd() ? p.swap() : original) : original + p.compareAdd();
            b.clear();
            b.putLong(0, next);
            mr.memory().write(host, b);
            return Response.atomic(original);
        } catch (MemoryFault e) {
            return remoteAccess(q);
        }
    }

    /**
     * A receive completes: as it is, or with the error status a fault rule gives it; the QP then
     * goes to ERR and an RC requester hears Remote Operational Error, as after a responder's local error.
     */
    private Response delivered(QueuePair q, CompletionQueue cq, WorkCompletion wc, boolean solicited) {
        int status = hca.completionFault.receiveStatus(q, wc);
        if (status == wc.status()) {
            hca.completer.receive(cq, wc, solicited);
            return Response.ACK;
        }
        hca.completer.receive(cq, new WorkCompletion(wc.wrId(), status, wc.opcode(), 0, 0, 0, wc.qpNum(), wc.srcQp(),
                0, wc.pkeyIndex(), wc.slid(), wc.sl(), wc.dlidPathBits()), false);
        hca.completer.error(q);
        return q.type().isReliable() ? Response.REMOTE_OPERATION : Response.NONE;
    }

    /** rvt_rkey_ok / rxe_check_rkey: the region and host address for {@code len} bytes at the packet's address, null when refused. */
    private MemoryRegistration.Target remote(QueuePair q, Packet p, int access, long len) {
        if ((q.attrs.qpAccessFlags() & access) == 0) {
            return null;
        }
        return hca.remote(q, memoryDomain(q, p), p.rkey(), p.remoteAddr(), len, access);
    }

    private Response invalidRequest(QueuePair q) {
        hca.completer.error(q);
        hca.fire(new AsyncEvent(AsyncEvent.Type.QP_REQ_ERR, q));
        return Response.INVALID_REQUEST;
    }

    private Response remoteAccess(QueuePair q) {
        hca.completer.error(q);
        hca.fire(new AsyncEvent(AsyncEvent.Type.QP_ACCESS_ERR, q));
        return Response.REMOTE_ACCESS;
    }
}
