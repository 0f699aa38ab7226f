#!/usr/bin/python3
"""pyverbs_rxe.py - the rxe provider's own verbs on ibemu's --provider rxe (TAP).

Run inside an ibemu instance serving --provider rxe, with two local HCAs an SM made Active:
  /usr/bin/python3 pyverbs_rxe.py ibemu0 ibemu1
With Debian's python3-pyverbs: the extended CQ (ibv_create_cq_ex, start_poll/next_poll), the
extended QP's post API (ibv_wr_start, ibv_wr_send, ibv_wr_rdma_write, ibv_wr_bind_mw,
ibv_wr_complete) over the mapped send queue, and a type 2 memory window bound through it: a
remote write inside the window lands, one outside it or after the window's remote invalidation
(SEND_WITH_INV) fails with a remote access error.
"""
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr
from pyverbs.cq import CQEX, CqInitAttrEx, PollCqAttr
from pyverbs.device import Context
from pyverbs.mr import MR, MW, MWBindInfo
from pyverbs.pd import PD
from pyverbs.qp import QPAttr, QPCap, QPEx, QPInitAttrEx
from pyverbs.wr import RecvWR, SGE

checks = 0
failed = 0


def check(ok, desc, detail=""):
    global checks, failed
    checks += 1
    print(f"ok {checks} - {desc}" if ok else f"not ok {checks} - {desc}: {detail}")
    if not ok:
        failed += 1
    sys.stdout.flush()


def poll_ex(cq, timeout=10.0):
    """One completion from an extended CQ: (status, opcode, wr_id, byte_len), or None."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if cq.start_poll(PollCqAttr()) == 0:
                got = (cq.status, cq.read_opcode(), cq.wr_id, cq.read_byte_len(), cq.read_wc_flags())
                cq.end_poll()
                return got
        except Exception:  # ENOENT: empty
            pass
    return None


SEND_OPS = (e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_RDMA_WRITE | e.IBV_QP_EX_WITH_BIND_MW
            | e.IBV_QP_EX_WITH_SEND_WITH_INV)
ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_MW_BIND


class Side:
    def __init__(self, dev):
        self.ctx = Context(name=dev)
        self.pd = PD(self.ctx)
        self.cq = CQEX(self.ctx, CqInitAttrEx(cqe=64, wc_flags=e.IBV_WC_STANDARD_FLAGS))
        self.mr = MR(self.pd, 8192, ACCESS)
        cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=1, max_recv_sge=1)
        self.qp = QPEx(self.ctx, QPInitAttrEx(cap=cap, qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq, pd=self.pd,
                                              send_ops_flags=SEND_OPS,
                                              comp_mask=e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
        self.lid = self.ctx.query_port(1).lid

    def connect(self, other):
        attr = QPAttr(qp_state=e.IBV_QPS_INIT, port_num=1)
        attr.qp_access_flags = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_LOCAL_WRITE
        self.qp.to_init(attr)
        attr = QPAttr(qp_state=e.IBV_QPS_RTR, port_num=1)
        attr.path_mtu = e.IBV_MTU_1024
        attr.dest_qp_num = other.qp.qp_num
        attr.rq_psn = 0
        attr.max_dest_rd_atomic = 1
        attr.min_rnr_timer = 12
        attr.ah_attr = AHAttr(dlid=other.lid, port_num=1)
        self.qp.to_rtr(attr)
        attr = QPAttr(qp_state=e.IBV_QPS_RTS, port_num=1)
        attr.timeout = 14
        attr.retry_cnt = 7
        attr.rnr_retry = 7
        attr.sq_psn = 0
        attr.max_rd_atomic = 1
        self.qp.to_rts(attr)


def inc_rkey(rkey):
    return (rkey & ~0xFF) | ((rkey + 1) & 0xFF)


def main(devs):
    a, b = Side(devs[0]), Side(devs[1])
    a.connect(b)
    b.connect(a)
    check(True, "extended CQs and RC extended QPs created and connected")

    # ---- ibv_wr_send through the mapped send queue, polled from the extended CQ
    b.qp.post_recv(RecvWR(wr_id=7, num_sge=1, sg=[SGE(b.mr.buf, 64, b.mr.lkey)]))
    a.mr.write(b"rxe-send", 8)
    a.qp.wr_start()
    a.qp.wr_id = 0x51
    a.qp.wr_flags = e.IBV_SEND_SIGNALED
    a.qp.wr_send()
    a.qp.wr_set_sge(SGE(a.mr.buf, 8, a.mr.lkey))
    a.qp.wr_complete()
    s = poll_ex(a.cq)
    check(s is not None and s[0] == e.IBV_WC_SUCCESS and s[1] == e.IBV_WC_SEND and s[2] == 0x51,
          "ibv_wr_send completes: IBV_WC_SEND, its wr_id", str(s))
    r = poll_ex(b.cq)
    check(r is not None and r[0] == e.IBV_WC_SUCCESS and r[1] == e.IBV_WC_RECV and r[2] == 7 and r[3] == 8,
          "the receive completes: IBV_WC_RECV, 8 bytes", str(r))
    check(b.mr.read(8, 0) == b"rxe-send", "the bytes landed")

    # ---- a type 2 window over [1024, 1536) of B's region, bound with ibv_wr_bind_mw
    mw = MW(b.pd, mw_type=e.IBV_MW_TYPE_2)
    key = inc_rkey(mw.rkey)
    b.qp.wr_start()
    b.qp.wr_id = 0x61
    b.qp.wr_flags = e.IBV_SEND_SIGNALED
    b.qp.wr_bind_mw(mw, key, MWBindInfo(b.mr, b.mr.buf + 1024, 512, e.IBV_ACCESS_REMOTE_WRITE))
    b.qp.wr_complete()
    w = poll_ex(b.cq)
    check(w is not None and w[0] == e.IBV_WC_SUCCESS and w[1] == e.IBV_WC_BIND_MW,
          "ibv_wr_bind_mw completes: IBV_WC_BIND_MW", str(w))

    def write(wr_id, addr, rkey):
        a.qp.wr_start()
        a.qp.wr_id = wr_id
        a.qp.wr_flags = e.IBV_SEND_SIGNALED
        a.qp.wr_rdma_write(rkey, addr)
        a.qp.wr_set_sge(SGE(a.mr.buf, 8, a.mr.lkey))
        a.qp.wr_complete()
        return poll_ex(a.cq)

    a.mr.write(b"windowed", 8)
    c = write(0x71, b.mr.buf + 1100, key)
    check(c is not None and c[0] == e.IBV_WC_SUCCESS and c[1] == e.IBV_WC_RDMA_WRITE,
          "RDMA WRITE through the window's rkey succeeds", str(c))
    check(b.mr.read(8, 1100) == b"windowed", "the write landed inside the window")

    # ---- SEND_WITH_INV frees the window; a write through its key then fails
    b.qp.post_recv(RecvWR(wr_id=8, num_sge=1, sg=[SGE(b.mr.buf, 64, b.mr.lkey)]))
    a.qp.wr_start()
    a.qp.wr_id = 0x81
    a.qp.wr_flags = e.IBV_SEND_SIGNALED
    a.qp.wr_send_inv(key)
    a.qp.wr_set_sge(SGE(a.mr.buf, 8, a.mr.lkey))
    a.qp.wr_complete()
    s = poll_ex(a.cq)
    r = poll_ex(b.cq)
    check(s is not None and s[0] == e.IBV_WC_SUCCESS, "SEND_WITH_INV completes at the sender", str(s))
    # the kernel's IB_WC_WITH_INVALIDATE (1 << 2), which rxe hands over unchanged: libibverbs
    # names bit 2 IBV_WC_IP_CSUM_OK and bit 3 IBV_WC_WITH_INV, so no flag name fits it
    check(r is not None and r[0] == e.IBV_WC_SUCCESS and r[4] == 1 << 2,
          "the receive's wc_flags: the kernel's IB_WC_WITH_INVALIDATE", str(r))
    c = write(0x72, b.mr.buf + 1100, key)
    check(c is not None and c[0] == e.IBV_WC_REM_ACCESS_ERR,
          "RDMA WRITE through the invalidated window: IBV_WC_REM_ACCESS_ERR", str(c))

    print(f"1..{checks}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:3]))
