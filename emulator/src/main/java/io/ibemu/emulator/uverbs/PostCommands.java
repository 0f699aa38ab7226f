package io.ibemu.emulator.uverbs;

import io.ibemu.emulator.hca.AddressHandle;
import io.ibemu.emulator.hca.PostError;
import io.ibemu.emulator.hca.QpType;
import io.ibemu.emulator.hca.QueuePair;
import io.ibemu.emulator.hca.ReceiveWorkRequest;
import io.ibemu.emulator.hca.SendWorkRequest;
import io.ibemu.emulator.hca.Sge;
import io.ibemu.emulator.hca.SharedReceiveQueue;
import io.ibemu.emulator.hca.WrOpcode;
import io.ibemu.kernel.CField;
import io.ibemu.kernel.CStruct;
import io.ibemu.kernel.Errno;

import java.util.ArrayList;
import java.util.List;

/**
 * POST_SEND, POST_RECV and POST_SRQ_RECV: the work requests follow the command struct in the
 * write buffer (wr_count records of wqe_size bytes, then sge_count ib_uverbs_sge), decoded as
 * ib_uverbs_post_send and ib_uverbs_unmarshall_recv do. A post the driver refuses still writes the
 * response: bad_wr counts the requests up to and including the refused one.
 */
final class PostCommands {
    private static final int SGE_SIZE = Abi.SGE.size();
    private static final CField SGE_ADDR = Abi.SGE.field("addr");
    private static final CField SGE_LENGTH = Abi.SGE.field("length");
    private static final CField SGE_LKEY = Abi.SGE.field("lkey");
    private static final CField WR_ID = Abi.SEND_WR.field("wr_id");
    private static final CField WR_NUM_SGE = Abi.SEND_WR.field("num_sge");
    private static final CField WR_OPCODE = Abi.SEND_WR.field("opcode");
    private static final CField WR_FLAGS = Abi.SEND_WR.field("send_flags");
    private static final CField WR_EX = Abi.SEND_WR.field("ex");
    private static final CField RDMA_ADDR = Abi.SEND_WR_RDMA.field("remote_addr");
    private static final CField RDMA_RKEY = Abi.SEND_WR_RDMA.field("rkey");
    private static final CField ATOMIC_ADDR = Abi.SEND_WR.field("remote_addr");
    private static final CField ATOMIC_COMPARE = Abi.SEND_WR.field("compare_add");
    private static final CField ATOMIC_SWAP = Abi.SEND_WR.field("swap");
    private static final CField ATOMIC_RKEY = Abi.SEND_WR.field("atomic_rkey");
    private static final CField UD_AH = Abi.SEND_WR_UD.field("ah");
    private static final CField UD_QPN = Abi.SEND_WR_UD.field("remote_qpn");
    private static final CField UD_QKEY = Abi.SEND_WR_UD.field("remote_qkey");
    private static final CField RECV_WR_ID = Abi.RECV_WR.field("wr_id");
    private static final CField RECV_NUM_SGE = Abi.RECV_WR.field("num_sge");
    /** The post structs' members, looked up once: the data path runs these commands per message. */
    private static final Layout SEND = Layout.of(Abi.POST_SEND, "qp_handle");
    private static final Layout RECV = Layout.of(Abi.POST_RECV, "qp_handle");
    private static final Layout SRQ_RECV = Layout.of(Abi.POST_SRQ_RECV, "srq_handle");
    private static final CField BAD_WR = Abi.POST_RESP.field("bad_wr");
    /** The largest inline payload a WQE carries: what CREATE_QP can grant. */
    private static final int MAX_INLINE = 1 << 16;

    private PostCommands() {
    }

    /** One post command struct: ib_uverbs_post_send, _post_recv or _post_srq_recv. */
    private record Layout(int size, CField handle, CField wrCount, CField sgeCount, CField wqeSize) {
        static Layout of(CStruct s, String handle) {
            return new Layout(s.size(), s.field(handle), s.field("wr_count"), s.field("sge_count"), s.field("wqe_size"));
        }
    }

    /** Where the arrays of a post start and end in the request bytes. */
    private record Arrays(int wrs, int wqeSize, int wrCount, int sges, int sgeCount) {
    }

    private static Arrays arrays(Command c, Layout layout, int minWqe) throws Errno {
        int headerSize = layout.size();
        long wqeSize = c.at(layout.wqeSize(), 0);
        long wrCount = c.at(layout.wrCount(), 0);
        long sgeCount = c.at(layout.sgeCount(), 0);
        if (wqeSize < minWqe) {
            throw Errno.of(Errno.EINVAL);
        }
        if (wrCount > c.inLength || sgeCount > c.inLength) {
            throw Errno.of(Errno.ENOSPC); // more records than bytes: past the end (and no overflow below)
        }
        long wrs = headerSize;
        long sges = wrs + wqeSize * wrCount;
        long end = sges + sgeCount * SGE_SIZE;
        if (end > c.inLength) {
            throw Errno.of(Errno.ENOSPC); // uverbs_request_next_ptr: the arrays pass the end of the write
        }
        for (int i = (int) end; i < c.inLength; i++) {
            if (c.in[i] != 0) {
                throw Errno.of(Errno.EOPNOTSUPP); // uverbs_request_finish: unknown trailing data
            }
        }
        return new Arrays((int) wrs, (int) wqeSize, (int) wrCount, (int) sges, (int) sgeCount);
    }

    private static List<Sge> sges(Command c, Arrays a, int first, int count) {
        List<Sge> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int at = a.sges() + (first + i) * SGE_SIZE;
            list.add(new Sge(SGE_ADDR.get(c.in, at), (int) SGE_LENGTH.get(c.in, at), (int) SGE_LKEY.get(c.in, at)));
        }
        return list;
    }

    static void postSend(Command c) throws Errno {
        Arrays a = arrays(c, SEND, Abi.SEND_WR.size());
        QueuePair qp = c.file.objects.read(ObjectType.QP, c.at(SEND.handle(), 0));
        boolean ud = qp.type() == QpType.UD;
        List<SendWorkRequest> wrs = new ArrayList<>(a.wrCount());
        int sgIndex = 0;
        for (int i = 0; i < a.wrCount(); i++) {
            int at = a.wrs() + i * a.wqeSize();
            int numSge = (int) WR_NUM_SGE.get(c.in, at);
            if (numSge < 0 || (long) numSge + sgIndex > a.sgeCount()) {
                throw Errno.of(Errno.EINVAL);
            }
            List<Sge> sgl = sges(c, a, sgIndex, numSge);
            sgIndex += numSge;
            wrs.add(sendWr(c, at, ud, sgl));
        }
        int bad = 0;
        try {
            c.file.device.hca().postSend(qp, wrs);
        } catch (PostError e) {
            // ib_uverbs_post_send counts up to the bad WR; one the driver never named is never met
            bad = e.badIndex() == PostError.NONE_NAMED ? wrs.size() : e.badIndex() + 1;
            respondBad(c, bad);
            throw Errno.of(e.errno());
        }
        respondBad(c, bad);
    }

    /** One ib_uverbs_send_wr: opcode-specific union, immediate data, inline payload read from the caller now. */
    private static SendWorkRequest sendWr(Command c, int at, boolean ud, List<Sge> sgl) throws Errno {
        long wrId = WR_ID.get(c.in, at);
        int opcode = (int) WR_OPCODE.get(c.in, at);
        int flags = (int) WR_FLAGS.get(c.in, at);
        int ex = (int) WR_EX.get(c.in, at);
        SendWorkRequest wr;
        if (ud) {
            if (opcode != WrOpcode.SEND && opcode != WrOpcode.SEND_WITH_IMM) {
                throw Errno.of(Errno.EINVAL);
            }
            AddressHandle ah = c.file.objects.read(ObjectType.AH, UD_AH.get(c.in, at));
            wr = new SendWorkRequest(wrId, opcode, flags, sgl, null, imm(opcode, ex), 0, 0, 0, 0, ah,
                    (int) UD_QPN.get(c.in, at), (int) UD_QKEY.get(c.in, at), 0, null);
        } else {
            wr = switch (opcode) {
                case WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ ->
                        new SendWorkRequest(wrId, opcode, flags, sgl, null, imm(opcode, ex),
                                RDMA_ADDR.get(c.in, at), (int) RDMA_RKEY.get(c.in, at), 0, 0, null, 0, 0, 0, null);
                case WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD ->
                        new SendWorkRequest(wrId, opcode, flags, sgl, null, 0, ATOMIC_ADDR.get(c.in, at),
                                (int) ATOMIC_RKEY.get(c.in, at), ATOMIC_COMPARE.get(c.in, at),
                                ATOMIC_SWAP.get(c.in, at), null, 0, 0, 0, null);
                case WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.SEND_WITH_INV ->
                        new SendWorkRequest(wrId, opcode, flags, sgl, null, opcode == WrOpcode.SEND ? 0 : ex, 0, 0,
                                0, 0, null, 0, 0, 0, null);
                default -> throw Errno.of(Errno.EINVAL);
            };
        }
        if ((flags & WrOpcode.FLAG_INLINE) != 0 && opcode != WrOpcode.RDMA_READ && opcode != WrOpcode.ATOMIC_CMP_AND_SWP
                && opcode != WrOpcode.ATOMIC_FETCH_AND_ADD) {
            wr = wr.withInline(inlineData(c, sgl));
        }
        return wr;
    }

    private static int imm(int opcode, int ex) {
        return opcode == WrOpcode.SEND_WITH_IMM || opcode == WrOpcode.RDMA_WRITE_WITH_IMM ? ex : 0;
    }

    /** An inline send's payload is copied from the caller's buffers at post time, keys unchecked. */
    private static byte[] inlineData(Command c, List<Sge> sgl) throws Errno {
        long total = 0;
        for (Sge s : sgl) {
            total += s.unsignedLength();
        }
        if (total > MAX_INLINE) {
            throw Errno.of(Errno.EINVAL);
        }
        byte[] data = new byte[(int) total];
        int off = 0;
        for (Sge s : sgl) {
            byte[] part = c.caller.readMemory(s.addr(), s.length());
            System.arraycopy(part, 0, data, off, part.length);
            off += part.length;
        }
        return data;
    }

    static void postRecv(Command c) throws Errno {
        Arrays a = arrays(c, RECV, Abi.RECV_WR.size());
        List<ReceiveWorkRequest> wrs = recvWrs(c, a);
        QueuePair qp = c.file.objects.read(ObjectType.QP, c.at(RECV.handle(), 0));
        int bad = 0;
        try {
            c.file.device.hca().postRecv(qp, wrs);
        } catch (PostError e) {
            bad = e.badIndex() + 1;
            respondBad(c, bad);
            throw Errno.of(e.errno());
        }
        respondBad(c, bad);
    }

    static void postSrqRecv(Command c) throws Errno {
        Arrays a = arrays(c, SRQ_RECV, Abi.RECV_WR.size());
        List<ReceiveWorkRequest> wrs = recvWrs(c, a);
        SharedReceiveQueue srq = c.file.objects.read(ObjectType.SRQ, c.at(SRQ_RECV.handle(), 0));
        int bad = 0;
        try {
            c.file.device.hca().postSrqRecv(srq, wrs);
        } catch (PostError e) {
            bad = e.badIndex() + 1;
            respondBad(c, bad);
            throw Errno.of(e.errno());
        }
        respondBad(c, bad);
    }

    /** ib_uverbs_unmarshall_recv. */
    private static List<ReceiveWorkRequest> recvWrs(Command c, Arrays a) throws Errno {
        List<ReceiveWorkRequest> wrs = new ArrayList<>(a.wrCount());
        int sgIndex = 0;
        for (int i = 0; i < a.wrCount(); i++) {
            int at = a.wrs() + i * a.wqeSize();
            int numSge = (int) RECV_NUM_SGE.get(c.in, at);
            if (numSge < 0 || (long) numSge + sgIndex > a.sgeCount()) {
                throw Errno.of(Errno.EINVAL);
            }
            wrs.add(new ReceiveWorkRequest(RECV_WR_ID.get(c.in, at), sges(c, a, sgIndex, numSge)));
            sgIndex += numSge;
        }
        return wrs;
    }

    private static void respondBad(Command c, int bad) throws Errno {
        byte[] resp = c.newResponse();
        BAD_WR.put(resp, bad);
        c.respond(resp);
    }
}
