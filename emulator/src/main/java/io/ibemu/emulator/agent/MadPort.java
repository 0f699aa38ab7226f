package io.ibemu.emulator.agent;

import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.mad.ClassPortInfo;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadStatus;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.RmppHeader;
import io.ibemu.emulator.mad.Smp;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.kernel.Errno;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * ib_mad_port_private: the MAD services of one port — the agents registered on its QP0 and
 * QP1, the table that routes unsolicited MADs to them by class, version, method (and OUI), and
 * the send path with its response matching and timeouts. Called with the fabric lock held.
 */
public final class MadPort {
    /**
     * MAX_MGMT_VERSION and MAX_MGMT_CLASS of mad_priv.h: 0x83 since OPA's class versions (Debian's
     * 6.1 kernel registers a class version 8 agent, checked with scripts/kernel-vm).
     */
    static final int MAX_CLASS_VERSION = 0x83;
    private static final int MAX_CLASS = 80;
    private static final int QKEY_GSI = 0x80010000;

    private final MadLayer layer;
    private final Port port;
    /** Who receives an unsolicited MAD, keyed as {@link #key}. */
    private final Map<Long, MadAgent> methods = new HashMap<>();
    private final List<MadAgent> agents = new ArrayList<>();
    private final Rmpp rmpp = new Rmpp(this);

    MadPort(MadLayer layer, Port port) {
        this.layer = layer;
        this.port = port;
    }

    public Port port() {
        return port;
    }

    /**
     * ib_register_mad_agent: the checks in the kernel's order, each failing with EINVAL, then
     * the hi_tid, then the overlap check against every agent already on this port.
     */
    public MadAgent register(int qpn, MadRegistration reg, int rmppVersion, boolean userRmpp, MadAgentClient client)
            throws Errno {
        if (rmppVersion != 0 && rmppVersion != RmppHeader.VERSION) {
            throw Errno.of(Errno.EINVAL);
        }
        if (reg != null) {
            int cls = reg.mgmtClass();
            boolean smiClass = cls == MgmtClass.SUBN_LID_ROUTED || cls == MgmtClass.SUBN_DIRECTED_ROUTE;
            boolean invalid = reg.classVersion() >= MAX_CLASS_VERSION
                    || (cls >= MAX_CLASS && cls != MgmtClass.SUBN_DIRECTED_ROUTE)
                    || (MgmtClass.isVendorHighRange(cls) && reg.oui() == 0)
                    || (!MgmtClass.isRmpp(cls) && rmppVersion != 0)
                    || (qpn == 0) != smiClass;
            if (invalid) {
                throw Errno.of(Errno.EINVAL);
            }
        } else if (userRmpp) {
            throw Errno.of(Errno.EINVAL);
        }
        List<Long> keys = reg == null ? List.of() : keys(reg);
        for (long k : keys) {
            if (methods.containsKey(k)) {
                throw Errno.of(Errno.EINVAL);
            }
        }
        MadAgent[] made = new MadAgent[1];
        layer.allocate(hiTid -> made[0] = new MadAgent(hiTid, this, qpn, reg, rmppVersion, userRmpp, client));
        for (long k : keys) {
            methods.put(k, made[0]);
        }
        agents.add(made[0]);
        return made[0];
    }

    /** ib_unregister_mad_agent: its registrations go, and its outstanding sends are flushed. */
    public void unregister(MadAgent agent) {
        if (!agent.registered) {
            return;
        }
        agent.registered = false;
        methods.values().removeIf(a -> a == agent);
        agents.remove(agent);
        layer.forget(agent);
        List<SendRequest> flushed = new ArrayList<>(agent.waiting);
        agent.waiting.clear();
        for (SendRequest s : flushed) {
            finish(s, SendStatus.FLUSHED);
        }
    }

    /**
     * ib_post_send_mad. A directed-route SMP whose path ends here is answered by this node
     * (handle_outgoing_dr_smp) and completes at once; anything else goes on the wire and, when
     * it has a timeout, waits for its response.
     */
    public void post(SendRequest s) throws Errno {
        byte[] mad = s.message;
        if (!MgmtClass.isRmpp(Mad.mgmtClass(mad)) && s.agent.rmppVersion() != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        if (Mad.mgmtClass(mad) == MgmtClass.SUBN_DIRECTED_ROUTE) {
            int permissiveEnd = Smp.direction(mad) ? Smp.drDlid(mad) : Smp.drSlid(mad);
            if (permissiveEnd == Smp.PERMISSIVE_LID && !Smi.send(mad, isSwitch(), port.number())) {
                throw Errno.of(Errno.EINVAL);
            }
            if (Smi.isLocal(mad) || Smi.isLocalReturning(mad)) {
                completeLocally(s);
                return;
            }
        }
        if (s.rmppActive && RmppHeader.type(mad) == RmppHeader.TYPE_DATA) {
            s.agent.waiting.add(s);
            rmpp.sendWindow(s);
            return;
        }
        if (s.timeoutMs > 0) {
            s.agent.waiting.add(s);
        }
        transmit(s, s.message);
        if (s.timeoutMs <= 0) {
            finish(s, SendStatus.SUCCESS);
        } else {
            armUnlessAnswered(s);
        }
    }

    /**
     * ib_cancel_mad: a send still waiting ends at once with {@link SendStatus#FLUSHED}
     * (IB_WC_WR_FLUSH_ERR); one already ended is left alone.
     */
    public void cancel(SendRequest s) {
        if (s.done) {
            return;
        }
        s.agent.waiting.remove(s);
        finish(s, SendStatus.FLUSHED);
    }

    /**
     * ib_modify_mad: a send still waiting waits {@code timeoutMs} from now, and as long before
     * each of its remaining retries (the CM's answer to an MRA). Zero cancels it.
     */
    public void modify(SendRequest s, int timeoutMs) {
        if (timeoutMs <= 0) {
            cancel(s);
            return;
        }
        if (s.done || !s.agent.waiting.contains(s)) {
            return;
        }
        s.timeoutMs = timeoutMs;
        arm(s, timeoutMs);
    }

    /**
     * The response timer starts once the send is on the wire (wait_for_response after the send
     * completes); most answers arrive during the transmit, and those sends need no timer at all.
     */
    private void armUnlessAnswered(SendRequest s) {
        if (!s.done) {
            arm(s, s.timeoutMs);
        }
    }

    /**
     * A MAD arriving from the wire (ib_mad_recv_done); {@code arrivalPort} is the physical port
     * it came in on, which differs from this port only at a switch's management port 0.
     */
    void receive(Datagram d, int arrivalPort) {
        byte[] mad = d.mad();
        if (!valid(mad, d.destQp())) {
            return;
        }
        if (Mad.isSmp(mad) && Mad.method(mad) == Method.TRAP_REPRESS) {
            layer.traps().repressed(Mad.transactionId(mad));
            return;
        }
        Optional<byte[]> reply = node().process(arrivalPort, mad.clone());
        if (reply.isPresent()) {
            // An empty reply is IB_MAD_RESULT_CONSUMED: the SMA dropped it (an M_Key violation).
            if (reply.get().length > 0) {
                respond(d, reply.get(), arrivalPort);
            }
            return;
        }
        ReceivedMad received = new ReceivedMad(mad.clone(), d.slid(), d.sl(), d.pathBits(), d.srcQp(), pkeyIndex(d.pkey()));
        if (Mad.isResponse(mad)) {
            MadAgent agent = layer.agent((int) (Mad.transactionId(mad) >>> 32));
            if (agent != null && agent.registered) {
                agent.port().toAgent(agent, received);
            }
            return;
        }
        MadAgent agent = find(mad);
        if (agent != null) {
            toAgent(agent, received);
        } else if (Mad.method(mad) == Method.GET || Mad.method(mad) == Method.SET) {
            respond(d, unmatchedResponse(mad), arrivalPort);
        }
    }

    /** validate_mad: base version, SMI classes only on QP0, GSI only elsewhere, CM only Send. */
    private static boolean valid(byte[] mad, int destQp) {
        if (Mad.baseVersion(mad) != Mad.BASE_VERSION) {
            return false;
        }
        if (Mad.isSmp(mad)) {
            return destQp == 0;
        }
        if (Mad.mgmtClass(mad) == MgmtClass.COMM_MGMT && Mad.attributeId(mad) != ClassPortInfo.ATTRIBUTE_ID
                && Mad.method(mad) != 0x03) {
            return false;
        }
        return destQp != 0;
    }

    /** generate_unmatched_resp: a Get or Set nobody registered for is answered "unsupported". */
    private static byte[] unmatchedResponse(byte[] request) {
        byte[] r = request.clone();
        r[3] = (byte) Method.GET_RESP;
        int status = MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE;
        if (Mad.mgmtClass(r) == MgmtClass.SUBN_DIRECTED_ROUTE) {
            status |= MadStatus.DIRECTION;
        }
        Mad.setStatus(r, status);
        return r;
    }

    private void completeLocally(SendRequest s) {
        byte[] mad = s.message;
        ReceivedMad as = new ReceivedMad(null, Smp.drSlid(mad), 0, 0, 0, s.pkeyIndex);
        Optional<byte[]> reply = node().process(port.number(), mad.clone());
        if (reply.isPresent()) {
            if (reply.get().length > 0 && Mad.isResponse(reply.get())) {
                s.agent.client().received(s.agent, withMessage(as, reply.get()));
            }
        } else {
            MadAgent target = Mad.isResponse(mad) ? layer.agent((int) (Mad.transactionId(mad) >>> 32)) : find(mad);
            if (target != null && target.registered) {
                target.client().received(target, withMessage(as, mad.clone()));
            }
        }
        finish(s, SendStatus.SUCCESS);
    }

    private static ReceivedMad withMessage(ReceivedMad r, byte[] message) {
        return new ReceivedMad(message, r.slid(), r.sl(), r.pathBits(), r.srcQp(), r.pkeyIndex());
    }

    /** ib_mad_complete_recv: kernel-RMPP agents see whole messages; the rest as they come. */
    private void toAgent(MadAgent agent, ReceivedMad r) {
        byte[] mad = r.message();
        if (agent.kernelRmpp() && MgmtClass.isRmpp(Mad.mgmtClass(mad)) && RmppHeader.active(mad)) {
            rmpp.receive(agent, r);
            return;
        }
        deliver(agent, r);
    }

    private void deliver(MadAgent agent, ReceivedMad r) {
        if (Mad.isResponse(r.message())) {
            completeResponse(agent, r);
        } else {
            agent.client().received(agent, r);
        }
    }

    /**
     * ib_find_send_mad and the response half of ib_mad_complete_recv: the response completes
     * its request; an unmatched one is late and vanishes, except that a user-RMPP agent gets
     * every active RMPP segment (the first one completed the request).
     */
    private void completeResponse(MadAgent agent, ReceivedMad response) {
        byte[] mad = response.message();
        SendRequest s = waitingFor(agent, mad);
        if (s != null) {
            agent.waiting.remove(s);
            agent.client().received(agent, response);
            finish(s, SendStatus.SUCCESS);
        } else if (!agent.kernelRmpp() && MgmtClass.isRmpp(Mad.mgmtClass(mad)) && RmppHeader.active(mad)) {
            agent.client().received(agent, response);
        }
    }

    private static SendRequest waitingFor(MadAgent agent, byte[] mad) {
        long tid = Mad.transactionId(mad);
        int cls = Mad.mgmtClass(mad);
        for (SendRequest s : agent.waiting) {
            if (s.tid() == tid && Mad.mgmtClass(s.message) == cls) {
                return s;
            }
        }
        return null;
    }

    // ---- RMPP: the protocol is Rmpp's (mad_rmpp.c); these are what it asks of the port ----

    /** Sends {@code segment} of {@code s} as the port sends any MAD of it. */
    void transmitSegment(SendRequest s, byte[] segment) {
        transmit(s, segment);
    }

    /** Sends an RMPP ACK back to where {@code from} came from, on QP1. */
    void transmitAck(ReceivedMad from, byte[] ack) {
        layer.transmit(port, new Datagram(port, port.lid(), from.slid(), from.sl(), 0, 1, from.srcQp(), QKEY_GSI,
                pkey(from.pkeyIndex()), ack));
    }

    /** A whole message, reassembled: to the agent as any received MAD. */
    void deliverWhole(MadAgent agent, ReceivedMad r) {
        deliver(agent, r);
    }

    /** Ends {@code s} (taken off the agent's waiting list first) with {@code status}. */
    void end(SendRequest s, SendStatus status) {
        s.agent.waiting.remove(s);
        finish(s, status);
    }

    /** The send of {@code agent} that {@code mad} answers, or null. */
    SendRequest sendAnswered(MadAgent agent, byte[] mad) {
        return waitingFor(agent, mad);
    }

    void arm(SendRequest s, int delayMs) {
        if (s.timer != null) {
            s.timer.cancel(false);
        }
        s.timer = layer.schedule(() -> expire(s), delayMs);
    }

    /** timeout_sends / ib_retry_rmpp: resend while retries last, then report the timeout. */
    private void expire(SendRequest s) {
        if (s.done || !s.agent.waiting.contains(s)) {
            return;
        }
        boolean rmppUnacked = s.rmppActive && s.lastAck < Rmpp.count(s.message);
        if (s.retriesLeft > 0) {
            s.retriesLeft--;
            if (rmppUnacked) {
                s.segmentsSent = s.lastAck;
                rmpp.sendWindow(s);
            } else {
                transmit(s, s.message);
                armUnlessAnswered(s);
            }
            return;
        }
        s.agent.waiting.remove(s);
        finish(s, SendStatus.RESPONSE_TIMEOUT);
    }

    private void finish(SendRequest s, SendStatus status) {
        if (s.done) {
            return;
        }
        s.done = true;
        if (s.timer != null) {
            s.timer.cancel(false);
        }
        s.agent.client().sendCompleted(s.agent, s, status);
    }

    private void transmit(SendRequest s, byte[] mad) {
        int slid = port.lid() | s.pathBits;
        layer.transmit(port, new Datagram(port, slid, s.dlid, s.sl, s.pathBits, s.agent.qpn(), s.remoteQpn,
                s.remoteQkey, pkey(s.pkeyIndex), Arrays.copyOf(mad, Mad.SIZE)));
    }

    /**
     * agent_send_response: back to where the request came from, on the QP it came to. A
     * directed-route response takes the return path out of the port its request arrived on.
     */
    private void respond(Datagram request, byte[] reply, int arrivalPort) {
        Port out = port;
        if (Mad.mgmtClass(reply) == MgmtClass.SUBN_DIRECTED_ROUTE) {
            if (!Smi.send(reply, isSwitch(), arrivalPort)) {
                return;
            }
            out = node().port(arrivalPort);
        }
        layer.transmit(out, new Datagram(out, port.lid(), request.slid(), request.sl(), 0, request.destQp(),
                request.srcQp(), QKEY_GSI, request.pkey(), reply));
    }

    /** find_mad_agent for a request: by version, class (DR folded apart from LID-routed), method, OUI. */
    private MadAgent find(byte[] mad) {
        int version = Mad.classVersion(mad);
        if (version >= MAX_CLASS_VERSION) {
            return null;
        }
        int cls = Mad.mgmtClass(mad);
        int oui = MgmtClass.isVendorHighRange(cls) ? Mad.vendorOui(mad) : 0;
        return methods.get(key(version, cls, oui, Mad.method(mad) & ~Method.RESPONSE));
    }

    private static List<Long> keys(MadRegistration reg) {
        List<Long> keys = new ArrayList<>();
        int oui = MgmtClass.isVendorHighRange(reg.mgmtClass()) ? reg.oui() : 0;
        for (int m = 0; m < 128; m++) {
            if (reg.hasMethod(m)) {
                keys.add(key(reg.classVersion(), reg.mgmtClass(), oui, m));
            }
        }
        return keys;
    }

    private static long key(int version, int cls, int oui, int method) {
        return ((long) version << 48) | ((long) cls << 40) | ((long) oui << 8) | method;
    }

    private Node node() {
        return port.node();
    }

    private boolean isSwitch() {
        return node().type() == NodeType.SWITCH;
    }

    private int pkey(int index) {
        int[] table = port.pkeys();
        return index < table.length ? table[index] : 0;
    }

    private int pkeyIndex(int pkey) {
        int[] table = port.pkeys();
        for (int i = 0; i < table.length; i++) {
            if ((table[i] & 0x7fff) == (pkey & 0x7fff) && (table[i] & 0x7fff) != 0) {
                return i;
            }
        }
        return 0;
    }
}
