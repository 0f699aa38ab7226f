package io.ibemu.emulator.hca;

/**
 * ibv_qp_init_attr as create_qp gets it: the type, completion queues (an XRC_TGT QP has none; an
 * XRC_INI QP no receive CQ), an optional SRQ, the capabilities asked for, whether every send is
 * signaled ({@code sq_sig_all}), and the XRC domain (XRC_TGT only).
 */
public record QpInitAttributes(QpType type, CompletionQueue sendCq, CompletionQueue recvCq,
        SharedReceiveQueue srq, QpCapabilities cap, boolean sqSigAll, Xrcd xrcd) {
}
