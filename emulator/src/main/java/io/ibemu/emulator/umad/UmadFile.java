package io.ibemu.emulator.umad;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.IoctlResult;
import io.ibemu.devfs.device.MessageFile;
import io.ibemu.devfs.device.MessageOutlet;
import io.ibemu.devfs.device.Poll;
import io.ibemu.devfs.device.PollWaiter;
import io.ibemu.devfs.device.ReadRequest;
import io.ibemu.devfs.device.ReadResult;
import io.ibemu.emulator.agent.MadAgent;
import io.ibemu.emulator.agent.MadAgentClient;
import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.agent.MadPort;
import io.ibemu.emulator.agent.MadRegistration;
import io.ibemu.emulator.agent.ReceivedMad;
import io.ibemu.emulator.agent.SendRequest;
import io.ibemu.emulator.agent.SendStatus;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.RmppHeader;
import io.ibemu.kernel.Errno;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * struct ib_umad_file: one open of a umad device, as drivers/infiniband/core/user_mad.c keeps
 * it — up to 32 agents, the receive queue that read() drains, and the list of sends still in
 * flight that write() checks for duplicates. Agent and send work runs under the fabric lock;
 * the queue has its own monitor, which blocked readers wait on and never hold beyond it.
 * Diverted to a {@link MessageOutlet} (the supervisor's socket pair), the queue is the mirror of
 * the caller's socket: each packet is sent there as read() would return it, and a read that
 * {@link #admit}s the head lets the caller's own read take it.
 */
final class UmadFile implements MessageFile, MadAgentClient {
    static final int MAX_AGENTS = 32;
    /** MAX_UMAD_RECV_LIST_SIZE: past it, queue_packet drops new received MADs (not timeouts). */
    static final int MAX_RECV_LIST_SIZE = 200_000;
    /** How often a blocked read looks whether its caller was signalled. */
    private static final long INTERRUPT_POLL_MS = 20;

    private final MadLayer layer;
    private final Port port;
    private final MadAgent[] agents = new MadAgent[MAX_AGENTS];
    private boolean usePkeyIndex;
    private boolean alreadyUsed;
    /** The port was unregistered (ib_umad_kill_port): agents gone, reads EIO, poll EPOLLERR. */
    private volatile boolean agentsDead;
    /** Told at release, so the device forgets the file. */
    private final Runnable released;

    /** Guards {@link #receiveQueue}, {@link #sendList} and {@link #pollWaiters}. */
    private final Object queueLock = new Object();
    private final Deque<UmadPacket> receiveQueue = new ArrayDeque<>();
    private final List<UmadPacket> sendList = new ArrayList<>();
    private final List<PollWaiter> pollWaiters = new ArrayList<>();
    /** Where queued packets also go, encoded; null for a file read through FUSE. */
    private MessageOutlet outlet;

    private interface Ioctl {
        IoctlResult run(UmadFile file, byte[] in) throws Errno;
    }

    /** ib_umad_ioctl's switch, as a table. */
    private static final Map<Integer, Ioctl> IOCTLS = Map.of(
            AgentRequest.REGISTER_AGENT, UmadFile::registerAgent,
            AgentRequest.UNREGISTER_AGENT, UmadFile::unregisterAgent,
            AgentRequest.ENABLE_PKEY, UmadFile::enablePkey,
            AgentRequest.REGISTER_AGENT2, UmadFile::registerAgent2);

    /** What may fail a call before it acts (the device's fault rules). */
    @FunctionalInterface
    interface Gate {
        void admit(String call, Caller caller) throws Errno;
    }

    private final Gate gate;

    UmadFile(MadLayer layer, Port port) {
        this(layer, port, () -> { }, (call, caller) -> { });
    }

    UmadFile(MadLayer layer, Port port, Runnable released, Gate gate) {
        this.layer = layer;
        this.port = port;
        this.released = released;
        this.gate = gate;
    }

    /**
     * ib_umad_kill_port for this file: agents_dead, the agents unregistered, the waiters on the
     * receive queue woken. A read blocked in the kernel stays blocked (its wait is for a packet
     * only) and gets EIO once it returns; poll says EPOLLERR.
     */
    void kill() {
        synchronized (layer.lock()) {
            agentsDead = true;
            unregisterAgents();
        }
        List<PollWaiter> toWake;
        MessageOutlet hungUp;
        synchronized (queueLock) {
            queueLock.notifyAll();
            toWake = new ArrayList<>(pollWaiters);
            pollWaiters.clear();
            hungUp = outlet;
        }
        toWake.forEach(PollWaiter::wake);
        if (hungUp != null) {
            hungUp.hangUp();
        }
    }

    private int headerSize() {
        return UmadHeader.size(usePkeyIndex);
    }

    // ---- ioctl ----

    @Override
    public IoctlResult ioctl(Caller caller, int cmd, byte[] in) throws Errno {
        gate.admit("ioctl", caller);
        Ioctl handler = IOCTLS.get(cmd);
        if (handler == null) {
            throw Errno.of(Errno.ENOTTY);
        }
        synchronized (layer.lock()) {
            return handler.run(this, in);
        }
    }

    /** ib_umad_reg_agent. */
    private IoctlResult registerAgent(byte[] in) throws Errno {
        requirePort();
        AgentRequest req = AgentRequest.decodeV1(in);
        if (req.qpn() != 0 && req.qpn() != 1) {
            throw Errno.of(Errno.EINVAL);
        }
        int id = freeSlot();
        MadAgent agent = madPort().register(req.qpn(), registration(req, req.oui()), req.rmppVersion(), false, this);
        agents[id] = agent;
        alreadyUsed = true;
        byte[] out = in.clone();
        AgentRequest.V1.ID.put(out, id);
        return IoctlResult.ok(out);
    }

    /** ib_umad_reg_agent2: unsupported flags are refused with the supported set written back. */
    private IoctlResult registerAgent2(byte[] in) throws Errno {
        requirePort();
        AgentRequest req = AgentRequest.decodeV2(in);
        if (req.qpn() != 0 && req.qpn() != 1) {
            throw Errno.of(Errno.EINVAL);
        }
        if ((req.flags() & ~AgentRequest.FLAGS_CAP) != 0) {
            byte[] out = in.clone();
            AgentRequest.V2.FLAGS.put(out, AgentRequest.FLAGS_CAP);
            return IoctlResult.failedAfterWriting(out, Errno.EINVAL);
        }
        int id = freeSlot();
        if (req.mgmtClass() != 0 && (req.oui() & 0xff000000) != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        boolean userRmpp = (req.flags() & AgentRequest.USER_RMPP) != 0;
        MadAgent agent = madPort().register(req.qpn(), registration(req, req.oui()), req.rmppVersion(), userRmpp, this);
        agents[id] = agent;
        if (!alreadyUsed) {
            alreadyUsed = true;
            usePkeyIndex = true;
        }
        byte[] out = in.clone();
        AgentRequest.V2.ID.put(out, id);
        return IoctlResult.ok(out);
    }

    /** ib_umad_unreg_agent. */
    private IoctlResult unregisterAgent(byte[] in) throws Errno {
        long id = AgentRequest.V1.ID.get(in, 0) & 0xffffffffL;
        if (id >= MAX_AGENTS || agents[(int) id] == null) {
            throw Errno.of(Errno.EINVAL);
        }
        MadAgent agent = agents[(int) id];
        agents[(int) id] = null;
        agent.port().unregister(agent);
        return IoctlResult.ok();
    }

    /** ib_umad_enable_pkey: only before the file's first registration. */
    private IoctlResult enablePkey(byte[] in) throws Errno {
        if (alreadyUsed) {
            throw Errno.of(Errno.EINVAL);
        }
        usePkeyIndex = true;
        return IoctlResult.ok();
    }

    /** ib_umad_reg_agent(2): "invalid device" once the port was killed. */
    private void requirePort() throws Errno {
        if (agentsDead) {
            throw Errno.of(Errno.EPIPE);
        }
    }

    private int freeSlot() throws Errno {
        for (int i = 0; i < MAX_AGENTS; i++) {
            if (agents[i] == null) {
                return i;
            }
        }
        throw Errno.of(Errno.ENOMEM);
    }

    private static MadRegistration registration(AgentRequest req, int oui) {
        return req.mgmtClass() == 0 ? null
                : new MadRegistration(req.mgmtClass(), req.classVersion(), req.methodMask(), oui);
    }

    private MadPort madPort() {
        return layer.port(port);
    }

    // ---- write ----

    /** ib_umad_write, check for check. */
    @Override
    public int write(Caller caller, ByteBuffer data, int fileFlags) throws Errno {
        gate.admit("write", caller);
        int count = data.remaining();
        byte[] buf = new byte[count];
        data.get(buf);
        synchronized (layer.lock()) {
            int hdrSize = headerSize();
            if (count < hdrSize + RmppHeader.END) {
                throw Errno.of(Errno.EINVAL);
            }
            UmadHeader header = UmadHeader.decode(buf, usePkeyIndex);
            if ((header.id() & 0xffffffffL) >= MAX_AGENTS) {
                throw Errno.of(Errno.EINVAL);
            }
            MadAgent agent = agents[header.id()];
            if (agent == null) {
                throw Errno.of(Errno.EIO);
            }
            byte[] message = sendMessage(agent, buf, hdrSize, count);
            boolean rmppActive = agent.kernelRmpp() && MgmtClass.isRmpp(Mad.mgmtClass(message))
                    && RmppHeader.active(message);
            if (!Mad.isResponse(message)) {
                Mad.setTransactionId(message, ((long) agent.hiTid() << 32) | (Mad.transactionId(message) & 0xffffffffL));
            }
            UmadPacket packet = new UmadPacket.Sent(header, message);
            boolean userRmppSegment = !agent.kernelRmpp() && MgmtClass.isRmpp(Mad.mgmtClass(message))
                    && RmppHeader.active(message);
            synchronized (queueLock) {
                if (!userRmppSegment && isDuplicate(packet)) {
                    throw Errno.of(Errno.EINVAL);
                }
                sendList.add(packet);
            }
            SendRequest send = new SendRequest(agent, message, header.lid(), header.sl(), header.pathBits(),
                    header.qpn(), header.qkey(), usePkeyIndex ? header.pkeyIndex() : 0, header.timeoutMs(),
                    header.retries(), rmppActive, packet);
            try {
                agent.port().post(send);
            } catch (Errno e) {
                synchronized (queueLock) {
                    sendList.remove(packet);
                }
                throw e;
            }
            return count;
        }
    }

    /**
     * ib_create_send_mad's size rules: without kernel RMPP a message is one MAD, padded to 256
     * bytes; an RMPP-active message keeps its length (header plus all its data).
     */
    private static byte[] sendMessage(MadAgent agent, byte[] buf, int hdrSize, int count) throws Errno {
        int cls = Mad.mgmtClass(buf, hdrSize);
        int hdrLen = Mad.dataOffset(cls);
        boolean rmppActive = MgmtClass.isRmpp(cls) && agent.kernelRmpp()
                && RmppHeader.active(buf, hdrSize);
        int dataLen = count - hdrSize - hdrLen;
        int segment = Mad.SIZE - hdrLen;
        int pad = dataLen > 0 ? (segment - dataLen % segment) % segment : segment;
        int messageSize = hdrLen + Math.max(dataLen, 0) + pad;
        if (agent.kernelRmpp() ? !rmppActive && messageSize > Mad.SIZE : messageSize > Mad.SIZE) {
            throw Errno.of(Errno.EINVAL);
        }
        byte[] message = new byte[rmppActive ? Math.max(count - hdrSize, hdrLen) : Mad.SIZE];
        System.arraycopy(buf, hdrSize, message, 0, count - hdrSize);
        if (MgmtClass.isRmpp(cls) && agent.kernelRmpp()) {
            // the kernel builds the RMPP header itself and copies only the MAD and class headers
            Arrays.fill(message, Mad.HEADER_SIZE, RmppHeader.END, (byte) 0);
            if (rmppActive) {
                RmppHeader.set(message, RmppHeader.TYPE_DATA, RmppHeader.FLAG_ACTIVE, 0, 0,
                        message.length - RmppHeader.END);
            }
        }
        return message;
    }

    /** is_duplicate: same TID and class as a send still in flight (responses: same destination too). */
    private boolean isDuplicate(UmadPacket packet) {
        byte[] hdr = packet.data();
        for (UmadPacket sent : sendList) {
            byte[] sentHdr = sent.data();
            if (Mad.transactionId(hdr) != Mad.transactionId(sentHdr) || Mad.mgmtClass(hdr) != Mad.mgmtClass(sentHdr)) {
                continue;
            }
            if (!Mad.isResponse(hdr)) {
                if (!Mad.isResponse(sentHdr)) {
                    return true;
                }
                continue;
            } else if (!Mad.isResponse(sentHdr)) {
                continue;
            }
            if (sameDestination(packet.header(), sent.header())) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameDestination(UmadHeader a, UmadHeader b) {
        if (!a.grhPresent() && !b.grhPresent()) {
            return a.lid() == b.lid();
        }
        return a.grhPresent() && b.grhPresent() && Arrays.equals(a.gid(), b.gid());
    }

    // ---- the MAD layer's callbacks (fabric lock held) ----

    /** recv_handler + queue_packet. */
    @Override
    public void received(MadAgent agent, ReceivedMad mad) {
        int id = idOf(agent);
        if (id < 0) {
            return;
        }
        enqueue(UmadPacket.Received.of(id, headerSize(), mad.message(), mad.srcQp(), mad.slid(), mad.sl(),
                mad.pathBits(), mad.pkeyIndex()));
    }

    /** send_handler: the send leaves the list; a timed-out request comes back to its sender. */
    @Override
    public void sendCompleted(MadAgent agent, SendRequest send, SendStatus status) {
        UmadPacket packet = (UmadPacket) send.context();
        synchronized (queueLock) {
            sendList.remove(packet);
        }
        if (status == SendStatus.RESPONSE_TIMEOUT) {
            int id = idOf(agent);
            if (id >= 0) {
                enqueue(new UmadPacket.Sent(packet.header().withId(id).withStatus(Errno.ETIMEDOUT),
                        Arrays.copyOf(packet.data(), Mad.HEADER_SIZE)));
            }
        }
    }

    private int idOf(MadAgent agent) {
        for (int i = 0; i < MAX_AGENTS; i++) {
            if (agents[i] == agent) {
                return i;
            }
        }
        return -1;
    }

    private void enqueue(UmadPacket packet) {
        List<PollWaiter> toWake;
        synchronized (queueLock) {
            if (packet.received() && receiveQueue.size() > MAX_RECV_LIST_SIZE) {
                return;
            }
            if (outlet != null && !outlet.send(encode(packet, packet.data().length))) {
                return; // the socket refused it: lost as a packet past the list's limit
            }
            receiveQueue.addLast(packet);
            queueLock.notifyAll();
            toWake = new ArrayList<>(pollWaiters);
            pollWaiters.clear();
        }
        toWake.forEach(PollWaiter::wake);
    }

    // ---- read ----

    /** ib_umad_read: blocks for a packet; a failed copy puts it back at the head. */
    @Override
    public ReadResult read(ReadRequest request) throws Errno {
        gate.admit("read", request.caller());
        int hdrSize = headerSize();
        if (request.count() < hdrSize) {
            throw Errno.of(Errno.EINVAL);
        }
        UmadPacket packet;
        synchronized (queueLock) {
            packet = awaitHead(request);
            ReadResult refused = refusal(packet, request.count(), hdrSize);
            if (refused != null) {
                return refused; // the packet stays at the head
            }
            receiveQueue.pollFirst();
        }
        return ReadResult.of(encode(packet, packet.data().length));
    }

    /** ib_umad_read for a diverted file: the same checks, and the caller's socket read copies. */
    @Override
    public ReadResult admit(ReadRequest request) throws Errno {
        gate.admit("read", request.caller());
        int hdrSize = headerSize();
        if (request.count() < hdrSize) {
            throw Errno.of(Errno.EINVAL);
        }
        while (true) {
            UmadPacket head;
            synchronized (queueLock) {
                head = awaitHead(request);
                ReadResult refused = refusal(head, request.count(), hdrSize);
                if (refused != null) {
                    return refused;
                }
            }
            // the buffer is tried unlocked: a fault in the caller's memory may wait, deliveries may not
            if (!request.takes(hdrSize + head.data().length)) {
                return new ReadResult(null, Errno.EFAULT); // ib_umad_read requeues after a failed copy
            }
            synchronized (queueLock) {
                if (receiveQueue.peekFirst() == head) {
                    receiveQueue.pollFirst();
                    return null;
                }
            }
            // another read took that packet meanwhile: the next head is checked afresh
        }
    }

    @Override
    public void divert(MessageOutlet outlet) {
        synchronized (queueLock) {
            this.outlet = outlet;
        }
    }

    /** The head packet once there is one (caller holds queueLock): wait_event_interruptible on recv_list. */
    private UmadPacket awaitHead(ReadRequest request) throws Errno {
        if (agentsDead) {
            throw Errno.of(Errno.EIO);
        }
        while (receiveQueue.isEmpty()) {
            if (request.nonBlocking()) {
                throw Errno.of(Errno.EAGAIN);
            }
            if (request.caller().interrupted()) {
                throw Errno.of(Errno.EINTR);
            }
            try {
                queueLock.wait(INTERRUPT_POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Errno.of(Errno.EINTR);
            }
        }
        if (agentsDead) {
            throw Errno.of(Errno.EIO);
        }
        return receiveQueue.peekFirst();
    }

    /**
     * copy_recv_mad and copy_send_mad's checks: null when {@code count} bytes hold the packet,
     * else EINVAL, or for an RMPP message the header and first segment, then ENOSPC.
     */
    private ReadResult refusal(UmadPacket packet, int count, int hdrSize) {
        int length = packet.data().length;
        if (packet.received() && length > Mad.SIZE) {
            if (count < hdrSize + Mad.SIZE) {
                return new ReadResult(null, Errno.EINVAL);
            }
            if (count < hdrSize + length) {
                return ReadResult.writtenThenFailed(encode(packet, Mad.SIZE), Errno.ENOSPC);
            }
        } else if (count < hdrSize + length) {
            return new ReadResult(null, Errno.EINVAL);
        }
        return null;
    }

    /** The user header and the first {@code dataLength} bytes of the packet, as read() copies them. */
    private byte[] encode(UmadPacket packet, int dataLength) {
        return concat(packet.header().encode(usePkeyIndex), packet.data(), dataLength);
    }

    private static byte[] concat(byte[] header, byte[] data, int dataLength) {
        byte[] out = Arrays.copyOf(header, header.length + dataLength);
        System.arraycopy(data, 0, out, header.length, dataLength);
        return out;
    }

    // ---- poll, release ----

    /** ib_umad_poll: always writable, readable with a packet queued; only EPOLLERR once the port is gone. */
    @Override
    public int poll(Caller caller, PollWaiter waiter) {
        synchronized (queueLock) {
            if (agentsDead) {
                return Poll.ERR;
            }
            int mask = Poll.OUT | Poll.WRNORM;
            if (!receiveQueue.isEmpty()) {
                return mask | Poll.IN | Poll.RDNORM;
            }
            if (waiter != null) {
                pollWaiters.add(waiter);
            }
            return mask;
        }
    }

    /** Every agent of the file unregistered (caller holds the fabric lock). */
    private void unregisterAgents() {
        for (int i = 0; i < MAX_AGENTS; i++) {
            MadAgent agent = agents[i];
            agents[i] = null;
            if (agent != null) {
                agent.port().unregister(agent);
            }
        }
    }

    /** ib_umad_close: the file's agents go, and with them everything queued. */
    @Override
    public void release() {
        synchronized (layer.lock()) {
            unregisterAgents();
        }
        List<PollWaiter> toWake;
        synchronized (queueLock) {
            receiveQueue.clear();
            sendList.clear();
            toWake = new ArrayList<>(pollWaiters);
            pollWaiters.clear();
        }
        toWake.forEach(PollWaiter::wake);
        released.run();
    }
}
