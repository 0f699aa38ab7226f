/*
 * rdma_netlink.c - the NETLINK_RDMA socket and the nldev protocol, raw.
 *
 * Build: gcc -O2 -Wall -o rdma_netlink rdma_netlink.c
 * Run:   ./rdma_netlink     (inside the emulator's namespace, supervised, as root)
 *
 * Rules from net/netlink/af_netlink.c (netlink_create, netlink_bind, netlink_getname,
 * netlink_setsockopt, netlink_sendmsg, netlink_recvmsg, netlink_ack, netlink_dump),
 * lib/nlattr.c (validate_nla, liberal parsing), drivers/infiniband/core/netlink.c
 * (rdma_nl_rcv_skb, rdma_nl_rcv_msg) and nldev.c (the handlers and nldev_policy).
 */
#include "probe.h"

#include <linux/capability.h>
#include <linux/netlink.h>
#include <poll.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#define NLDEV(op) RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op)
#define BUF 16384

static char rx[BUF];

struct msg {
	char b[1024];
	int len;
};

static void put_hdr(struct msg *m, int type, int flags, int seq)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->b;

	memset(m, 0, sizeof(*m));
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	h->nlmsg_seq = seq;
	m->len = NLMSG_HDRLEN;
	h->nlmsg_len = m->len;
}

static void put_attr(struct msg *m, int type, const void *data, int len)
{
	struct nlattr *a = (struct nlattr *)(m->b + m->len);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(m->b + m->len + NLA_HDRLEN, data, len);
	m->len += NLA_ALIGN(a->nla_len);
	((struct nlmsghdr *)m->b)->nlmsg_len = m->len;
}

static void put_u32(struct msg *m, int type, uint32_t v)
{
	put_attr(m, type, &v, 4);
}

static int nl_open(int type)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, type | SOCK_CLOEXEC, NETLINK_RDMA);

	if (fd < 0)
		t_bail("socket(AF_NETLINK, NETLINK_RDMA): %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		t_bail("bind: %s", strerror(errno));
	return fd;
}

static void nl_send(int fd, struct msg *m)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	if (sendto(fd, m->b, m->len, 0, (struct sockaddr *)&to, sizeof(to)) != m->len)
		t_bail("sendto: %s", strerror(errno));
}

/* One datagram within `ms`, or -1 (errno ETIMEDOUT); checks the sender is the kernel. */
static int nl_recv(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct sockaddr_nl from;
	struct iovec iov = { rx, sizeof(rx) };
	struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1 };
	int n;

	if (poll(&p, 1, ms) != 1) {
		errno = ETIMEDOUT;
		return -1;
	}
	memset(&from, 0xff, sizeof(from));
	n = recvmsg(fd, &mh, 0);
	if (n >= 0 && (mh.msg_namelen != sizeof(from) || from.nl_family != AF_NETLINK || from.nl_pid != 0))
		t_bail("recvmsg: sender is not the kernel (namelen %u family %u pid %u)", mh.msg_namelen,
		       from.nl_family, from.nl_pid);
	return n;
}

/* The attribute `type` of the message at `h`, or NULL. */
static struct nlattr *attr(struct nlmsghdr *h, int type)
{
	int rem = h->nlmsg_len - NLMSG_HDRLEN;
	struct nlattr *a = (struct nlattr *)NLMSG_DATA(h);

	for (; rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= rem;
	     rem -= NLA_ALIGN(a->nla_len), a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
	return NULL;
}

static void *adata(struct nlattr *a)
{
	return (char *)a + NLA_HDRLEN;
}

/* A request answered by one NLMSG_ERROR: its error code (0 = ack), or 1 if something else came. */
static int error_of(int fd, struct msg *m, struct nlmsghdr **out)
{
	struct nlmsghdr *h;

	nl_send(fd, m);
	if (nl_recv(fd, 2000) < (int)NLMSG_HDRLEN)
		return 1;
	h = (struct nlmsghdr *)rx;
	if (out)
		*out = h;
	if (h->nlmsg_type != NLMSG_ERROR)
		return 1;
	return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
}

static int setopt(int fd, int opt, int v)
{
	return setsockopt(fd, SOL_NETLINK, opt, &v, sizeof(v));
}

/* Drops CAP_NET_ADMIN from the effective set (capset), as an unprivileged tool would run. */
static void drop_net_admin(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) != 0)
		t_bail("capget: %s", strerror(errno));
	data[0].effective &= ~(1u << CAP_NET_ADMIN);
	if (syscall(SYS_capset, &hdr, data) != 0)
		t_bail("capset: %s", strerror(errno));
}

int main(void)
{
	struct sockaddr_nl sa;
	socklen_t sl;
	struct msg m;
	struct nlmsghdr *h;
	struct nlmsgerr *e;
	struct stat st;
	int fd, fd2, r, v, n, seen;
	uint32_t u;

	watchdog(60);

	/* ---- the socket (netlink_create, netlink_bind, netlink_getname) ---- */
	t_errno(socket(AF_NETLINK, SOCK_STREAM, NETLINK_RDMA), errno, ESOCKTNOSUPPORT,
		"socket(SOCK_STREAM): ESOCKTNOSUPPORT");
	fd = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_RDMA);
	t_ok(fd >= 0, "socket(SOCK_DGRAM, NETLINK_RDMA) succeeds");
	sl = sizeof(v);
	t_ok(getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &sl) == 0 && v == NETLINK_RDMA, "SO_PROTOCOL is NETLINK_RDMA");
	sl = sizeof(v);
	t_ok(getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &sl) == 0 && v == AF_NETLINK, "SO_DOMAIN is AF_NETLINK");
	sl = sizeof(v);
	t_ok(getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &sl) == 0 && v == SOCK_DGRAM, "SO_TYPE is SOCK_DGRAM");
	sl = sizeof(sa);
	memset(&sa, 0xff, sizeof(sa));
	t_ok(getsockname(fd, (struct sockaddr *)&sa, &sl) == 0 && sl == sizeof(sa) && sa.nl_family == AF_NETLINK
		     && sa.nl_pid == 0, "getsockname before bind: AF_NETLINK, port 0");
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	t_errno(bind(fd, (struct sockaddr *)&sa, 4), errno, EINVAL, "bind with a short address: EINVAL");
	sa.nl_family = AF_INET;
	t_errno(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), errno, EINVAL, "bind of another family: EINVAL");
	sa.nl_family = AF_NETLINK;
	t_success(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), errno, "bind to port 0 (autobind)");
	sl = sizeof(sa);
	getsockname(fd, (struct sockaddr *)&sa, &sl);
	t_eq(sa.nl_pid, getpid(), "the first socket's port id is the process id");
	sa.nl_pid = getpid() + 1;
	t_errno(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), errno, EINVAL, "rebinding to another port: EINVAL");
	fd2 = nl_open(SOCK_RAW);
	sl = sizeof(sa);
	getsockname(fd2, (struct sockaddr *)&sa, &sl);
	t_ok((int32_t)sa.nl_pid <= -4096, "a second socket gets a negative port id");
	close(fd2);
	fd2 = socket(AF_NETLINK, SOCK_RAW, NETLINK_RDMA);
	sa.nl_pid = getpid();
	t_errno(bind(fd2, (struct sockaddr *)&sa, sizeof(sa)), errno, EADDRINUSE, "binding a port in use: EADDRINUSE");
	close(fd2);
	t_errno(setopt(fd, 99, 1), errno, ENOPROTOOPT, "an unknown SOL_NETLINK option: ENOPROTOOPT");
	t_success(setopt(fd, NETLINK_EXT_ACK, 1), errno, "NETLINK_EXT_ACK can be set");
	sl = sizeof(v);
	t_ok(getsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &v, &sl) == 0 && v == 1 && sl == 4,
	     "NETLINK_EXT_ACK reads back 1");
	setopt(fd, NETLINK_EXT_ACK, 0);

	/* ---- a device query (nldev_get_doit) ---- */
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST, 7);
	put_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	nl_send(fd, &m);
	n = nl_recv(fd, 2000);
	h = (struct nlmsghdr *)rx;
	t_ok(n > 0 && h->nlmsg_type == NLDEV(RDMA_NLDEV_CMD_GET) && h->nlmsg_seq == 7 && h->nlmsg_pid == (uint32_t)getpid()
		     && attr(h, RDMA_NLDEV_ATTR_DEV_NAME) && attr(h, RDMA_NLDEV_ATTR_NODE_GUID),
	     "GET of index 0: the device, seq and our port echoed");
	t_ok(attr(h, RDMA_NLDEV_ATTR_DEV_PROTOCOL) && attr(h, RDMA_NLDEV_ATTR_DEV_NODE_TYPE),
	     "the device names its protocol and node type");

	/* ---- the kernel's errors ---- */
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST, 8);
	r = error_of(fd, &m, &h);
	e = NLMSG_DATA(h);
	t_eq(r, -EINVAL, "GET without DEV_INDEX: NLMSG_ERROR -EINVAL");
	t_ok(!(h->nlmsg_flags & NLM_F_CAPPED) && e->msg.nlmsg_seq == 8 && e->msg.nlmsg_len == (uint32_t)m.len,
	     "the error carries the request's header, not capped");
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST, 9);
	put_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 9999);
	t_eq(error_of(fd, &m, NULL), -EINVAL, "GET of an unknown index: -EINVAL");
	put_hdr(&m, NLDEV(1000), NLM_F_REQUEST, 10);
	t_eq(error_of(fd, &m, NULL), -EINVAL, "an unknown nldev command: -EINVAL");
	put_hdr(&m, RDMA_NL_GET_TYPE(9, 1), NLM_F_REQUEST, 11);
	t_eq(error_of(fd, &m, NULL), -EINVAL, "an unknown RDMA netlink client: -EINVAL");
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_PORT_GET), NLM_F_REQUEST, 12);
	put_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	t_eq(error_of(fd, &m, NULL), -EINVAL, "PORT_GET without PORT_INDEX: -EINVAL");
	put_u32(&m, RDMA_NLDEV_ATTR_PORT_INDEX, 99);
	t_eq(error_of(fd, &m, NULL), -EINVAL, "PORT_GET of a port the device lacks: -EINVAL");

	/* attributes: unknown ones are ignored (nlmsg_parse_deprecated), a short one fails the policy */
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST | NLM_F_ACK, 13);
	put_u32(&m, 1000, 5);
	put_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	nl_send(fd, &m);
	n = nl_recv(fd, 2000);
	h = (struct nlmsghdr *)rx;
	t_ok(n > 0 && h->nlmsg_type == NLDEV(RDMA_NLDEV_CMD_GET), "an unknown attribute is ignored");
	n = nl_recv(fd, 2000);
	h = (struct nlmsghdr *)rx;
	e = NLMSG_DATA(h);
	t_ok(n > 0 && h->nlmsg_type == NLMSG_ERROR && e->error == 0 && (h->nlmsg_flags & NLM_F_CAPPED),
	     "NLM_F_ACK: then an ack, error 0, NLM_F_CAPPED");
	setopt(fd, NETLINK_EXT_ACK, 1);
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST, 14);
	u = 0;
	put_attr(&m, RDMA_NLDEV_ATTR_DEV_INDEX, &u, 2);
	r = error_of(fd, &m, &h);
	t_eq(r, -EINVAL, "a 2-byte DEV_INDEX fails the policy: -EINVAL");
	{
		struct nlattr *tlv = NULL, *off = NULL;
		int at = NLMSG_HDRLEN + sizeof(struct nlmsgerr) + (m.len - NLMSG_HDRLEN);
		struct nlattr *a = (struct nlattr *)(rx + NLMSG_ALIGN(at));

		for (; (char *)a < rx + h->nlmsg_len; a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len))) {
			if (a->nla_len < NLA_HDRLEN)
				break;
			if (a->nla_type == NLMSGERR_ATTR_MSG)
				tlv = a;
			if (a->nla_type == NLMSGERR_ATTR_OFFS)
				off = a;
		}
		t_ok((h->nlmsg_flags & NLM_F_ACK_TLVS) && tlv
			     && strcmp(adata(tlv), "Attribute failed policy validation") == 0,
		     "with NETLINK_EXT_ACK: the policy message");
		t_ok(off && *(uint32_t *)adata(off) == NLMSG_HDRLEN, "and the offset of the bad attribute");
	}
	setopt(fd, NETLINK_CAP_ACK, 1);
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST, 15);
	r = error_of(fd, &m, &h);
	t_ok(r == -EINVAL && (h->nlmsg_flags & NLM_F_CAPPED)
		     && h->nlmsg_len == NLMSG_HDRLEN + sizeof(struct nlmsgerr),
	     "NETLINK_CAP_ACK: the error does not echo the payload");
	setopt(fd, NETLINK_CAP_ACK, 0);
	setopt(fd, NETLINK_EXT_ACK, 0);

	/* lengths (rdma_nl_rcv_skb): a bad nlmsg_len ends the datagram without an answer */
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST | NLM_F_ACK, 16);
	((struct nlmsghdr *)m.b)->nlmsg_len = 8;
	nl_send(fd, &m);
	t_ok(nl_recv(fd, 300) < 0, "nlmsg_len below the header: no answer");
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST | NLM_F_ACK, 17);
	((struct nlmsghdr *)m.b)->nlmsg_len = 400;
	nl_send(fd, &m);
	t_ok(nl_recv(fd, 300) < 0, "nlmsg_len past the datagram: no answer");
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET), 0, 18);
	nl_send(fd, &m);
	t_ok(nl_recv(fd, 300) < 0, "not a request, no ACK flag: no answer");
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_ACK, 19);
	t_eq(error_of(fd, &m, NULL), 0, "not a request, with NLM_F_ACK: acked, error 0");

	/* ---- dumps (netlink_dump): NLM_F_MULTI messages, then NLMSG_DONE with the errno ---- */
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST | NLM_F_DUMP, 20);
	nl_send(fd, &m);
	seen = 0;
	r = 1;
	while (r == 1 && (n = nl_recv(fd, 2000)) > 0)
		for (h = (struct nlmsghdr *)rx; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				r = *(int *)NLMSG_DATA(h);
				break;
			}
			seen += h->nlmsg_type == NLDEV(RDMA_NLDEV_CMD_GET) && (h->nlmsg_flags & NLM_F_MULTI);
		}
	t_ok(seen >= 1 && r == 0, "GET dump: every device NLM_F_MULTI, then NLMSG_DONE 0");
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_PORT_GET), NLM_F_REQUEST | NLM_F_DUMP, 21);
	put_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 4242);
	nl_send(fd, &m);
	n = nl_recv(fd, 2000);
	h = (struct nlmsghdr *)rx;
	t_ok(n > 0 && h->nlmsg_type == NLMSG_DONE && *(int *)NLMSG_DATA(h) == -EINVAL,
	     "PORT_GET dump of an unknown index: NLMSG_DONE -EINVAL");
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_RES_QP_GET), NLM_F_REQUEST | NLM_F_DUMP, 22);
	nl_send(fd, &m);
	n = nl_recv(fd, 2000);
	h = (struct nlmsghdr *)rx;
	t_ok(n > 0 && h->nlmsg_type == NLMSG_DONE && *(int *)NLMSG_DATA(h) == -EINVAL,
	     "RES_QP_GET dump without DEV_INDEX: NLMSG_DONE -EINVAL");
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_SYS_GET), NLM_F_REQUEST | NLM_F_DUMP, 33);
	t_eq(error_of(fd, &m, NULL), -EINVAL, "a dump of SYS_GET (doit only): an error ack, -EINVAL");
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST | NLM_F_DUMP, 34);
	nl_send(fd, &m);
	n = nl_recv(fd, 2000);
	seen = n > 0;
	for (h = (struct nlmsghdr *)rx; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n))
		seen &= h->nlmsg_type == NLDEV(RDMA_NLDEV_CMD_GET);
	n = nl_recv(fd, 2000);
	t_ok(seen && n == NLMSG_HDRLEN + 4 && ((struct nlmsghdr *)rx)->nlmsg_type == NLMSG_DONE,
	     "a dump's NLMSG_DONE comes in a datagram of its own");
	while (nl_recv(fd, 200) > 0) { /* whatever else of that dump */ }
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_SET), NLM_F_REQUEST | NLM_F_DUMP, 23);
	put_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	t_eq(error_of(fd, &m, NULL), -EINVAL, "a dump of a command without one: -EINVAL");

	/* ---- recvmsg: MSG_PEEK|MSG_TRUNC tells the size (libnl), a short buffer truncates ---- */
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST, 24);
	put_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	nl_send(fd, &m);
	{
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char small[8];
		struct iovec iov = { small, sizeof(small) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		int full;

		t_ok(poll(&p, 1, 2000) == 1 && (p.revents & POLLIN), "poll: the answer makes the socket readable");
		full = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);
		t_ok(full > 16, "recv(MSG_PEEK|MSG_TRUNC) with no buffer: the datagram's length");
		r = recvmsg(fd, &mh, 0);
		t_ok(r == (int)sizeof(small) && (mh.msg_flags & MSG_TRUNC), "a short buffer: truncated, MSG_TRUNC set");
		t_ok(nl_recv(fd, 200) < 0, "the truncated datagram is gone");
	}
	nl_send(fd, &m);
	{
		char buf[4096];
		struct pollfd p = { .fd = fd, .events = POLLIN };

		poll(&p, 1, 2000);
		r = read(fd, buf, sizeof(buf));
		t_ok(r > 16 && ((struct nlmsghdr *)buf)->nlmsg_seq == 24, "read(2) takes an answer too");
	}
	t_errno(recv(fd, rx, sizeof(rx), MSG_DONTWAIT), errno, EAGAIN, "an empty queue with MSG_DONTWAIT: EAGAIN");

	/* ---- the char devices libibverbs asks for (nldev_get_chardev) ---- */
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET_CHARDEV), NLM_F_REQUEST, 25);
	put_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	put_attr(&m, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs", 7);
	nl_send(fd, &m);
	n = nl_recv(fd, 2000);
	h = (struct nlmsghdr *)rx;
	if (n > 0 && attr(h, RDMA_NLDEV_ATTR_CHARDEV) && attr(h, RDMA_NLDEV_ATTR_CHARDEV_NAME)) {
		uint64_t c = *(uint64_t *)adata(attr(h, RDMA_NLDEV_ATTR_CHARDEV));
		char path[128];

		snprintf(path, sizeof(path), "/dev/infiniband/%s", (char *)adata(attr(h, RDMA_NLDEV_ATTR_CHARDEV_NAME)));
		t_ok(stat(path, &st) == 0 && S_ISCHR(st.st_mode)
			     && st.st_rdev == makedev((c & 0xfff00) >> 8, (c & 0xff) | ((c >> 12) & 0xfff00)),
		     "GET_CHARDEV uverbs: the node's dev_t and name");
		t_ok(attr(h, RDMA_NLDEV_ATTR_CHARDEV_ABI) && attr(h, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID),
		     "with the ABI and the driver id");
	} else {
		t_ok(0, "GET_CHARDEV uverbs answers");
		t_ok(0, "with the ABI and the driver id");
	}
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET_CHARDEV), NLM_F_REQUEST, 26);
	put_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	t_eq(error_of(fd, &m, NULL), -EINVAL, "GET_CHARDEV without CHARDEV_TYPE: -EINVAL");
	put_attr(&m, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "nosuch", 7);
	t_eq(error_of(fd, &m, NULL), -EOPNOTSUPP, "GET_CHARDEV of an unknown client: -EOPNOTSUPP");
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET_CHARDEV), NLM_F_REQUEST, 27);
	put_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	put_attr(&m, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "umad", 5);
	t_eq(error_of(fd, &m, NULL), -EINVAL, "GET_CHARDEV umad without a port: -EINVAL");
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET_CHARDEV), NLM_F_REQUEST, 35);
	put_attr(&m, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs", 7);
	t_eq(error_of(fd, &m, NULL), -EOPNOTSUPP, "GET_CHARDEV uverbs without a device: -EOPNOTSUPP");
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET_CHARDEV), NLM_F_REQUEST, 31);
	put_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	put_u32(&m, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	put_attr(&m, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "umad", 5);
	nl_send(fd, &m);
	n = nl_recv(fd, 2000);
	h = (struct nlmsghdr *)rx;
	t_ok(n > 0 && attr(h, RDMA_NLDEV_ATTR_CHARDEV_NAME)
		     && strcmp(adata(attr(h, RDMA_NLDEV_ATTR_CHARDEV_NAME)), "umad0") == 0
		     && attr(h, RDMA_NLDEV_ATTR_CHARDEV_ABI) && *(uint64_t *)adata(attr(h, RDMA_NLDEV_ATTR_CHARDEV_ABI)) == 5,
	     "GET_CHARDEV umad of port 1: umad0, ABI 5");
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_GET_CHARDEV), NLM_F_REQUEST, 32);
	put_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	put_u32(&m, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	put_attr(&m, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "issm", 5);
	t_eq(error_of(fd, &m, NULL), -EOPNOTSUPP, "GET_CHARDEV issm: no such client, -EOPNOTSUPP");

	/* ---- SYS_GET, and SET needs CAP_NET_ADMIN (RDMA_NL_ADMIN_PERM) ---- */
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_SYS_GET), NLM_F_REQUEST, 28);
	nl_send(fd, &m);
	n = nl_recv(fd, 2000);
	t_ok(n > 0 && attr((struct nlmsghdr *)rx, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK)
		     && attr((struct nlmsghdr *)rx, RDMA_NLDEV_SYS_ATTR_NETNS_MODE),
	     "SYS_GET: netns mode and copy-on-fork");
	put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_SET), NLM_F_REQUEST | NLM_F_ACK, 29);
	put_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	put_attr(&m, RDMA_NLDEV_ATTR_DEV_NAME, "", 1);
	t_eq(error_of(fd, &m, NULL), -EINVAL, "SET to an empty name: -EINVAL");
	fflush(stdout);
	if (fork() == 0) {
		drop_net_admin();
		fd2 = nl_open(SOCK_RAW);
		put_hdr(&m, NLDEV(RDMA_NLDEV_CMD_SET), NLM_F_REQUEST | NLM_F_ACK, 30);
		put_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
		put_attr(&m, RDMA_NLDEV_ATTR_DEV_NAME, "x", 2);
		_exit(error_of(fd2, &m, NULL) == -EPERM ? 0 : 1);
	}
	wait(&v);
	t_ok(WIFEXITED(v) && WEXITSTATUS(v) == 0, "SET without CAP_NET_ADMIN: -EPERM");

	/* ---- sending: to another port, and oversized ---- */
	sa.nl_family = AF_NETLINK;
	sa.nl_pid = 12345;
	sa.nl_groups = 0;
	t_errno(sendto(fd, m.b, m.len, 0, (struct sockaddr *)&sa, sizeof(sa)), errno, ECONNREFUSED,
		"sendto a user port nobody holds: ECONNREFUSED");
	close(fd);
	return t_done();
}
