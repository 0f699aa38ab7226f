#!/usr/bin/python3
"""pyverbs_capture_traffic.py - RC traffic whose packets a capture should show (TAP output).

Run inside an ibemu instance with two local HCAs whose ports an SM made Active:
  /usr/bin/python3 pyverbs_capture_traffic.py ibemu0 ibemu1
One RC QP per HCA, the requester's SQ PSN fixed at 0x123456. It sends an RDMA WRITE of 64
bytes (a RETH on the wire), then a SEND while the responder has no receive posted (RNR NAKs,
retried for ever) and posts the receive 50 ms later, so the SEND completes; then an RDMA READ
of 8 KiB (eight response packets at a 1024-byte path MTU) and an atomic fetch-and-add. Prints
the rkey and address the WRITE used, for the caller to find in the capture.
"""
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE

SQ_PSN = 0x123456
checks = 0
failed = 0


def check(ok, desc, detail=""):
    global checks, failed
    checks += 1
    print(f"ok {checks} - {desc}" if ok else f"not ok {checks} - {desc}: {detail}")
    failed += 0 if ok else 1
    sys.stdout.flush()


def poll(cq, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        n, wcs = cq.poll(1)
        if n:
            return wcs[0]
    return None


def connect(q, other, ctx, sq_psn):
    lid = ctx.query_port(1).lid
    attr = QPAttr(qp_state=e.IBV_QPS_INIT, port_num=1)
    attr.qp_access_flags = (e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ
                            | e.IBV_ACCESS_REMOTE_ATOMIC)
    q.to_init(attr)
    attr = QPAttr(qp_state=e.IBV_QPS_RTR, port_num=1)
    attr.path_mtu = e.IBV_MTU_1024
    attr.dest_qp_num = other.qp_num
    attr.rq_psn = 0
    attr.max_dest_rd_atomic = 1
    attr.min_rnr_timer = 14  # 1.28 ms between RNR retries
    attr.ah_attr = AHAttr(dlid=lid, port_num=1)
    q.to_rtr(attr)
    attr = QPAttr(qp_state=e.IBV_QPS_RTS, port_num=1)
    attr.timeout = 14
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    attr.sq_psn = sq_psn
    attr.max_rd_atomic = 1
    q.to_rts(attr)


def main(dev_a, dev_b):
    a, b = Context(name=dev_a), Context(name=dev_b)
    pd_a, pd_b = PD(a), PD(b)
    cq_a, cq_b = CQ(a, 16), CQ(b, 16)
    cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
    qa = QP(pd_a, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq_a, rcq=cq_a, cap=cap))
    qb = QP(pd_b, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq_b, rcq=cq_b, cap=cap))
    connect(qa, qb, b, SQ_PSN)
    connect(qb, qa, a, 0)
    access = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
              | e.IBV_ACCESS_REMOTE_ATOMIC)
    mr_a, mr_b = MR(pd_a, 16384, access), MR(pd_b, 16384, access)
    mr_a.write(b"w" * 64, 64)

    wr = SendWR(wr_id=1, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1, sg=[SGE(mr_a.buf, 64, mr_a.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(mr_b.rkey, mr_b.buf)
    qa.post_send(wr)
    wc = poll(cq_a)
    check(wc is not None and wc.status == e.IBV_WC_SUCCESS, "RDMA WRITE completes", str(wc))
    print(f"# write rkey {mr_b.rkey:#x} va {mr_b.buf:#x}")

    qa.post_send(SendWR(wr_id=2, opcode=e.IBV_WR_SEND, num_sge=1, sg=[SGE(mr_a.buf, 32, mr_a.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED))
    time.sleep(0.05)
    check(cq_a.poll(1)[0] == 0, "the SEND waits while the responder has no receive (RNR)")
    qb.post_recv(RecvWR(wr_id=3, num_sge=1, sg=[SGE(mr_b.buf + 1024, 64, mr_b.lkey)]))
    wc = poll(cq_a)
    check(wc is not None and wc.status == e.IBV_WC_SUCCESS, "the SEND completes once a receive is posted", str(wc))
    wc = poll(cq_b)
    check(wc is not None and wc.status == e.IBV_WC_SUCCESS and wc.byte_len == 32, "the responder receives it",
          str(wc))

    wr = SendWR(wr_id=4, opcode=e.IBV_WR_RDMA_READ, num_sge=1, sg=[SGE(mr_a.buf + 4096, 8192, mr_a.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(mr_b.rkey, mr_b.buf + 4096)
    qa.post_send(wr)
    wc = poll(cq_a)
    check(wc is not None and wc.status == e.IBV_WC_SUCCESS and wc.byte_len == 8192, "RDMA READ of 8 KiB", str(wc))

    wr = SendWR(wr_id=5, opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD, num_sge=1, sg=[SGE(mr_a.buf + 2048, 8, mr_a.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_atomic(mr_b.rkey, mr_b.buf + 2048, 5, 0)
    qa.post_send(wr)
    wc = poll(cq_a)
    check(wc is not None and wc.status == e.IBV_WC_SUCCESS, "fetch-and-add", str(wc))
    print(f"1..{checks}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
