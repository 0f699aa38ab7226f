package io.ibemu.emulator.hca;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.kernel.Errno;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The errno of each verb's refusals, QP modify through the model, object counts, port attributes. */
class ControlPathTest {
    private TestFabric f;
    private Endpoint e;

    @BeforeEach
    void setUp() throws Exception {
        f = new TestFabric();
        e = new Endpoint(f.a, 300);
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    private static void errno(int expected, Executable call) {
        Errno err = assertThrows(Errno.class, call);
        assertEquals(expected, err.code());
    }

    private static void postError(int expected, int index, Executable call) {
        PostError err = assertThrows(PostError.class, call);
        assertEquals(expected, err.errno());
        assertEquals(index, err.badIndex());
    }

    @Test
    void portAttributesComeFromTheFabric() throws Exception {
        PortAttributes p = f.a.port(1);
        assertEquals(4, p.state());
        assertEquals(TestFabric.LID_A, p.lid());
        assertEquals(TestFabric.LID_S1, p.smLid());
        assertEquals(5, p.activeMtu());
        assertEquals(5, p.physState());
        assertEquals(Hca.gid(f.nodeA.port(1).subnetPrefix(), f.nodeA.port(1).guid())[15], p.gids()[0][15]);
        assertEquals(0xFFFF, p.pkeys()[0]);
        errno(Errno.EINVAL, () -> f.a.port(2));
        errno(Errno.EINVAL, () -> f.a.port(0));
        assertEquals(f.nodeA.guid(), f.a.attributes().nodeGuid());
        assertEquals(1, f.a.attributes().physPortCnt());
    }

    @Test
    void busyObjectsRefuseToGo() throws Exception {
        MemoryRegion mr = e.buffer(64);
        QueuePair qp = e.qp(QpType.RC);
        errno(Errno.EBUSY, () -> f.a.dealloc(e.pd));
        errno(Errno.EBUSY, () -> f.a.destroy(e.cq));
        SharedReceiveQueue srq = f.a.createSrq(e.pd, 4, 1, 0, SrqType.BASIC, null, null);
        QueuePair onSrq = f.a.createQp(e.pd, new QpInitAttributes(QpType.UD, e.cq, e.cq, srq,
                new QpCapabilities(1, 1, 1, 1, 0), false, null));
        errno(Errno.EBUSY, () -> f.a.destroy(srq));
        byte[] mgid = new byte[16];
        mgid[0] = (byte) 0xFF;
        f.a.attachMulticast(onSrq, mgid, 0xC001);
        errno(Errno.EBUSY, () -> f.a.destroy(onSrq));
        f.a.release(onSrq);
        f.a.destroy(srq);
        Xrcd xrcd = f.a.openXrcd(e.owner);
        SharedReceiveQueue xsrq = f.a.createSrq(e.pd, 4, 1, 0, SrqType.XRC, xrcd, e.cq);
        errno(Errno.EBUSY, () -> f.a.close(xrcd));
        f.a.destroy(xsrq);
        f.a.close(xrcd);
        assertEquals(Map.of("pd", 1, "mr", 1, "mw", 0, "cq", 1, "qp", 1, "srq", 0, "ah", 0, "xrcd", 0),
                f.a.objectCounts());
        f.a.destroy(qp);
        f.a.deregister(mr);
        f.a.destroy(e.cq);
        f.a.dealloc(e.pd);
        assertEquals(0, f.a.objectCounts().values().stream().mapToInt(Integer::intValue).sum());
    }

    @Test
    void registrationChecksAccessMappingAndMemlock() throws Exception {
        long addr = e.memory.allocate(8192);
        errno(Errno.EINVAL, () -> f.a.registerMr(e.pd, addr, 0, addr, Access.LOCAL_WRITE, e.memory));
        errno(Errno.EINVAL, () -> f.a.registerMr(e.pd, addr, 64, addr, Access.REMOTE_WRITE, e.memory));
        errno(Errno.EINVAL, () -> f.a.registerMr(e.pd, addr, 64, addr + 8, Access.LOCAL_WRITE, e.memory));
        errno(Errno.EOPNOTSUPP, () -> f.a.registerMr(e.pd, addr, 64, addr, Access.ON_DEMAND, e.memory));
        errno(Errno.EFAULT, () -> f.a.registerMr(e.pd, addr, 8192 + 4096, addr, 0, e.memory));
        long readOnly = e.memory.allocate(4096, false);
        errno(Errno.EFAULT, () -> f.a.registerMr(e.pd, readOnly, 64, readOnly, Access.LOCAL_WRITE, e.memory));
        f.a.registerMr(e.pd, readOnly, 64, readOnly, Access.REMOTE_READ, e.memory);
        e.memory.pinnedLimit = 4096 * 2;
        MemoryRegion first = f.a.registerMr(e.pd, addr, 4096, addr, 0, e.memory);
        errno(Errno.ENOMEM, () -> f.a.registerMr(e.pd, addr + 100, 4096, addr + 100, 0, e.memory));
        assertEquals(8192, f.a.pinnedBytes(e.owner.pid()), "the read-only page and the first");
        f.a.deregister(first);
        assertEquals(4096, f.a.pinnedBytes(e.owner.pid()));
        MemoryRegion moved = f.a.registerMr(e.pd, addr, 4096, addr, 0, e.memory);
        MemoryRegion again = f.a.reregisterMr(moved, Hca.REREG_ACCESS, null, 0, 0, 0, Access.LOCAL_WRITE, e.memory);
        assertEquals(moved.lkey(), again.lkey());
        assertEquals(Access.LOCAL_WRITE, again.access());
        errno(Errno.EINVAL, () -> f.a.deregister(moved));
    }

    @Test
    void modifyWalksTheStateMachineAndRefusesBadMasksAndValues() throws Exception {
        QueuePair qp = e.qp(QpType.RC);
        int init = QpAttributeMask.STATE | QpAttributeMask.PKEY_INDEX | QpAttributeMask.PORT;
        errno(Errno.EINVAL, () -> f.a.modify(qp, QpAttributes.builder().qpState(QpState.INIT).portNum(1).build(),
                init));
        assertEquals(QpState.RESET, qp.state(), "a refused modify changes nothing");
        errno(Errno.EINVAL, () -> f.a.modify(qp, QpAttributes.builder().qpState(QpState.INIT).portNum(2).build(),
                init | QpAttributeMask.ACCESS_FLAGS));
        errno(Errno.EINVAL, () -> f.a.modify(qp, QpAttributes.builder().qpState(QpState.INIT).portNum(1)
                .pkeyIndex(64).build(), init | QpAttributeMask.ACCESS_FLAGS));
        errno(Errno.EINVAL, () -> f.a.modify(qp, QpAttributes.builder().qpState(QpState.RTS).build(),
                QpAttributeMask.STATE));
        QueuePair peer = e.qp(QpType.RC);
        e.connect(qp, peer, TestFabric.LID_B, 3, 5, 6);
        QpAttributes q = f.a.query(qp);
        assertEquals(QpState.RTS, q.qpState());
        assertEquals(peer.qpNum(), q.destQpNum());
        assertEquals(3, q.timeout());
        assertEquals(5, q.retryCnt());
        assertEquals(6, q.rnrRetry());
        assertEquals(5, q.pathMtu());
        assertEquals(new QpCapabilities(64, 64, 4, 4, 64), q.cap());
        f.a.modify(qp, QpAttributes.builder().qpState(QpState.SQD).build(), QpAttributeMask.STATE);
        errno(Errno.EINVAL, () -> f.a.modify(qp, QpAttributes.builder().qpState(QpState.SQD).timeout(40).build(),
                QpAttributeMask.STATE | QpAttributeMask.TIMEOUT));
        f.a.modify(qp, QpAttributes.builder().qpState(QpState.SQD).timeout(7).build(),
                QpAttributeMask.STATE | QpAttributeMask.TIMEOUT);
        f.a.modify(qp, QpAttributes.builder().qpState(QpState.RTS).curQpState(QpState.SQD).build(),
                QpAttributeMask.STATE | QpAttributeMask.CUR_STATE);
        assertEquals(7, f.a.query(qp).timeout());
        f.a.modify(qp, QpAttributes.builder().qpState(QpState.RESET).build(), QpAttributeMask.STATE);
        assertEquals(QpState.RESET, qp.state());
    }

    @Test
    void postingChecksStateOpcodeSgesAndDepth() throws Exception {
        QueuePair rc = f.a.createQp(e.pd, new QpInitAttributes(QpType.RC, e.cq, e.cq, null,
                new QpCapabilities(2, 2, 1, 1, 16), false, null));
        SendWorkRequest empty = SendWorkRequest.send(1, 0, List.of());
        // rvt_post_send's state check names no work request; rvt_post_recv names the first
        postError(Errno.EINVAL, PostError.NONE_NAMED, () -> f.a.postSend(rc, List.of(empty)));
        postError(Errno.EINVAL, 0, () -> f.a.postRecv(rc, List.of(new ReceiveWorkRequest(1, List.of()))));
        e.connect(rc, e.qp(QpType.RC), TestFabric.LID_C, 0, 0, 0);
        MemoryRegion mr = e.buffer(64);
        postError(Errno.EINVAL, 1, () -> f.a.postSend(rc, List.of(empty, SendWorkRequest.send(2, 0,
                List.of(Endpoint.sge(mr), Endpoint.sge(mr))))));
        postError(Errno.EINVAL, 0, () -> f.a.postSend(rc, List.of(empty.withInline(new byte[17]))));
        // timeout 0 toward C, which nobody plays: the first WR waits for ever and fills the queue
        postError(Errno.ENOMEM, 1, () -> f.a.postSend(rc, List.of(empty, empty)));
        assertEquals(List.of(), e.poll());
        postError(Errno.ENOMEM, 2, () -> f.a.postRecv(rc, List.of(new ReceiveWorkRequest(1, List.of()),
                new ReceiveWorkRequest(2, List.of()), new ReceiveWorkRequest(3, List.of()))));
        QueuePair ud = e.udQp(1);
        postError(Errno.EINVAL, 0, () -> f.a.postSend(ud, List.of(SendWorkRequest.rdma(1, WrOpcode.RDMA_WRITE, 0,
                List.of(), 0, 0, 0))));
        postError(Errno.EINVAL, 0, () -> f.a.postSend(ud, List.of(empty)));
        errno(Errno.EINVAL, () -> f.a.attachMulticast(rc, new byte[] {(byte) 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 1}, 0xC001));
        errno(Errno.EINVAL, () -> f.a.attachMulticast(ud, new byte[16], 0xC001));
        errno(Errno.EINVAL, () -> f.a.createAh(e.pd, AhAttributes.lid(0xC001, 1)));
        errno(Errno.EINVAL, () -> f.a.createAh(e.pd, AhAttributes.lid(5, 2)));
    }

    @Test
    void createChecksCapabilitiesAndSizes() throws Exception {
        errno(Errno.EINVAL, () -> f.a.createCq(e.owner, 0, 0, null));
        errno(Errno.EINVAL, () -> f.a.createCq(e.owner, Hca.MAX_CQE + 1, 0, null));
        errno(Errno.EINVAL, () -> f.a.createQp(e.pd, new QpInitAttributes(QpType.RC, e.cq, e.cq, null,
                new QpCapabilities(Hca.MAX_QP_WR + 1, 1, 1, 1, 0), false, null)));
        errno(Errno.EINVAL, () -> f.a.createQp(e.pd, new QpInitAttributes(QpType.GSI, e.cq, e.cq, null,
                new QpCapabilities(1, 1, 1, 1, 0), false, null)));
        errno(Errno.EOPNOTSUPP, () -> f.a.createQp(e.pd, new QpInitAttributes(QpType.RAW_PACKET, e.cq, e.cq, null,
                new QpCapabilities(1, 1, 1, 1, 0), false, null)));
        errno(Errno.EINVAL, () -> f.a.createSrq(e.pd, 0, 1, 0, SrqType.BASIC, null, null));
        errno(Errno.EINVAL, () -> f.a.createSrq(e.pd, 4, 1, 0, SrqType.XRC, null, e.cq));
        SharedReceiveQueue srq = f.a.createSrq(e.pd, 4, 1, 0, SrqType.BASIC, null, null);
        errno(Errno.EINVAL, () -> f.a.modify(srq, 0, 5, SrqAttributes.MASK_LIMIT));
        f.a.modify(srq, 8, 3, SrqAttributes.MASK_MAX_WR | SrqAttributes.MASK_LIMIT);
        assertEquals(new SrqAttributes(8, 1, 3), srq.query());
        QueuePair first = e.qp(QpType.UD);
        QueuePair second = e.qp(QpType.UD);
        assertTrue(first.qpNum() >= 2 && second.qpNum() != first.qpNum(), "QPN 0 and 1 are reserved");
        CompletionQueue cq = f.a.createCq(e.owner, 4, 0, null);
        f.a.resize(cq, 16);
        assertEquals(16, cq.cqe());
    }
}
