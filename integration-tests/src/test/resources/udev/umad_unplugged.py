# Holds umad DEVICE open with an agent registered, waits in poll() until the port is unplugged,
# then prints what poll, read, write (a whole MAD) and agent registration return: as after
# ib_umad_kill_port, POLLERR, EIO, EIO, EPIPE.
import ctypes, fcntl, os, select, struct, sys

IB_USER_MAD_REGISTER_AGENT = 0xC01C1B01   # _IOWR(0x1b, 1, struct ib_user_mad_reg_req), 28 bytes
IB_USER_MAD_ENABLE_PKEY = 0x1B03

def register(fd):
    req = bytearray(28)  # id, method_mask[4], qpn=1, no class (sends only), oui, rmpp 0
    struct.pack_into("=I16sBBB3sB", req, 0, 0, b"\0" * 16, 1, 0, 0, b"\0\0\0", 0)
    fcntl.ioctl(fd, IB_USER_MAD_REGISTER_AGENT, req)
    return struct.unpack_from("=I", req)[0]

fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.ioctl(fd, IB_USER_MAD_ENABLE_PKEY)
agent = register(fd)
p = select.poll()
p.register(fd, select.POLLIN)
print("ready agent", agent, flush=True)
events = p.poll(60000)
print("poll", [ev for _, ev in events], flush=True)
for what, call in (("read", lambda: os.read(fd, 64 + 256)),
                   ("write", lambda: os.write(fd, struct.pack("=I", agent) + bytes(60 + 256))),
                   ("register", lambda: register(fd))):
    try:
        call()
        print(what, "ok", flush=True)
    except OSError as e:
        print(what, e.errno, flush=True)
