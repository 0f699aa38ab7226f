#!/usr/bin/python3
"""pyverbs_memlock.py - REG_MR charges RLIMIT_MEMLOCK as ib_umem_get does (TAP output).

Run as a user without CAP_IPC_LOCK under a small limit, e.g.
  sh -c 'ulimit -l 64; setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 pyverbs_memlock.py'
Regions are counted in pages against the limit: one that fits registers, one past it is ENOMEM,
and deregistering gives the pages back.
"""
import errno
import resource
import sys

from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError

n = 0
bad = 0


def check(ok, desc, detail=""):
    global n, bad
    n += 1
    bad += 0 if ok else 1
    print(f"{'ok' if ok else 'not ok'} {n} - {desc}{'' if ok else ': ' + detail}")


limit = resource.getrlimit(resource.RLIMIT_MEMLOCK)[0]
check(0 < limit <= 1 << 20, f"running under a small memlock limit ({limit} bytes)", str(limit))
ctx = Context(name=sys.argv[1] if len(sys.argv) > 1 else "ibemu0")
pd = PD(ctx)
first = MR(pd, limit // 2, 1)
check(True, "a region of half the limit registers")
try:
    MR(pd, limit, 1)
    check(False, "a region past what is left: ENOMEM", "registered")
except PyverbsRDMAError as ex:
    check(ex.error_code == errno.ENOMEM, "a region past what is left: ENOMEM", f"errno {ex.error_code}")
first.close()
again = MR(pd, limit // 2 + 4096, 1)
check(True, "after deregistering, the pages count again")
again.close()
pd.close()
ctx.close()
print(f"1..{n}")
sys.exit(1 if bad else 0)
