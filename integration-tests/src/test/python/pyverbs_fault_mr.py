#!/usr/bin/python3
"""pyverbs_fault_mr.py - an injected allocation failure seen through pyverbs (TAP output).

  /usr/bin/python3 pyverbs_fault_mr.py LAUNCHER INSTANCE DEVICE
Arms `on=uverbs:REG_MR errno=ENOMEM nth=3 pid=<this process>` with `LAUNCHER ctl --name INSTANCE
fault add`, then registers five MRs on DEVICE: the third fails with ENOMEM, the others succeed,
and the failed one left nothing behind (the next registration still works, the lkeys differ).
Then `on=uverbs:CREATE_CQ errno=EAGAIN nth=1`: libibverbs creates the CQ by ioctl (CQ_CREATE), and
the rule names the verb whichever path it takes.
"""
import errno
import os
import subprocess
import sys

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import pyverbs_check  # noqa: E402
from pyverbs_check import check  # noqa: E402


def main(launcher, instance, device):
    rule = f"on=uverbs:REG_MR errno=ENOMEM nth=3 pid={os.getpid()}"
    rid = subprocess.run([launcher, "ctl", "--name", instance, "fault", "add", rule], check=True,
                         capture_output=True, text=True).stdout.strip()
    check(rid.isdigit(), "ctl fault add prints the rule's id", rid)
    ctx = Context(name=device)
    pd = PD(ctx)
    mrs, outcomes = [], []
    for i in range(1, 6):
        try:
            mrs.append(MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE))
            outcomes.append(0)
        except PyverbsRDMAError as ex:
            outcomes.append(ex.error_code)
    check(outcomes == [0, 0, errno.ENOMEM, 0, 0], "only the third REG_MR fails, with ENOMEM", str(outcomes))
    check(len({mr.lkey for mr in mrs}) == 4, "four distinct regions registered", str([mr.lkey for mr in mrs]))
    listed = subprocess.run([launcher, "ctl", "--name", instance, "fault", "list"], check=True,
                            capture_output=True, text=True).stdout
    line = [ln for ln in listed.splitlines() if ln.startswith(rid + " ")]
    check(len(line) == 1 and " hits=1 matched=5 " in line[0], "fault list: one hit in five matches", listed)
    subprocess.run([launcher, "ctl", "--name", instance, "fault", "clear", rid], check=True,
                   stdout=subprocess.DEVNULL)

    # libibverbs creates CQs by the ioctl method CQ_CREATE: the same verb as the write command CREATE_CQ
    rule = f"on=uverbs:CREATE_CQ errno=EAGAIN nth=1 pid={os.getpid()}"
    rid = subprocess.run([launcher, "ctl", "--name", instance, "fault", "add", rule], check=True,
                         capture_output=True, text=True).stdout.strip()
    try:
        CQ(ctx, 8, None, None, 0)
        check(False, "the first CQ creation fails with EAGAIN", "it succeeded")
    except PyverbsRDMAError as ex:
        check(ex.error_code == errno.EAGAIN, "the first CQ creation fails with EAGAIN", str(ex))
    cq = CQ(ctx, 8, None, None, 0)
    check(True, "the next one succeeds")
    cq.close()
    subprocess.run([launcher, "ctl", "--name", instance, "fault", "clear", rid], check=True,
                   stdout=subprocess.DEVNULL)
    for mr in mrs:
        mr.close()
    pd.close()
    ctx.close()
    print(f"1..{pyverbs_check.checks}")
    return 1 if pyverbs_check.failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
