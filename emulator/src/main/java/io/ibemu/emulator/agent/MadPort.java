package io.ibemu.emulator.agent;

import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
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
        if (rmppVersion != 0 && rmppVersion != Rmpp.VERSION) {
            throw Errno.of(Errno.EINVAL);
        }
        if (reg != null) {
            int cls = reg.mgmtClass();
            boolean smiClass = cls == Mads.CLASS_SUBN_LID_ROUTED || cls == Mads.CLASS_SUBN_DIRECTED_ROUTE;
            boolean invalid = reg.classVersion() >= MAX_CLASS_VERSION
                    || (cls >= MAX_CLASS && cls != Mads.CLASS_SUBN_DIRECTED_ROUTE)
                    || (Mads.isVendorRange2(cls) && reg.oui() == 0)
                    || (!Mads.isRmppClass(cls) && rmppVersion != 0)
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
        if (!Mads.isRmppClass(Mads.mgmtClass(mad)) && s.agent.rmppVersion() != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        if (Mads.mgmtClass(mad) == Mads.CLASS_SUBN_DIRECTED_ROUTE) {
            int permissiveEnd = Smp.direction(mad) ? Smp.drDlid(mad) : Smp.drSlid(mad);
            if (permissiveEnd == Mads.PERMISSIVE_LID && !Smi.send(mad, isSwitch(), port.number())) {
                throw Errno.of(Errno.EINVAL);
            }
            if (Smi.isLocal(mad) || Smi.isLocalReturning(mad)) {
                completeLocally(s);
                return;
            }
        }
        if (s.rmppActive && Rmpp.type(mad) == Rmpp.TYPE_DATA) {
            s.agent.waiting.add(s);
            sendWindow(s);
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
        if (Mads.isSmp(mad) && Mads.method(mad) == Mads.METHOD_TRAP_REPRESS) {
            layer.traps().repressed(Mads.tid(mad));
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
        if (Mads.isResponse(mad)) {
            MadAgent agent = layer.agent((int) (Mads.tid(mad) >>> 32));
            if (agent != null && agent.registered) {
                agent.port().toAgent(agent, received);
            }
            return;
        }
        MadAgent agent = find(mad);
        if (agent != null) {
            toAgent(agent, received);
        } else if (Mads.method(mad) == Mads.METHOD_GET || Mads.method(mad) == Mads.METHOD_SET) {
            respond(d, unmatchedResponse(mad), arrivalPort);
        }
    }

    /** validate_mad: base version, SMI classes only on QP0, GSI only elsewhere, CM only Send. */
    private static boolean valid(byte[] mad, int destQp) {
        if (Mads.baseVersion(mad) != Mads.BASE_VERSION) {
            return false;
        }
        if (Mads.isSmp(mad)) {
            return destQp == 0;
        }
        if (Mads.mgmtClass(mad) == Mads.CLASS_CM && Mads.attributeId(mad) != Mads.ATTR_CLASS_PORT_INFO
                && Mads.method(mad) != 0x03) {
            return false;
        }
        return destQp != 0;
    }

    /** generate_unmatched_resp: a Get or Set nobody registered for is answered "unsupported". */
    private static byte[] unmatchedResponse(byte[] request) {
        byte[] r = request.clone();
        r[3] = (byte) Mads.METHOD_GET_RESP;
        int status = Mads.STATUS_UNSUPPORTED_METHOD_ATTRIB;
        if (Mads.mgmtClass(r) == Mads.CLASS_SUBN_DIRECTED_ROUTE) {
            status |= Mads.DR_DIRECTION;
        }
        Mads.setStatus(r, status);
        return r;
    }

    private void completeLocally(SendRequest s) {
        byte[] mad = s.message;
        ReceivedMad as = new ReceivedMad(null, Smp.drSlid(mad), 0, 0, 0, s.pkeyIndex);
        Optional<byte[]> reply = node().process(port.number(), mad.clone());
        if (reply.isPresent()) {
            if (reply.get().length > 0 && Mads.isResponse(reply.get())) {
                s.agent.client().received(s.agent, withMessage(as, reply.get()));
            }
        } else {
            MadAgent target = Mads.isResponse(mad) ? layer.agent((int) (Mads.tid(mad) >>> 32)) : find(mad);
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
        if (agent.kernelRmpp() && Mads.isRmppClass(Mads.mgmtClass(mad)) && Rmpp.active(mad)) {
            switch (Rmpp.type(mad)) {
                case Rmpp.TYPE_DATA -> receiveSegment(agent, r);
                case Rmpp.TYPE_ACK -> receiveAck(agent, mad);
                case Rmpp.TYPE_STOP, Rmpp.TYPE_ABORT -> abortSend(agent, mad);
                default -> { }
            }
            return;
        }
        deliver(agent, r);
    }

    private void deliver(MadAgent agent, ReceivedMad r) {
        if (Mads.isResponse(r.message())) {
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
        } else if (!agent.kernelRmpp() && Mads.isRmppClass(Mads.mgmtClass(mad)) && Rmpp.active(mad)) {
            agent.client().received(agent, response);
        }
    }

    private static SendRequest waitingFor(MadAgent agent, byte[] mad) {
        long tid = Mads.tid(mad);
        int cls = Mads.mgmtClass(mad);
        for (SendRequest s : agent.waiting) {
            if (s.tid() == tid && Mads.mgmtClass(s.message) == cls) {
                return s;
            }
        }
        return null;
    }

    // ---- RMPP (mad_rmpp.c) ----

    /** send_next_seg for every segment the window allows, then wait for the ACK. */
    private void sendWindow(SendRequest s) {
        int count = RmppSegments.count(s.message);
        while (s.segmentsSent < s.newWindow && s.segmentsSent < count) {
            transmit(s, RmppSegments.segment(s.message, ++s.segmentsSent));
        }
        if (!s.done && s.lastAck < count) {
            // 2 seconds for an ACK, as the kernel waits when it knows no packet lifetime.
            arm(s, s.timeoutMs <= 0 || s.timeoutMs > 2000 ? 2000 : s.timeoutMs);
        }
    }

    /** process_rmpp_ack: move the window, finish when the last segment is acknowledged. */
    private void receiveAck(MadAgent agent, byte[] ack) {
        SendRequest s = waitingFor(agent, ack);
        if (s == null || !s.rmppActive) {
            return;
        }
        int segment = Rmpp.segment(ack);
        int window = Rmpp.lengthOrWindow(ack);
        int count = RmppSegments.count(s.message);
        if (s.lastAck == count && s.timeoutMs > 0) {
            return;
        }
        if (window < segment || segment > count || segment > s.newWindow) {
            agent.waiting.remove(s);
            finish(s, SendStatus.REMOTE_ABORT);
            return;
        }
        if (window < s.newWindow || segment < s.lastAck) {
            return;
        }
        if (segment > s.lastAck) {
            s.lastAck = segment;
            s.retriesLeft = s.maxRetries;
        }
        s.newWindow = window;
        if (s.lastAck == count) {
            if (s.timeoutMs <= 0) {
                agent.waiting.remove(s);
                finish(s, SendStatus.SUCCESS);
            } else {
                arm(s, s.timeoutMs);
            }
        } else if (s.segmentsSent < s.newWindow) {
            sendWindow(s);
        }
    }

    /** process_rmpp_stop / process_rmpp_abort. */
    private void abortSend(MadAgent agent, byte[] mad) {
        SendRequest s = waitingFor(agent, mad);
        if (s != null && s.rmppActive) {
            agent.waiting.remove(s);
            finish(s, SendStatus.REMOTE_ABORT);
        }
    }

    /** process_rmpp_data: start_rmpp and continue_rmpp, in-order segments only. */
    private void receiveSegment(MadAgent agent, ReceivedMad r) {
        byte[] mad = r.message();
        int segment = Rmpp.segment(mad);
        boolean first = (Rmpp.flags(mad) & Rmpp.FLAG_FIRST) != 0;
        if (Rmpp.status(mad) != 0 || (segment == 1) != first) {
            return;
        }
        RmppReassembly ra = null;
        for (RmppReassembly candidate : agent.reassemblies) {
            if (candidate.matches(mad, r)) {
                ra = candidate;
            }
        }
        if (segment == 1) {
            if (ra != null) {
                ack(ra, mad, r);
                return;
            }
            ra = new RmppReassembly(Mads.tid(mad), r.slid(), r.srcQp(), Mads.mgmtClass(mad));
            agent.reassemblies.removeIf(old -> old.complete);
            agent.reassemblies.add(ra);
        } else if (ra == null || segment > ra.newWindow) {
            return;
        } else if (segment <= ra.lastAck || ra.complete) {
            ack(ra, mad, r);
            return;
        } else if (segment != ra.received() + 1) {
            return;
        }
        ra.segments.add(mad);
        if ((Rmpp.flags(mad) & Rmpp.FLAG_LAST) != 0) {
            ra.complete = true;
            ack(ra, mad, r);
            deliver(agent, new ReceivedMad(RmppSegments.join(ra.segments), r.slid(), r.sl(), r.pathBits(),
                    r.srcQp(), r.pkeyIndex()));
        } else if (ra.received() == ra.newWindow) {
            ra.newWindow += RmppReassembly.WINDOW;
            ack(ra, mad, r);
        }
    }

    private void ack(RmppReassembly ra, byte[] data, ReceivedMad from) {
        layer.transmit(port, new Datagram(port, port.lid(), from.slid(), from.sl(), 0, 1, from.srcQp(), QKEY_GSI,
                pkey(from.pkeyIndex()), ra.ack(data)));
    }

    private void arm(SendRequest s, int delayMs) {
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
        boolean rmppUnacked = s.rmppActive && s.lastAck < RmppSegments.count(s.message);
        if (s.retriesLeft > 0) {
            s.retriesLeft--;
            if (rmppUnacked) {
                s.segmentsSent = s.lastAck;
                sendWindow(s);
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
                s.remoteQkey, pkey(s.pkeyIndex), Arrays.copyOf(mad, Mads.SIZE)));
    }

    /**
     * agent_send_response: back to where the request came from, on the QP it came to. A
     * directed-route response takes the return path out of the port its request arrived on.
     */
    private void respond(Datagram request, byte[] reply, int arrivalPort) {
        Port out = port;
        if (Mads.mgmtClass(reply) == Mads.CLASS_SUBN_DIRECTED_ROUTE) {
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
        int version = Mads.classVersion(mad);
        if (version >= MAX_CLASS_VERSION) {
            return null;
        }
        int cls = Mads.mgmtClass(mad);
        int oui = Mads.isVendorRange2(cls) ? Mads.vendorOui(mad) : 0;
        return methods.get(key(version, cls, oui, Mads.method(mad) & ~Mads.METHOD_RESP));
    }

    private static List<Long> keys(MadRegistration reg) {
        List<Long> keys = new ArrayList<>();
        int oui = Mads.isVendorRange2(reg.mgmtClass()) ? reg.oui() : 0;
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
