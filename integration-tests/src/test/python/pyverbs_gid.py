#!/usr/bin/python3
"""pyverbs_gid.py - the GID queries of rdma-core's tests/test_device.py, with Debian's pyverbs (TAP).

Run inside an ibemu instance:  /usr/bin/python3 pyverbs_gid.py ibemu0
ibv_query_gid_table and ibv_query_gid_ex go by ioctl (QUERY_GID_TABLE, QUERY_GID_ENTRY) on
kernels that have them and from sysfs on older ones; either way: the whole table comes back, a
buffer of no entries is EINVAL, each entry matches sysfs, and an empty slot is ENODATA (skipped,
as test_query_gid_ex_bad_flow skips, when every index holds a GID).
"""
import errno
import sys

from pyverbs.device import Context
from pyverbs.pyverbs_error import PyverbsRDMAError

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


def sysfs_gid(dev, port, index):
    with open(f"/sys/class/infiniband/{dev}/ports/{port}/gids/{index}") as f:
        return f.read().strip()


def main():
    dev = sys.argv[1] if len(sys.argv) > 1 else "ibemu0"
    ctx = Context(name=dev)
    ports = ctx.query_device().phys_port_cnt
    max_entries = sum(ctx.query_port(p).gid_tbl_len for p in range(1, ports + 1))

    # test_query_gid_table
    table = ctx.query_gid_table(max_entries)
    check(len(table) > 0, "query_gid_table(sum of gid_tbl_len) returns entries", f"{len(table)}")
    ok = all(sysfs_gid(dev, e.port_num, e.gid_index) == e.gid_str() for e in table)
    check(ok, "  ... each as sysfs has it", str([(e.port_num, e.gid_index, e.gid_str()) for e in table]))

    # test_query_gid_table_bad_flow
    try:
        ctx.query_gid_table(0)
        check(False, "query_gid_table(0): EINVAL", "succeeded")
    except PyverbsRDMAError as ex:
        check(abs(ex.error_code) == errno.EINVAL, "query_gid_table(0): EINVAL", f"errno {ex.error_code}")

    # test_query_gid_ex
    e = ctx.query_gid_ex(port_num=1, gid_index=0)
    check(e.gid_str() == sysfs_gid(dev, 1, 0) and e.gid_index == 0 and e.port_num == 1,
          "query_gid_ex(1, 0): the GID of sysfs gids/0", f"{e.gid_str()}")
    try:
        ctx.query_gid_ex(port_num=ports + 1, gid_index=0)
        check(False, "query_gid_ex of a port past the last: EINVAL", "succeeded")
    except PyverbsRDMAError as ex:
        check(abs(ex.error_code) == errno.EINVAL, "query_gid_ex of a port past the last: EINVAL",
              f"errno {ex.error_code}")

    # test_query_gid_ex_bad_flow: an index of port 1 the table does not list
    port = ctx.query_port(1)
    used = {t.gid_index for t in table if t.port_num == 1}
    free = sorted(set(range(port.gid_tbl_len)) - used) if port.gid_tbl_len > 1 else []
    if not free:
        checks_skip("query_gid_ex of an empty slot: ENODATA", "every index holds a GID")
    else:
        try:
            ctx.query_gid_ex(port_num=1, gid_index=free[0])
            check(False, "query_gid_ex of an empty slot: ENODATA", "succeeded")
        except PyverbsRDMAError as ex:
            check(abs(ex.error_code) == errno.ENODATA, "query_gid_ex of an empty slot: ENODATA",
                  f"errno {ex.error_code}")
    print(f"1..{checks}")
    return 1 if failed else 0


def checks_skip(desc, why):
    global checks
    checks += 1
    print(f"ok {checks} - {desc} # SKIP {why}")


if __name__ == "__main__":
    sys.exit(main())
