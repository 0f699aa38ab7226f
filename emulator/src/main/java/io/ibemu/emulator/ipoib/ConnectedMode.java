package io.ibemu.emulator.ipoib;

import io.ibemu.emulator.cm.Cm;
import io.ibemu.emulator.cm.CmEvent;
import io.ibemu.emulator.cm.CmId;
import io.ibemu.emulator.cm.CmReplyParam;
import io.ibemu.emulator.cm.CmRequestParam;
import io.ibemu.emulator.cm.QpAttributeChange;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.hca.Access;
import io.ibemu.emulator.hca.CompletionQueue;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.hca.MemoryRegion;
import io.ibemu.emulator.hca.PostError;
import io.ibemu.emulator.hca.ProtectionDomain;
import io.ibemu.emulator.hca.QpAttributeMask;
import io.ibemu.emulator.hca.QpAttributes;
import io.ibemu.emulator.hca.QpCapabilities;
import io.ibemu.emulator.hca.QpInitAttributes;
import io.ibemu.emulator.hca.QpState;
import io.ibemu.emulator.hca.QpType;
import io.ibemu.emulator.hca.QueuePair;
import io.ibemu.emulator.hca.ReceiveWorkRequest;
import io.ibemu.emulator.hca.SendWorkRequest;
import io.ibemu.emulator.hca.Sge;
import io.ibemu.emulator.hca.SharedReceiveQueue;
import io.ibemu.emulator.hca.SrqType;
import io.ibemu.emulator.hca.VerbsOwner;
import io.ibemu.emulator.hca.WorkCompletion;
import io.ibemu.emulator.hca.WrOpcode;
import io.ibemu.emulator.mad.PathRecord;
import io.ibemu.kernel.Errno;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.function.Function;

/**
 * IPoIB's connected mode (ipoib_cm.c, RFC 4755) for one interface: per peer an RC QP, set up
 * through the IB CM with service id IPOIB_CM_IETF_ID | the peer's UD QPN and the private data
 * {@code {UD QPN, receive size}} both ways; every connection receives into one shared receive
 * queue of 64 KiB buffers. The interface decides what comes here (unicast IP to a peer whose
 * hardware address has IPOIB_FLAGS_RC, while the mode is connected) and gets what arrives.
 *
 * <p>Threads: the CM's thread runs the handshake (handlers only post and modify, never wait);
 * the interface's transmitter sends and, until a connection is up, queues (ipoib_cm_tx's
 * neighbour queue); a receiver thread of its own polls the shared receive CQ.
 */
final class ConnectedMode implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("ipoib");
    /** IPOIB_CM_IETF_ID: the service id's high part; the low 24 bits are the listener's UD QPN. */
    static final long IETF_ID = 0x0000000001000000L;
    /** IPOIB_CM_MTU: the connected-mode MTU. */
    static final int MTU = 65520;
    /** IPOIB_CM_BUF_SIZE: what one receive holds, the encapsulation header included. */
    static final int BUF_SIZE = MTU + IpoibInterface.ENCAP_HEADER;
    private static final int SLOT = 65536;
    private static final int RX_RING = 32;
    private static final int TX_RING = 16;
    /** Frames queued per peer while its connection is being made (the kernel's neigh queue length). */
    private static final int PENDING = 64;

    /** What the interface does with a frame that came over a connection. */
    interface Receiver {
        void received(HardwareAddress from, byte[] buf, int offset, int length);
    }

    /** One connection we made (ipoib_cm_tx): ready once the REP came and the RTU went. */
    private static final class Tx {
        final HardwareAddress peer;
        final QueuePair qp;
        final CmId id;
        final Queue<byte[]> pending = new ArrayDeque<>(); // guarded by this
        volatile boolean ready;

        Tx(HardwareAddress peer, QueuePair qp, CmId id) {
            this.peer = peer;
            this.qp = qp;
            this.id = id;
        }
    }

    /** One connection a peer made to us (ipoib_cm_rx), by its QP number. */
    private record Rx(HardwareAddress peer, QueuePair qp, CmId id) {
    }

    private final String name;
    private final Hca hca;
    private final Port port;
    private final int udQpn;
    /** The interface's P_Key index (priv->pkey_index), which its connections' QPs use. */
    private final int pkeyIndex;
    private final Cm cm;
    private final Receiver receiver;
    private final Function<HardwareAddress, PathRecord> paths;
    private final KernelMemory memory = new KernelMemory((RX_RING + TX_RING) * SLOT);
    private final ProtectionDomain pd;
    private final MemoryRegion mr;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final SharedReceiveQueue srq;
    private final CmId listener;
    private final Map<HardwareAddress, Tx> tx = new ConcurrentHashMap<>();
    private final Map<Integer, Rx> rx = new ConcurrentHashMap<>();
    private final LinkedBlockingQueue<Integer> freeTxSlots = new LinkedBlockingQueue<>();
    private final Semaphore receiveEvent = new Semaphore(0);
    private final Semaphore sendEvent = new Semaphore(0);
    private volatile boolean closed;

    /**
     * Listens for connections to this interface (ipoib_cm_dev_open) and prepares the shared
     * receive queue; {@code paths} resolves a peer's PathRecord (ipoib's path cache).
     */
    ConnectedMode(String name, Hca hca, Port port, int udQpn, int pkeyIndex, Cm cm, Receiver receiver,
            Function<HardwareAddress, PathRecord> paths) throws IOException {
        this.name = name;
        this.hca = hca;
        this.port = port;
        this.udQpn = udQpn;
        this.pkeyIndex = pkeyIndex;
        this.cm = cm;
        this.receiver = receiver;
        this.paths = paths;
        try {
            VerbsOwner kernel = new VerbsOwner(0, name + "-cm");
            pd = hca.allocPd(kernel);
            mr = hca.registerMr(pd, memory.address(0), memory.size(), memory.address(0), Access.LOCAL_WRITE, memory);
            sendCq = hca.createCq(kernel, TX_RING * 2, 0, cq -> sendEvent.release());
            recvCq = hca.createCq(kernel, RX_RING * 2, 0, cq -> receiveEvent.release());
            srq = hca.createSrq(pd, RX_RING, 1, 0, SrqType.BASIC, null, null);
            List<ReceiveWorkRequest> ring = new ArrayList<>();
            for (int i = 0; i < RX_RING; i++) {
                ring.add(receive(i));
            }
            hca.postSrqRecv(srq, ring);
            for (int i = 0; i < TX_RING; i++) {
                freeTxSlots.add(RX_RING + i);
            }
            listener = cm.createId(hca, this::handle);
            listener.listen(IETF_ID | udQpn, 0);
        } catch (Errno | PostError e) {
            throw new IOException(name + ": connected mode: " + e.getMessage());
        }
        Thread t = new Thread(this::receiveLoop, name + "-cm-rx");
        t.setDaemon(true);
        t.start();
    }

    private ReceiveWorkRequest receive(int slot) {
        return new ReceiveWorkRequest(slot, List.of(new Sge(memory.address(slot * SLOT), SLOT, mr.lkey())));
    }

    /**
     * Sends {@code packet} (encapsulation header first) to {@code peer} over its connection,
     * making it on first use (ipoib_cm_create_tx, then ipoib_cm_send_req); frames wait for it.
     */
    void send(HardwareAddress peer, byte[] packet, int length) {
        if (closed) {
            return;
        }
        Tx t = tx.get(peer);
        if (t == null) {
            t = connect(peer);
            if (t == null) {
                return;
            }
        }
        synchronized (t) {
            if (!t.ready) {
                if (t.pending.size() < PENDING) {
                    t.pending.add(java.util.Arrays.copyOf(packet, length));
                }
                return;
            }
        }
        post(t, packet, length);
    }

    /** ipoib_cm_tx_init: an RC QP in INIT, then the REQ to the peer's IPoIB-CM service. */
    private Tx connect(HardwareAddress peer) {
        PathRecord path = paths.apply(peer);
        if (path == null) {
            return null;
        }
        try {
            QueuePair qp = hca.createQp(pd, new QpInitAttributes(QpType.RC, sendCq, recvCq, srq,
                    new QpCapabilities(TX_RING, 1, 1, 1, 0), false, null));
            // ipoib_cm_modify_tx_init: INIT on the interface's P_Key index, no remote access
            hca.modify(qp, QpAttributes.builder().qpState(QpState.INIT).pkeyIndex(pkeyIndex)
                    .portNum(port.number()).qpAccessFlags(0).build(), QpAttributeMask.STATE
                    | QpAttributeMask.PKEY_INDEX | QpAttributeMask.PORT | QpAttributeMask.ACCESS_FLAGS);
            CmId id = cm.createId(hca, this::handle);
            Tx t = new Tx(peer, qp, id);
            tx.put(peer, t);
            // ipoib_cm_send_req's parameters: 4 responder resources, response timeouts 20, RNR retries 0, 15 CM retries
            id.sendReq(new CmRequestParam(path, null, IETF_ID | peer.qpn(), qp.qpNum(), QpType.RC, 0,
                    privateData(), 4, 0, 20, false, 20, 0, 0, 15, true));
            return t;
        } catch (Errno e) {
            LOG.log(System.Logger.Level.INFO, "{0}: no connection to {1}: errno {2}", name, peer, e.code());
            return null;
        }
    }

    /** struct ipoib_cm_data: our UD QPN and what one of our receives holds, big-endian. */
    private byte[] privateData() {
        byte[] d = new byte[8];
        ArpPacket.put16(d, 0, udQpn >>> 16);
        ArpPacket.put16(d, 2, udQpn);
        ArpPacket.put16(d, 4, BUF_SIZE >>> 16);
        ArpPacket.put16(d, 6, BUF_SIZE);
        return d;
    }

    private static int peerQpn(byte[] privateData) {
        return (ArpPacket.u16(privateData, 0) << 16 | ArpPacket.u16(privateData, 2)) & 0xFFFFFF;
    }

    /** The CM's events for the listener, the connections it accepted and the ones we made. */
    private void handle(CmId id, CmEvent event) {
        try {
            if (event instanceof CmEvent.ReqReceived r) {
                accept(id, r);
            } else if (event instanceof CmEvent.RepReceived) {
                established(id);
            } else if (event instanceof CmEvent.DreqReceived) {
                id.sendDrep(null);
                forget(id);
            } else if (event instanceof CmEvent.RejReceived || event instanceof CmEvent.ReqError
                    || event instanceof CmEvent.RepError) {
                forget(id);
            } else if (event instanceof CmEvent.TimewaitExit) {
                id.destroy();
            }
            // RTU_RECEIVED: the accepted connection's QP is in RTS already
        } catch (Errno e) {
            LOG.log(System.Logger.Level.INFO, "{0}: connected mode: {1}: errno {2}", name, event, e.code());
            forget(id);
        }
    }

    /** ipoib_cm_req_handler: an RC QP on the shared receive queue through INIT and RTR, the REP, then RTS. */
    private void accept(CmId id, CmEvent.ReqReceived r) throws Errno {
        if (closed) {
            id.sendRej(io.ibemu.emulator.cm.CmRejectReason.CONSUMER_DEFINED, null, null);
            return;
        }
        HardwareAddress peer = new HardwareAddress(IpoibInterface.FLAGS_RC, peerQpn(r.privateData()),
                r.primaryPath().dgidPrefix(), r.primaryPath().dgidInterface());
        QueuePair qp = hca.createQp(pd, new QpInitAttributes(QpType.RC, sendCq, recvCq, srq,
                new QpCapabilities(1, 1, 1, 1, 0), false, null));
        rx.put(qp.qpNum(), new Rx(peer, qp, id));
        modify(qp, id.initQpAttr(QpState.INIT));
        modify(qp, id.initQpAttr(QpState.RTR));
        id.sendRep(new CmReplyParam(qp.qpNum(), 0, privateData(), 0, 0, 0, false, r.rnrRetryCount(), true));
        modify(qp, id.initQpAttr(QpState.RTS));
    }

    /** ipoib_cm_rep_handler: RTR, RTS, the RTU, then what waited goes. */
    private void established(CmId id) throws Errno {
        Tx t = tx.values().stream().filter(x -> x.id == id).findFirst().orElse(null);
        if (t == null) {
            return;
        }
        modify(t.qp, id.initQpAttr(QpState.RTR));
        modify(t.qp, id.initQpAttr(QpState.RTS));
        id.sendRtu(null);
        List<byte[]> waiting;
        synchronized (t) {
            t.ready = true;
            waiting = new ArrayList<>(t.pending);
            t.pending.clear();
        }
        for (byte[] p : waiting) {
            post(t, p, p.length);
        }
    }

    private void modify(QueuePair qp, QpAttributeChange change) throws Errno {
        hca.modify(qp, change.attributes(), change.mask());
    }

    /** A connection that failed or was closed by the peer: gone, the next frame makes a new one. */
    private void forget(CmId id) {
        tx.values().removeIf(t -> {
            if (t.id == id) {
                destroy(t.qp);
                return true;
            }
            return false;
        });
        rx.values().removeIf(r -> {
            if (r.id == id) {
                destroy(r.qp);
                return true;
            }
            return false;
        });
    }

    private void destroy(QueuePair qp) {
        try {
            hca.destroy(qp);
        } catch (Errno e) {
            LOG.log(System.Logger.Level.DEBUG, "{0}: destroy QP: errno {1}", name, e.code());
        }
    }

    /** One SEND on the connection from a free transmit slot; waits for a slot as a stopped queue would. */
    private void post(Tx t, byte[] packet, int length) {
        Integer slot;
        while ((slot = freeTxSlots.poll()) == null) {
            reclaim();
            if (freeTxSlots.isEmpty()) {
                // every slot in flight: sleep until a send completes (armed, then checked once more)
                sendCq.requestNotify(false);
                reclaim();
                if (freeTxSlots.isEmpty()) {
                    sendEvent.acquireUninterruptibly();
                }
            }
            if (closed) {
                return;
            }
        }
        System.arraycopy(packet, 0, memory.bytes(), slot * SLOT, length);
        try {
            hca.postSend(t.qp, List.of(SendWorkRequest.send(slot, WrOpcode.FLAG_SIGNALED,
                    List.of(new Sge(memory.address(slot * SLOT), length, mr.lkey())))));
        } catch (PostError e) {
            freeTxSlots.add(slot);
            LOG.log(System.Logger.Level.INFO, "{0}: send to {1}: {2}", name, t.peer, e.getMessage());
        }
        reclaim();
    }

    /** Completed sends give their slots back; a failed one ends its connection (ipoib_cm_handle_tx_wc). */
    private void reclaim() {
        for (WorkCompletion wc : sendCq.poll(TX_RING * 2)) {
            freeTxSlots.add((int) wc.wrId());
            if (!wc.isSuccess()) {
                tx.values().stream().filter(t -> t.qp.qpNum() == wc.qpNum()).findFirst().ifPresent(t -> {
                    tx.remove(t.peer);
                    t.id.destroy();
                    destroy(t.qp);
                });
            }
        }
    }

    private void receiveLoop() {
        ReceiveLoop.run(name + " connected", recvCq, receiveEvent, () -> closed, wc -> {
            Rx from = rx.get(wc.qpNum());
            if (from != null) {
                receiver.received(from.peer(), memory.bytes(), (int) wc.wrId() * SLOT, wc.byteLen());
            }
        }, slot -> hca.postSrqRecv(srq, List.of(receive(slot))));
    }

    /** The connections we made go (ipoib_flush_paths on a mode change); those made to us stay. */
    void flushTx() {
        for (Tx t : tx.values()) {
            t.id.destroy();
            destroy(t.qp);
        }
        tx.clear();
    }

    /** ipoib_cm_dev_stop and the flush of every connection (datagram mode again, or the interface going). */
    @Override
    public void close() {
        closed = true;
        listener.destroy();
        for (Tx t : tx.values()) {
            t.id.destroy();
            destroy(t.qp);
        }
        tx.clear();
        for (Rx r : rx.values()) {
            r.id().destroy();
            destroy(r.qp());
        }
        rx.clear();
        receiveEvent.release();
        sendEvent.release();
    }

    /** {@code peer QPN state} per connection, for ctl ipoib. */
    List<String> describe() {
        List<String> lines = new ArrayList<>();
        tx.values().forEach(t -> lines.add("  cm tx " + t.peer + " qp " + t.qp.qpNum() + (t.ready ? " up" : " connecting")));
        rx.values().forEach(r -> lines.add("  cm rx " + r.peer() + " qp " + r.qp().qpNum()));
        return lines;
    }
}
