#!/usr/bin/python3
"""ipoib_check.py - IP over InfiniBand between two local HCAs' interfaces (TAP output).

  /usr/bin/python3 ipoib_check.py LAUNCHER INSTANCE CUT_NODE
Run inside an instance started with --ipoib and two local single-port HCAs (ib0, ib1). Both
interfaces sit in the instance's network namespace, where the kernel would route between
them over lo: ib1 is moved into a network namespace of this script's own (the "peer", as if
it were another host), so that every packet crosses the emulated fabric. Checks ARP both ways
(the daemon's 20-byte addresses behind the kernel's neighbour entries), ping both ways, a
broadcast ping answered through the broadcast group, a TCP transfer of 4 MiB compared byte for
byte, the PMA counters, and `ctl link cut` stopping the traffic and `link restore` resuming
it. ib1 goes back to the instance's namespace before the script exits.
"""
import hashlib
import os
import re
import subprocess
import sys
import time

checks = 0
failed = 0

ADDR_A, ADDR_B = "169.254.77.1", "169.254.77.2"
# how long the script waits for something the subnet manager must do first (sweep, multicast
# routes): a bound on a wait that normally ends much sooner, never a measure of speed
SM_WAIT = 90


def check(ok, desc, detail=""):
    global checks, failed
    checks += 1
    if ok:
        print(f"ok {checks} - {desc}")
    else:
        failed += 1
        print(f"not ok {checks} - {desc}")
        for line in str(detail).splitlines():
            print(f"#   {line}")
    sys.stdout.flush()
    return ok


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


class Peer:
    """A network namespace of the script's own, held open by a sleeping child."""

    def __init__(self):
        self.holder = subprocess.Popen(["unshare", "-n", "sleep", "infinity"])
        ns = f"/proc/{self.holder.pid}/ns/net"
        while os.readlink(ns) == os.readlink("/proc/self/ns/net"):
            time.sleep(0.05)
        self.ns = ns

    def cmd(self, argv, **kw):
        return run(["nsenter", f"--net={self.ns}", "--"] + argv, **kw)

    def popen(self, argv, **kw):
        return subprocess.Popen(["nsenter", f"--net={self.ns}", "--"] + argv, **kw)

    def close(self):
        self.holder.kill()
        self.holder.wait()


def ping(argv_prefix, address, count=3, extra=()):
    return run(argv_prefix + ["ping", "-n", "-c", str(count), "-W", "10"] + list(extra) + [address])


def until(fn, seconds=SM_WAIT):
    """fn() until it returns something true or `seconds` pass; the last result."""
    deadline = time.monotonic() + seconds
    while True:
        r = fn()
        if r or time.monotonic() > deadline:
            return r
        time.sleep(0.5)


def ping_ok(prefix, address):
    r = ping(prefix, address, 1)
    return r if r.returncode == 0 else None


def counter(dev, name):
    with open(f"/sys/class/infiniband/{dev}/ports/1/counters/{name}") as f:
        return int(f.read())


def ctl(launcher, instance, *words):
    return run([launcher, "ctl", "--name", instance] + list(words))


def neighbours(launcher, instance):
    """`ctl ipoib`: {interface: (own 20-byte address, {mac: 20-byte address})}."""
    out = ctl(launcher, instance, "ipoib").stdout
    result, current = {}, None
    for line in out.splitlines():
        m = re.match(r"(\S+) port (\S+) address (\S+) carrier (\w+)", line)
        if m:
            current = m.group(1)
            result[current] = (m.group(3), {})
        m = re.match(r"\s+neigh (\S+) (\S+)", line)
        if m and current:
            result[current][1][m.group(1)] = m.group(2)
    return result


def kernel_neighbour(argv_prefix, address):
    out = run(argv_prefix + ["ip", "neigh", "show", address]).stdout
    m = re.search(r"lladdr (\S+)", out)
    return m.group(1) if m else None


def main(launcher, instance, cut_node, mode="datagram"):
    links = run(["ip", "-o", "link"]).stdout
    check(re.search(r"\bib0: .*mtu 2044", links) and re.search(r"\bib1: .*mtu 2044", links),
          "ib0 and ib1 in the instance's namespace, datagram-mode MTU 2044", links)
    if mode == "connected":
        # the mode file is reachable while the interface is in this namespace: before the move
        for name in ("ib0", "ib1"):
            with open(f"/sys/class/net/{name}/mode", "w") as f:
                f.write("connected\n")
        links = run(["ip", "-o", "link"]).stdout
        check(re.search(r"\bib0: .*mtu 65520", links) and re.search(r"\bib1: .*mtu 65520", links),
              "connected mode: MTU 65520 on both", links)
    addrs = run(["ip", "-o", "-4", "addr"]).stdout
    check(f"ib0    inet {ADDR_A}/24" in addrs and f"ib1    inet {ADDR_B}/24" in addrs
          and "lo    inet 127.0.0.1/8" in addrs, "addresses in port order from 169.254.77.0/24, lo up", addrs)

    v6 = run(["ip", "-6", "-o", "addr", "show", "dev", "ib0"]).stdout
    check("inet6 fe80::211:7500:0:101/64 scope link" in v6,
          "ib0's link-local address is its port GUID's (addrconf_ifid_infiniband), not the MAC's", v6)

    peer = Peer()
    try:
        run(["ip", "link", "set", "ib1", "netns", str(peer.holder.pid)], check=True)
        for argv in (["ip", "link", "set", "lo", "up"], ["ip", "addr", "add", f"{ADDR_B}/24", "brd", "+", "dev", "ib1"],
                     ["ip", "link", "set", "ib1", "up"],
                     ["sysctl", "-q", "-w", "net.ipv4.icmp_echo_ignore_broadcasts=0"]):
            r = peer.cmd(argv)
            check(r.returncode == 0, "peer: " + " ".join(argv), r.stderr)
        r = run(["rdma", "link", "show", "ibemu1/1"])
        check(r.returncode == 0 and "netdev" not in r.stdout,
              "rdma link: ibemu1/1 names no netdev while ib1 is in another namespace", r.stdout + r.stderr)
        r = run(["rdma", "link", "show", "ibemu0/1"])
        check(r.returncode == 0 and "netdev ib0" in r.stdout, "rdma link: ibemu0/1 has netdev ib0", r.stdout + r.stderr)
        carrier = until(lambda: "LOWER_UP" in peer.cmd(["ip", "link", "show", "ib1"]).stdout)
        check(carrier, "ib1 has carrier: its port joined the broadcast group through the SA",
              peer.cmd(["ip", "link", "show", "ib1"]).stdout)

        xmit_before = counter("ibemu0", "port_xmit_packets")
        rcv_before = counter("ibemu1", "port_rcv_packets")
        r = until(lambda: ping_ok([], ADDR_B))
        check(r is not None, f"ping {ADDR_B} from ib0 (across both switches)", r.stdout if r else "")
        r = ping([], ADDR_B, 5)
        check(r.returncode == 0 and " 0% packet loss" in r.stdout, "5 pings ib0 -> ib1, none lost", r.stdout)
        r = ping(["nsenter", f"--net={peer.ns}", "--"], ADDR_A, 5)
        check(r.returncode == 0 and " 0% packet loss" in r.stdout, "5 pings ib1 -> ib0, none lost", r.stdout)
        def peer_link_local():
            out = peer.cmd(["ip", "-6", "-o", "addr", "show", "dev", "ib1", "scope", "link"]).stdout
            m = re.search(r"inet6 (fe80::\S+)/64 scope link\s*\\", out)
            return m.group(1) if m and "tentative" not in out else None
        link_local = until(peer_link_local)
        r = until(lambda: ping_ok([], f"{link_local}%ib0")) if link_local else None
        check(r is not None, "IPv6: ping ib1's link-local address, neighbour discovery across the fabric",
              (r.stdout if r else "") + str(link_local))
        xmit = counter("ibemu0", "port_xmit_packets") - xmit_before
        rcv = counter("ibemu1", "port_rcv_packets") - rcv_before
        check(xmit >= 11 and rcv >= 11, "PMA: ibemu0 transmitted and ibemu1 received the pings",
              f"xmit {xmit} rcv {rcv}")

        table = neighbours(launcher, instance)
        mac_b = kernel_neighbour([], ADDR_B)
        mac_a = kernel_neighbour(["nsenter", f"--net={peer.ns}", "--"], ADDR_A)
        own_a, seen_by_a = table.get("ib0", (None, {}))
        own_b, seen_by_b = table.get("ib1", (None, {}))
        check(mac_b is not None and seen_by_a.get(mac_b) == own_b,
              "ib0's ARP entry for ib1 stands for ib1's 20-byte address", f"{mac_b} {table}")
        check(mac_a is not None and seen_by_b.get(mac_a) == own_a,
              "ib1's ARP entry for ib0 stands for ib0's 20-byte address", f"{mac_a} {table}")
        with open("/sys/class/infiniband/ibemu1/ports/1/gids/0") as f:
            gid_b = f.read().strip().replace(":", "")
        hw = (own_b or "").replace(":", "")
        check(len(hw) == 40 and hw[8:] == gid_b and int(hw[2:8], 16) > 1,
              "ib1's hardware address: flags, its UD QPN, then its port GID", f"{own_b} gid {gid_b}")

        r = ping([], f"169.254.77.255", 3, ["-b"])
        check(f"from {ADDR_B}" in r.stdout, "a broadcast ping reaches ib1 through the broadcast group", r.stdout)

        data = os.urandom(4 << 20)
        server = peer.popen(["/usr/bin/python3", "-c", TCP_SERVER, ADDR_B], stdout=subprocess.PIPE, text=True)
        try:
            port = int(server.stdout.readline())
            client = run(["/usr/bin/python3", "-c", TCP_CLIENT, ADDR_B, str(port)], input=data.hex(), timeout=300)
            received = server.stdout.readline().strip()
        finally:
            server.kill()
            server.wait()
        check(client.returncode == 0 and received == hashlib.sha256(data).hexdigest(),
              "4 MiB over TCP ib0 -> ib1, byte for byte (SHA-256)", client.stderr + received)

        r = ctl(launcher, instance, "link", "cut", cut_node, "1")
        check(r.returncode == 0, f"ctl link cut {cut_node} 1", r.stderr)
        r = ping([], ADDR_B, 3)
        check(r.returncode != 0 and " 0 received" in r.stdout, "no ping crosses the cut cable", r.stdout)
        r = ctl(launcher, instance, "link", "restore", cut_node, "1")
        check(r.returncode == 0, f"ctl link restore {cut_node} 1", r.stderr)
        r = until(lambda: ping_ok([], ADDR_B))
        check(r is not None, "pings cross again once the subnet manager brings the port back",
              ping([], ADDR_B, 1).stdout)
    finally:
        peer.cmd(["ip", "link", "set", "ib1", "netns", str(os.getpid())])
        peer.close()
    links = run(["ip", "-o", "link"]).stdout
    check(re.search(r"\bib1:", links), "ib1 is back in the instance's namespace", links)
    print(f"1..{checks}")
    return 1 if failed else 0


TCP_SERVER = r"""
import hashlib, socket, sys
s = socket.socket()
s.bind((sys.argv[1], 0))
s.listen(1)
print(s.getsockname()[1], flush=True)
c, _ = s.accept()
h = hashlib.sha256()
while True:
    b = c.recv(1 << 16)
    if not b:
        break
    h.update(b)
print(h.hexdigest(), flush=True)
"""

TCP_CLIENT = r"""
import socket, sys
data = bytes.fromhex(sys.stdin.read())
c = socket.create_connection((sys.argv[1], int(sys.argv[2])))
c.sendall(data)
c.close()
"""

if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
