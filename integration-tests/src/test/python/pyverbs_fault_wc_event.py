#!/usr/bin/python3
"""pyverbs_fault_wc_event.py - injected completion statuses and async events (TAP output).

  /usr/bin/python3 pyverbs_fault_wc_event.py LAUNCHER INSTANCE
With RC QPs connected between ibemu0 and ibemu1, arms through `LAUNCHER ctl --name INSTANCE
fault add`: `on=wc ... status=REM_ACCESS_ERR count=1` (the first SEND completes with that status,
the QP goes to ERR and the SEND behind it flushes), `on=event ... event=QP_FATAL` (read by
ibv_get_async_event with the QP's handle; the QP is in ERR) and `on=event ... event=PORT_ERR`.
A rule naming a QP that does not exist is refused and adds nothing.
"""
import subprocess
import sys

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QPAttr
from pyverbs.wr import RecvWR, SendWR, SGE

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import pyverbs_check  # noqa: E402
from pyverbs_check import check, poll, rc_pair  # noqa: E402


def state(qp):
    attr, _ = qp.query(e.IBV_QP_STATE)
    return attr.qp_state


def main(launcher, instance):
    def ctl(*words, ok=True):
        r = subprocess.run([launcher, "ctl", "--name", instance, "fault", *words], capture_output=True, text=True)
        if ok and r.returncode != 0:
            raise RuntimeError(f"ctl fault {' '.join(words)}: {r.stderr}")
        return r

    a, b = Context(name="ibemu0"), Context(name="ibemu1")
    pd_a, pd_b = PD(a), PD(b)
    cq_a, cq_b = CQ(a, 32, None, None, 0), CQ(b, 32, None, None, 0)
    qa, qb = rc_pair(a, pd_a, cq_a, b, pd_b, cq_b)
    mr_a = MR(pd_a, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    mr_b = MR(pd_b, 4096, e.IBV_ACCESS_LOCAL_WRITE)

    rid = ctl("add", f"on=wc dev=ibemu0 qpn={qa.qp_num} opcode=SEND status=REM_ACCESS_ERR count=1").stdout.strip()
    for i in range(2):
        qb.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[SGE(mr_b.buf, 4096, mr_b.lkey)]))
    for wr_id in (10, 11):
        qa.post_send(SendWR(wr_id=wr_id, opcode=e.IBV_WR_SEND, num_sge=1, sg=[SGE(mr_a.buf, 64, mr_a.lkey)],
                            send_flags=e.IBV_SEND_SIGNALED))
    wcs = poll(cq_a, 2)
    got = [(wc.wr_id, wc.status) for wc in wcs]
    check(got == [(10, e.IBV_WC_REM_ACCESS_ERR), (11, e.IBV_WC_WR_FLUSH_ERR)],
          "the first SEND completes REM_ACCESS_ERR, the next one flushes", str(got))
    check(state(qa) == e.IBV_QPS_ERR, "the QP is in ERR after the injected error", str(state(qa)))
    listed = ctl("list").stdout
    check(any(ln.startswith(rid + " hits=1 matched=1 ") for ln in listed.splitlines()), "fault list: one hit", listed)

    qc, qd = rc_pair(a, pd_a, cq_a, b, pd_b, cq_b)
    ids = [rid, ctl("add", f"on=event dev=ibemu0 qpn={qc.qp_num} event=QP_FATAL").stdout.strip()]
    ev = a.get_async_event()
    check(ev.event_type == e.IBV_EVENT_QP_FATAL, "ibv_get_async_event reads IBV_EVENT_QP_FATAL", str(ev.event_type))
    ev.ack()
    check(state(qc) == e.IBV_QPS_ERR, "the QP the fatal event names is in ERR", str(state(qc)))
    check(state(qd) == e.IBV_QPS_RTS, "its peer is untouched", str(state(qd)))

    ids.append(ctl("add", "on=event dev=ibemu1 port=1 event=PORT_ERR").stdout.strip())
    ev = b.get_async_event()
    check(ev.event_type == e.IBV_EVENT_PORT_ERR, "ibv_get_async_event reads IBV_EVENT_PORT_ERR", str(ev.event_type))
    ev.ack()

    before = ctl("list").stdout
    bad = ctl("add", "on=event dev=ibemu0 qpn=999999 event=QP_FATAL", ok=False)
    check(bad.returncode == 1 and "no QP" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1,
          "an event for a QP that does not exist is refused in one line", bad.stderr)
    check(ctl("list").stdout == before, "and adds no rule")
    for i in ids:
        ctl("clear", i)

    for obj in (qa, qb, qc, qd, mr_a, mr_b, cq_a, cq_b, pd_a, pd_b, a, b):
        obj.close()
    print(f"1..{pyverbs_check.checks}")
    return 1 if pyverbs_check.failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
