package io.ibemu.emulator.cm;

import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.agent.ReceivedMad;
import io.ibemu.emulator.agent.SendRequest;
import io.ibemu.emulator.agent.SendStatus;
import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.mad.Bits;
import io.ibemu.emulator.mad.CmAttribute;
import io.ibemu.emulator.mad.CmDrep;
import io.ibemu.emulator.mad.CmDreq;
import io.ibemu.emulator.mad.CmMra;
import io.ibemu.emulator.mad.CmRej;
import io.ibemu.emulator.mad.CmRep;
import io.ibemu.emulator.mad.CmReq;
import io.ibemu.emulator.mad.CmRtu;
import io.ibemu.emulator.mad.CmSidrRep;
import io.ibemu.emulator.mad.CmSidrReq;
import io.ibemu.emulator.mad.Field;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.PathRecord;
import io.ibemu.kernel.Errno;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The Communication Manager of one emulated fabric (IBA vol 1 ch. 12; cm.c's {@code struct
 * ib_cm}): a CM agent on QP1 of every local HCA port, the tables that find an id for a MAD (by
 * local id, by the peer's CA GUID and id, by the peer's QPN, by listened service), and the CM's
 * own thread, which handles every received MAD, runs every timer and calls every handler —
 * never under the model's or the fabric's lock. Created once by the daemon.
 *
 * <p>{@link #lock} is cm.lock and every cm_id_private's lock in one: it guards the tables and
 * every id's state. It is taken before the fabric lock (to send), never after it.
 */
public final class Cm implements AutoCloseable {
    /** IB_CM_ASSIGN_SERVICE_ID and IB_SERVICE_ID_AGN_MASK (ib_cm.h). */
    static final long ASSIGN_SERVICE_ID = 0x0200000000000000L;
    static final long SERVICE_ID_AGN_MASK = 0xFF00000000000000L;
    /** A REQ's or REP's first 4 bytes are the sender's id, the next 4 the receiver's (REQ: zero), as in a REJ. */
    private static final Field SENDER_ID = CmRej.LAYOUT.field("localCommId");
    private static final Field RECEIVER_ID = CmRej.LAYOUT.field("remoteCommId");

    private final MadLayer layer;
    private final ScheduledThreadPoolExecutor thread;
    private final Object lock = new Object();
    private final Map<LocalHca, List<CmPort>> devices = new LinkedHashMap<>();
    /** local_id_table: every id not yet destroyed, in creation order. */
    private final Map<Integer, CmId> byLocalId = new LinkedHashMap<>();
    /** remote_id_table: connections by the peer's CA GUID and communication id. */
    private final Map<RemoteKey, CmId> byRemoteId = new HashMap<>();
    /** remote_qp_table: connections by the peer's CA GUID and QPN (stale connection check). */
    private final Map<RemoteKey, CmId> byRemoteQpn = new HashMap<>();
    /** remote_sidr_table: SIDR requests being answered, by request id and requester LID. */
    private final Map<RemoteKey, CmId> bySidrRequest = new HashMap<>();
    private final List<CmId> listeners = new ArrayList<>();
    /** cm.random_id_operand: local ids are not guessable from one another. */
    private final int randomIdOperand = new SecureRandom().nextInt();
    private int nextId;
    private long nextServiceId = ASSIGN_SERVICE_ID;

    record RemoteKey(long caGuid, long id) {
    }

    public Cm(MadLayer layer) {
        this.layer = layer;
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "ib-cm");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        this.thread = executor;
    }

    /** cm_add_one: a CM agent on each port of {@code hca}. Idempotent. */
    public void addDevice(LocalHca hca) throws Errno {
        synchronized (lock) {
            if (devices.containsKey(hca)) {
                return;
            }
            List<CmPort> ports = new ArrayList<>();
            for (int p = 1; p <= hca.node().portCount(); p++) {
                ports.add(new CmPort(this, layer, hca, hca.port(p)));
            }
            devices.put(hca, ports);
        }
    }

    /** cm_remove_one: the device's agents go; its ids stay until destroyed but reach nobody. */
    public void removeDevice(LocalHca hca) {
        synchronized (lock) {
            List<CmPort> ports = devices.remove(hca);
            if (ports != null) {
                ports.forEach(CmPort::close);
            }
        }
    }

    /** ib_create_cm_id: a new id in IDLE on {@code hca}, whose events go to {@code handler}. */
    public CmId createId(Hca hca, CmHandler handler) {
        try {
            addDevice(hca.local());
        } catch (Errno e) {
            throw new IllegalStateException("ib_cm: no CM agent on " + hca.local() + ": errno " + e.code());
        }
        synchronized (lock) {
            return newId(hca, handler);
        }
    }

    /**
     * A CM counter of {@code port} (a local HCA's port; 0 for any other), as sysfs shows it in
     * {@code ports/N/<group>/<message>}.
     */
    public long counter(Port port, CmCounters.Group group, String message) {
        synchronized (lock) {
            for (List<CmPort> ports : devices.values()) {
                for (CmPort p : ports) {
                    if (p.port() == port) {
                        return p.counters().get(group, message);
                    }
                }
            }
        }
        return 0;
    }

    /** The ids not yet destroyed (for the control view), in creation order. */
    public List<CmId> ids() {
        synchronized (lock) {
            return List.copyOf(byLocalId.values());
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            devices.values().forEach(ports -> ports.forEach(CmPort::close));
            devices.clear();
        }
        thread.shutdownNow();
    }

    // ---- what CmId asks of the CM (all with the lock held) ----

    Object lock() {
        return lock;
    }

    private CmId newId(Hca hca, CmHandler handler) {
        int id;
        do {
            id = ++nextId ^ randomIdOperand;
        } while (id == 0 || byLocalId.containsKey(id));
        CmId cmId = new CmId(this, hca, handler, id);
        byLocalId.put(id, cmId);
        return cmId;
    }

    /** Runs {@code task} on the CM's thread; a failure is logged, and the thread goes on. */
    void queue(Runnable task) {
        if (!thread.isShutdown()) {
            thread.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    System.err.println("ib_cm: " + e);
                }
            });
        }
    }

    ScheduledFuture<?> schedule(Runnable task, int delayMs) {
        return thread.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }

    /** cm_queue_work_unlock + cm_process_work: the handler runs later, on the CM thread, unlocked. */
    void deliver(CmId id, CmEvent event) {
        queue(() -> {
            if (id.destroyed()) {
                return;
            }
            try {
                id.handler().handle(id, event);
            } catch (RuntimeException e) {
                System.err.println("ib_cm: the handler of id " + Integer.toHexString(id.localId()) + " failed on "
                        + event.getClass().getSimpleName() + ": " + e);
            }
        });
    }

    /** A listened service: the ID and the mask it is compared under. */
    record Service(long id, long mask) {
    }

    /**
     * cm_init_listen: mask 0 means exact; IB_CM_ASSIGN_SERVICE_ID takes the next free number;
     * any other ID in the assigned range is EINVAL.
     */
    Service service(long serviceId, long serviceMask) throws Errno {
        long mask = serviceMask != 0 ? serviceMask : ~0L;
        long id = serviceId & mask;
        if ((id & SERVICE_ID_AGN_MASK) == ASSIGN_SERVICE_ID && id != ASSIGN_SERVICE_ID) {
            throw Errno.of(Errno.EINVAL);
        }
        return id == ASSIGN_SERVICE_ID ? new Service(nextServiceId++, ~0L) : new Service(id, mask);
    }

    /** cm_insert_listen's search: the listener on {@code device} whose range overlaps {@code s}, or null. */
    CmId listenerCovering(LocalHca device, Service s) {
        for (CmId cur : listeners) {
            if (cur.hca().local() == device && (cur.serviceMask() & s.id()) == (s.mask() & cur.serviceId())) {
                return cur;
            }
        }
        return null;
    }

    void addListener(CmId id) {
        listeners.add(id);
    }

    /**
     * ib_cm_insert_listen: a listening id for {@code serviceId} (exact) on {@code hca}, or the
     * one already listening there with this same {@code handler}, shared (each share is let go
     * by one {@link CmId#destroy()}). EINVAL when another handler listens on it.
     */
    public CmId insertListen(Hca hca, CmHandler handler, long serviceId) throws Errno {
        addDevice(hca.local());
        synchronized (lock) {
            Service s = service(serviceId, 0);
            CmId cur = listenerCovering(hca.local(), s);
            if (cur != null) {
                if (cur.handler() != handler) {
                    throw Errno.of(Errno.EINVAL);
                }
                cur.shareListen();
                return cur;
            }
            CmId id = newId(hca, handler);
            id.startListening(s);
            return id;
        }
    }

    /** cm_find_listen. */
    private CmId findListen(LocalHca device, long serviceId) {
        for (CmId cur : listeners) {
            if (cur.hca().local() == device && (cur.serviceMask() & serviceId) == cur.serviceId()) {
                return cur;
            }
        }
        return null;
    }

    /** cm_insert_remote_id: the id already there, or null once {@code id} is in. */
    CmId insertRemoteId(RemoteKey key, CmId id) {
        return byRemoteId.putIfAbsent(key, id);
    }

    CmId insertRemoteQpn(RemoteKey key, CmId id) {
        return byRemoteQpn.putIfAbsent(key, id);
    }

    /** cm_remove_remote. */
    void removeRemote(CmId id) {
        byRemoteId.values().removeIf(v -> v == id);
        byRemoteQpn.values().removeIf(v -> v == id);
    }

    CmId insertSidr(RemoteKey key, CmId id) {
        return bySidrRequest.putIfAbsent(key, id);
    }

    /** The SIDR request is answered: a later duplicate is a new request. */
    void forgetSidr(CmId id) {
        bySidrRequest.values().removeIf(v -> v == id);
    }

    /** cm_destroy_id's end: the id leaves every table. */
    void forget(CmId id) {
        byLocalId.remove(id.localId());
        listeners.remove(id);
        removeRemote(id);
        forgetSidr(id);
    }

    /**
     * cm_init_av_by_path: the local port whose GID is the path's SGID, the P_Key's index in its
     * table, and the peer's LID and SL from the path. EINVAL when no port of the device has the
     * SGID, ENOENT when its table lacks the P_Key.
     */
    AddressVector addressFor(LocalHca device, PathRecord path) throws Errno {
        for (CmPort port : ports(device)) {
            Port p = port.port();
            synchronized (layer.lock()) {
                if (p.subnetPrefix() != path.sgidPrefix() || p.guid() != path.sgidInterface()) {
                    continue;
                }
                int index = pkeyIndex(p, path.pkey());
                if (index < 0) {
                    throw Errno.of(Errno.ENOENT);
                }
                int pathBits = path.slid() & ((1 << p.lmc()) - 1);
                return new AddressVector(port, path.dlid(), path.sl(), pathBits, index, path.rate(),
                        Math.min(31, path.packetLife() + 1));
            }
        }
        throw Errno.of(Errno.EINVAL);
    }

    /** The P_Key at {@code index} of {@code port}'s table (cm_get_bth_pkey), 0 if none. */
    int pkeyAt(CmPort port, int index) {
        synchronized (layer.lock()) {
            int[] table = port.port().pkeys();
            return index < table.length ? table[index] : 0;
        }
    }

    private static int pkeyIndex(Port p, int pkey) {
        int[] table = p.pkeys();
        for (int i = 0; i < table.length; i++) {
            if ((table[i] & 0x7fff) == (pkey & 0x7fff) && (table[i] & 0x7fff) != 0) {
                return i;
            }
        }
        return -1;
    }

    private List<CmPort> ports(LocalHca device) {
        return devices.getOrDefault(device, List.of());
    }

    /** cm_convert_to_ms: 4.096 us * 2^t, rounded to a power of two milliseconds. */
    static int toMs(int ibaTime) {
        return 1 << Math.max(Math.min(ibaTime, 31) - 8, 0);
    }

    // ---- the CM thread: received MADs (cm_recv_handler) and failed sends (cm_send_handler) ----

    void received(CmPort port, ReceivedMad r) {
        byte[] mad = r.message();
        if (Mad.classVersion(mad) != CmAttribute.CLASS_VERSION) {
            return;
        }
        port.counters().add(CmCounters.Group.RX_MSGS, Mad.attributeId(mad), 1);
        synchronized (lock) {
            switch (Mad.attributeId(mad)) {
                case CmAttribute.REQ -> onReq(port, r, CmReq.decode(mad));
                case CmAttribute.MRA -> onMra(CmMra.decode(mad));
                case CmAttribute.REJ -> onRej(CmRej.decode(mad));
                case CmAttribute.REP -> onRep(port, r, CmRep.decode(mad));
                case CmAttribute.RTU -> onRtu(CmRtu.decode(mad));
                case CmAttribute.DREQ -> onDreq(port, r, CmDreq.decode(mad));
                case CmAttribute.DREP -> onDrep(CmDrep.decode(mad));
                case CmAttribute.SIDR_REQ -> onSidrReq(port, r, CmSidrReq.decode(mad));
                case CmAttribute.SIDR_REP -> onSidrRep(CmSidrRep.decode(mad));
                default -> {
                    // LAP and APR: alternate path migration is not offered (docs/decisions.md)
                }
            }
        }
    }

    void sendFailed(SendRequest send, SendStatus status) {
        if (send.context() instanceof CmId id) {
            synchronized (lock) {
                id.sendFailed(send, status);
            }
        }
    }

    /** cm_acquire_id: the id with this local id whose remote id is {@code remoteId}. */
    private CmId acquire(int localId, int remoteId) {
        CmId id = byLocalId.get(localId);
        return id != null && id.remoteId() == remoteId ? id : null;
    }

    /** cm_req_handler with cm_match_req: a duplicate, a stale connection, no listener, or a new id. */
    private void onReq(CmPort port, ReceivedMad r, CmReq req) {
        CmId dup = byRemoteId.get(new RemoteKey(req.localCaGuid(), req.localCommId() & 0xffffffffL));
        if (dup != null) {
            port.counters().add(CmCounters.Group.RX_DUPLICATES, CmAttribute.REQ, 1);
            dup.duplicateReq(port, r);
            return;
        }
        CmId stale = byRemoteQpn.get(new RemoteKey(req.localCaGuid(), req.localQpn()));
        if (stale != null) {
            issueRej(port, r, CmRejectReason.STALE_CONN, CmAttribute.MESSAGE_REQ);
            stale.disconnectStale();
            return;
        }
        CmId listener = findListen(port.hca(), req.serviceId());
        if (listener == null) {
            issueRej(port, r, CmRejectReason.INVALID_SERVICE_ID, CmAttribute.MESSAGE_REQ);
            return;
        }
        CmId id = newId(listener.hca(), listener.handler());
        id.requestReceived(port, r, req, listener);
    }

    private void onRep(CmPort port, ReceivedMad r, CmRep rep) {
        CmId id = acquire(rep.remoteCommId(), 0);
        if (id == null) {
            // cm_dup_rep_handler: our RTU or MRA was lost; send it again
            CmId established = acquire(rep.remoteCommId(), rep.localCommId());
            if (established != null) {
                port.counters().add(CmCounters.Group.RX_DUPLICATES, CmAttribute.REP, 1);
                established.duplicateRep(port, r);
            }
            return;
        }
        id.replyReceived(port, r, rep);
    }

    private void onRtu(CmRtu rtu) {
        CmId id = acquire(rtu.remoteCommId(), rtu.localCommId());
        if (id != null) {
            id.readyToUseReceived(rtu);
        }
    }

    private void onMra(CmMra mra) {
        CmId id = mra.messageMraed() == CmAttribute.MESSAGE_REQ ? acquire(mra.remoteCommId(), 0)
                : acquire(mra.remoteCommId(), mra.localCommId());
        if (id != null) {
            id.mraReceived(mra);
        }
    }

    /** cm_acquire_rejected_id: a TIMEOUT REJ names our peer's CA GUID in its ARI. */
    private void onRej(CmRej rej) {
        CmId id;
        if (rej.reason() == CmRejectReason.TIMEOUT.code()) {
            long caGuid = Bits.get(rej.ari(), 0, 0, 64);
            id = byRemoteId.get(new RemoteKey(caGuid, rej.localCommId() & 0xffffffffL));
        } else if (rej.messageRejected() == CmAttribute.MESSAGE_REQ) {
            id = acquire(rej.remoteCommId(), 0);
        } else {
            id = acquire(rej.remoteCommId(), rej.localCommId());
        }
        if (id != null) {
            id.rejectReceived(rej);
        }
    }

    private void onDreq(CmPort port, ReceivedMad r, CmDreq dreq) {
        CmId id = acquire(dreq.remoteCommId(), dreq.localCommId());
        if (id == null) {
            // cm_issue_drep: the connection is gone already; the peer still gets its DREP
            port.counters().add(CmCounters.Group.RX_DUPLICATES, CmAttribute.DREQ, 1);
            port.respond(r, CmAttribute.DREP,
                    new CmDrep(dreq.remoteCommId(), dreq.localCommId(), new byte[0])::encode);
            return;
        }
        id.disconnectRequestReceived(port, r, dreq);
    }

    private void onDrep(CmDrep drep) {
        CmId id = acquire(drep.remoteCommId(), drep.localCommId());
        if (id != null) {
            id.disconnectReplyReceived(drep);
        }
    }

    /** cm_sidr_req_handler: a new id answers, or the request is rejected as unsupported. */
    private void onSidrReq(CmPort port, ReceivedMad r, CmSidrReq req) {
        RemoteKey key = new RemoteKey(r.slid(), req.requestId() & 0xffffffffL);
        if (bySidrRequest.containsKey(key)) {
            port.counters().add(CmCounters.Group.RX_DUPLICATES, CmAttribute.SIDR_REQ, 1);
            return; // a duplicate: the first is being answered
        }
        CmId listener = findListen(port.hca(), req.serviceId());
        if (listener == null) {
            CmSidrRep rep = new CmSidrRep(req.requestId(), SidrStatus.UNSUPPORTED.code(), 0, 0, req.serviceId(), 0,
                    new byte[0], new byte[0]);
            byte[] mad = CmAttribute.mad(CmAttribute.SIDR_REP, Mad.transactionId(r.message()));
            rep.encode(mad);
            // the kernel sends it from the id it made for the request (ib_send_cm_sidr_rep)
            port.send(mad, AddressVector.responseTo(port, r), 0, 0, CmPort.ID_MESSAGE);
            return;
        }
        CmId id = newId(listener.hca(), listener.handler());
        insertSidr(key, id);
        id.sidrRequestReceived(port, r, req, listener);
    }

    private void onSidrRep(CmSidrRep rep) {
        CmId id = byLocalId.get(rep.requestId());
        if (id != null) {
            id.sidrReplyReceived(rep);
        }
    }

    /** cm_issue_rej: a REJ for a MAD no id will own, back to its sender with the ids swapped. */
    void issueRej(CmPort port, ReceivedMad r, CmRejectReason reason, int messageRejected) {
        byte[] in = r.message();
        port.respond(r, CmAttribute.REJ, new CmRej((int) RECEIVER_ID.get(in, CmAttribute.DATA_OFFSET),
                (int) SENDER_ID.get(in, CmAttribute.DATA_OFFSET), messageRejected, 0, reason.code(), new byte[0],
                new byte[0])::encode);
    }
}
