package io.ibemu.emulator.cm;

import io.ibemu.emulator.agent.MadAgent;
import io.ibemu.emulator.agent.MadAgentClient;
import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.agent.MadRegistration;
import io.ibemu.emulator.agent.ReceivedMad;
import io.ibemu.emulator.agent.SendRequest;
import io.ibemu.emulator.agent.SendStatus;
import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.mad.CmAttribute;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.kernel.Errno;
import java.util.function.Consumer;

/**
 * cm_port: the CM's agent on QP1 of one local port (class 0x07 version 2, method Send, as
 * cm_add_one registers it) and the sends made through it. What arrives is handed to the CM's
 * thread at once: the MAD layer calls in with the fabric lock held.
 */
final class CmPort implements MadAgentClient {
    /** The GSI's well-known Q_Key (IBA 13.5.3): CM MADs go to QP1 of the peer. */
    static final int QKEY_GSI = 0x80010000;
    /** The context of a message an id sends that no id waits on (cm_alloc_msg, not a response). */
    static final Object ID_MESSAGE = new Object();

    private final Cm cm;
    private final MadLayer layer;
    private final LocalHca hca;
    private final Port port;
    private final MadAgent agent;
    private final CmCounters counters = new CmCounters();
    /** cm_remove_one ran: the agent is gone (guarded by the fabric lock). */
    private boolean closed;

    CmPort(Cm cm, MadLayer layer, LocalHca hca, Port port) throws Errno {
        this.cm = cm;
        this.layer = layer;
        this.hca = hca;
        this.port = port;
        long[] methods = new long[2];
        methods[0] = 1L << Method.SEND;
        synchronized (layer.lock()) {
            this.agent = layer.port(port).register(1,
                    new MadRegistration(MgmtClass.COMM_MGMT, CmAttribute.CLASS_VERSION, methods, 0), 0, false, this);
        }
    }

    CmCounters counters() {
        return counters;
    }

    LocalHca hca() {
        return hca;
    }

    Port port() {
        return port;
    }

    int number() {
        return port.number();
    }

    /** The first half of every TID this port's CM sends (cm_form_tid). */
    long hiTid() {
        return (long) agent.hiTid() << 32;
    }

    /**
     * ib_post_send_mad to {@code av}'s port's QP1; with a timeout the MAD layer resends it. Null
     * once the port's agent is gone (the device was removed): nothing is sent.
     */
    SendRequest send(byte[] mad, AddressVector av, int timeoutMs, int retries, Object context) {
        SendRequest s = new SendRequest(agent, mad, av.dlid(), av.sl(), av.srcPathBits(), 1, QKEY_GSI,
                av.pkeyIndex(), timeoutMs, retries, false, context);
        synchronized (layer.lock()) {
            if (closed) {
                return null;
            }
            try {
                agent.port().post(s);
            } catch (Errno e) {
                // a CM MAD is always a valid GSI send; a failure here is the port going away
                return null;
            }
        }
        return s;
    }

    /**
     * A CM MAD back to where {@code r} came from, in its TID, answered by nothing
     * (cm_alloc_response_msg: no id owns it, so a duplicate's answer counts as a retry).
     */
    void respond(ReceivedMad r, int attributeId, Consumer<byte[]> message) {
        byte[] mad = CmAttribute.mad(attributeId, Mad.transactionId(r.message()));
        message.accept(mad);
        send(mad, AddressVector.responseTo(this, r), 0, 0, null);
    }

    /** ib_cancel_mad. */
    void cancel(SendRequest s) {
        if (s != null) {
            synchronized (layer.lock()) {
                agent.port().cancel(s);
            }
        }
    }

    /** ib_modify_mad. */
    void modify(SendRequest s, int timeoutMs) {
        if (s != null) {
            synchronized (layer.lock()) {
                agent.port().modify(s, timeoutMs);
            }
        }
    }

    void close() {
        synchronized (layer.lock()) {
            closed = true;
            agent.port().unregister(agent);
        }
    }

    /** cm_alloc_msg's check: no agent, no message (EINVAL). */
    boolean isClosed() {
        synchronized (layer.lock()) {
            return closed;
        }
    }

    @Override
    public void received(MadAgent from, ReceivedMad mad) {
        cm.queue(() -> cm.received(this, mad));
    }

    /**
     * cm_send_handler: every transmission counted (a response not from an id, REJs apart,
     * counts as retried once, as the kernel counts it), then a failure to the CM thread.
     */
    @Override
    public void sendCompleted(MadAgent from, SendRequest send, SendStatus status) {
        int attributeId = Mad.attributeId(send.message());
        int retries = send.context() == null && attributeId != CmAttribute.REJ ? 1 : send.retries();
        counters.add(CmCounters.Group.TX_MSGS, attributeId, 1 + retries);
        if (retries > 0) {
            counters.add(CmCounters.Group.TX_RETRIES, attributeId, retries);
        }
        if (status != SendStatus.SUCCESS) {
            cm.queue(() -> cm.sendFailed(send, status));
        }
    }

    @Override
    public String toString() {
        return hca.name() + "/" + port.number();
    }
}
