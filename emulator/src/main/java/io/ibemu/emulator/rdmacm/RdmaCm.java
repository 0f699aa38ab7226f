package io.ibemu.emulator.rdmacm;

import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fabric.PortState;
import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.cm.Cm;
import io.ibemu.emulator.cm.CmEvent;
import io.ibemu.emulator.cm.CmHandler;
import io.ibemu.emulator.cm.CmId;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.kernel.Errno;
import java.util.concurrent.ConcurrentHashMap;
import io.ibemu.emulator.ipoib.Ipoib;
import io.ibemu.emulator.ipoib.NetNamespace;
import io.ibemu.emulator.sa.SaClient;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The RDMA CM of the machine (cma.c's module state): the local HCAs it binds ids to, the IPoIB
 * interfaces it translates IP addresses over (none without {@code --ipoib}), the ports of each
 * port space, and its work queue, the one thread on which address and route work finishes and
 * events are reported (cma_wq), holding no lock of the model or the fabric.
 */
public final class RdmaCm implements AutoCloseable {
    final Fabric fabric;
    private final Supplier<List<Hca>> hcas;
    private final Supplier<Ipoib> ipoib;
    final PortTable ports = new PortTable();
    /** Every live RDMA CM id (cma_dev->id_list and listen_any_list, in one set). */
    final java.util.Set<CmaId> ids = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService work = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "rdma_cm");
        t.setDaemon(true);
        return t;
    });

    /** SA queries block their thread until the answer or the timeout: they run here, not on the work queue. */
    private final ExecutorService queries = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "rdma_cm sa");
        t.setDaemon(true);
        return t;
    });
    private final MadLayer layer;
    /** One SA client per port, made at the first route query through it. */
    private final Map<Port, SaClient> saClients = new HashMap<>();

    final Cm ibCm;

    /** Which RDMA CM id each IB CM id of a connection or listen belongs to. */
    private final Map<CmId, CmaId> byIbId = new ConcurrentHashMap<>();
    /** The one handler of every IB CM id the RDMA CM makes (cma_ib_handler, cma_ib_req_handler). */
    final CmHandler ibHandler = this::ibEvent;

    public RdmaCm(Fabric fabric, MadLayer layer, Cm ibCm, Supplier<List<Hca>> hcas, Supplier<Ipoib> ipoib) {
        this.fabric = fabric;
        this.layer = layer;
        this.ibCm = ibCm;
        this.hcas = hcas;
        this.ipoib = ipoib;
    }

    /** Runs {@code task} on the work queue after {@code delayMs}. */
    void later(long delayMs, Runnable task) {
        work.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }

    private void ibEvent(CmId id, CmEvent event) {
        if (event instanceof CmEvent.ReqReceived r) {
            byte[] data = r.privateData();
            CmaHeader hdr = CmaHeader.decode(data);
            CmaId listener = listenerFor(r.listenId(), r.port(), r.bthPkey(), hdr);
            if (listener == null) {
                id.destroy();
            } else {
                listener.requestReceived(id, r, data, hdr);
            }
            return;
        }
        if (event instanceof CmEvent.SidrReqReceived r) {
            byte[] data = r.privateData();
            CmaHeader hdr = CmaHeader.decode(data);
            CmaId listener = listenerFor(r.listenId(), r.port(), r.pkey(), hdr); // sidr_param->pkey
            if (listener == null) {
                id.destroy();
            } else {
                listener.sidrRequestReceived(id, r, data, hdr);
            }
            return;
        }
        CmaId owner = byIbId.get(id);
        if (owner != null) {
            owner.ibEvent(event);
        }
    }

    /**
     * cma_ib_id_from_event: the namespace to look in — for a request with a cma_hdr, that of the
     * IPoIB interface it came in on (cma_get_net_dev by port and P_Key; none: no id), for AF_IB
     * the daemon's own (init_net) — then the port's ids there (cma_ps_find by the service id's
     * space and port), and the first listening through {@code listen} whose address the request
     * names. Null when none does: the REQ is rejected, consumer defined, as cma_ib_req_handler's
     * error makes ib_cm do.
     */
    private CmaId listenerFor(CmId listen, int port, int pkey, CmaHeader hdr) {
        long sid = listen.serviceId();
        PortSpace ps = PortSpace.ofServiceId(sid);
        if (ps == null) {
            return null;
        }
        String net;
        if (hdr == null) {
            net = NetNamespace.OWN.name();
        } else {
            Ipoib i = ipoib.get();
            Optional<String> on = i == null ? Optional.empty() : i.namespaceOf(listen.hca().local(), port, pkey);
            if (on.isEmpty()) {
                return null;
            }
            net = on.get();
        }
        for (CmaId id : ports.holders(net, ps, (int) (sid & 0xffff))) {
            if (id.listensFor(listen, hdr)) {
                return id;
            }
        }
        return null;
    }

    void register(CmId ib, CmaId owner) {
        byIbId.put(ib, owner);
    }

    void forget(CmId ib) {
        byIbId.remove(ib);
    }

    List<Hca> hcas() {
        return hcas.get();
    }

    /** The verbs model of {@code local} (the IB CM sends through it). */
    Hca hca(LocalHca local) throws Errno {
        for (Hca h : hcas.get()) {
            if (h.local() == local) {
                return h;
            }
        }
        throw Errno.of(Errno.ENODEV);
    }

    /** ib_find_cached_pkey: the index of the device's P_Key (full membership preferred). */
    Optional<Integer> pkeyIndex(CmaDevice d) {
        synchronized (fabric.lock()) {
            int[] table = d.hca().port(d.port()).pkeys();
            int partial = -1;
            for (int i = 0; i < table.length; i++) {
                if ((table[i] & 0x7fff) == (d.pkey() & 0x7fff) && table[i] != 0) {
                    if ((table[i] & 0x8000) != 0) {
                        return Optional.of(i);
                    }
                    if (partial < 0) {
                        partial = i;
                    }
                }
            }
            return partial < 0 ? Optional.empty() : Optional.of(partial);
        }
    }

    /** Runs a blocking SA query off the work queue. */
    void query(Runnable task) {
        queries.execute(task);
    }

    /** The SA client of {@code port}. */
    synchronized SaClient sa(Port port) throws IOException {
        SaClient c = saClients.get(port);
        if (c == null) {
            c = new SaClient(layer, port);
            saClients.put(port, c);
        }
        return c;
    }

    /** cma_add_one: every listen on all devices listens on the new one too. */
    public void addDevice(Hca hca) {
        for (CmaId id : ids) {
            id.listenOn(hca);
        }
    }

    /**
     * cma_remove_one, before the IB CM lets go of the device: the ids on it hear DEVICE_REMOVAL
     * (a connected one is destroyed by its owner, and the peer gets the DREQ), listens on every
     * device stop listening on it.
     */
    public void removeDevice(LocalHca hca) {
        for (CmaId id : ids) {
            id.deviceRemoved(hca);
        }
    }

    /** Address lookups in {@code net} (an id's namespace, its creator's: cma's id_priv->id.route.addr.dev_addr.net). */
    AddressResolver addressesIn(NetNamespace net) {
        return new AddressResolver(ipoib, net);
    }

    Optional<Ipoib> ipoib() {
        return Optional.ofNullable(ipoib.get());
    }

    /**
     * cma_bind_loopback: the first port of any device that is ACTIVE (else the first port of the
     * first device), its GID at index 0 and the P_Key at index 0; empty without a device (ENODEV).
     */
    Optional<CmaDevice> loopbackDevice() {
        CmaDevice first = null;
        synchronized (fabric.lock()) {
            for (LocalHca hca : locals()) {
                for (int p = 1; p <= hca.node().portCount(); p++) {
                    Port port = hca.port(p);
                    CmaDevice d = new CmaDevice(hca, p, SockAddr.gid(port.subnetPrefix(), port.guid()),
                            port.pkeys().length > 0 ? port.pkeys()[0] : 0xffff, null);
                    if (port.state() == PortState.ACTIVE) {
                        return Optional.of(d);
                    }
                    if (first == null) {
                        first = d;
                    }
                }
            }
        }
        return Optional.ofNullable(first);
    }

    /** deviceByGid's P_Key for an AF_IB bind, which names none: the port's first is taken. */
    static final int ANY_PKEY = -1;

    /**
     * cma_acquire_dev_by_src_ip (and cma_resolve_ib_dev): the device port whose GID table holds
     * {@code gid} and whose P_Key table holds {@code pkey} (the membership bit aside); with
     * {@link #ANY_PKEY} the first port that owns the GID, with its first P_Key.
     */
    Optional<CmaDevice> deviceByGid(byte[] gid, int pkey) {
        long prefix = SockAddr.gidPrefixOf(gid);
        long guid = SockAddr.gidGuidOf(gid);
        synchronized (fabric.lock()) {
            for (LocalHca hca : locals()) {
                for (int p = 1; p <= hca.node().portCount(); p++) {
                    Port port = hca.port(p);
                    if (port.subnetPrefix() != prefix || Arrays.stream(port.guids()).noneMatch(g -> g == guid)) {
                        continue;
                    }
                    if (pkey == ANY_PKEY) {
                        int first = port.pkeys().length > 0 ? port.pkeys()[0] : 0xffff;
                        return Optional.of(new CmaDevice(hca, p, gid.clone(), first, null));
                    }
                    if (Arrays.stream(port.pkeys()).anyMatch(k -> (k & 0x7fff) == (pkey & 0x7fff) && k != 0)) {
                        return Optional.of(new CmaDevice(hca, p, gid.clone(), pkey, null));
                    }
                }
            }
        }
        return Optional.empty();
    }

    private List<LocalHca> locals() {
        return hcas.get().stream().map(Hca::local).toList();
    }

    @Override
    public void close() {
        work.shutdownNow();
        queries.shutdownNow();
        synchronized (this) {
            saClients.values().forEach(SaClient::close);
            saClients.clear();
        }
    }
}
