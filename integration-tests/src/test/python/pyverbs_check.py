#!/usr/bin/python3
"""pyverbs_check.py - Debian's python3-pyverbs against the emulated HCAs (TAP output).

Run inside an ibemu instance with two local HCAs whose ports an SM made Active:
  /usr/bin/python3 pyverbs_check.py ibemu0 ibemu1
Opens and queries every device and port, creates PD, MR, CQ with a completion channel, SRQ,
RC and UD QPs, walks the QP states, moves data between the two HCAs with RC SEND and RDMA
WRITE, and checks that each error pyverbs raises for a bad argument carries the kernel's errno.
"""
import errno
import os
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ, CompChannel
from pyverbs.device import Context, get_device_list
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE

checks = 0
failed = 0


def check(ok, desc, detail=""):
    global checks, failed
    checks += 1
    if ok:
        print(f"ok {checks} - {desc}")
    else:
        failed += 1
        print(f"not ok {checks} - {desc}: {detail}")
    sys.stdout.flush()


def check_errno(want, desc, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except PyverbsRDMAError as ex:
        check(ex.error_code == want, desc, f"errno {ex.error_code}, want {want} ({ex})")
        return
    except PyverbsError as ex:
        check(False, desc, f"PyverbsError without errno: {ex}")
        return
    check(False, desc, f"succeeded, want errno {want}")


def sysfs(dev, rel):
    with open(f"/sys/class/infiniband/{dev}/{rel}") as f:
        return f.read().strip()


def poll(cq, count=1, timeout=10.0):
    """Busy-polls until count completions arrived; returns them."""
    got = []
    end = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < end:
        n, wcs = cq.poll(count - len(got))
        got.extend(wcs[:n])
    return got


def rc_pair(ctx_a, pd_a, cq_a, ctx_b, pd_b, cq_b):
    """Two RC QPs, one per HCA, connected to each other and in RTS."""
    cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=1, max_recv_sge=1)
    qa = QP(pd_a, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq_a, rcq=cq_a, cap=cap))
    qb = QP(pd_b, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq_b, rcq=cq_b, cap=cap))
    for (q, other, ctx) in ((qa, qb, ctx_b), (qb, qa, ctx_a)):
        lid = ctx.query_port(1).lid
        attr = QPAttr(qp_state=e.IBV_QPS_INIT, port_num=1)
        attr.qp_access_flags = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ
        q.to_init(attr)
        attr = QPAttr(qp_state=e.IBV_QPS_RTR, port_num=1)
        attr.path_mtu = e.IBV_MTU_1024
        attr.dest_qp_num = other.qp_num
        attr.rq_psn = 0
        attr.max_dest_rd_atomic = 1
        attr.min_rnr_timer = 12
        attr.ah_attr = AHAttr(dlid=lid, port_num=1)
        q.to_rtr(attr)
        attr = QPAttr(qp_state=e.IBV_QPS_RTS, port_num=1)
        attr.timeout = 14
        attr.retry_cnt = 7
        attr.rnr_retry = 7
        attr.sq_psn = 0
        attr.max_rd_atomic = 1
        q.to_rts(attr)
    return qa, qb


def main(devs):
    names = [d.name.decode() for d in get_device_list()]
    for dev in devs:
        check(dev in names, f"get_device_list names {dev}", str(names))

    ctxs = [Context(name=d) for d in devs]
    for dev, ctx in zip(devs, ctxs):
        attr = ctx.query_device()
        guid = sysfs(dev, "node_guid").replace(":", "")
        # pyverbs hands node_guid over as the __be64 the kernel wrote, read in host order
        check(attr.node_guid == int.from_bytes(bytes.fromhex(guid), "little"),
              f"{dev}: query_device node_guid is sysfs'", f"{attr.node_guid:#x} vs {guid}")
        check(attr.phys_port_cnt >= 1, f"{dev}: phys_port_cnt >= 1", str(attr.phys_port_cnt))
        check(attr.vendor_id == 0x1077, f"{dev}: vendor_id 0x1077", hex(attr.vendor_id))
        for port in range(1, attr.phys_port_cnt + 1):
            pa = ctx.query_port(port)
            state = int(sysfs(dev, f"ports/{port}/state").split(":")[0])
            check(pa.state == state, f"{dev} port {port}: state {state} as sysfs", str(pa.state))
            check(pa.lid == int(sysfs(dev, f"ports/{port}/lid"), 16), f"{dev} port {port}: lid as sysfs", str(pa.lid))
        check_errno(errno.EINVAL, f"{dev}: query_port(0) EINVAL", ctx.query_port, 0)
        check_errno(errno.EINVAL, f"{dev}: query_port({attr.phys_port_cnt + 1}) EINVAL", ctx.query_port,
                    attr.phys_port_cnt + 1)

    a, b = ctxs
    pd_a, pd_b = PD(a), PD(b)
    chan = CompChannel(a)
    cq_a = CQ(a, 64, None, chan, 0)
    cq_b = CQ(b, 64, None, None, 0)
    check(True, "PD, completion channel and CQs created")
    check_errno(errno.EINVAL, "CQ with 0 entries: EINVAL", CQ, a, 0, None, None, 0)
    check_errno(errno.EINVAL, "CQ on comp vector 99: EINVAL", CQ, a, 8, None, None, 99)
    check_errno(errno.EINVAL, "MR with REMOTE_WRITE but no LOCAL_WRITE: EINVAL", MR, pd_a, 4096,
                e.IBV_ACCESS_REMOTE_WRITE)

    srq = SRQ(pd_a, SrqInitAttr(SrqAttr(max_wr=16, max_sge=1)))
    check(srq.query().max_wr >= 16, "SRQ created and queried", str(srq.query().max_wr))
    ud = QP(pd_a, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq_a, rcq=cq_a,
                             cap=QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)))
    ud_attr = QPAttr(qp_state=e.IBV_QPS_RTS, port_num=1)
    ud_attr.qkey = 0x11111111
    ud.to_rts(ud_attr)
    check(ud.query(e.IBV_QP_STATE)[0].cur_qp_state == e.IBV_QPS_RTS, "UD QP walked RESET->INIT->RTR->RTS")

    # a transition with a missing required attribute (RTR of RC without dest QPN etc.): EINVAL
    bad = QP(pd_a, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq_a, rcq=cq_a,
                              cap=QPCap(max_send_wr=1, max_recv_wr=1, max_send_sge=1, max_recv_sge=1)))
    check_errno(errno.EINVAL, "RC RESET->RTR directly: EINVAL", bad.modify, QPAttr(qp_state=e.IBV_QPS_RTR),
                e.IBV_QP_STATE)

    qa, qb = rc_pair(a, pd_a, cq_a, b, pd_b, cq_b)
    check(qa.query(e.IBV_QP_STATE)[0].cur_qp_state == e.IBV_QPS_RTS, "RC QPs in RTS")

    size = 1 << 16
    access = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
    mr_a = MR(pd_a, size, access)
    mr_b = MR(pd_b, size, access)
    payload = os.urandom(size)

    # SEND a -> b, received with a completion on b's CQ
    qb.post_recv(RecvWR(wr_id=7, num_sge=1, sg=[SGE(mr_b.buf, size, mr_b.lkey)]))
    mr_a.write(payload, size)
    qa.post_send(SendWR(wr_id=1, opcode=e.IBV_WR_SEND, num_sge=1, sg=[SGE(mr_a.buf, size, mr_a.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED))
    sent = poll(cq_a)
    recv = poll(cq_b)
    check(len(sent) == 1 and sent[0].status == e.IBV_WC_SUCCESS, "RC SEND completes at the sender",
          str([(w.status, w.opcode) for w in sent]))
    check(len(recv) == 1 and recv[0].status == e.IBV_WC_SUCCESS and recv[0].byte_len == size and recv[0].wr_id == 7,
          "RC SEND received whole", str([(w.status, w.byte_len) for w in recv]))
    check(mr_b.read(size, 0) == payload, "received bytes equal the sent ones")

    # RDMA WRITE b -> a, armed completion on a's channel for the sender? a is the target: poll b
    payload2 = os.urandom(size)
    mr_b.write(payload2, size)
    wr = SendWR(wr_id=2, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1, sg=[SGE(mr_b.buf, size, mr_b.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(mr_a.rkey, mr_a.buf)
    qb.post_send(wr)
    done = poll(cq_b)
    check(len(done) == 1 and done[0].status == e.IBV_WC_SUCCESS, "RDMA WRITE completes",
          str([w.status for w in done]))
    check(mr_a.read(size, 0) == payload2, "RDMA WRITE placed the bytes in the remote region")

    # a completion event on a's channel
    cq_a.req_notify()
    qa.post_recv(RecvWR(wr_id=9, num_sge=1, sg=[SGE(mr_a.buf, size, mr_a.lkey)]))
    qb.post_send(SendWR(wr_id=3, opcode=e.IBV_WR_SEND, num_sge=1, sg=[SGE(mr_b.buf, 64, mr_b.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED))
    chan.get_cq_event(cq_a)
    cq_a.ack_events(1)
    got = poll(cq_a)
    poll(cq_b)
    check(len(got) == 1 and got[0].wr_id == 9, "completion channel reports the armed CQ",
          str([w.wr_id for w in got]))

    # bad keys: the remote access error status
    wr = SendWR(wr_id=4, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1, sg=[SGE(mr_b.buf, 8, mr_b.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(mr_a.rkey ^ 0x5a5a00, mr_a.buf)
    qb.post_send(wr)
    err = poll(cq_b)
    check(len(err) == 1 and err[0].status == e.IBV_WC_REM_ACCESS_ERR, "bad rkey: IBV_WC_REM_ACCESS_ERR",
          str([w.status for w in err]))

    # beyond the device's limits (pyverbs closes dependants first, so EBUSY cannot be provoked through it)
    max_wr = a.query_device().max_qp_wr
    check_errno(errno.EINVAL, f"RC QP with {max_wr + 1} send WRs (max_qp_wr {max_wr}): EINVAL", QP, pd_a,
                QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq_a, rcq=cq_a,
                           cap=QPCap(max_send_wr=max_wr + 1, max_recv_wr=1, max_send_sge=1, max_recv_sge=1)))
    for obj in (qa, qb, bad, ud, srq, mr_a, mr_b, cq_a, cq_b, chan, pd_a, pd_b):
        obj.close()
    for ctx in ctxs:
        ctx.close()
    check(True, "every object destroyed")
    print(f"1..{checks}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["ibemu0", "ibemu1"]))
