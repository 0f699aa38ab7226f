package io.ibemu.emulator.uverbs.provider.rxe;

import io.ibemu.emulator.hca.AddressHandle;
import io.ibemu.emulator.hca.MwBind;
import io.ibemu.emulator.hca.SendRing;
import io.ibemu.emulator.hca.SendWorkRequest;
import io.ibemu.emulator.hca.Sge;
import io.ibemu.emulator.hca.WrOpcode;
import io.ibemu.emulator.uverbs.provider.UverbsSge;
import io.ibemu.kernel.CField;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A QP's send rxe_queue (QUEUE_TYPE_FROM_CLIENT): the provider writes rxe_send_wqe at the producer
 * index, stores it (release) and rings the doorbell, a POST_SEND with wr_count 0. The model fetches
 * from its own fetch index (rxe_requester's wqe_index) to the producer (acquire) and each WQE's
 * slot returns to the program at retire, when the consumer index moves on (release), as rxe's
 * completer does. UD WQEs name their AH by {@code ah_num}, resolved by the driver's table.
 */
final class SendQueueRing implements SendRing {
    private static final CField WR_ID = Rxe.SEND_WQE.field("wr.wr_id");
    private static final CField OPCODE = Rxe.SEND_WQE.field("wr.opcode");
    private static final CField SEND_FLAGS = Rxe.SEND_WQE.field("wr.send_flags");
    private static final CField EX = Rxe.SEND_WQE.field("wr.ex");
    private static final int UNION = Rxe.SEND_WQE.field("wr.wr").offset();
    private static final CField RDMA_ADDR = Rxe.WR_RDMA.field("remote_addr");
    private static final CField RDMA_RKEY = Rxe.WR_RDMA.field("rkey");
    private static final CField ATOMIC_ADDR = Rxe.WR_ATOMIC.field("remote_addr");
    private static final CField ATOMIC_COMPARE = Rxe.WR_ATOMIC.field("compare_add");
    private static final CField ATOMIC_SWAP = Rxe.WR_ATOMIC.field("swap");
    private static final CField ATOMIC_RKEY = Rxe.WR_ATOMIC.field("rkey");
    private static final CField UD_QPN = Rxe.WR_UD.field("remote_qpn");
    private static final CField UD_QKEY = Rxe.WR_UD.field("remote_qkey");
    private static final CField UD_AH_NUM = Rxe.WR_UD.field("ah_num");
    private static final CField MW_ADDR = Rxe.WR_MW.field("addr");
    private static final CField MW_LENGTH = Rxe.WR_MW.field("length");
    private static final CField MW_MR_LKEY = Rxe.WR_MW.field("mr_lkey");
    private static final CField MW_RKEY = Rxe.WR_MW.field("mw_rkey");
    private static final CField MW_NEW_RKEY = Rxe.WR_MW.field("rkey");
    private static final CField MW_ACCESS = Rxe.WR_MW.field("access");
    private static final CField DMA_LENGTH = Rxe.SEND_WQE.field("dma.length");
    private static final CField DMA_NUM_SGE = Rxe.SEND_WQE.field("dma.num_sge");
    private static final int PAYLOAD = Rxe.SEND_WQE.size();
    /** No opcode: what a WQE the ring cannot hold decodes to, so the model completes it with an error. */
    private static final int NO_OPCODE = -1;

    private final RxeQueue queue;
    private final boolean ud;
    private final IntFunction<AddressHandle> ahs;
    private final byte[] wqe;
    /** The bytes after rxe_send_wqe in a slot: SGEs or inline data. */
    private final int room;
    private int fetched;
    private int consumer;

    /** {@code ahs}: the AH of an {@code ah_num} usable by this QP, or null. */
    SendQueueRing(RxeQueue queue, boolean ud, IntFunction<AddressHandle> ahs) {
        this.queue = queue;
        this.ud = ud;
        this.ahs = ahs;
        this.wqe = new byte[queue.elementSize()];
        this.room = queue.elementSize() - PAYLOAD;
    }

    @Override
    public List<SendWorkRequest> fetch() {
        int producer = queue.acquireProducer();
        List<SendWorkRequest> out = new ArrayList<>(queue.count(producer, fetched));
        while (fetched != producer) {
            queue.read(fetched, wqe);
            out.add(decode());
            fetched = queue.next(fetched);
        }
        return out;
    }

    @Override
    public void retire() {
        consumer = queue.next(consumer);
        queue.releaseConsumer(consumer);
    }

    /** One rxe_send_wqe as the model's request (convert_send_wr's union, by opcode). */
    private SendWorkRequest decode() {
        long wrId = WR_ID.get(wqe, 0);
        int opcode = (int) OPCODE.get(wqe, 0);
        int flags = (int) SEND_FLAGS.get(wqe, 0);
        int ex = (int) EX.get(wqe, 0);
        boolean inline = (flags & WrOpcode.FLAG_INLINE) != 0;
        long numSge = DMA_NUM_SGE.get(wqe, 0);
        long inlineLength = DMA_LENGTH.get(wqe, 0);
        if (inline ? inlineLength > room : numSge * UverbsSge.SIZE > room) {
            opcode = NO_OPCODE; // more than the slot holds: the program wrote past its queue's limits
        }
        List<Sge> sgl = List.of();
        byte[] data = null;
        if (opcode != NO_OPCODE && inline) {
            data = Arrays.copyOfRange(wqe, PAYLOAD, PAYLOAD + (int) inlineLength);
        } else if (opcode != NO_OPCODE) {
            sgl = UverbsSge.decode(wqe, PAYLOAD, (int) numSge);
        }
        int imm = opcode == WrOpcode.SEND_WITH_IMM || opcode == WrOpcode.RDMA_WRITE_WITH_IMM
                || opcode == WrOpcode.SEND_WITH_INV || opcode == WrOpcode.LOCAL_INV ? ex : 0;
        MwBind bind = null;
        long remoteAddr = 0;
        int rkey = 0;
        long compareAdd = 0;
        long swap = 0;
        AddressHandle ah = null;
        int remoteQpn = 0;
        int remoteQkey = 0;
        if (ud) {
            ah = ahs.apply((int) UD_AH_NUM.get(wqe, UNION));
            remoteQpn = (int) UD_QPN.get(wqe, UNION);
            remoteQkey = (int) UD_QKEY.get(wqe, UNION);
        } else if (opcode == WrOpcode.RDMA_WRITE || opcode == WrOpcode.RDMA_WRITE_WITH_IMM
                || opcode == WrOpcode.RDMA_READ) {
            remoteAddr = RDMA_ADDR.get(wqe, UNION);
            rkey = (int) RDMA_RKEY.get(wqe, UNION);
        } else if (opcode == WrOpcode.ATOMIC_CMP_AND_SWP || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD) {
            remoteAddr = ATOMIC_ADDR.get(wqe, UNION);
            rkey = (int) ATOMIC_RKEY.get(wqe, UNION);
            compareAdd = ATOMIC_COMPARE.get(wqe, UNION);
            swap = ATOMIC_SWAP.get(wqe, UNION);
        } else if (opcode == WrOpcode.BIND_MW) {
            bind = new MwBind((int) MW_RKEY.get(wqe, UNION), (int) MW_NEW_RKEY.get(wqe, UNION),
                    (int) MW_MR_LKEY.get(wqe, UNION), MW_ADDR.get(wqe, UNION), MW_LENGTH.get(wqe, UNION),
                    (int) MW_ACCESS.get(wqe, UNION));
        }
        return new SendWorkRequest(wrId, opcode, flags, sgl, data, imm, remoteAddr, rkey, compareAdd, swap, ah,
                remoteQpn, remoteQkey, 0, bind);
    }
}
