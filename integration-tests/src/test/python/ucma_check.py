#!/usr/bin/python3
"""ucma_check.py - /dev/infiniband/rdma_cm's write() ABI, raw (no librdmacm), TAP output.

  /usr/bin/python3 ucma_check.py LAUNCHER INSTANCE
Run inside an instance. Checks the device node against sysfs, ucma_write's framing errno (short
header, command out of range, `in` past the write, an empty slot, a short `out`), CREATE_ID in
the four port spaces, ids shared across files (another file's id EINVAL, an unknown one ENOENT),
GET_EVENT's EAGAIN under O_NONBLOCK and poll with no event, read/ioctl, and that close() and
kill -9 leave no id (`ctl objects`).
"""
import ctypes
import errno
import fcntl
import os
import select
import signal
import stat
import struct
import subprocess
import sys

DEV = "/dev/infiniband/rdma_cm"
CREATE_ID, DESTROY_ID, BIND_IP, RESOLVE_IP, GET_EVENT, GET_OPTION = 0, 1, 2, 3, 12, 13
PS_TCP, PS_UDP, PS_IB, PS_IPOIB = 0x0106, 0x0111, 0x013F, 0x0002
EVENT_RESP = 336

checks = 0
failed = 0


def check(ok, desc, detail=""):
    global checks, failed
    checks += 1
    print(f"{'ok' if ok else 'not ok'} {checks} - {desc}")
    if not ok:
        failed += 1
        for line in str(detail).splitlines():
            print(f"#   {line}")
    sys.stdout.flush()
    return ok


def errno_of(fn):
    try:
        fn()
        return 0
    except OSError as e:
        return e.errno


class Buf:
    """A response buffer whose address goes into a command."""

    def __init__(self, size):
        self.b = ctypes.create_string_buffer(size)

    @property
    def addr(self):
        return ctypes.addressof(self.b)

    def u32(self, at=0):
        return struct.unpack_from("<I", self.b.raw, at)[0]


def cmd(fd, number, body, out):
    return os.write(fd, struct.pack("<IHH", number, len(body), out) + body)


def create_id(fd, ps, uid=0x1234, qp_type=0):
    resp = Buf(4)
    cmd(fd, CREATE_ID, struct.pack("<QQHB5x", uid, resp.addr, ps, qp_type), 4)
    return resp.u32()


def destroy_id(fd, cm_id):
    resp = Buf(4)
    cmd(fd, DESTROY_ID, struct.pack("<QII", resp.addr, cm_id, 0), 4)
    return resp.u32()


def nl_chardev(client, dev_index=None):
    """RDMA netlink's GET_CHARDEV for client: (errno, {attr: bytes})."""
    import socket
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 20)  # NETLINK_RDMA
    def attr(kind, payload):
        n = 4 + len(payload)
        return struct.pack("<HH", n, kind) + payload + b"\0" * ((4 - n % 4) % 4)
    body = attr(69, client.encode() + b"\0")  # CHARDEV_TYPE
    if dev_index is not None:
        body += attr(1, struct.pack("<I", dev_index))  # DEV_INDEX
    msg_type = (5 << 10) | 15  # RDMA_NL_NLDEV, GET_CHARDEV
    sock.send(struct.pack("<IHHII", 16 + len(body), msg_type, 1 | 4, 1, 0) + body)  # NLM_F_REQUEST|ACK
    data = sock.recv(8192)
    sock.close()
    length, kind = struct.unpack_from("<IH", data)
    if kind == 2:  # NLMSG_ERROR
        return -struct.unpack_from("<i", data, 16)[0], {}
    attrs, at = {}, 16
    while at + 4 <= length:
        n, a = struct.unpack_from("<HH", data, at)
        attrs[a] = data[at + 4:at + n]
        at += (n + 3) & ~3
    return 0, attrs


AF_INET, AF_INET6, AF_IB = 2, 10, 27
RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ADDR_ERROR, RDMA_CM_EVENT_ROUTE_RESOLVED = 0, 1, 2
RESOLVE_ROUTE = 4
ETIMEDOUT = 110


def sin(ip, port=0):
    """A sockaddr_in6-sized member holding a sockaddr_in."""
    return struct.pack("<H", AF_INET) + struct.pack(">H", port) + bytes(int(x) for x in ip.split(".")) + b"\0" * 20


def bind_ip(fd, cm_id, ip, port=0):
    return cmd(fd, BIND_IP, struct.pack("<Q", 0) + sin(ip, port) + struct.pack("<I", cm_id), 0)


def resolve_ip(fd, cm_id, dst, timeout_ms=2000, src=None):
    return cmd(fd, RESOLVE_IP, (sin(src) if src else b"\0" * 28) + sin(dst) + struct.pack("<II", cm_id, timeout_ms), 0)


def get_event(fd):
    ev = Buf(EVENT_RESP)
    cmd(fd, GET_EVENT, struct.pack("<Q", ev.addr), EVENT_RESP)
    uid, cm_id, event, status = struct.unpack_from("<QIIi", ev.b.raw)
    return uid, cm_id, event, status


def query_addr(fd, cm_id):
    resp = Buf(280)
    cmd(fd, 19, struct.pack("<QII", resp.addr, cm_id, 0), 280)
    guid, port, _, pkey, src_size, dst_size = struct.unpack_from(">QBBHHH", resp.b.raw)
    src = resp.b.raw[16:16 + 128]
    return guid, port, struct.unpack_from(">H", resp.b.raw, 10)[0], src  # pkey in network order


def addresses(launcher, instance):
    """The IPv4 addresses of ib0 and ib1."""
    out = subprocess.run(["ip", "-o", "-4", "addr"], capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        t = line.split()
        found[t[1]] = t[3].split("/")[0]
    return found


def node_guid(hca):
    with open(f"/sys/class/infiniband/{hca}/node_guid") as f:
        return int(f.read().strip().replace(":", ""), 16)


def cm_ids(launcher, instance):
    out = subprocess.run([launcher, "ctl", "--name", instance, "objects"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("rdma_cm "):
            return int(line.split("cm_id=")[1].split()[0])
    return -1


def main():
    launcher, instance = sys.argv[1], sys.argv[2]
    st = os.stat(DEV)
    with open("/sys/class/misc/rdma_cm/dev") as f:
        major, minor = (int(x) for x in f.read().split(":"))
    check(stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == major and os.minor(st.st_rdev) == minor
          and major == 10, "rdma_cm is a misc char device whose number sysfs gives", (st, major, minor))
    with open("/sys/class/misc/rdma_cm/abi_version") as f:
        check(f.read() == "4\n", "abi_version is 4")
    check(os.path.realpath("/sys/class/misc/rdma_cm") == "/sys/devices/virtual/misc/rdma_cm",
          "/sys/class/misc/rdma_cm links to the virtual misc device")

    err, attrs = nl_chardev("rdma_cm")
    dev = struct.unpack("<Q", attrs[72])[0] if 72 in attrs else -1
    check(err == 0 and dev == (minor & 0xff) | (major << 8) and struct.unpack("<Q", attrs.get(71, b"\0" * 8))[0] == 4
          and attrs.get(70, b"").rstrip(b"\0") == b"rdma_cm", "netlink GET_CHARDEV rdma_cm: its dev_t, ABI 4, name",
          (err, attrs))
    check(nl_chardev("rdma_cm", 0)[0] == errno.EOPNOTSUPP, "GET_CHARDEV rdma_cm for a device: EOPNOTSUPP")

    fd = os.open(DEV, os.O_RDWR | os.O_CLOEXEC)
    check(errno_of(lambda: os.write(fd, b"\0" * 4)) == errno.EINVAL, "a write shorter than the header: EINVAL")
    check(errno_of(lambda: cmd(fd, 23, b"\0" * 24, 4)) == errno.EINVAL, "command 23 (past JOIN_MCAST): EINVAL")
    check(errno_of(lambda: cmd(fd, 0xffffffff, b"", 0)) == errno.EINVAL, "command 0xffffffff: EINVAL")
    check(errno_of(lambda: os.write(fd, struct.pack("<IHH", CREATE_ID, 100, 4) + b"\0" * 24)) == errno.EINVAL,
          "hdr.in past the write: EINVAL")
    check(errno_of(lambda: cmd(fd, GET_OPTION, b"\0" * 24, 64)) == errno.ENOSYS, "GET_OPTION (no handler): ENOSYS")
    resp = Buf(4)
    check(errno_of(lambda: cmd(fd, CREATE_ID, struct.pack("<QQHB5x", 1, resp.addr, PS_TCP, 0), 3)) == errno.ENOSPC,
          "CREATE_ID with out 3: ENOSPC")
    check(errno_of(lambda: cmd(fd, CREATE_ID, struct.pack("<QQHB5x", 1, resp.addr, 0x1234, 0), 4)) == errno.EINVAL,
          "CREATE_ID in an unknown port space: EINVAL")
    check(errno_of(lambda: cmd(fd, CREATE_ID, struct.pack("<QQHB5x", 1, 8, PS_TCP, 0), 4)) == errno.EFAULT,
          "CREATE_ID with an unwritable response: EFAULT")
    check(cm_ids(launcher, instance) == 0, "the failed CREATE_ID left no id")
    ids = [create_id(fd, ps) for ps in (PS_TCP, PS_UDP, PS_IB, PS_IPOIB)]
    check(len(set(ids)) == 4, f"CREATE_ID in TCP, UDP, IB and IPOIB: ids {ids}")
    check(cm_ids(launcher, instance) == 4, "ctl objects counts 4 ids")

    other = os.open(DEV, os.O_RDWR | os.O_NONBLOCK)
    check(errno_of(lambda: destroy_id(other, ids[0])) == errno.EINVAL, "DESTROY_ID of another file's id: EINVAL")
    check(errno_of(lambda: destroy_id(fd, 0x7fffffff)) == errno.ENOENT, "DESTROY_ID of an id nobody has: ENOENT")
    ev = Buf(EVENT_RESP)
    check(errno_of(lambda: cmd(other, GET_EVENT, struct.pack("<Q", ev.addr), EVENT_RESP)) == errno.EAGAIN,
          "GET_EVENT with no event under O_NONBLOCK: EAGAIN")
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
    check(errno_of(lambda: cmd(fd, GET_EVENT, struct.pack("<Q", ev.addr), EVENT_RESP)) == errno.EAGAIN,
          "GET_EVENT with no event after fcntl(F_SETFL, O_NONBLOCK): EAGAIN")
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    check(errno_of(lambda: cmd(other, GET_EVENT, struct.pack("<Q", ev.addr), EVENT_RESP - 1)) == errno.ENOSPC,
          "GET_EVENT with out one byte short: ENOSPC")
    p = select.poll()
    p.register(other, select.POLLIN)
    check(p.poll(0) == [], "poll with no event: not readable")
    check(errno_of(lambda: os.read(fd, 64)) == errno.EINVAL, "read(): EINVAL (ucma has none)")
    check(errno_of(lambda: fcntl.ioctl(fd, 0x1b01, b"\0" * 24)) == errno.ENOTTY, "ioctl(): ENOTTY")
    check(destroy_id(fd, ids[0]) == 0, "DESTROY_ID answers events_reported 0")
    again = create_id(fd, PS_TCP)
    check(again == ids[0], f"the lowest free id is given again ({again})")
    m = create_id(fd, PS_TCP)
    mresp = Buf(4)
    rp, wp = os.pipe()
    check(errno_of(lambda: cmd(fd, 18, struct.pack("<QII", mresp.addr, m, 1000), 4)) == errno.ENOENT,
          "MIGRATE_ID to a descriptor that is not open: ENOENT")
    check(errno_of(lambda: cmd(fd, 18, struct.pack("<QII", mresp.addr, m, rp), 4)) == errno.EINVAL,
          "MIGRATE_ID to a pipe: EINVAL")
    os.close(rp)
    os.close(wp)
    cmd(other, 18, struct.pack("<QII", mresp.addr, m, fd), 4)
    check(errno_of(lambda: destroy_id(fd, m)) == errno.EINVAL and destroy_id(other, m) == 0,
          "MIGRATE_ID written to another file moves the id there from the file fd names")
    os.close(other)
    os.close(fd)
    check(cm_ids(launcher, instance) == 0, "close() destroyed every id of the file")

    ip = addresses(launcher, instance)
    fd = os.open(DEV, os.O_RDWR)
    a = create_id(fd, PS_TCP)
    check(errno_of(lambda: bind_ip(fd, a, "10.99.99.99")) == errno.EADDRNOTAVAIL,
          "BIND_IP to an address no interface has: EADDRNOTAVAIL")
    check(bind_ip(fd, a, ip["ib0"], 7471) > 0, f"BIND_IP to ib0's {ip['ib0']}:7471")
    check(errno_of(lambda: bind_ip(fd, a, ip["ib0"], 7472)) == errno.EINVAL, "a second bind of the id: EINVAL")
    b = create_id(fd, PS_TCP)
    check(errno_of(lambda: bind_ip(fd, b, "0.0.0.0", 7471)) == errno.EADDRNOTAVAIL,
          "another id on the same TCP port, at the any address: EADDRNOTAVAIL (cma_check_port)")
    u = create_id(fd, PS_UDP)
    check(bind_ip(fd, u, ip["ib0"], 7471) > 0, "the same port in the UDP port space is free")
    ib_sockaddr = struct.pack("<H", AF_IB) + b"\0" * 26
    check(errno_of(lambda: cmd(fd, BIND_IP, struct.pack("<Q", 0) + ib_sockaddr + struct.pack("<I", b), 0))
          == errno.EINVAL, "BIND_IP of an AF_IB address: EINVAL (rdma_addr_size_in6)")
    guid, port, pkey, src = query_addr(fd, a)
    check(guid == node_guid("ibemu0") and port == 1 and pkey == 0xffff,
          "QUERY ADDR of the bound id: ibemu0 port 1, P_Key 0xffff", (hex(guid), port, hex(pkey)))

    c = create_id(fd, PS_TCP)
    resolve_ip(fd, c, ip["ib1"])
    p = select.poll()
    p.register(fd, select.POLLIN)
    check(p.poll(10000) != [], "poll turns readable when ADDR_RESOLVED is queued")
    uid, cm_id, event, status = get_event(fd)
    check((uid, cm_id, event, status) == (0x1234, c, RDMA_CM_EVENT_ADDR_RESOLVED, 0),
          "RESOLVE_IP to ib1's address: ADDR_RESOLVED for the id with its uid", (uid, cm_id, event, status))
    guid, port, pkey, src = query_addr(fd, c)
    check(guid == node_guid("ibemu1") and src[4:8] == bytes(int(x) for x in ip["ib1"].split(".")),
          "a local destination resolves through its own interface (ibemu1, source = destination)",
          (hex(guid), src[:8].hex()))
    check(errno_of(lambda: resolve_ip(fd, c, ip["ib1"])) == errno.EINVAL, "RESOLVE_IP of a resolved id: EINVAL")
    check(errno_of(lambda: cmd(fd, RESOLVE_ROUTE, struct.pack("<II", a, 1000), 0)) == errno.EINVAL,
          "RESOLVE_ROUTE of a bound, unresolved id: EINVAL")
    cmd(fd, RESOLVE_ROUTE, struct.pack("<II", c, 2000), 0)
    uid, cm_id, event, status = get_event(fd)
    check((cm_id, event, status) == (c, RDMA_CM_EVENT_ROUTE_RESOLVED, 0),
          "RESOLVE_ROUTE: ROUTE_RESOLVED with OpenSM's PathRecord", (cm_id, event, status))
    resp = Buf(8 + 72)
    cmd(fd, 19, struct.pack("<QII", resp.addr, c, 1), 8 + 72 + 1)
    num_paths = resp.u32()
    flags = resp.u32(8)
    dlid = struct.unpack_from(">H", resp.b.raw, 16 + 40)[0]
    with open("/sys/class/infiniband/ibemu1/ports/1/lid") as f:
        lid = int(f.read(), 16)
    check(num_paths == 1 and flags == 0x2b and dlid == lid,
          f"QUERY PATH: one primary bidirectional path to ibemu1's LID {lid}", (num_paths, hex(flags), dlid))
    d = create_id(fd, PS_TCP)
    check(errno_of(lambda: resolve_ip(fd, d, "10.99.99.99")) == errno.ENETUNREACH,
          "RESOLVE_IP with no route: ENETUNREACH")
    net = ip["ib0"].rsplit(".", 1)[0]
    resolve_ip(fd, d, net + ".250", timeout_ms=300)
    uid, cm_id, event, status = get_event(fd)
    check((cm_id, event, status) == (d, RDMA_CM_EVENT_ADDR_ERROR, -ETIMEDOUT),
          "RESOLVE_IP to an address nobody answers ARP for: ADDR_ERROR -ETIMEDOUT", (cm_id, event, status))
    os.close(fd)

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        f = os.open(DEV, os.O_RDWR)
        for ps in (PS_TCP, PS_UDP):
            create_id(f, ps)
        os.write(w, b"x")
        signal.pause()
        os._exit(0)
    os.close(w)
    os.read(r, 1)
    check(cm_ids(launcher, instance) == 2, "a child holds 2 ids")
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    left = -1
    for _ in range(200):  # the release follows the exit; a bound, not a measure of speed
        left = cm_ids(launcher, instance)
        if left == 0:
            break
        select.select([], [], [], 0.05)
    check(left == 0, "kill -9 of the holder destroyed its ids", left)

    print(f"1..{checks}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
