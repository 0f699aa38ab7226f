package io.ibemu.emulator.hca;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.fabric.Port;
import io.ibemu.kernel.Errno;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** RC, UC and UD traffic between two local HCAs through two switches, and every completion status. */
class DataPathTest {
    private TestFabric f;
    private Endpoint ea;
    private Endpoint eb;

    @BeforeEach
    void setUp() throws Exception {
        f = new TestFabric();
        ea = new Endpoint(f.a, 100);
        eb = new Endpoint(f.b, 200);
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    private QueuePair[] rcPair(int timeout, int retry, int rnrRetry) throws Exception {
        QueuePair qa = ea.qp(QpType.RC);
        QueuePair qb = eb.qp(QpType.RC);
        ea.connect(qa, qb, TestFabric.LID_B, timeout, retry, rnrRetry);
        eb.connect(qb, qa, TestFabric.LID_A, timeout, retry, rnrRetry);
        return new QueuePair[] {qa, qb};
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static final int SIGNALED = WrOpcode.FLAG_SIGNALED;

    @Test
    void rcSendWithImmediateLandsInTheReceiveBuffer() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        MemoryRegion src = ea.buffer(100);
        MemoryRegion dst = eb.buffer(200);
        byte[] data = random(100, 1);
        ea.memory.put(src.iova(), data);
        f.b.postRecv(qp[1], List.of(new ReceiveWorkRequest(7, List.of(Endpoint.sge(dst)))));
        f.a.postSend(qp[0], List.of(SendWorkRequest.sendWithImm(9, SIGNALED, List.of(Endpoint.sge(src)), 0x1234)));

        WorkCompletion sent = ea.one();
        assertEquals(new WorkCompletion(9, WcStatus.SUCCESS, WcOpcode.SEND, 0, 100, 0, qp[0].qpNum(), 0, 0, 0, 0, 0, 0),
                sent);
        WorkCompletion got = eb.one();
        assertEquals(WcStatus.SUCCESS, got.status());
        assertEquals(WcOpcode.RECV, got.opcode());
        assertEquals(7, got.wrId());
        assertEquals(100, got.byteLen());
        assertEquals(0x1234, got.immData());
        assertEquals(WcOpcode.FLAG_WITH_IMM, got.wcFlags());
        assertEquals(qp[0].qpNum(), got.srcQp());
        assertEquals(TestFabric.LID_A, got.slid());
        assertArrayEquals(data, eb.memory.get(dst.iova(), 100));
    }

    @Test
    void unsignaledSendsCompleteNothingUnlessSqSigAll() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        MemoryRegion src = ea.buffer(8);
        MemoryRegion dst = eb.buffer(8);
        f.b.postRecv(qp[1], List.of(new ReceiveWorkRequest(1, List.of(Endpoint.sge(dst)))));
        f.a.postSend(qp[0], List.of(SendWorkRequest.send(2, 0, List.of(Endpoint.sge(src)))));
        assertEquals(List.of(), ea.poll());
        assertEquals(1, eb.poll().size());
    }

    @Test
    void everySizeFromOneByteToEightMebibytesArrivesByteForByte() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        int max = 8 << 20;
        MemoryRegion src = ea.buffer(max);
        MemoryRegion dst = eb.buffer(max);
        MemoryRegion remote = eb.buffer(max);
        for (int size : new int[] {1, 4095, 4096, 4097, 65536 + 3, max}) {
            byte[] data = random(size, size);
            ea.memory.put(src.iova(), data);
            f.b.postRecv(qp[1], List.of(new ReceiveWorkRequest(size, List.of(Endpoint.sge(dst)))));
            f.a.postSend(qp[0], List.of(SendWorkRequest.send(size, SIGNALED, List.of(Endpoint.sge(src, 0, size)))));
            assertEquals(WcStatus.SUCCESS, ea.one().status());
            WorkCompletion r = eb.one();
            assertEquals(size, r.byteLen());
            assertArrayEquals(data, eb.memory.get(dst.iova(), size), "SEND of " + size);
            f.a.postSend(qp[0], List.of(SendWorkRequest.rdma(size, WrOpcode.RDMA_WRITE, SIGNALED,
                    List.of(Endpoint.sge(src, 0, size)), remote.iova(), remote.rkey(), 0)));
            assertEquals(WcStatus.SUCCESS, ea.one().status());
            assertArrayEquals(data, eb.memory.get(remote.iova(), size), "WRITE of " + size);
        }
    }

    @Test
    void scatterGatherListsSplitAndJoinTheMessage() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        MemoryRegion src = ea.buffer(300);
        MemoryRegion dst = eb.buffer(300);
        byte[] data = random(300, 3);
        ea.memory.put(src.iova(), data);
        f.b.postRecv(qp[1], List.of(new ReceiveWorkRequest(1, List.of(Endpoint.sge(dst, 200, 50),
                Endpoint.sge(dst, 0, 200)))));
        f.a.postSend(qp[0], List.of(SendWorkRequest.send(2, SIGNALED, List.of(Endpoint.sge(src, 0, 100),
                Endpoint.sge(src, 200, 100), Endpoint.sge(src, 100, 50)))));
        assertEquals(250, eb.one().byteLen());
        byte[] got = eb.memory.get(dst.iova(), 250);
        byte[] expect = new byte[250];
        // the message is src[0..100) src[200..300) src[100..150), laid into dst[200..250) then dst[0..200)
        byte[] message = new byte[250];
        System.arraycopy(data, 0, message, 0, 100);
        System.arraycopy(data, 200, message, 100, 100);
        System.arraycopy(data, 100, message, 200, 50);
        System.arraycopy(message, 0, expect, 200, 50);
        System.arraycopy(message, 50, expect, 0, 200);
        assertArrayEquals(expect, got);
    }

    @Test
    void inlineDataNeedsNoRegisteredMemory() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        MemoryRegion dst = eb.buffer(64);
        f.b.postRecv(qp[1], List.of(new ReceiveWorkRequest(1, List.of(Endpoint.sge(dst)))));
        byte[] data = "inline bytes".getBytes();
        f.a.postSend(qp[0], List.of(SendWorkRequest.send(2, SIGNALED, List.of()).withInline(data)));
        assertEquals(WcStatus.SUCCESS, ea.one().status());
        assertArrayEquals(data, eb.memory.get(dst.iova(), data.length));
    }

    @Test
    void writeWithImmediateConsumesAReceiveAndReadFetches() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        MemoryRegion local = ea.buffer(4096);
        MemoryRegion remote = eb.buffer(4096);
        byte[] data = random(1000, 5);
        ea.memory.put(local.iova(), data);
        f.b.postRecv(qp[1], List.of(new ReceiveWorkRequest(11, List.of())));
        f.a.postSend(qp[0], List.of(SendWorkRequest.rdma(1, WrOpcode.RDMA_WRITE_WITH_IMM, SIGNALED,
                List.of(Endpoint.sge(local, 0, 1000)), remote.iova() + 24, remote.rkey(), 77)));
        WorkCompletion w = ea.one();
        assertEquals(WcOpcode.RDMA_WRITE, w.opcode());
        WorkCompletion r = eb.one();
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
        assertEquals(11, r.wrId());
        assertEquals(1000, r.byteLen());
        assertEquals(77, r.immData());
        assertArrayEquals(data, eb.memory.get(remote.iova() + 24, 1000));

        byte[] theirs = random(3000, 6);
        eb.memory.put(remote.iova(), theirs);
        f.a.postSend(qp[0], List.of(SendWorkRequest.rdma(2, WrOpcode.RDMA_READ, SIGNALED,
                List.of(Endpoint.sge(local, 0, 3000)), remote.iova(), remote.rkey(), 0)));
        WorkCompletion rd = ea.one();
        assertEquals(WcStatus.SUCCESS, rd.status());
        assertEquals(WcOpcode.RDMA_READ, rd.opcode());
        assertEquals(3000, rd.byteLen());
        assertArrayEquals(theirs, ea.memory.get(local.iova(), 3000));
        assertEquals(List.of(), eb.poll(), "a READ completes nothing at the responder");
    }

    /**
     * Memory windows (rxe_mw.c): a type 2 window bound to a range of a region grants exactly that
     * range and access to the QP that bound it; SEND_WITH_INV frees it again; a second bind of a
     * bound type 2 window, or one past the region, is MW_BIND_ERR; LOCAL_INV of a type 1 window
     * is a local QP operation error.
     */
    @Test
    void aBoundWindowGrantsItsRangeUntilInvalidated() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        MemoryRegion local = ea.buffer(256);
        long addr = eb.memory.allocate(4096);
        MemoryRegion backing = f.b.registerMr(eb.pd, addr, 4096, addr, Endpoint.ALL_ACCESS | Access.MW_BIND,
                eb.memory);
        MemoryWindow mw = f.b.allocMw(eb.pd, 2);
        int rkey = (mw.rkey() & ~0xFF) | ((mw.rkey() + 1) & 0xFF);
        f.b.postSend(qp[1], List.of(SendWorkRequest.bindMw(1, SIGNALED,
                new MwBind(mw.rkey(), rkey, backing.lkey(), addr + 1024, 512, Access.REMOTE_WRITE))));
        WorkCompletion bound = eb.one();
        assertEquals(WcStatus.SUCCESS, bound.status());
        assertEquals(WcOpcode.BIND_MW, bound.opcode());
        assertEquals(rkey, mw.rkey());

        f.b.postSend(qp[1], List.of(SendWorkRequest.bindMw(2, SIGNALED,
                new MwBind(rkey, rkey + 1, backing.lkey(), addr, 512, Access.REMOTE_WRITE))));
        assertEquals(WcStatus.MW_BIND_ERR, eb.one().status(), "a bound type 2 window binds once");
        eb.poll(); // the flush of the error
        qp = rcPair(1, 2, 2);

        MemoryWindow again = f.b.allocMw(eb.pd, 2);
        int key2 = (again.rkey() & ~0xFF) | ((again.rkey() + 1) & 0xFF);
        f.b.postSend(qp[1], List.of(SendWorkRequest.bindMw(3, SIGNALED,
                new MwBind(again.rkey(), key2, backing.lkey(), addr + 1024, 512, Access.REMOTE_WRITE))));
        assertEquals(WcStatus.SUCCESS, eb.one().status());
        byte[] data = random(64, 9);
        ea.memory.put(local.iova(), data);
        f.a.postSend(qp[0], List.of(SendWorkRequest.rdma(4, WrOpcode.RDMA_WRITE, SIGNALED,
                List.of(Endpoint.sge(local, 0, 64)), addr + 1024 + 100, key2, 0)));
        assertEquals(WcStatus.SUCCESS, ea.one().status());
        assertArrayEquals(data, eb.memory.get(addr + 1024 + 100, 64), "written through the window");

        f.b.postRecv(qp[1], List.of(new ReceiveWorkRequest(5, List.of(Endpoint.sge(backing, 0, 64)))));
        f.a.postSend(qp[0], List.of(SendWorkRequest.sendWithInvalidate(6, SIGNALED,
                List.of(Endpoint.sge(local, 0, 8)), key2)));
        assertEquals(WcStatus.SUCCESS, ea.one().status());
        WorkCompletion inv = eb.one();
        assertEquals(WcOpcode.FLAG_WITH_INV, inv.wcFlags() & WcOpcode.FLAG_WITH_INV);
        assertEquals(key2, inv.immData(), "the invalidated rkey in the completion's ex");

        f.a.postSend(qp[0], List.of(SendWorkRequest.rdma(7, WrOpcode.RDMA_WRITE, SIGNALED,
                List.of(Endpoint.sge(local, 0, 64)), addr + 1024 + 100, key2, 0)));
        assertEquals(WcStatus.REM_ACCESS_ERR, ea.one().status(), "an invalidated window grants nothing");
    }

    /**
     * rxe_do_bind_mw keeps the window's index and takes only the key byte of the WR's new rkey;
     * UC binds windows but has no invalidation (rxe_wr_opcode_info, next_opcode_uc), so its
     * post_send refuses SEND_WITH_INV and LOCAL_INV with EINVAL as rvt_qp_valid_operation does.
     */
    @Test
    void aBindTakesTheKeyByteAndUcHasNoInvalidation() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        long addr = eb.memory.allocate(4096);
        MemoryRegion backing = f.b.registerMr(eb.pd, addr, 4096, addr, Endpoint.ALL_ACCESS | Access.MW_BIND,
                eb.memory);
        MemoryWindow mw = f.b.allocMw(eb.pd, 2);
        int index = mw.rkey() & ~0xFF;
        int key = (mw.rkey() + 1) & 0xFF;
        f.b.postSend(qp[1], List.of(SendWorkRequest.bindMw(1, SIGNALED,
                new MwBind(mw.rkey(), ~index & ~0xFF | key, backing.lkey(), addr, 512, Access.REMOTE_WRITE))));
        assertEquals(WcStatus.SUCCESS, eb.one().status());
        assertEquals(index | key, mw.rkey(), "the window's index stays, the key byte is the WR's");

        QueuePair ua = ea.qp(QpType.UC);
        QueuePair uc = eb.qp(QpType.UC);
        ea.connect(ua, uc, TestFabric.LID_B, 0, 0, 0);
        eb.connect(uc, ua, TestFabric.LID_A, 0, 0, 0);
        MemoryRegion local = eb.buffer(8);
        f.b.postSend(uc, List.of(SendWorkRequest.send(4, SIGNALED, List.of(Endpoint.sge(local)))));
        assertEquals(WcStatus.SUCCESS, eb.one().status(), "the UC QP is ready to send");
        for (SendWorkRequest wr : List.of(SendWorkRequest.sendWithInvalidate(2, SIGNALED,
                List.of(Endpoint.sge(local)), index | key), SendWorkRequest.localInvalidate(3, SIGNALED, index | key))) {
            PostError e = assertThrows(PostError.class, () -> f.b.postSend(uc, List.of(wr)));
            assertEquals(Errno.EINVAL, e.errno(), "UC has no " + wr.opcode());
        }
    }

    @Test
    void atomicsReturnTheOriginalValue() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        MemoryRegion local = ea.buffer(64);
        MemoryRegion remote = eb.buffer(64);
        eb.memory.put(remote.iova() + 8, le(40));
        f.a.postSend(qp[0], List.of(SendWorkRequest.atomic(1, WrOpcode.ATOMIC_FETCH_AND_ADD, SIGNALED,
                Endpoint.sge(local, 0, 8), remote.iova() + 8, remote.rkey(), 2, 0)));
        WorkCompletion faa = ea.one();
        assertEquals(WcOpcode.FETCH_ADD, faa.opcode());
        assertEquals(40, leAt(ea.memory.get(local.iova(), 8)));
        assertEquals(42, leAt(eb.memory.get(remote.iova() + 8, 8)));

        f.a.postSend(qp[0], List.of(SendWorkRequest.atomic(2, WrOpcode.ATOMIC_CMP_AND_SWP, SIGNALED,
                Endpoint.sge(local, 8, 8), remote.iova() + 8, remote.rkey(), 41, 99)));
        assertEquals(WcOpcode.COMP_SWAP, ea.one().opcode());
        assertEquals(42, leAt(ea.memory.get(local.iova() + 8, 8)));
        assertEquals(42, leAt(eb.memory.get(remote.iova() + 8, 8)), "compare failed: unchanged");
        f.a.postSend(qp[0], List.of(SendWorkRequest.atomic(3, WrOpcode.ATOMIC_CMP_AND_SWP, SIGNALED,
                Endpoint.sge(local, 16, 8), remote.iova() + 8, remote.rkey(), 42, 99)));
        ea.one();
        assertEquals(99, leAt(eb.memory.get(remote.iova() + 8, 8)));

        // misaligned: Invalid Request NAK
        f.a.postSend(qp[0], List.of(SendWorkRequest.atomic(4, WrOpcode.ATOMIC_FETCH_AND_ADD, SIGNALED,
                Endpoint.sge(local, 0, 8), remote.iova() + 4, remote.rkey(), 1, 0)));
        assertEquals(WcStatus.REM_INV_REQ_ERR, ea.one().status());
        assertEquals(QpState.ERR, qp[0].state());
        assertEquals(QpState.ERR, qp[1].state());
        assertEquals(1, eb.events(AsyncEvent.Type.QP_REQ_ERR).size());
    }

    private static byte[] le(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
    }

    private static long leAt(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    // ---- error statuses ----

    @Test
    void badLocalKeyIsLocalProtectionErrorAndFlushesTheRest() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        MemoryRegion src = ea.buffer(64);
        MemoryRegion dst = eb.buffer(64);
        f.b.postRecv(qp[1], List.of(new ReceiveWorkRequest(1, List.of(Endpoint.sge(dst)))));
        f.a.postRecv(qp[0], List.of(new ReceiveWorkRequest(50, List.of(Endpoint.sge(src)))));
        f.a.postSend(qp[0], List.of(
                SendWorkRequest.send(1, 0, List.of(new Sge(src.iova(), 8, src.lkey() + 1))),
                SendWorkRequest.send(2, SIGNALED, List.of(Endpoint.sge(src)))));
        List<WorkCompletion> got = ea.poll();
        assertEquals(3, got.size(), got.toString());
        assertEquals(WcStatus.LOC_PROT_ERR, got.get(0).status(), "errors complete even unsignaled");
        assertEquals(1, got.get(0).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, got.get(1).status());
        assertEquals(2, got.get(1).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, got.get(2).status());
        assertEquals(WcOpcode.RECV, got.get(2).opcode());
        assertEquals(QpState.ERR, qp[0].state());
        // posting in ERR flushes at once
        f.a.postSend(qp[0], List.of(SendWorkRequest.send(3, 0, List.of())));
        assertEquals(WcStatus.WR_FLUSH_ERR, ea.one().status());
    }

    @Test
    void badRemoteKeyIsRemoteAccessError() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        MemoryRegion local = ea.buffer(64);
        MemoryRegion remote = eb.buffer(64);
        f.a.postSend(qp[0], List.of(SendWorkRequest.rdma(1, WrOpcode.RDMA_WRITE, SIGNALED,
                List.of(Endpoint.sge(local)), remote.iova() + 1, remote.rkey(), 0)));
        assertEquals(WcStatus.REM_ACCESS_ERR, ea.one().status(), "one byte past the region's end");
        assertEquals(QpState.ERR, qp[1].state());
        eb.awaitEvent(AsyncEvent.Type.QP_ACCESS_ERR);
    }

    @Test
    void regionWithoutRemoteReadRefusesRead() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        MemoryRegion local = ea.buffer(64);
        long addr = eb.memory.allocate(64);
        MemoryRegion remote = f.b.registerMr(eb.pd, addr, 64, addr, Access.LOCAL_WRITE, eb.memory);
        f.a.postSend(qp[0], List.of(SendWorkRequest.rdma(1, WrOpcode.RDMA_READ, SIGNALED,
                List.of(Endpoint.sge(local)), remote.iova(), remote.rkey(), 0)));
        assertEquals(WcStatus.REM_ACCESS_ERR, ea.one().status());
    }

    @Test
    void memoryUnmappedAfterRegistrationFailsTheWorkRequestNotTheDaemon() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        MemoryRegion local = ea.buffer(64);
        MemoryRegion remote = eb.buffer(64);
        eb.memory.unmap(remote.start());
        f.a.postSend(qp[0], List.of(SendWorkRequest.rdma(1, WrOpcode.RDMA_WRITE, SIGNALED,
                List.of(Endpoint.sge(local)), remote.iova(), remote.rkey(), 0)));
        assertEquals(WcStatus.REM_ACCESS_ERR, ea.one().status());

        QueuePair[] again = rcPair(1, 2, 2);
        ea.memory.unmap(local.start());
        f.a.postSend(again[0], List.of(SendWorkRequest.send(1, SIGNALED, List.of(Endpoint.sge(local)))));
        assertEquals(WcStatus.LOC_PROT_ERR, ea.one().status());
    }

    @Test
    void messageLongerThanTheReceiveBufferIsALengthError() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        MemoryRegion src = ea.buffer(100);
        MemoryRegion dst = eb.buffer(100);
        f.b.postRecv(qp[1], List.of(new ReceiveWorkRequest(1, List.of(Endpoint.sge(dst, 0, 99))),
                new ReceiveWorkRequest(2, List.of(Endpoint.sge(dst)))));
        f.a.postSend(qp[0], List.of(SendWorkRequest.send(5, SIGNALED, List.of(Endpoint.sge(src)))));
        assertEquals(WcStatus.REM_INV_REQ_ERR, ea.one().status());
        List<WorkCompletion> got = eb.poll();
        assertEquals(WcStatus.LOC_LEN_ERR, got.get(0).status());
        assertEquals(1, got.get(0).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, got.get(1).status());
        assertEquals(2, got.get(1).wrId());
    }

    @Test
    void noReceivePostedIsRetriedThenRnrRetryExceeded() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        MemoryRegion src = ea.buffer(8);
        long t0 = System.nanoTime();
        f.a.postSend(qp[0], List.of(SendWorkRequest.send(1, SIGNALED, List.of(Endpoint.sge(src)))));
        // no check that nothing completed yet: the 10 us RNR timer may run out before a loaded
        // machine polls; the elapsed time below shows the waits happened
        WorkCompletion wc = ea.one();
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc.status());
        assertTrue(System.nanoTime() - t0 >= 20_000, "two RNR waits of 10 us each");
    }

    @Test
    void aReceivePostedLateEndsTheRnrWaitAndTheQueueStaysInOrder() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 7);
        MemoryRegion src = ea.buffer(16);
        MemoryRegion dst = eb.buffer(16);
        f.a.postSend(qp[0], List.of(SendWorkRequest.send(1, SIGNALED, List.of(Endpoint.sge(src, 0, 8))),
                SendWorkRequest.send(2, SIGNALED, List.of(Endpoint.sge(src, 8, 8)))));
        Thread.sleep(20);
        assertEquals(List.of(), ea.poll(), "both held back by the first's RNR waits (rnr_retry 7: for ever)");
        f.b.postRecv(qp[1], List.of(new ReceiveWorkRequest(10, List.of(Endpoint.sge(dst, 0, 8))),
                new ReceiveWorkRequest(11, List.of(Endpoint.sge(dst, 8, 8)))));
        assertEquals(1, ea.one().wrId());
        assertEquals(2, ea.one().wrId());
        assertEquals(10, eb.one().wrId());
        assertEquals(11, eb.one().wrId());
    }

    @Test
    void sqdFinishesTheBegunWqeThenReportsDrainedAndHoldsTheRestForRts() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 7);
        MemoryRegion src = ea.buffer(16);
        MemoryRegion dst = eb.buffer(16);
        f.a.postSend(qp[0], List.of(SendWorkRequest.send(1, SIGNALED, List.of(Endpoint.sge(src, 0, 8))),
                SendWorkRequest.send(2, SIGNALED, List.of(Endpoint.sge(src, 8, 8)))));
        // post_send began the first at once: it waits on RNR (rnr_retry 7: for ever)
        f.a.modify(qp[0], QpAttributes.builder().qpState(QpState.SQD).enSqdAsyncNotify(true).build(),
                QpAttributeMask.STATE | QpAttributeMask.EN_SQD_ASYNC_NOTIFY);
        assertTrue(f.a.query(qp[0]).sqDraining(), "a begun WQE is unfinished");
        assertEquals(List.of(), ea.events(AsyncEvent.Type.SQ_DRAINED));

        f.b.postRecv(qp[1], List.of(new ReceiveWorkRequest(10, List.of(Endpoint.sge(dst, 0, 8))),
                new ReceiveWorkRequest(11, List.of(Endpoint.sge(dst, 8, 8)))));
        assertEquals(1, ea.one().wrId(), "SQD finishes what it began");
        ea.awaitEvent(AsyncEvent.Type.SQ_DRAINED);
        assertEquals(List.of(new AsyncEvent(AsyncEvent.Type.SQ_DRAINED, qp[0])), ea.events(AsyncEvent.Type.SQ_DRAINED));
        assertEquals(false, f.a.query(qp[0]).sqDraining());
        Thread.sleep(20);
        assertEquals(List.of(), ea.poll(), "the second was not begun: it waits for RTS");

        f.a.modify(qp[0], QpAttributes.builder().qpState(QpState.RTS).build(), QpAttributeMask.STATE);
        assertEquals(2, ea.one().wrId());
        assertEquals(10, eb.one().wrId());
        assertEquals(11, eb.one().wrId());
    }

    @Test
    void errWhileDrainingFlushesTheBegunWqeAndEndsTheDrain() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 7);
        MemoryRegion src = ea.buffer(8);
        f.a.postSend(qp[0], List.of(SendWorkRequest.send(1, SIGNALED, List.of(Endpoint.sge(src)))));
        f.a.modify(qp[0], QpAttributes.builder().qpState(QpState.SQD).build(), QpAttributeMask.STATE);
        assertTrue(f.a.query(qp[0]).sqDraining());
        f.a.modify(qp[0], QpAttributes.builder().qpState(QpState.ERR).build(), QpAttributeMask.STATE);
        assertEquals(WcStatus.WR_FLUSH_ERR, ea.one().status());
        assertEquals(false, f.a.query(qp[0]).sqDraining(), "ERR drains nothing");
        assertEquals(List.of(), ea.events(AsyncEvent.Type.SQ_DRAINED));
    }

    @Test
    void sqdWithNothingBegunIsDrainedAtOnce() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        f.a.modify(qp[0], QpAttributes.builder().qpState(QpState.SQD).build(), QpAttributeMask.STATE);
        assertEquals(false, f.a.query(qp[0]).sqDraining());
        assertEquals(List.of(), ea.events(AsyncEvent.Type.SQ_DRAINED), "not asked for (en_sqd_async_notify 0)");
        f.a.modify(qp[0], QpAttributes.builder().qpState(QpState.RTS).build(), QpAttributeMask.STATE);
        f.a.modify(qp[0], QpAttributes.builder().qpState(QpState.SQD).enSqdAsyncNotify(true).build(),
                QpAttributeMask.STATE | QpAttributeMask.EN_SQD_ASYNC_NOTIFY);
        assertEquals(List.of(new AsyncEvent(AsyncEvent.Type.SQ_DRAINED, qp[0])), ea.events(AsyncEvent.Type.SQ_DRAINED));
    }

    @Test
    void aCutLinkEndsInRetryExceeded() throws Exception {
        QueuePair[] qp = rcPair(1, 3, 2);
        MemoryRegion src = ea.buffer(8);
        f.s1.port(3).cut();
        f.a.postSend(qp[0], List.of(SendWorkRequest.send(1, SIGNALED, List.of(Endpoint.sge(src))),
                SendWorkRequest.send(2, SIGNALED, List.of(Endpoint.sge(src)))));
        assertEquals(WcStatus.RETRY_EXC_ERR, ea.one().status());
        assertEquals(WcStatus.WR_FLUSH_ERR, ea.one().status());
        assertEquals(QpState.ERR, qp[0].state());
    }

    @Test
    void aQpOnAnHcaNobodyPlaysNeverAnswers() throws Exception {
        QueuePair qa = ea.qp(QpType.RC);
        ea.connect(qa, qa, TestFabric.LID_C, 1, 1, 1);
        MemoryRegion src = ea.buffer(8);
        f.a.postSend(qa, List.of(SendWorkRequest.send(1, SIGNALED, List.of(Endpoint.sge(src)))));
        assertEquals(WcStatus.RETRY_EXC_ERR, ea.one().status());
    }

    @Test
    void loopbackToTheSamePortWorks() throws Exception {
        QueuePair q1 = ea.qp(QpType.RC);
        QueuePair q2 = ea.qp(QpType.RC);
        ea.connect(q1, q2, TestFabric.LID_A, 1, 1, 1);
        ea.connect(q2, q1, TestFabric.LID_A, 1, 1, 1);
        MemoryRegion src = ea.buffer(8);
        MemoryRegion dst = ea.buffer(8);
        ea.memory.put(src.iova(), new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        f.a.postRecv(q2, List.of(new ReceiveWorkRequest(1, List.of(Endpoint.sge(dst)))));
        long before = f.nodeA.port(1).counter(Port.Counter.XMIT_PKTS);
        f.a.postSend(q1, List.of(SendWorkRequest.send(2, SIGNALED, List.of(Endpoint.sge(src)))));
        assertEquals(2, ea.poll().size());
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, ea.memory.get(dst.iova(), 8));
        assertEquals(before, f.nodeA.port(1).counter(Port.Counter.XMIT_PKTS), "loopback stays off the wire");
    }

    // ---- UD and multicast ----

    @Test
    void udWithGrhFillsTheFirstFortyBytesAndChecksTheQKey() throws Exception {
        QueuePair sender = ea.udQp(0x11111111);
        QueuePair receiver = eb.udQp(0x22222222);
        MemoryRegion src = ea.buffer(64);
        MemoryRegion dst = eb.buffer(256);
        ea.memory.put(src.iova(), random(64, 9));
        byte[] dgid = Hca.gid(f.nodeB.port(1).subnetPrefix(), f.nodeB.port(1).guid());
        AddressHandle ah = f.a.createAh(ea.pd, new AhAttributes(TestFabric.LID_B, 0, 0, 0, 1,
                new GlobalRoute(dgid, 0x12345, 0, 64, 0)));
        f.b.postRecv(receiver, List.of(new ReceiveWorkRequest(1, List.of(Endpoint.sge(dst)))));
        f.a.postSend(sender, List.of(SendWorkRequest.ud(2, SIGNALED, List.of(Endpoint.sge(src)), ah,
                receiver.qpNum(), 0x22222222)));
        assertEquals(WcStatus.SUCCESS, ea.one().status());
        WorkCompletion r = eb.one();
        assertEquals(40 + 64, r.byteLen());
        assertEquals(WcOpcode.FLAG_GRH, r.wcFlags());
        assertEquals(sender.qpNum(), r.srcQp());
        byte[] grh = eb.memory.get(dst.iova(), 40);
        assertEquals(6, (grh[0] & 0xFF) >>> 4, "IPVer");
        assertEquals(0x1B, grh[6]);
        byte[] sgid = new byte[16];
        System.arraycopy(grh, 8, sgid, 0, 16);
        assertArrayEquals(Hca.gid(f.nodeA.port(1).subnetPrefix(), f.nodeA.port(1).guid()), sgid);
        assertArrayEquals(ea.memory.get(src.iova(), 64), eb.memory.get(dst.iova() + 40, 64));

        // a wrong Q_Key: the send completes, nothing arrives
        f.b.postRecv(receiver, List.of(new ReceiveWorkRequest(3, List.of(Endpoint.sge(dst)))));
        f.a.postSend(sender, List.of(SendWorkRequest.ud(4, SIGNALED, List.of(Endpoint.sge(src)), ah,
                receiver.qpNum(), 0x33333333)));
        assertEquals(WcStatus.SUCCESS, ea.one().status());
        assertEquals(List.of(), eb.poll());
        // high bit set: the sender's own Q_Key is used (IBA 10.2.4)
        QueuePair same = eb.udQp(0x11111111);
        f.b.postRecv(same, List.of(new ReceiveWorkRequest(5, List.of(Endpoint.sge(dst)))));
        AddressHandle plain = f.a.createAh(ea.pd, AhAttributes.lid(TestFabric.LID_B, 1));
        f.a.postSend(sender, List.of(SendWorkRequest.ud(6, SIGNALED, List.of(Endpoint.sge(src)), plain,
                same.qpNum(), 0x80000000)));
        ea.one();
        WorkCompletion noGrh = eb.one();
        assertEquals(5, noGrh.wrId());
        assertEquals(0, noGrh.wcFlags());
    }

    @Test
    void udLongerThanTheMtuIsALocalLengthError() throws Exception {
        QueuePair sender = ea.udQp(1);
        MemoryRegion src = ea.buffer(8192);
        AddressHandle ah = f.a.createAh(ea.pd, AhAttributes.lid(TestFabric.LID_B, 1));
        f.a.postSend(sender, List.of(SendWorkRequest.ud(1, SIGNALED, List.of(Endpoint.sge(src, 0, 4097)), ah, 5, 1)));
        assertEquals(WcStatus.LOC_LEN_ERR, ea.one().status());
    }

    @Test
    void multicastReachesEveryAttachedQpButTheSender() throws Exception {
        byte[] mgid = new byte[16];
        mgid[0] = (byte) 0xFF;
        mgid[1] = 0x12;
        mgid[15] = 1;
        QueuePair sender = ea.udQp(7);
        QueuePair onA = ea.udQp(7);
        QueuePair onB1 = eb.udQp(7);
        QueuePair onB2 = eb.udQp(7);
        QueuePair notAttached = eb.udQp(7);
        MemoryRegion ra = ea.buffer(4096);
        MemoryRegion rb = eb.buffer(4096);
        for (QueuePair q : new QueuePair[] {sender, onA, onB1, onB2}) {
            q.hca().attachMulticast(q, mgid, TestFabric.MLID);
        }
        f.a.postRecv(sender, List.of(new ReceiveWorkRequest(100, List.of(Endpoint.sge(ra, 0, 1024)))));
        f.a.postRecv(onA, List.of(new ReceiveWorkRequest(101, List.of(Endpoint.sge(ra, 1024, 1024)))));
        f.b.postRecv(onB1, List.of(new ReceiveWorkRequest(102, List.of(Endpoint.sge(rb, 0, 1024)))));
        f.b.postRecv(onB2, List.of(new ReceiveWorkRequest(103, List.of(Endpoint.sge(rb, 1024, 1024)))));
        f.b.postRecv(notAttached, List.of(new ReceiveWorkRequest(104, List.of(Endpoint.sge(rb, 2048, 1024)))));
        MemoryRegion src = ea.buffer(32);
        ea.memory.put(src.iova(), random(32, 11));
        AddressHandle ah = f.a.createAh(ea.pd, new AhAttributes(TestFabric.MLID, 0, 0, 0, 1,
                new GlobalRoute(mgid, 0, 0, 1, 0)));
        long cRcv = f.nodeC.port(1).counter(Port.Counter.MULTICAST_RCV_PKTS);
        f.a.postSend(sender, List.of(SendWorkRequest.ud(1, SIGNALED, List.of(Endpoint.sge(src)), ah, 0xFFFFFF, 7)));
        List<WorkCompletion> atA = ea.poll();
        assertEquals(List.of(101L, 1L), atA.stream().map(WorkCompletion::wrId).toList(),
                "onA's receive, then the sender's send; the sender's own receive stays posted");
        List<WorkCompletion> atB = eb.poll();
        assertEquals(List.of(102L, 103L), atB.stream().map(WorkCompletion::wrId).toList());
        assertArrayEquals(ea.memory.get(src.iova(), 32), eb.memory.get(rb.iova() + 1024 + 40, 32));
        assertEquals(cRcv + 1, f.nodeC.port(1).counter(Port.Counter.MULTICAST_RCV_PKTS), "the MFT sends it to C too");
    }

    // ---- events and counters ----

    @Test
    void aFullCqLosesTheCompletionAndReportsCqError() throws Exception {
        CompletionQueue small = f.a.createCq(ea.owner, 1, 0, null);
        QueuePair qa = f.a.createQp(ea.pd, new QpInitAttributes(QpType.UD, small, small, null,
                new QpCapabilities(4, 4, 1, 1, 0), true, null));
        f.a.modify(qa, QpAttributes.builder().qpState(QpState.INIT).portNum(1).qkey(1).build(),
                QpAttributeMask.STATE | QpAttributeMask.PORT | QpAttributeMask.PKEY_INDEX | QpAttributeMask.QKEY);
        f.a.modify(qa, QpAttributes.builder().qpState(QpState.RTR).build(), QpAttributeMask.STATE);
        f.a.modify(qa, QpAttributes.builder().qpState(QpState.RTS).build(),
                QpAttributeMask.STATE | QpAttributeMask.SQ_PSN);
        AddressHandle ah = f.a.createAh(ea.pd, AhAttributes.lid(TestFabric.LID_B, 1));
        f.a.postSend(qa, List.of(SendWorkRequest.ud(1, 0, List.of(), ah, 9, 1),
                SendWorkRequest.ud(2, 0, List.of(), ah, 9, 1)));
        assertEquals(1, small.poll(10).size());
        assertTrue(small.hasOverflowed());
        assertEquals(List.of(new AsyncEvent(AsyncEvent.Type.CQ_ERR, small)), ea.events(AsyncEvent.Type.CQ_ERR));
    }

    @Test
    void armedCqNotifiesOnceAndSolicitedOnlyWaitsForASolicitedOne() throws Exception {
        int[] events = new int[1];
        CompletionQueue cq = f.b.createCq(eb.owner, 16, 0, c -> events[0]++);
        QueuePair qa = ea.qp(QpType.RC);
        QueuePair qb = f.b.createQp(eb.pd, new QpInitAttributes(QpType.RC, cq, cq, null,
                new QpCapabilities(8, 8, 1, 1, 0), false, null));
        ea.connect(qa, qb, TestFabric.LID_B, 1, 1, 1);
        eb.connect(qb, qa, TestFabric.LID_A, 1, 1, 1);
        f.b.postRecv(qb, List.of(new ReceiveWorkRequest(1, List.of()), new ReceiveWorkRequest(2, List.of()),
                new ReceiveWorkRequest(3, List.of()), new ReceiveWorkRequest(4, List.of()),
                new ReceiveWorkRequest(5, List.of())));
        SendWorkRequest empty = SendWorkRequest.send(0, 0, List.of());
        f.a.postSend(qa, List.of(empty));
        assertEquals(0, events[0], "not armed");
        cq.requestNotify(false);
        f.a.postSend(qa, List.of(empty, empty));
        assertEquals(1, events[0], "one event for the next completion");
        cq.requestNotify(true);
        f.a.postSend(qa, List.of(empty));
        assertEquals(1, events[0], "not solicited");
        f.a.postSend(qa, List.of(new SendWorkRequest(0, WrOpcode.SEND, WrOpcode.FLAG_SOLICITED, List.of(), null, 0, 0,
                0, 0, 0, null, 0, 0, 0, null)));
        assertEquals(2, events[0]);
    }

    @Test
    void srqBelowItsLimitReportsOnceAndQpErrorReportsLastWqe() throws Exception {
        SharedReceiveQueue srq = f.b.createSrq(eb.pd, 8, 1, 2, SrqType.BASIC, null, null);
        QueuePair qa = ea.qp(QpType.RC);
        QueuePair qb = f.b.createQp(eb.pd, new QpInitAttributes(QpType.RC, eb.cq, eb.cq, srq,
                new QpCapabilities(8, 8, 1, 1, 0), false, null));
        assertEquals(0, qb.capabilities().maxRecvWr());
        ea.connect(qa, qb, TestFabric.LID_B, 1, 1, 1);
        eb.connect(qb, qa, TestFabric.LID_A, 1, 1, 1);
        f.b.postSrqRecv(srq, List.of(new ReceiveWorkRequest(1, List.of()), new ReceiveWorkRequest(2, List.of()),
                new ReceiveWorkRequest(3, List.of())));
        SendWorkRequest empty = SendWorkRequest.send(0, 0, List.of());
        f.a.postSend(qa, List.of(empty));
        assertEquals(List.of(), eb.events(AsyncEvent.Type.SRQ_LIMIT_REACHED), "2 left: not below 2");
        f.a.postSend(qa, List.of(empty, empty));
        assertEquals(List.of(new AsyncEvent(AsyncEvent.Type.SRQ_LIMIT_REACHED, srq)),
                eb.events(AsyncEvent.Type.SRQ_LIMIT_REACHED));
        assertEquals(new SrqAttributes(8, 1, 0), srq.query(), "the limit disarms");
        assertEquals(List.of(1L, 2L, 3L), eb.poll().stream().map(WorkCompletion::wrId).toList());
        f.b.modify(qb, QpAttributes.builder().qpState(QpState.ERR).build(), QpAttributeMask.STATE);
        assertEquals(List.of(new AsyncEvent(AsyncEvent.Type.QP_LAST_WQE_REACHED, qb)),
                eb.events(AsyncEvent.Type.QP_LAST_WQE_REACHED));
    }

    @Test
    void portEventsFollowTheLink() throws Exception {
        f.s1.port(1).cut();
        ea.awaitEvent(AsyncEvent.Type.PORT_ERR);
        assertEquals(1, ea.events(AsyncEvent.Type.PORT_ERR).get(0).element());
        assertEquals(1, f.a.port(1).state());
    }

    @Test
    void pmaCountersCountEveryPacketAndWordBothWays() throws Exception {
        QueuePair[] qp = rcPair(1, 2, 2);
        MemoryRegion src = ea.buffer(8192);
        MemoryRegion dst = eb.buffer(8192);
        f.b.postRecv(qp[1], List.of(new ReceiveWorkRequest(1, List.of(Endpoint.sge(dst)))));
        Port a = f.nodeA.port(1);
        Port b = f.nodeB.port(1);
        Port mid = f.s2.port(3);
        long[] before = {a.counter(Port.Counter.XMIT_PKTS), a.counter(Port.Counter.XMIT_DATA),
            b.counter(Port.Counter.RCV_PKTS), b.counter(Port.Counter.RCV_DATA), mid.counter(Port.Counter.RCV_PKTS),
            a.counter(Port.Counter.RCV_PKTS), a.counter(Port.Counter.UNICAST_XMIT_PKTS)};
        f.a.postSend(qp[0], List.of(SendWorkRequest.send(1, SIGNALED, List.of(Endpoint.sge(src)))));
        ea.one();
        // 8192 bytes at MTU 4096: two packets of LRH+BTH+ICRC (24) + 4096 octets = 1030 words each
        assertEquals(2, a.counter(Port.Counter.XMIT_PKTS) - before[0]);
        assertEquals(2 * 1030, a.counter(Port.Counter.XMIT_DATA) - before[1]);
        assertEquals(2, b.counter(Port.Counter.RCV_PKTS) - before[2]);
        assertEquals(2 * 1030, b.counter(Port.Counter.RCV_DATA) - before[3]);
        assertEquals(2, mid.counter(Port.Counter.RCV_PKTS) - before[4]);
        assertEquals(1, a.counter(Port.Counter.RCV_PKTS) - before[5], "the ACK came back");
        assertEquals(2, a.counter(Port.Counter.UNICAST_XMIT_PKTS) - before[6]);
    }
}
