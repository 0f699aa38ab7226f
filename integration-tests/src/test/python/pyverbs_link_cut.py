#!/usr/bin/python3
"""pyverbs_link_cut.py - a cable pulled under a connected RC QP (TAP output).

  /usr/bin/python3 pyverbs_link_cut.py LAUNCHER INSTANCE NODE PORT
Connects RC QPs between ibemu0 and ibemu1, checks a SEND works, then cuts the cable at NODE's
PORT with `LAUNCHER ctl --name INSTANCE link cut NODE PORT` (the local HCA's own cable): the
next SEND is retried retry_cnt times at the QP's timeout and completes IBV_WC_RETRY_EXC_ERR, the
work request behind it flushes, and ibemu0's async queue reports IBV_EVENT_PORT_ERR. The cable
is plugged back in before the script exits.
"""
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.wr import RecvWR, SendWR, SGE

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from pyverbs_check import check, poll, rc_pair  # noqa: E402
import pyverbs_check  # noqa: E402


def main(launcher, instance, node, port):
    a, b = Context(name="ibemu0"), Context(name="ibemu1")
    pd_a, pd_b = PD(a), PD(b)
    cq_a, cq_b = CQ(a, 16, None, None, 0), CQ(b, 16, None, None, 0)
    qa, qb = rc_pair(a, pd_a, cq_a, b, pd_b, cq_b)
    mr_a = MR(pd_a, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    mr_b = MR(pd_b, 4096, e.IBV_ACCESS_LOCAL_WRITE)

    qb.post_recv(RecvWR(wr_id=1, num_sge=1, sg=[SGE(mr_b.buf, 4096, mr_b.lkey)]))
    qa.post_send(SendWR(wr_id=10, opcode=e.IBV_WR_SEND, num_sge=1, sg=[SGE(mr_a.buf, 64, mr_a.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED))
    ok = poll(cq_a)
    poll(cq_b)
    check(len(ok) == 1 and ok[0].status == e.IBV_WC_SUCCESS, "SEND over the cable before the cut")

    ctl = [launcher, "ctl", "--name", instance, "link"]
    subprocess.run(ctl + ["cut", node, port], check=True, stdout=subprocess.DEVNULL)
    try:
        event = a.get_async_event()
        check(event.event_type == e.IBV_EVENT_PORT_ERR, "async event IBV_EVENT_PORT_ERR on ibemu0",
              str(event.event_type))
        event.ack()
        started = time.monotonic()
        for wr_id in (11, 12):
            qa.post_send(SendWR(wr_id=wr_id, opcode=e.IBV_WR_SEND, num_sge=1,
                                sg=[SGE(mr_a.buf, 64, mr_a.lkey)], send_flags=e.IBV_SEND_SIGNALED))
        wcs = poll(cq_a, 2, timeout=30)
        took = time.monotonic() - started
        statuses = [(w.wr_id, w.status) for w in wcs]
        check(len(wcs) == 2 and wcs[0].wr_id == 11 and wcs[0].status == e.IBV_WC_RETRY_EXC_ERR,
              "SEND across the cut cable: IBV_WC_RETRY_EXC_ERR", str(statuses))
        check(len(wcs) == 2 and wcs[1].wr_id == 12 and wcs[1].status == e.IBV_WC_WR_FLUSH_ERR,
              "the request behind it: IBV_WC_WR_FLUSH_ERR", str(statuses))
        # timeout 14 (4.096 us * 2^14 = 67 ms), retry_cnt 7: eight tries, about 0.5 s
        check(0.3 < took < 10, f"the error came after the retries ({took:.2f} s)", f"{took:.2f} s")
        check(qa.query(e.IBV_QP_STATE)[0].cur_qp_state == e.IBV_QPS_ERR, "the QP is in ERR")
    finally:
        subprocess.run(ctl + ["restore", node, port], check=True, stdout=subprocess.DEVNULL)
    for obj in (qa, qb, mr_a, mr_b, cq_a, cq_b, pd_a, pd_b, a, b):
        obj.close()
    print(f"1..{pyverbs_check.checks}")
    return 1 if pyverbs_check.failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
