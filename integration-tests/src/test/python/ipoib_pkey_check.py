#!/usr/bin/python3
"""ipoib_pkey_check.py - P_Key child interfaces (TAP output).

  /usr/bin/python3 ipoib_pkey_check.py LAUNCHER INSTANCE
Run inside an instance of three local HCAs (ib0, ib1, ib2) under OpenSM with a partition
0x8001 that holds the ports of ib0 and ib1 only. Makes the child ibN.8001 of each with
`ctl ipoib child add` (what create_child does), moves ib1.8001 and ib2.8001 into network
namespaces of their own (other hosts), and checks: the children of the member ports have
carrier (they joined the partition's broadcast group) and ping each other across the fabric;
ib2.8001, whose port lacks the key, stays without carrier and cannot be reached.
"""
import re
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import ipoib_check as t  # noqa: E402
from ipoib_check import Peer, check, ctl, run, until  # noqa: E402

ADDR = {"ib0.8001": "10.80.1.1", "ib1.8001": "10.80.1.2", "ib2.8001": "10.80.1.3"}


def main(launcher, instance):
    for parent in ("ib0", "ib1", "ib2"):
        r = ctl(launcher, instance, "ipoib", "child", "add", parent, "0x8001")
        check(r.returncode == 0 and r.stdout.strip() == parent + ".8001", f"ctl ipoib child add {parent} 0x8001",
              r.stdout + r.stderr)
    r = ctl(launcher, instance, "ipoib", "child", "add", "ib0", "0x8001")
    check(r.returncode != 0 and "exists" in r.stderr, "a second ib0.8001 is refused", r.stdout + r.stderr)
    links = run(["ip", "-o", "link"]).stdout
    check(re.search(r"ib0\.8001: <BROADCAST,MULTICAST> mtu 2044", links) is not None,
          "ib0.8001 made down, datagram MTU", links)

    peers = {"ib1.8001": Peer(), "ib2.8001": Peer()}
    try:
        run(["ip", "addr", "add", ADDR["ib0.8001"] + "/24", "dev", "ib0.8001"], check=True)
        run(["ip", "link", "set", "ib0.8001", "up"], check=True)
        for name, peer in peers.items():
            run(["ip", "link", "set", name, "netns", str(peer.holder.pid)], check=True)
            for argv in (["ip", "link", "set", "lo", "up"], ["ip", "addr", "add", ADDR[name] + "/24", "dev", name],
                         ["ip", "link", "set", name, "up"]):
                peer.cmd(argv, check=True)
        member = peers["ib1.8001"]
        outsider = peers["ib2.8001"]
        carrier = until(lambda: "LOWER_UP" in member.cmd(["ip", "link", "show", "ib1.8001"]).stdout)
        check(carrier, "ib1.8001 has carrier: its port joined partition 0x8001's broadcast group",
              member.cmd(["ip", "link", "show", "ib1.8001"]).stdout)
        r = until(lambda: t.ping_ok([], ADDR["ib1.8001"]))
        check(r is not None, "ping ib0.8001 -> ib1.8001 in partition 0x8001", r.stdout if r else "")
        r = t.ping(["nsenter", f"--net={member.ns}", "--"], ADDR["ib0.8001"], 3)
        check(r.returncode == 0 and " 0% packet loss" in r.stdout, "ping ib1.8001 -> ib0.8001", r.stdout)
        shown = outsider.cmd(["ip", "link", "show", "ib2.8001"]).stdout
        check("NO-CARRIER" in shown, "ib2.8001 has no carrier: its port's P_Key table lacks 0x8001", shown)
        r = t.ping([], ADDR["ib2.8001"], 3)
        check(r.returncode != 0 and " 0 received" in r.stdout, "ib2.8001 cannot be reached", r.stdout)
        table = ctl(launcher, instance, "ipoib").stdout
        check(re.search(r"ib2\.8001 port ibemu2/1 address \S+ carrier off pkey 0x8001", table) is not None
              and re.search(r"ib1\.8001 port ibemu1/1 address \S+ carrier on pkey 0x8001", table) is not None,
              "ctl ipoib: the children's partitions and carriers", table)
    finally:
        import os
        for name, peer in peers.items():
            peer.cmd(["ip", "link", "set", name, "netns", str(os.getpid())])
            peer.close()
    for name in ADDR:
        r = ctl(launcher, instance, "ipoib", "child", "remove", name)
        check(r.returncode == 0, f"ctl ipoib child remove {name}", r.stderr)
    links = run(["ip", "-o", "link"]).stdout
    check(".8001" not in links, "the children are gone", links)
    r = ctl(launcher, instance, "ipoib", "child", "remove", "ib0")
    check(r.returncode != 0 and "no P_Key child ib0" in r.stderr, "a port's own interface is not a child",
          r.stdout + r.stderr)
    print(f"1..{t.checks}")
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
