package io.ibemu.emulator.umad;

import io.ibemu.devfs.device.IoctlResult;
import io.ibemu.devfs.device.Poll;
import io.ibemu.devfs.device.ReadResult;
import io.ibemu.emulator.TestCaller;
import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadStatus;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.topology.DefaultFabric;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.kernel.Errno;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** user_mad.c's rules on one port of the default fabric, driven through the DeviceFile API. */
class UmadFileTest {
    private MadLayer layer;
    private Node hca;
    private Port port;

    @BeforeEach
    void setUp() {
        Fabric fabric = Fabric.of(DefaultFabric.topology());
        hca = fabric.nodes().stream().filter(n -> n.type() == NodeType.CA).findFirst().orElseThrow();
        port = hca.port(1);
        layer = new MadLayer(fabric);
    }

    @AfterEach
    void tearDown() {
        layer.close();
    }

    private UmadFile open() {
        return new UmadFile(layer, port);
    }

    static byte[] regReq(int qpn, int mgmtClass, int version, int... methods) {
        byte[] b = new byte[AgentRequest.V1_SIZE];
        AgentRequest.V1.QPN.put(b, qpn);
        AgentRequest.V1.MGMT_CLASS.put(b, mgmtClass);
        AgentRequest.V1.CLASS_VERSION.put(b, version);
        long[] mask = new long[2];
        for (int m : methods) {
            mask[m >>> 6] |= 1L << (m & 63);
        }
        AgentRequest.V1.MASK_LO.put(b, mask[0]);
        AgentRequest.V1.MASK_HI.put(b, mask[1]);
        return b;
    }

    static byte[] regReq2(int qpn, int mgmtClass, int version, int flags, int oui) {
        byte[] b = new byte[AgentRequest.V2_SIZE];
        AgentRequest.V2.QPN.put(b, qpn);
        AgentRequest.V2.MGMT_CLASS.put(b, mgmtClass);
        AgentRequest.V2.CLASS_VERSION.put(b, version);
        AgentRequest.V2.FLAGS.put(b, flags);
        AgentRequest.V2.OUI.put(b, oui);
        return b;
    }

    private static int register(UmadFile f, byte[] req) throws Errno {
        IoctlResult r = f.ioctl(TestCaller.INSTANCE, AgentRequest.REGISTER_AGENT, req);
        assertEquals(0, r.errno());
        return (int) AgentRequest.V1.ID.get(r.out(), 0);
    }

    private static int errnoOf(ThrowingRunnable r) {
        Errno e = assertThrows(Errno.class, r::run);
        return e.code();
    }

    interface ThrowingRunnable {
        void run() throws Errno;
    }

    /** A hop-0 directed-route SubnGet of {@code attr} as smpquery -D sends it. */
    static byte[] drGet(int agentId, boolean withPkey, int attr, int mod, long tid) {
        int hdr = UmadHeader.size(withPkey);
        byte[] b = new byte[hdr + Mad.SIZE];
        UmadHeader h = new UmadHeader(agentId, 0, 100, 0, 0, 0, 0, 0xffff, 0, 0, false, 0, 0, 0, new byte[16], 0, 0);
        System.arraycopy(h.encode(withPkey), 0, b, 0, hdr);
        b[hdr] = 1;
        b[hdr + 1] = (byte) MgmtClass.SUBN_DIRECTED_ROUTE;
        b[hdr + 2] = 1;
        b[hdr + 3] = (byte) Method.GET;
        byte[] mad = Arrays.copyOfRange(b, hdr, b.length);
        Mad.setTransactionId(mad, tid);
        mad[16] = (byte) (attr >>> 8);
        mad[17] = (byte) attr;
        mad[20] = (byte) (mod >>> 24);
        mad[21] = (byte) (mod >>> 16);
        mad[22] = (byte) (mod >>> 8);
        mad[23] = (byte) mod;
        mad[32] = (byte) 0xff;
        mad[33] = (byte) 0xff;
        mad[34] = (byte) 0xff;
        mad[35] = (byte) 0xff;
        System.arraycopy(mad, 0, b, hdr, mad.length);
        return b;
    }

    @Test
    void agentIdsAreTheLowestFreeSlotUpTo32() throws Errno {
        UmadFile f = open();
        for (int i = 0; i < UmadFile.MAX_AGENTS; i++) {
            assertEquals(i, register(f, regReq(1, 0, 0)));
        }
        assertEquals(Errno.ENOMEM, errnoOf(() -> f.ioctl(TestCaller.INSTANCE, AgentRequest.REGISTER_AGENT, regReq(1, 0, 0))));
        byte[] id5 = new byte[4];
        id5[0] = 5;
        f.ioctl(TestCaller.INSTANCE, AgentRequest.UNREGISTER_AGENT, id5);
        assertEquals(5, register(f, regReq(1, 0, 0)));
        f.release();
    }

    /** mad_priv.h's MAX_MGMT_VERSION is 0x83 (OPA): Debian's 6.1 kernel accepts class version 8. */
    @Test
    void classVersionsBelow0x83Register() throws Errno {
        UmadFile f = open();
        assertEquals(0, register(f, regReq(1, 0x0a, 8)));
        assertEquals(1, register(f, regReq(1, 0x0a, 0x82)));
        assertEquals(Errno.EINVAL, errnoOf(() -> f.ioctl(TestCaller.INSTANCE, AgentRequest.REGISTER_AGENT, regReq(1, 0x0a, 0x83))));
        f.release();
    }

    @Test
    void registrationChecksFollowTheKernelsOrder() throws Errno {
        UmadFile f = open();
        assertEquals(Errno.EINVAL, errnoOf(() -> f.ioctl(TestCaller.INSTANCE, AgentRequest.REGISTER_AGENT, regReq(2, 0x81, 1, 1))));
        assertEquals(Errno.EINVAL, errnoOf(() -> f.ioctl(TestCaller.INSTANCE, AgentRequest.REGISTER_AGENT, regReq(1, 0x81, 1, 1))));
        assertEquals(Errno.EINVAL, errnoOf(() -> f.ioctl(TestCaller.INSTANCE, AgentRequest.REGISTER_AGENT, regReq(0, 0x04, 1, 1))));
        IoctlResult bad = f.ioctl(TestCaller.INSTANCE, AgentRequest.REGISTER_AGENT2, regReq2(1, 0x04, 1, 0x6, 0));
        assertEquals(Errno.EINVAL, bad.errno());
        assertEquals(AgentRequest.FLAGS_CAP, AgentRequest.V2.FLAGS.get(bad.out(), 0));
        assertEquals(Errno.EINVAL, errnoOf(() -> f.ioctl(TestCaller.INSTANCE, AgentRequest.REGISTER_AGENT2, regReq2(1, 0x30, 1, 0, 0x01000000))));
        byte[] outOfRange = {32, 0, 0, 0};
        assertEquals(Errno.EINVAL, errnoOf(() -> f.ioctl(TestCaller.INSTANCE, AgentRequest.UNREGISTER_AGENT, outOfRange)));
        assertEquals(Errno.ENOTTY, errnoOf(() -> f.ioctl(TestCaller.INSTANCE, 0x1b09, new byte[0])));
        f.release();
    }

    @Test
    void aMethodTakenOnThePortIsRefusedUntilItsFileCloses() throws Errno {
        UmadFile a = open();
        UmadFile b = open();
        register(a, regReq(1, 0x04, 1, Method.GET));
        assertEquals(Errno.EINVAL, errnoOf(() -> b.ioctl(TestCaller.INSTANCE, AgentRequest.REGISTER_AGENT, regReq(1, 0x04, 1, Method.GET))));
        register(b, regReq(1, 0x04, 1, Method.SET));
        a.release();
        register(b, regReq(1, 0x04, 1, Method.GET));
        b.release();
    }

    @Test
    void enablePkeyOnlyBeforeTheFirstRegistration() throws Errno {
        UmadFile f = open();
        f.ioctl(TestCaller.INSTANCE, AgentRequest.ENABLE_PKEY, new byte[0]);
        register(f, regReq(0, 0x81, 1));
        assertEquals(Errno.EINVAL, errnoOf(() -> f.ioctl(TestCaller.INSTANCE, AgentRequest.ENABLE_PKEY, new byte[0])));
        f.release();
    }

    @Test
    void writeRules() throws Errno {
        UmadFile f = open();
        int id = register(f, regReq(0, 0x81, 1));
        byte[] get = drGet(id, false, 0x0011, 0, 7);
        assertEquals(Errno.EINVAL, errnoOf(() -> f.write(TestCaller.INSTANCE, ByteBuffer.wrap(get, 0, 56 + 35), 0)));
        byte[] badId = get.clone();
        badId[0] = 32;
        assertEquals(Errno.EINVAL, errnoOf(() -> f.write(TestCaller.INSTANCE, ByteBuffer.wrap(badId), 0)));
        byte[] notMine = get.clone();
        notMine[0] = 3;
        assertEquals(Errno.EIO, errnoOf(() -> f.write(TestCaller.INSTANCE, ByteBuffer.wrap(notMine), 0)));
        byte[] tooLong = Arrays.copyOf(get, get.length + 8);
        assertEquals(Errno.EINVAL, errnoOf(() -> f.write(TestCaller.INSTANCE, ByteBuffer.wrap(tooLong), 0)));
        f.release();
    }

    @Test
    void hopZeroNodeInfoIsAnsweredByTheLocalSma() throws Errno {
        UmadFile f = open();
        int id = register(f, regReq(0, 0x81, 1));
        assertEquals(Poll.OUT | Poll.WRNORM, f.poll(TestCaller.INSTANCE, null));
        byte[] get = drGet(id, false, 0x0011, 0, 0x1234);
        assertEquals(get.length, f.write(TestCaller.INSTANCE, ByteBuffer.wrap(get), 0));
        assertTrue((f.poll(TestCaller.INSTANCE, null) & Poll.IN) != 0);
        assertEquals(Errno.EINVAL, f.read(TestCaller.read(56 + 100, false)).errno(), "too small for one MAD");
        ReadResult r = f.read(TestCaller.read(1024, false));
        assertFalse(r.failed());
        byte[] out = r.data();
        assertEquals(56 + 256, out.length);
        UmadHeader h = UmadHeader.decode(out, false);
        assertEquals(id, h.id());
        assertEquals(56 + 256, h.length());
        assertEquals(0xffff, h.lid());
        byte[] mad = Arrays.copyOfRange(out, 56, out.length);
        assertEquals(Method.GET_RESP, Mad.method(mad));
        assertEquals(MadStatus.DIRECTION, Mad.status(mad));
        assertEquals(0x1234, Mad.transactionId(mad) & 0xffffffffL);
        assertEquals(1, mad[64 + 2], "NodeType CA");
        long guid = ByteBuffer.wrap(mad, 64 + 12, 8).getLong();
        assertEquals(hca.guid(), guid);
        assertEquals(Errno.EAGAIN, errnoOf(() -> f.read(TestCaller.read(1024, true))));
        f.release();
    }

    /** user_mad.c's queue_packet: past MAX_UMAD_RECV_LIST_SIZE, replies to an unread file are dropped. */
    @Test
    void anUnreadFileKeepsAtMostTheKernelsReceiveListAndLittleHeapPerReply() throws Errno {
        UmadFile f = open();
        int id = register(f, regReq(0, 0x81, 1));
        int sent = UmadFile.MAX_RECV_LIST_SIZE + 10;
        long before = usedHeap();
        for (int i = 0; i < sent; i++) {
            byte[] get = drGet(id, false, 0x0011, 0, i + 1);
            assertEquals(get.length, f.write(TestCaller.INSTANCE, ByteBuffer.wrap(get), 0));
        }
        // 415 bytes a reply before the queue kept replies trimmed
        long perReply = (usedHeap() - before) / (UmadFile.MAX_RECV_LIST_SIZE + 1);
        assertTrue(perReply < 200, "bytes of heap per queued reply: " + perReply);
        int read = 0;
        long lastTid = 0;
        while (true) {
            ReadResult r;
            try {
                r = f.read(TestCaller.read(1024, true));
            } catch (Errno e) {
                assertEquals(Errno.EAGAIN, e.code());
                break;
            }
            byte[] mad = Arrays.copyOfRange(r.data(), 56, r.data().length);
            assertEquals(256, mad.length, "a trimmed reply is read back at its full length");
            assertEquals(hca.guid(), ByteBuffer.wrap(mad, 64 + 12, 8).getLong());
            lastTid = Mad.transactionId(mad) & 0xffffffffL;
            read++;
        }
        assertEquals(UmadFile.MAX_RECV_LIST_SIZE + 1, read, "the kernel's check is 'size > limit'");
        assertEquals(UmadFile.MAX_RECV_LIST_SIZE + 1, lastTid, "the newest replies were the ones dropped");
        f.release();
    }

    private static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            used = Math.min(used, rt.totalMemory() - rt.freeMemory());
        }
        return used;
    }

    /** ib_umad_kill_port (hot removal): agents gone, EIO on read and write, EPIPE on registration, EPOLLERR. */
    @Test
    void aKilledPortFailsEveryCallAsTheKernelsDoes() throws Exception {
        UmadDevice device = new UmadDevice(layer, port);
        UmadFile f = (UmadFile) device.open(TestCaller.INSTANCE, 0);
        int id = register(f, regReq(1, 0, 0));
        java.util.concurrent.atomic.AtomicInteger woken = new java.util.concurrent.atomic.AtomicInteger();
        assertEquals(Poll.OUT | Poll.WRNORM, f.poll(TestCaller.INSTANCE, woken::incrementAndGet));
        device.kill();
        assertEquals(1, woken.get(), "poll waiters woken");
        assertEquals(Poll.ERR, f.poll(TestCaller.INSTANCE, null));
        assertEquals(Errno.EIO, errnoOf(() -> f.read(TestCaller.read(1024, true))), "EIO before EAGAIN");
        byte[] mad = new byte[56 + 256];
        System.arraycopy(new UmadHeader(id, 0, 0, 0, 0, 1, 0x80010000, 0xffff, 0, 0, false, 0, 0, 0, new byte[16], 0, 0)
                .encode(false), 0, mad, 0, 56);
        assertEquals(Errno.EIO, errnoOf(() -> f.write(TestCaller.INSTANCE, ByteBuffer.wrap(mad), 0)));
        assertEquals(Errno.EPIPE, errnoOf(() -> f.ioctl(TestCaller.INSTANCE, AgentRequest.REGISTER_AGENT, regReq(1, 0, 0))));
        assertEquals(Errno.ENXIO, errnoOf(() -> device.open(TestCaller.INSTANCE, 0)));
        f.release();
    }

    @Test
    void aRequestWithNoAnswerComesBackTimedOut() throws Exception {
        UmadFile f = open();
        int id = register(f, regReq(1, 0, 0));
        byte[] b = new byte[56 + 256];
        UmadHeader h = new UmadHeader(id, 0, 30, 1, 0, 1, 0x80010000, 0x5555, 0, 0, false, 0, 0, 0, new byte[16], 0, 0);
        System.arraycopy(h.encode(false), 0, b, 0, 56);
        b[56] = 1;
        b[57] = 0x04;
        b[58] = 1;
        b[59] = 1;
        b[56 + 15] = 9;
        long start = System.nanoTime(); // the timeout runs from the send, not from the read
        f.write(TestCaller.INSTANCE, ByteBuffer.wrap(b), 0);
        assertEquals(Errno.EINVAL, errnoOf(() -> f.write(TestCaller.INSTANCE, ByteBuffer.wrap(b), 0)), "duplicate TID");
        ReadResult r = f.read(TestCaller.read(1024, false));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms >= 50, "two tries of 30 ms, took " + ms);
        assertEquals(56 + 24, r.data().length);
        UmadHeader back = UmadHeader.decode(r.data(), false);
        assertEquals(Errno.ETIMEDOUT, back.status());
        assertEquals(9, Mad.transactionId(Arrays.copyOfRange(r.data(), 56, 80)) & 0xffffffffL);
        f.write(TestCaller.INSTANCE, ByteBuffer.wrap(b), 0);
        f.release();
    }

    @Test
    void theNewHeaderCarriesPkeyIndex() throws Errno {
        UmadFile f = open();
        IoctlResult r = f.ioctl(TestCaller.INSTANCE, AgentRequest.REGISTER_AGENT2, regReq2(0, 0x81, 1, 0, 0));
        int id = (int) AgentRequest.V2.ID.get(r.out(), 0);
        byte[] get = drGet(id, true, 0x0011, 0, 1);
        f.write(TestCaller.INSTANCE, ByteBuffer.wrap(get), 0);
        ReadResult out = f.read(TestCaller.read(64 + 256, false));
        assertEquals(64 + 256, out.data().length);
        assertEquals(64 + 256, UmadHeader.decode(out.data(), true).length());
        assertArrayEquals(new byte[] {(byte) 0x81}, new byte[] {out.data()[64 + 3]});
        f.release();
    }

    /** What the supervisor's socket pair sees of a diverted file. */
    private static final class Outlet implements io.ibemu.devfs.device.MessageOutlet {
        final java.util.List<byte[]> sent = new java.util.ArrayList<>();
        boolean room = true;
        int hangUps;

        @Override
        public boolean send(byte[] message) {
            if (room) {
                sent.add(message);
            }
            return room;
        }

        @Override
        public void hangUp() {
            hangUps++;
        }
    }

    /** A diverted file sends each packet as read() returns it, and admits a read only when the head fits. */
    @Test
    void aDivertedFileSendsEachPacketAndChecksEachRead() throws Exception {
        UmadDevice device = new UmadDevice(layer, port);
        UmadFile f = (UmadFile) device.open(TestCaller.INSTANCE, 0);
        Outlet outlet = new Outlet();
        f.divert(outlet);
        int id = register(f, regReq(0, 0x81, 1));
        f.write(TestCaller.INSTANCE, ByteBuffer.wrap(drGet(id, false, 0x0011, 0, 0x77)), 0);
        assertEquals(1, outlet.sent.size());
        byte[] sent = outlet.sent.get(0);
        assertEquals(56 + 256, sent.length);
        assertEquals(id, UmadHeader.decode(sent, false).id());
        assertEquals(0x77, Mad.transactionId(Arrays.copyOfRange(sent, 56, sent.length)) & 0xffffffffL);

        assertEquals(Errno.EINVAL, errnoOf(() -> f.admit(TestCaller.read(55, true))), "smaller than the header");
        ReadResult small = f.admit(TestCaller.read(56 + 255, true));
        assertEquals(Errno.EINVAL, small.errno(), "too small for the MAD");
        ReadResult fault = f.admit(TestCaller.read(56 + 256, true, false));
        assertEquals(Errno.EFAULT, fault.errno(), "a buffer that cannot take it");
        assertEquals(null, fault.data());
        assertEquals(null, f.admit(TestCaller.read(56 + 256, true)), "the head fits: the caller's read takes it");
        assertEquals(Errno.EAGAIN, errnoOf(() -> f.admit(TestCaller.read(1024, true))), "and the file forgot it");

        outlet.room = false; // a socket that refuses: the packet is lost, not kept where no read finds it
        f.write(TestCaller.INSTANCE, ByteBuffer.wrap(drGet(id, false, 0x0011, 0, 0x78)), 0);
        assertEquals(Errno.EAGAIN, errnoOf(() -> f.admit(TestCaller.read(1024, true))));

        device.kill();
        assertEquals(1, outlet.hangUps, "the pair's reader learns of the removal");
        assertEquals(Errno.EIO, errnoOf(() -> f.admit(TestCaller.read(1024, true))));
        f.release();
    }

    /** Undiverted again (the pair given up for a FUSE file), what was sent is read through read(). */
    @Test
    void anUndivertedFileReadsWhatItHadSent() throws Errno {
        UmadFile f = open();
        Outlet outlet = new Outlet();
        f.divert(outlet);
        int id = register(f, regReq(0, 0x81, 1));
        f.write(TestCaller.INSTANCE, ByteBuffer.wrap(drGet(id, false, 0x0011, 0, 0x79)), 0);
        f.divert(null);
        assertTrue((f.poll(TestCaller.INSTANCE, null) & Poll.IN) != 0);
        ReadResult r = f.read(TestCaller.read(1024, true));
        assertArrayEquals(outlet.sent.get(0), r.data());
        f.write(TestCaller.INSTANCE, ByteBuffer.wrap(drGet(id, false, 0x0011, 0, 0x7a)), 0);
        assertEquals(1, outlet.sent.size(), "nothing more to the outlet");
        assertFalse(f.read(TestCaller.read(1024, true)).failed());
        f.release();
    }
}
