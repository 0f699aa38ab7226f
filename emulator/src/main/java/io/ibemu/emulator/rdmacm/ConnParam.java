package io.ibemu.emulator.rdmacm;

import io.ibemu.kernel.CStruct;

import java.util.Arrays;

/**
 * {@code struct rdma_conn_param} as ucma_copy_conn_param takes it from {@code rdma_ucm_conn_param}
 * and as ucma_copy_conn_event hands it back in an event: the QP number, private data, SRQ flag,
 * responder resources, initiator depth, flow control and the retry counts.
 */
record ConnParam(int qpNum, int qkey, byte[] privateData, boolean srq, int responderResources, int initiatorDepth,
                 boolean flowControl, int retryCount, int rnrRetryCount) {

    static ConnParam decode(CStruct s, String prefix, byte[] b) {
        int len = (int) s.field(prefix + "private_data_len").get(b, 0);
        byte[] data = Arrays.copyOf(s.field(prefix + "private_data").slice(b), len);
        return new ConnParam((int) s.field(prefix + "qp_num").get(b, 0), (int) s.field(prefix + "qkey").get(b, 0),
                data, s.field(prefix + "srq").get(b, 0) != 0, (int) s.field(prefix + "responder_resources").get(b, 0),
                (int) s.field(prefix + "initiator_depth").get(b, 0), s.field(prefix + "flow_control").get(b, 0) != 0,
                (int) s.field(prefix + "retry_count").get(b, 0), (int) s.field(prefix + "rnr_retry_count").get(b, 0));
    }

    /** The event's {@code param.conn} (rdma_ucm_conn_param; valid stays 0 as the kernel leaves it). */
    byte[] encode() {
        CStruct s = Ucma.CONN_PARAM;
        byte[] b = new byte[s.size()];
        s.field("qp_num").put(b, 0, qpNum);
        s.field("qkey").put(b, 0, qkey);
        System.arraycopy(privateData, 0, b, s.field("private_data").offset(), Math.min(privateData.length,
                Ucma.MAX_PRIVATE_DATA));
        s.field("private_data_len").put(b, 0, privateData.length);
        s.field("srq").put(b, 0, srq ? 1 : 0);
        s.field("responder_resources").put(b, 0, responderResources);
        s.field("initiator_depth").put(b, 0, initiatorDepth);
        s.field("flow_control").put(b, 0, flowControl ? 1 : 0);
        s.field("retry_count").put(b, 0, retryCount);
        s.field("rnr_retry_count").put(b, 0, rnrRetryCount);
        return b;
    }
}
