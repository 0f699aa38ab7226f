package io.ibemu.emulator.sa;

import io.ibemu.kernel.Errno;
import io.ibemu.emulator.agent.MadAgent;
import io.ibemu.emulator.agent.MadAgentClient;
import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.agent.MadPort;
import io.ibemu.emulator.agent.ReceivedMad;
import io.ibemu.emulator.agent.SendRequest;
import io.ibemu.emulator.agent.SendStatus;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadHeader;
import io.ibemu.emulator.mad.McMemberRecord;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.PathRecord;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

/**
 * A kernel client's SA queries on one port (drivers/infiniband/core/sa_query.c, as ipoib and the
 * RDMA CM use it): MCMemberRecord joins and leaves and PathRecord look-ups, sent on QP1 to the
 * SM's LID through the MAD layer. Callers block for the answer; the MAD layer's timeout ends a
 * query no SA answers (as on a subnet without an SM). A port that knows no SM has no SA address
 * handle: {@link NoSubnetManager} (sa_query's EAGAIN); an answer with an error status is
 * {@link Refused} (EINVAL to the kernel's callers).
 */
public final class SaClient implements MadAgentClient, AutoCloseable {
    private static final int SA_CLASS_VERSION = 2;
    /** The SA's well-known Q_Key (IBA 13.5.3). */
    private static final int GSI_QKEY = 0x80010000;
    /** ipoib's path query gives the SA one second (ipoib_main.c path_rec_start), like its joins: the default. */
    private static final int TIMEOUT_MS = 1000;
    private static final int RETRIES = 2;
    private static final int COMPONENT_MASK_OFFSET = 48;

    private final MadLayer layer;
    private final Port port;
    private final MadAgent agent;
    private final Map<Long, CompletableFuture<byte[]>> pending = new ConcurrentHashMap<>();
    private int nextTid = 1;

    /** The port knows no SM (its SM LID or its own LID is 0): alloc_mad's missing sm_ah. */
    public static final class NoSubnetManager extends IOException {
        NoSubnetManager(String message) {
            super(message);
        }
    }

    /** The SA answered with a non-zero status (e.g. 0x000c, no records). */
    public static final class Refused extends IOException {
        private final int status;

        Refused(int status) {
            super(String.format("the SA answered status 0x%04x", status));
            this.status = status;
        }

        public int status() {
            return status;
        }
    }

    public SaClient(MadLayer layer, Port port) throws IOException {
        this.layer = layer;
        this.port = port;
        try {
            synchronized (layer.lock()) {
                MadPort madPort = layer.port(port);
                // no registration: this agent only sends requests and receives their responses (ib_sa_client)
                this.agent = madPort.register(1, null, 0, false, this);
            }
        } catch (Errno e) {
            throw new IOException("ib_sa: cannot register an SA client on " + port + ": " + e.getMessage());
        }
    }

    /** SubnAdmSet(MCMemberRecord): joins {@code request}'s group; the group's record as the SA answers it. */
    public McMemberRecord join(McMemberRecord request, long componentMask) throws IOException {
        byte[] mad = request(Method.SET, McMemberRecord.ATTRIBUTE_ID, componentMask);
        request.encode(mad, Mad.dataOffset(MgmtClass.SUBN_ADM));
        return McMemberRecord.decode(send(mad), Mad.dataOffset(MgmtClass.SUBN_ADM));
    }

    /** SubnAdmDelete(MCMemberRecord): leaves the group. */
    public void leave(McMemberRecord request, long componentMask) throws IOException {
        byte[] mad = request(Method.DELETE, McMemberRecord.ATTRIBUTE_ID, componentMask);
        request.encode(mad, Mad.dataOffset(MgmtClass.SUBN_ADM));
        send(mad);
    }

    /** SubnAdmGet(PathRecord). */
    public PathRecord path(PathRecord request, long componentMask) throws IOException {
        return path(request, componentMask, TIMEOUT_MS, RETRIES);
    }

    /** SubnAdmGet(PathRecord) with the caller's timeout and retries (rdma_resolve_route's timeout_ms). */
    public PathRecord path(PathRecord request, long componentMask, int timeoutMs, int retries) throws IOException {
        byte[] mad = request(Method.GET, PathRecord.ATTRIBUTE_ID, componentMask);
        request.encode(mad, Mad.dataOffset(MgmtClass.SUBN_ADM));
        return PathRecord.decode(send(mad, timeoutMs, retries), Mad.dataOffset(MgmtClass.SUBN_ADM));
    }

    private byte[] request(int method, int attributeId, long componentMask) {
        byte[] mad = new byte[Mad.SIZE];
        new MadHeader(Mad.BASE_VERSION, MgmtClass.SUBN_ADM, SA_CLASS_VERSION, method, 0, 0, 0, attributeId, 0)
                .encode(mad);
        for (int i = 0; i < 8; i++) {
            mad[COMPONENT_MASK_OFFSET + i] = (byte) (componentMask >>> (56 - 8 * i));
        }
        return mad;
    }

    private byte[] send(byte[] mad) throws IOException {
        return send(mad, TIMEOUT_MS, RETRIES);
    }

    private byte[] send(byte[] mad, int timeoutMs, int retries) throws IOException {
        CompletableFuture<byte[]> answer = new CompletableFuture<>();
        long tid;
        synchronized (layer.lock()) {
            int smLid = port.smLid();
            if (smLid == 0 || port.lid() == 0) {
                throw new NoSubnetManager("no subnet manager known to " + port + " (SM LID 0)");
            }
            tid = ((long) agent.hiTid() << 32) | (nextTid++ & 0xffffffffL);
            Mad.setTransactionId(mad, tid);
            pending.put(tid, answer);
            try {
                agent.port().post(new SendRequest(agent, mad, smLid, port.smSl(), 0, 1, GSI_QKEY, 0, timeoutMs,
                        retries, false, tid));
            } catch (Errno e) {
                pending.remove(tid);
                throw new IOException("SA query: " + e.getMessage());
            }
        }
        try {
            byte[] response = answer.get();
            int status = Mad.status(response);
            if (status != 0) {
                throw new Refused(status);
            }
            return response;
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } finally {
            pending.remove(tid);
        }
    }

    @Override
    public void received(MadAgent from, ReceivedMad mad) {
        CompletableFuture<byte[]> f = pending.get(Mad.transactionId(mad.message()));
        if (f != null) {
            f.complete(mad.message());
        }
    }

    @Override
    public void sendCompleted(MadAgent from, SendRequest send, SendStatus status) {
        if (status != SendStatus.SUCCESS && send.context() instanceof Long tid) {
            CompletableFuture<byte[]> f = pending.get(tid);
            if (f != null) {
                f.completeExceptionally(new IOException("SA query: " + status.name().toLowerCase()
                        .replace('_', ' ') + " (no SA answered)"));
            }
        }
    }

    @Override
    public void close() {
        synchronized (layer.lock()) {
            agent.port().unregister(agent);
        }
        pending.values().forEach(f -> f.completeExceptionally(new IOException("closed")));
    }
}
