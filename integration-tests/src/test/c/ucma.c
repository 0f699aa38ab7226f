/*
 * ucma.c - the write ABI of /dev/infiniband/rdma_cm (the RDMA CM's userspace access), rule by
 * rule, with no librdmacm: each command is a struct rdma_ucm_cmd_hdr and its request, declared
 * below from include/uapi/rdma/rdma_user_cm.h (ABI 4), written with write(2) as librdmacm's
 * cma.c would write it.
 *
 * Build: gcc -O2 -Wall -o ucma ucma.c -lpthread
 * Run:   ./ucma     (IBEMU_RDMA_CM, IBEMU_SYSFS override paths; IBEMU_UCMA_ADDR the port's IPv4
 *                    address, found otherwise from the RDMA device's netdev; UCMA_EVENT_WAIT_MS
 *                    how long to wait for an event before calling it missing, default 30000)
 *
 * The specification is the kernel: drivers/infiniband/core/ucma.c (ucma_write, the command
 * table, ucma_get_event, ucma_event_handler), cma.c (rdma_bind_addr, rdma_listen,
 * rdma_resolve_addr, rdma_connect, rdma_accept, cma_ib_handler, rdma_init_qp_attr), cm.c (the
 * IB CM that carries REQ, REP, RTU, REJ, DREQ, DREP; on RoCE too) and addr.c.
 *
 * The connections carry no QP: the ids hand the CM a qp_num of their own (ucma_connect,
 * ucma_accept), so the active side sees CONNECT_RESPONSE and completes with ACCEPT (the RTU),
 * as librdmacm does for a QP it manages itself. What legitimately differs between devices
 * (addresses, GIDs, ids, ports, path fields) is printed as "# " lines, never compared.
 */
#include "uverbs_probe.h"
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/ib_user_sa.h>

/* ---------------------------------------------------------------- the ABI (rdma_user_cm.h, ABI 4) */
#define UCMA_ABI 4
enum {
	CMD_CREATE_ID, CMD_DESTROY_ID, CMD_BIND_IP, CMD_RESOLVE_IP, CMD_RESOLVE_ROUTE, CMD_QUERY_ROUTE,
	CMD_CONNECT, CMD_LISTEN, CMD_ACCEPT, CMD_REJECT, CMD_DISCONNECT, CMD_INIT_QP_ATTR, CMD_GET_EVENT,
	CMD_GET_OPTION, CMD_SET_OPTION, CMD_NOTIFY, CMD_JOIN_IP_MCAST, CMD_LEAVE_MCAST, CMD_MIGRATE_ID,
	CMD_QUERY, CMD_BIND, CMD_RESOLVE_ADDR, CMD_JOIN_MCAST, CMD_COUNT
};
enum { PS_IPOIB = 0x0002, PS_IB = 0x013f, PS_TCP = 0x0106, PS_UDP = 0x0111 };
enum { QUERY_ADDR, QUERY_PATH, QUERY_GID };
/* enum rdma_cm_event_type (include/rdma/rdma_cm.h) */
enum {
	EV_ADDR_RESOLVED, EV_ADDR_ERROR, EV_ROUTE_RESOLVED, EV_ROUTE_ERROR, EV_CONNECT_REQUEST,
	EV_CONNECT_RESPONSE, EV_CONNECT_ERROR, EV_UNREACHABLE, EV_REJECTED, EV_ESTABLISHED,
	EV_DISCONNECTED, EV_DEVICE_REMOVAL, EV_MULTICAST_JOIN, EV_MULTICAST_ERROR, EV_ADDR_CHANGE,
	EV_TIMEWAIT_EXIT
};
static const char *const ev_names[] = {
	"ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR", "CONNECT_REQUEST",
	"CONNECT_RESPONSE", "CONNECT_ERROR", "UNREACHABLE", "REJECTED", "ESTABLISHED", "DISCONNECTED",
	"DEVICE_REMOVAL", "MULTICAST_JOIN", "MULTICAST_ERROR", "ADDR_CHANGE", "TIMEWAIT_EXIT"
};
#define PRIVATE_DATA 256
#define REQ_PRIVATE 92  /* IB_CM_REQ_PRIVATE_DATA_SIZE */
#define REP_PRIVATE 196 /* IB_CM_REP_PRIVATE_DATA_SIZE */
#define REJ_PRIVATE 148 /* IB_CM_REJ_PRIVATE_DATA_SIZE */
#define CMA_HDR 36      /* struct cma_hdr, before the user's data in the IP port spaces */
#define REJ_INVALID_SERVICE_ID 8
#define REJ_CONSUMER_DEFINED 28
#define AF_IB_FAMILY 27

struct ucm_hdr {
	uint32_t cmd;
	uint16_t in;
	uint16_t out;
};
struct ucm_create_id {
	uint64_t uid;
	uint64_t response;
	uint16_t ps;
	uint8_t qp_type;
	uint8_t reserved[5];
};
struct ucm_destroy_id {
	uint64_t response;
	uint32_t id;
	uint32_t reserved;
};
struct ucm_bind_ip {
	uint64_t response;
	struct sockaddr_in6 addr;
	uint32_t id;
};
struct ucm_bind {
	uint32_t id;
	uint16_t addr_size;
	uint16_t reserved;
	struct sockaddr_storage addr;
};
struct ucm_resolve_ip {
	struct sockaddr_in6 src_addr;
	struct sockaddr_in6 dst_addr;
	uint32_t id;
	uint32_t timeout_ms;
};
struct ucm_resolve_route {
	uint32_t id;
	uint32_t timeout_ms;
};
struct ucm_query {
	uint64_t response;
	uint32_t id;
	uint32_t option;
};
struct ucm_query_route_resp {
	uint64_t node_guid;
	struct ib_user_path_rec ib_route[2];
	struct sockaddr_in6 src_addr;
	struct sockaddr_in6 dst_addr;
	uint32_t num_paths;
	uint8_t port_num;
	uint8_t reserved[3];
	uint32_t ibdev_index;
	uint32_t reserved1;
};
struct ucm_query_addr_resp {
	uint64_t node_guid;
	uint8_t port_num;
	uint8_t reserved;
	uint16_t pkey;
	uint16_t src_size;
	uint16_t dst_size;
	struct sockaddr_storage src_addr;
	struct sockaddr_storage dst_addr;
	uint32_t ibdev_index;
	uint32_t reserved1;
};
struct ucm_path_data {
	uint32_t flags;
	uint32_t reserved;
	uint32_t path_rec[16];
};
struct ucm_query_path_resp {
	uint32_t num_paths;
	uint32_t reserved;
	struct ucm_path_data path_data[4];
};
struct ucm_sockaddr_ib {
	uint16_t sib_family;
	uint16_t sib_pkey;
	uint32_t sib_flowinfo;
	uint8_t sib_addr[16] __attribute__((aligned(8)));
	uint64_t sib_sid;
	uint64_t sib_sid_mask;
	uint64_t sib_scope_id;
};
struct ucm_conn_param {
	uint32_t qp_num;
	uint32_t qkey;
	uint8_t private_data[PRIVATE_DATA];
	uint8_t private_data_len;
	uint8_t srq;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t flow_control;
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	uint8_t valid;
};
struct ucm_ud_param {
	uint32_t qp_num;
	uint32_t qkey;
	struct ib_uverbs_ah_attr ah_attr;
	uint8_t private_data[PRIVATE_DATA];
	uint8_t private_data_len;
	uint8_t reserved[7];
};
struct ucm_ece {
	uint32_t vendor_id;
	uint32_t attr_mod;
};
struct ucm_connect {
	struct ucm_conn_param conn_param;
	uint32_t id;
	uint32_t reserved;
	struct ucm_ece ece;
};
struct ucm_listen {
	uint32_t id;
	uint32_t backlog;
};
struct ucm_accept {
	uint64_t uid;
	struct ucm_conn_param conn_param;
	uint32_t id;
	uint32_t reserved;
	struct ucm_ece ece;
};
struct ucm_reject {
	uint32_t id;
	uint8_t private_data_len;
	uint8_t reason;
	uint8_t reserved[2];
	uint8_t private_data[PRIVATE_DATA];
};
struct ucm_disconnect {
	uint32_t id;
};
struct ucm_init_qp_attr {
	uint64_t response;
	uint32_t id;
	uint32_t qp_state;
};
struct ucm_get_event {
	uint64_t response;
};
struct ucm_event_resp {
	uint64_t uid;
	uint32_t id;
	uint32_t event;
	uint32_t status;
	union {
		struct ucm_conn_param conn;
		struct ucm_ud_param ud;
	} param;
	uint32_t reserved;
	struct ucm_ece ece;
};
struct ucm_set_option {
	uint64_t optval;
	uint32_t id;
	uint32_t level;
	uint32_t optname;
	uint32_t optlen;
};
struct ucm_migrate_id {
	uint64_t response;
	uint32_t id;
	uint32_t fd;
};

/* The sizes the kernel's structures have; a wrong declaration here would make every check lie. */
_Static_assert(sizeof(struct ucm_create_id) == 24, "create_id");
_Static_assert(sizeof(struct ucm_bind_ip) == 40, "bind_ip");
_Static_assert(sizeof(struct ucm_bind) == 136, "bind");
_Static_assert(sizeof(struct ucm_resolve_ip) == 64, "resolve_ip");
_Static_assert(sizeof(struct ucm_query_addr_resp) == 280, "query_addr_resp");
_Static_assert(sizeof(struct ucm_query_route_resp) == 208, "query_route_resp");
_Static_assert(sizeof(struct ucm_sockaddr_ib) == 48, "sockaddr_ib");
_Static_assert(sizeof(struct ucm_conn_param) == 272, "conn_param");
_Static_assert(sizeof(struct ucm_connect) == 288, "connect");
_Static_assert(sizeof(struct ucm_accept) == 296, "accept");
_Static_assert(sizeof(struct ucm_reject) == 264, "reject");
_Static_assert(sizeof(struct ucm_event_resp) == 336, "event_resp");

/* ---------------------------------------------------------------- plumbing */
static const char *rdma_cm_path(void) { return env_or("IBEMU_RDMA_CM", "/dev/infiniband/rdma_cm"); }

static char ibdev[64];
static struct in_addr port_addr;      /* the port's IPv4 address */
static uint16_t next_port = 18515;    /* ports this probe binds, in turn */

static int open_cm(int flags)
{
	int fd = open(rdma_cm_path(), O_RDWR | O_CLOEXEC | flags);
	if (fd < 0)
		t_bail("open %s: %s", rdma_cm_path(), strerror(errno));
	return fd;
}

/* One command: header and request in one write (ucma_write). Returns write's result. */
static ssize_t ucm_write(int fd, uint32_t cmd, const void *in, uint16_t in_len, uint16_t out_len)
{
	uint8_t buf[8 + 1024];
	struct ucm_hdr h = { cmd, in_len, out_len };
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), in, in_len);
	return write(fd, buf, sizeof(h) + in_len);
}

/* 0 on success (write returned the whole length), -1 with errno otherwise. */
static int ucm(int fd, uint32_t cmd, const void *in, uint16_t in_len, uint16_t out_len)
{
	ssize_t n = ucm_write(fd, cmd, in, in_len, out_len);
	if (n < 0)
		return -1;
	if (n != (ssize_t)(sizeof(struct ucm_hdr) + in_len)) {
		errno = EIO;
		return -1;
	}
	return 0;
}

static int create_id(int fd, uint64_t uid, uint16_t ps, uint8_t qp_type, uint32_t *id)
{
	struct ucm_create_id c = { .uid = uid, .response = (uintptr_t)id, .ps = ps, .qp_type = qp_type };
	return ucm(fd, CMD_CREATE_ID, &c, sizeof(c), sizeof(*id));
}

static int destroy_id(int fd, uint32_t id, uint32_t *events_reported)
{
	static uint32_t ignored;
	struct ucm_destroy_id c = { .response = (uintptr_t)(events_reported ? events_reported : &ignored), .id = id };
	return ucm(fd, CMD_DESTROY_ID, &c, sizeof(c), sizeof(uint32_t));
}

static struct sockaddr_in6 sin_of(struct in_addr a, uint16_t port)
{
	struct sockaddr_in6 s;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&s;
	memset(&s, 0, sizeof(s));
	s4->sin_family = AF_INET;
	s4->sin_addr = a;
	s4->sin_port = htons(port);
	return s;
}

static int bind_ip(int fd, uint32_t id, struct in_addr a, uint16_t port)
{
	struct ucm_bind_ip c = { .addr = sin_of(a, port), .id = id };
	return ucm(fd, CMD_BIND_IP, &c, sizeof(c), 0);
}

static int resolve_ip(int fd, uint32_t id, struct in_addr dst, uint16_t port)
{
	struct ucm_resolve_ip c = { .dst_addr = sin_of(dst, port), .id = id, .timeout_ms = 2000 };
	return ucm(fd, CMD_RESOLVE_IP, &c, sizeof(c), 0);
}

static int resolve_route(int fd, uint32_t id)
{
	struct ucm_resolve_route c = { .id = id, .timeout_ms = 2000 };
	return ucm(fd, CMD_RESOLVE_ROUTE, &c, sizeof(c), 0);
}

static int listen_id(int fd, uint32_t id, uint32_t backlog)
{
	struct ucm_listen c = { .id = id, .backlog = backlog };
	return ucm(fd, CMD_LISTEN, &c, sizeof(c), 0);
}

static int query(int fd, uint32_t id, uint32_t option, void *resp, uint16_t len)
{
	struct ucm_query c = { .response = (uintptr_t)resp, .id = id, .option = option };
	memset(resp, 0, len);
	return ucm(fd, CMD_QUERY, &c, sizeof(c), len);
}

static int disconnect(int fd, uint32_t id)
{
	struct ucm_disconnect c = { .id = id };
	return ucm(fd, CMD_DISCONNECT, &c, sizeof(c), 0);
}

static void conn_param(struct ucm_conn_param *p, uint32_t qpn, const char *data, uint8_t rr, uint8_t id)
{
	memset(p, 0, sizeof(*p));
	p->qp_num = qpn;
	p->private_data_len = strlen(data);
	memcpy(p->private_data, data, p->private_data_len);
	p->responder_resources = rr;
	p->initiator_depth = id;
	p->retry_count = 5;
	p->rnr_retry_count = 6;
	p->flow_control = 1;
	p->valid = 1;
}

static int connect_id(int fd, uint32_t id, uint32_t qpn, const char *data)
{
	struct ucm_connect c = { .id = id };
	conn_param(&c.conn_param, qpn, data, 2, 3);
	return ucm(fd, CMD_CONNECT, &c, sizeof(c), 0);
}

static int accept_id(int fd, uint32_t id, uint64_t uid, uint32_t qpn, const char *data)
{
	struct ucm_accept c = { .uid = uid, .id = id };
	if (data)
		conn_param(&c.conn_param, qpn, data, 3, 2);
	return ucm(fd, CMD_ACCEPT, &c, sizeof(c), 0);
}

static int reject_id(int fd, uint32_t id, uint8_t reason, const char *data)
{
	struct ucm_reject c = { .id = id, .reason = reason, .private_data_len = strlen(data) };
	memcpy(c.private_data, data, strlen(data));
	return ucm(fd, CMD_REJECT, &c, sizeof(c), 0);
}

static int init_qp_attr(int fd, uint32_t id, uint32_t state, struct ib_uverbs_qp_attr *a)
{
	struct ucm_init_qp_attr c = { .response = (uintptr_t)a, .id = id, .qp_state = state };
	memset(a, 0, sizeof(*a));
	return ucm(fd, CMD_INIT_QP_ATTR, &c, sizeof(c), sizeof(*a));
}

static int set_option(int fd, uint32_t id, uint32_t level, uint32_t name, void *val, uint32_t len)
{
	struct ucm_set_option c = { .optval = (uintptr_t)val, .id = id, .level = level, .optname = name,
				    .optlen = len };
	return ucm(fd, CMD_SET_OPTION, &c, sizeof(c), 0);
}

static int get_event(int fd, struct ucm_event_resp *ev)
{
	struct ucm_get_event c = { .response = (uintptr_t)ev };
	memset(ev, 0, sizeof(*ev));
	return ucm(fd, CMD_GET_EVENT, &c, sizeof(c), sizeof(*ev));
}

static const char *ev_name(uint32_t e) { return e < sizeof(ev_names) / sizeof(ev_names[0]) ? ev_names[e] : "?"; }

/*
 * The next event of fd, waiting at most 30 s for it (a bound for a device that never answers,
 * not a measure: the event either comes or the check fails). -1 when none came.
 */
static int next_event(int fd, struct ucm_event_resp *ev)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, atoi(env_or("UCMA_EVENT_WAIT_MS", "30000"))) != 1) {
		memset(ev, 0, sizeof(*ev));
		ev->event = ~0u;
		return -1;
	}
	if (get_event(fd, ev)) {
		ev->event = ~0u;
		return -1;
	}
	printf("# event %s status %d (id %u uid 0x%llx)\n", ev_name(ev->event), (int)ev->status, ev->id,
	       (unsigned long long)ev->uid);
	return 0;
}

/* An event of the given type for (uid) must be next on fd. */
static int expect_event(int fd, struct ucm_event_resp *ev, uint32_t type, uint64_t uid, const char *desc)
{
	int ok = next_event(fd, ev) == 0 && ev->event == type && ev->uid == uid;
	t_line(ok, desc, "got %s status %d uid 0x%llx, want %s uid 0x%llx", ev->event == ~0u ? "no event" :
	       ev_name(ev->event), (int)ev->status, (unsigned long long)ev->uid, ev_name(type),
	       (unsigned long long)uid);
	return ok;
}

static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* Events still queued on fd are read and printed (what a check left behind). */
static void drain(int fd)
{
	struct ucm_event_resp ev;
	while (readable(fd) && get_event(fd, &ev) == 0)
		printf("# left over: %s status %d\n", ev_name(ev.event), (int)ev.status);
}

/* ---------------------------------------------------------------- the device under test */
/* The RDMA device: first in class/infiniband. Its port's IPv4 address: IBEMU_UCMA_ADDR, else the
 * address of the netdev behind GID 0 (RoCE: gid_attrs/ndevs/0), else of the first netdev in the
 * HCA's device/net/ (IPoIB's ib0 sits there), else of an IPoIB interface (type 32). */
static int find_port_addr(void)
{
	char path[512], netdev[IF_NAMESIZE + 1] = "", v[64];
	struct ifaddrs *ifa, *i;
	const char *env = getenv("IBEMU_UCMA_ADDR");
	int found = 0;
	if (env && *env)
		return inet_pton(AF_INET, env, &port_addr) == 1 ? 0 : -1;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/1/gid_attrs/ndevs/0", sysfs_root(), ibdev);
	if (read_text(path, netdev, sizeof(netdev))) {
		char cmd[600];
		FILE *ls;
		netdev[0] = 0;
		snprintf(cmd, sizeof(cmd), "ls %s/class/infiniband/%s/device/net 2>/dev/null", sysfs_root(), ibdev);
		if ((ls = popen(cmd, "r")) != NULL) {
			if (fgets(netdev, sizeof(netdev), ls))
				netdev[strcspn(netdev, "\n")] = 0;
			else
				netdev[0] = 0;
			pclose(ls);
		}
	}
	if (getifaddrs(&ifa))
		return -1;
	for (i = ifa; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		if (netdev[0]) {
			found = strcmp(i->ifa_name, netdev) == 0;
		} else {
			snprintf(path, sizeof(path), "%s/class/net/%s/type", sysfs_root(), i->ifa_name);
			found = read_text(path, v, sizeof(v)) == 0 && strcmp(v, "32") == 0;
		}
		if (found)
			port_addr = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
	}
	freeifaddrs(ifa);
	return found ? 0 : -1;
}

static int first_ibdev(void)
{
	char path[512];
	FILE *ls;
	snprintf(path, sizeof(path), "ls %s/class/infiniband 2>/dev/null", sysfs_root());
	ls = popen(path, "r");
	if (!ls)
		return -1;
	if (!fgets(ibdev, sizeof(ibdev), ls))
		ibdev[0] = 0;
	pclose(ls);
	ibdev[strcspn(ibdev, "\n")] = 0;
	return ibdev[0] ? 0 : -1;
}

static int port_gid_known(const uint8_t *gid)
{
	char path[512], v[64], want[64];
	int i;
	snprintf(want, sizeof(want), "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 gid[0], gid[1], gid[2], gid[3], gid[4], gid[5], gid[6], gid[7], gid[8], gid[9], gid[10],
		 gid[11], gid[12], gid[13], gid[14], gid[15]);
	for (i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/1/gids/%d", sysfs_root(), ibdev, i);
		if (read_text(path, v, sizeof(v)) == 0 && strcmp(v, want) == 0)
			return 1;
	}
	return 0;
}

static uint64_t sysfs_node_guid_of(void)
{
	char path[512], v[64];
	unsigned a, b, c, d;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/node_guid", sysfs_root(), ibdev);
	if (read_text(path, v, sizeof(v)) || sscanf(v, "%x:%x:%x:%x", &a, &b, &c, &d) != 4)
		return 0;
	return ((uint64_t)a << 48) | ((uint64_t)b << 32) | ((uint64_t)c << 16) | d;
}

/* ---------------------------------------------------------------- the misc device */
/* new_encode_dev: how nldev reports a dev_t. */
static uint64_t nl_dev(dev_t d)
{
	unsigned maj = major(d), min = minor(d);
	return (min & 0xff) | (maj << 8) | ((uint64_t)(min & ~0xffu) << 12);
}

/* RDMA netlink GET_CHARDEV for "rdma_cm" (nldev_get_chardev, ucma_get_global_nl_info). */
static void check_chardev_netlink(dev_t node)
{
	struct {
		struct nlmsghdr h;
		struct nlattr a;
		char name[8];
	} req;
	char rx[4096];
	struct sockaddr_nl k = { .nl_family = AF_NETLINK };
	struct nlmsghdr *h = (struct nlmsghdr *)rx;
	struct nlattr *a;
	uint64_t chardev = 0, abi = 0;
	char name[32] = "";
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA), len, n = -1;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET_CHARDEV);
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.h.nlmsg_seq = 1;
	req.a.nla_len = NLA_HDRLEN + 8;
	req.a.nla_type = RDMA_NLDEV_ATTR_CHARDEV_TYPE;
	memcpy(req.name, "rdma_cm", 8);
	if (fd >= 0 && sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&k, sizeof(k)) == sizeof(req)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 10000) == 1)
			n = recv(fd, rx, sizeof(rx), 0);
	}
	if (n > (int)NLMSG_HDRLEN && h->nlmsg_type != NLMSG_ERROR) {
		len = h->nlmsg_len - NLMSG_HDRLEN;
		for (a = (struct nlattr *)NLMSG_DATA(h); len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN;
		     len -= NLA_ALIGN(a->nla_len), a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len))) {
			void *d = (char *)a + NLA_HDRLEN;
			switch (a->nla_type & NLA_TYPE_MASK) {
			case RDMA_NLDEV_ATTR_CHARDEV: memcpy(&chardev, d, 8); break;
			case RDMA_NLDEV_ATTR_CHARDEV_ABI: memcpy(&abi, d, 8); break;
			case RDMA_NLDEV_ATTR_CHARDEV_NAME: snprintf(name, sizeof(name), "%s", (char *)d); break;
			}
		}
	}
	if (fd >= 0)
		close(fd);
	t_ok(strcmp(name, "rdma_cm") == 0, "netlink GET_CHARDEV rdma_cm: name rdma_cm");
	t_eq(abi, UCMA_ABI, "netlink GET_CHARDEV rdma_cm: ABI 4");
	t_eq(chardev, nl_dev(node), "netlink GET_CHARDEV rdma_cm: the node's dev_t");
}

static void check_device(void)
{
	struct stat st;
	char path[512], v[64];
	unsigned maj = 0, min = 0;
	int fd;
	t_ok(stat(rdma_cm_path(), &st) == 0 && S_ISCHR(st.st_mode), "/dev/infiniband/rdma_cm is a character device");
	t_eq(major(st.st_rdev), 10, "rdma_cm is a misc device (major 10)");
	snprintf(path, sizeof(path), "%s/class/misc/rdma_cm/abi_version", sysfs_root());
	t_ok(read_text(path, v, sizeof(v)) == 0 && strcmp(v, "4") == 0, "class/misc/rdma_cm/abi_version is 4");
	snprintf(path, sizeof(path), "%s/class/misc/rdma_cm/dev", sysfs_root());
	t_ok(read_text(path, v, sizeof(v)) == 0 && sscanf(v, "%u:%u", &maj, &min) == 2 && makedev(maj, min) == st.st_rdev,
	     "class/misc/rdma_cm/dev is the node's major:minor");
	check_chardev_netlink(st.st_rdev);
	fd = open(rdma_cm_path(), O_RDWR | O_CLOEXEC);
	t_success(fd, errno, "open rdma_cm O_RDWR");
	if (fd >= 0)
		close(fd);
}

/* ---------------------------------------------------------------- framing (ucma_write) */
static void check_framing(int fd)
{
	uint8_t buf[64] = { 0 };
	struct ucm_hdr *h = (struct ucm_hdr *)buf;
	struct ucm_create_id c = { .ps = PS_TCP };
	uint32_t id;

	t_errno(write(fd, buf, 4), errno, EINVAL, "write shorter than the header: EINVAL");
	t_errno(write(fd, buf, 0), errno, EINVAL, "write of 0 bytes: EINVAL");
	h->cmd = CMD_COUNT;
	t_errno(write(fd, buf, 8), errno, EINVAL, "command 23 (past JOIN_MCAST): EINVAL");
	h->cmd = 0xffffffffu;
	t_errno(write(fd, buf, 8), errno, EINVAL, "command 0xffffffff: EINVAL");
	h->cmd = CMD_CREATE_ID;
	h->in = sizeof(c) + 1;
	h->out = 4;
	c.response = (uintptr_t)&id;
	memcpy(buf + 8, &c, sizeof(c));
	t_errno(write(fd, buf, 8 + sizeof(c)), errno, EINVAL, "in larger than what follows the header: EINVAL");
	h->cmd = CMD_GET_OPTION;
	h->in = 0;
	t_errno(write(fd, buf, 8), errno, ENOSYS, "GET_OPTION (an empty slot of the table): ENOSYS");
	h->cmd = CMD_CREATE_ID;
	h->in = sizeof(c);
	h->out = 4;
	t_ret(write(fd, buf, 8 + sizeof(c) + 16), errno, 8 + sizeof(c) + 16,
	      "a write longer than header and in: the whole length is taken");
	destroy_id(fd, id, NULL);
	t_errno(ucm(fd, CMD_CREATE_ID, &c, sizeof(c), 3), errno, ENOSPC, "CREATE_ID with out 3: ENOSPC");
	/* ucma_get_event takes the event without its trailing reserved word and ece (older librdmacm) */
	t_errno(ucm(fd, CMD_GET_EVENT, &c, 8, offsetof(struct ucm_event_resp, reserved) - 1), errno, ENOSPC,
		"GET_EVENT with out one byte short of the event before ece: ENOSPC");
	t_errno(ucm(fd, CMD_DESTROY_ID, &c, 16, 3), errno, ENOSPC, "DESTROY_ID with out 3: ENOSPC");
}

/* ---------------------------------------------------------------- ids */
static void check_ids(int fd)
{
	static const struct { uint16_t ps; uint8_t qpt; const char *desc; } spaces[] = {
		{ PS_TCP, 0, "CREATE_ID in RDMA_PS_TCP" },
		{ PS_UDP, 0, "CREATE_ID in RDMA_PS_UDP" },
		{ PS_IB, QPT_RC, "CREATE_ID in RDMA_PS_IB (RC)" },
		{ PS_IB, QPT_UD, "CREATE_ID in RDMA_PS_IB (UD)" },
		{ PS_IPOIB, 0, "CREATE_ID in RDMA_PS_IPOIB" },
	};
	uint32_t ids[5], id, other_id, reported = 99;
	unsigned i;
	int distinct = 1, other;

	for (i = 0; i < 5; i++) {
		ids[i] = ~0u;
		t_success(create_id(fd, 0x100 + i, spaces[i].ps, spaces[i].qpt, &ids[i]), errno, spaces[i].desc);
	}
	for (i = 1; i < 5; i++)
		distinct &= ids[i] != ids[i - 1];
	t_ok(distinct, "the ids of one file are distinct");
	t_errno(create_id(fd, 1, 0x0999, 0, &id), errno, EINVAL, "CREATE_ID in port space 0x999: EINVAL");
	t_errno(create_id(fd, 1, 0, 0, &id), errno, EINVAL, "CREATE_ID in port space 0: EINVAL");
	for (i = 0; i < 5; i++) {
		reported = 99;
		t_success(destroy_id(fd, ids[i], &reported), errno, "DESTROY_ID of a fresh id");
		t_eq(reported, 0, "DESTROY_ID of a fresh id: events_reported 0");
	}
	t_errno(destroy_id(fd, ids[0], NULL), errno, ENOENT, "DESTROY_ID of a destroyed id: ENOENT");
	t_errno(destroy_id(fd, 0x7fffff00, NULL), errno, ENOENT, "DESTROY_ID of an id never made: ENOENT");
	other = open_cm(0);
	create_id(other, 7, PS_TCP, 0, &other_id);
	t_errno(destroy_id(fd, other_id, NULL), errno, EINVAL, "DESTROY_ID of another file's id: EINVAL");
	t_errno(bind_ip(fd, other_id, port_addr, 0), errno, EINVAL, "BIND_IP on another file's id: EINVAL");
	t_success(destroy_id(other, other_id, NULL), errno, "DESTROY_ID on the owning file");
	close(other);
}

/* ---------------------------------------------------------------- bind */
static void check_bind(int fd)
{
	uint32_t a, b, c, d;
	struct ucm_query_addr_resp q;
	struct sockaddr_in *src = (struct sockaddr_in *)&q.src_addr;
	struct in_addr nowhere, lo;
	uint16_t port = next_port++;
	struct ucm_bind bc;
	int r;

	inet_pton(AF_INET, "10.255.77.77", &nowhere);
	inet_pton(AF_INET, "127.0.0.1", &lo);
	create_id(fd, 0x201, PS_TCP, 0, &a);
	create_id(fd, 0x202, PS_TCP, 0, &b);
	create_id(fd, 0x203, PS_TCP, 0, &c);
	create_id(fd, 0x204, PS_TCP, 0, &d);

	t_success(bind_ip(fd, a, port_addr, port), errno, "BIND_IP to the port's address");
	t_errno(bind_ip(fd, a, port_addr, port + 100), errno, EINVAL, "BIND_IP of a bound id: EINVAL");
	t_errno(bind_ip(fd, b, port_addr, port), errno, EADDRINUSE, "BIND_IP of a second id to the same address and port: EADDRINUSE");
	/* cma_check_port: an any address on either side of the overlap is EADDRNOTAVAIL, not EADDRINUSE */
	t_errno(bind_ip(fd, b, (struct in_addr){ .s_addr = htonl(INADDR_ANY) }, port), errno, EADDRNOTAVAIL,
		"BIND_IP of a second id to the any address and a bound port: EADDRNOTAVAIL");
	/* REUSEADDR on both ids shares the port; a listen must then be alone on it (rdma_listen checks the
	 * port again without reuse): EADDRINUSE, the id still bound; alone, it listens */
	{
		uint32_t r1, r2;
		int one = 1;
		uint16_t rport = next_port++;

		create_id(fd, 0x207, PS_TCP, 0, &r1);
		create_id(fd, 0x208, PS_TCP, 0, &r2);
		set_option(fd, r1, 0, 1, &one, 4);
		set_option(fd, r2, 0, 1, &one, 4);
		t_success(bind_ip(fd, r1, port_addr, rport), errno, "BIND_IP of a REUSEADDR id");
		t_success(bind_ip(fd, r2, port_addr, rport), errno,
			  "BIND_IP of a second REUSEADDR id to the same address and port");
		t_errno(listen_id(fd, r2, 1), errno, EADDRINUSE, "LISTEN of a REUSEADDR id sharing its port: EADDRINUSE");
		destroy_id(fd, r1, NULL);
		t_success(listen_id(fd, r2, 1), errno, "LISTEN of the same id once alone on the port");
		destroy_id(fd, r2, NULL);
	}
	t_success(query(fd, a, QUERY_ADDR, &q, sizeof(q)), errno, "QUERY ADDR of a bound id");
	t_ok(q.src_size == sizeof(struct sockaddr_in) && src->sin_family == AF_INET
	     && src->sin_addr.s_addr == port_addr.s_addr && ntohs(src->sin_port) == port,
	     "QUERY ADDR: src_size 16, the bound address and port");
	t_eq(q.dst_size, sizeof(struct sockaddr_in), "QUERY ADDR: dst_size 16 (the family of the source)");
	t_eq(q.port_num, 1, "QUERY ADDR: port_num 1");
	t_eq(be64toh(q.node_guid), sysfs_node_guid_of(), "QUERY ADDR: node_guid is the device's");
	/* RoCE has no P_Key in its device address (ib_addr_get_pkey of an Ethernet broadcast: 0) */
	t_needs(NEED_IB);
	t_eq(q.pkey, 0xffff, "QUERY ADDR: the default P_Key 0xffff");
	t_needs(0);
	printf("# QUERY ADDR: ibdev_index %u\n", q.ibdev_index);
	/* ibdev_index came later: a response without it is still served (ucma_query_addr) */
	t_errno(query(fd, a, QUERY_ADDR, &q, offsetof(struct ucm_query_addr_resp, ibdev_index) - 1), errno, ENOSPC,
		"QUERY ADDR with out one byte short of ibdev_index: ENOSPC");
	t_success(query(fd, a, QUERY_ADDR, &q, offsetof(struct ucm_query_addr_resp, ibdev_index)), errno,
		  "QUERY ADDR with out up to ibdev_index");
	t_errno(query(fd, a, 7, &q, sizeof(q)), errno, ENOSYS, "QUERY of option 7: ENOSYS");

	/* b's failed bind above kept the interface it found (rdma_translate_ip set dev_addr's bound_dev_if,
	 * the error path releases only the device): its next bind translates through that interface, whatever
	 * the address, and cma_acquire_dev_by_src_ip looks for a GID: on RoCE the one made of the address
	 * (none: ENODEV), on InfiniBand the interface's own (its port's: bound, to an address no interface has) */
	r = bind_ip(fd, b, nowhere, 0);
	printf("# BIND_IP of an id whose bind failed, to an address no interface has: %s\n", r ? ename(errno) : "ok");
	t_needs(NEED_ROCE);
	t_errno(r, errno, ENODEV, "BIND_IP of an id whose bind failed, to an address no interface has, on RoCE: ENODEV");
	t_needs(NEED_IB);
	t_success(r, errno, "BIND_IP of an id whose bind failed, to an address no interface has, on InfiniBand: bound");
	t_needs(0);
	destroy_id(fd, b, NULL);
	create_id(fd, 0x205, PS_TCP, 0, &b);
	t_errno(bind_ip(fd, b, nowhere, 0), errno, EADDRNOTAVAIL, "BIND_IP to an address no interface has: EADDRNOTAVAIL");
	destroy_id(fd, b, NULL);
	create_id(fd, 0x206, PS_TCP, 0, &b);
	/* An InfiniBand port takes only an IPoIB netdev's address (cma_validate_port: ENODEV); RoCE
	 * (rxe in the VM) accepts the loopback bind. A difference of the link layers, declared. */
	r = bind_ip(fd, b, lo, 0);
	printf("# BIND_IP 127.0.0.1: %s\n", r ? ename(errno) : "ok");
	t_needs(NEED_IB);
	t_errno(r, errno, ENODEV, "BIND_IP to 127.0.0.1 on an InfiniBand port: ENODEV");
	t_needs(0);
	destroy_id(fd, b, NULL);
	create_id(fd, 0x207, PS_TCP, 0, &b);

	t_success(bind_ip(fd, c, port_addr, 0), errno, "BIND_IP with port 0");
	query(fd, c, QUERY_ADDR, &q, sizeof(q));
	t_ok(src->sin_port != 0, "BIND_IP with port 0: the kernel picks a port");

	{
		struct ucm_bind_ip bad = { .id = d };
		t_errno(ucm(fd, CMD_BIND_IP, &bad, sizeof(bad), 0), errno, EINVAL, "BIND_IP with family 0: EINVAL");
	}
	memset(&bc, 0, sizeof(bc));
	bc.id = d;
	{
		struct sockaddr_in6 s = sin_of(port_addr, next_port++);
		memcpy(&bc.addr, &s, sizeof(struct sockaddr_in));
	}
	bc.addr_size = 8;
	t_errno(ucm(fd, CMD_BIND, &bc, sizeof(bc), 0), errno, EINVAL, "BIND with addr_size 8 for an AF_INET address: EINVAL");
	bc.addr_size = sizeof(struct sockaddr_in);
	bc.reserved = 1;
	t_errno(ucm(fd, CMD_BIND, &bc, sizeof(bc), 0), errno, EINVAL, "BIND with reserved set: EINVAL");
	bc.reserved = 0;
	t_success(ucm(fd, CMD_BIND, &bc, sizeof(bc), 0), errno, "BIND (the AF_IB path's command) of an AF_INET address");

	destroy_id(fd, a, NULL);
	t_success(bind_ip(fd, b, port_addr, port), errno, "BIND_IP to a port its destroyed id held");
	destroy_id(fd, b, NULL);
	destroy_id(fd, c, NULL);
	destroy_id(fd, d, NULL);

	/* an AF_IB bind to the any GID: cma_select_ib_ps takes the space from the service id, cma_port
	 * the port from its low 16 bits under the mask (none under this mask: an ephemeral one), and
	 * cma_bind_port writes the port in and makes the id exact (sib_sid_mask all ones), so a listen
	 * on it hears that one service id, not a range */
	{
		uint32_t e;
		uint16_t p = next_port++;
		struct ucm_query_addr_resp qa;
		struct ucm_sockaddr_ib *sib = (struct ucm_sockaddr_ib *)&bc.addr;
		struct ucm_sockaddr_ib *src = (struct ucm_sockaddr_ib *)&qa.src_addr;
		uint64_t sid;

		create_id(fd, 0x209, PS_TCP, 0, &e);
		memset(&bc, 0, sizeof(bc));
		bc.id = e;
		bc.addr_size = sizeof(*sib);
		sib->sib_family = AF_IB_FAMILY;
		sib->sib_pkey = htons(0xffff);
		sib->sib_sid = htobe64(0x0000000001060000ULL | p);
		sib->sib_sid_mask = htobe64(0xffffffffffff0000ULL);
		t_success(ucm(fd, CMD_BIND, &bc, sizeof(bc), 0), errno, "BIND of the AF_IB any address, the port outside the mask");
		t_success(query(fd, e, QUERY_ADDR, &qa, sizeof(qa)), errno, "QUERY ADDR after an AF_IB BIND");
		t_eq(src->sib_family, AF_IB_FAMILY, "QUERY ADDR after an AF_IB BIND: an AF_IB source");
		sid = be64toh(src->sib_sid);
		t_ok(sid >> 16 == 0x106 && (sid & 0xffff) != p && (sid & 0xffff) >= 32768,
		     "QUERY ADDR after an AF_IB BIND, the port outside the mask: RDMA_PS_TCP's service id of an ephemeral port");
		t_ok(be64toh(src->sib_sid_mask) == ~0ULL, "QUERY ADDR after an AF_IB BIND: the service id mask is all ones");
		t_success(listen_id(fd, e, 1), errno, "LISTEN on an AF_IB bound id");
		destroy_id(fd, e, NULL);

		create_id(fd, 0x20a, PS_TCP, 0, &e);
		bc.id = e;
		sib->sib_sid_mask = htobe64(~0ULL);
		t_success(ucm(fd, CMD_BIND, &bc, sizeof(bc), 0), errno, "BIND of the AF_IB any address, the port under the mask");
		t_success(query(fd, e, QUERY_ADDR, &qa, sizeof(qa)), errno, "QUERY ADDR after an AF_IB BIND with the port");
		t_eq(be64toh(src->sib_sid), 0x0000000001060000ULL | p, "QUERY ADDR after an AF_IB BIND with the port: its service id");
		t_ok(be64toh(src->sib_sid_mask) == ~0ULL, "QUERY ADDR after an AF_IB BIND with the port: the mask all ones");
		destroy_id(fd, e, NULL);
	}
}

/* ---------------------------------------------------------------- resolve, query, options */
static void check_resolve(int fd)
{
	uint32_t id, l;
	struct ucm_event_resp ev;
	struct ucm_query_addr_resp q;
	struct ucm_query_route_resp qr;
	struct ucm_query_path_resp qp;
	struct ucm_query_addr_resp qg;
	struct ucm_sockaddr_ib *sg = (struct ucm_sockaddr_ib *)&qg.src_addr, *dg = (struct ucm_sockaddr_ib *)&qg.dst_addr;
	struct sockaddr_in *dst = (struct sockaddr_in *)&q.dst_addr;
	struct ib_uverbs_qp_attr qa;
	uint8_t tos = 32, ack = 14;
	int reuse = 1;
	uint16_t port = next_port++;

	create_id(fd, 0x301, PS_TCP, 0, &id);
	t_errno(resolve_route(fd, id), errno, EINVAL, "RESOLVE_ROUTE before the address: EINVAL");
	t_errno(init_qp_attr(fd, id, QPS_INIT, &qa), errno, EINVAL, "INIT_QP_ATTR of an id without a device: EINVAL");
	t_errno(connect_id(fd, id, 0x1234, "x"), errno, EINVAL, "CONNECT of an id without a device: EINVAL");
	t_ok(!readable(fd), "poll: not readable with no event queued");
	{
		struct ucm_event_resp e;
		int nb = open_cm(O_NONBLOCK);
		t_errno(get_event(nb, &e), errno, EAGAIN, "GET_EVENT under O_NONBLOCK with no event: EAGAIN");
		close(nb);
	}
	t_success(resolve_ip(fd, id, port_addr, port), errno, "RESOLVE_IP to the port's address");
	expect_event(fd, &ev, EV_ADDR_RESOLVED, 0x301, "RESOLVE_IP: ADDR_RESOLVED");
	t_eq(ev.status, 0, "ADDR_RESOLVED: status 0");
	t_eq(ev.id, id, "ADDR_RESOLVED: the id");
	t_success(query(fd, id, QUERY_ADDR, &q, sizeof(q)), errno, "QUERY ADDR after RESOLVE_IP");
	t_ok(dst->sin_family == AF_INET && dst->sin_addr.s_addr == port_addr.s_addr && ntohs(dst->sin_port) == port,
	     "QUERY ADDR after RESOLVE_IP: the destination address and port");
	t_ok(((struct sockaddr_in *)&q.src_addr)->sin_addr.s_addr == port_addr.s_addr,
	     "QUERY ADDR after RESOLVE_IP: the source is the port's address");
	t_eq(q.port_num, 1, "QUERY ADDR after RESOLVE_IP: port_num 1");
	t_success(ucm(fd, CMD_QUERY_ROUTE, &(struct ucm_query){ .response = (uintptr_t)&qr, .id = id },
		      sizeof(struct ucm_query), sizeof(qr)), errno, "QUERY_ROUTE after RESOLVE_IP");
	t_eq(qr.num_paths, 0, "QUERY_ROUTE after RESOLVE_IP: num_paths 0");
	t_errno(connect_id(fd, id, 0x1234, "x"), errno, EINVAL, "CONNECT before RESOLVE_ROUTE: EINVAL");
	t_success(init_qp_attr(fd, id, QPS_INIT, &qa), errno, "INIT_QP_ATTR INIT of a resolved RC id");
	t_eq(qa.qp_attr_mask, QP_STATE | QP_PKEY_INDEX | QP_PORT | QP_ACCESS_FLAGS,
	     "INIT_QP_ATTR INIT (RC, no connection): STATE PKEY_INDEX PORT ACCESS_FLAGS");
	t_ok(qa.qp_state == QPS_INIT && qa.port_num == 1 && qa.qp_access_flags == 0,
	     "INIT_QP_ATTR INIT (RC, no connection): state INIT, port 1, access 0");
	/* with no IB CM id yet, every state gets the INIT attributes (cma_ib_init_qp_attr) */
	t_success(init_qp_attr(fd, id, QPS_RTR, &qa), errno, "INIT_QP_ATTR RTR before a connection");
	t_ok(qa.qp_attr_mask == (QP_STATE | QP_PKEY_INDEX | QP_PORT | QP_ACCESS_FLAGS) && qa.qp_state == QPS_RTR,
	     "INIT_QP_ATTR RTR before a connection: the INIT mask, state RTR");
	t_errno(init_qp_attr(fd, id, 7, &qa), errno, EINVAL, "INIT_QP_ATTR of state 7: EINVAL");
	t_success(resolve_route(fd, id), errno, "RESOLVE_ROUTE");
	expect_event(fd, &ev, EV_ROUTE_RESOLVED, 0x301, "RESOLVE_ROUTE: ROUTE_RESOLVED");
	t_eq(ev.status, 0, "ROUTE_RESOLVED: status 0");
	t_success(query(fd, id, QUERY_PATH, &qp, sizeof(qp)), errno, "QUERY PATH after ROUTE_RESOLVED");
	t_eq(qp.num_paths, 1, "QUERY PATH: one path");
	t_eq(qp.path_data[0].flags, 0x2b, "QUERY PATH: flags GMP|PRIMARY|BIDIRECTIONAL (0x2b)");
	t_errno(query(fd, id, QUERY_PATH, &qp, 7), errno, ENOSPC, "QUERY PATH with out 7: ENOSPC");
	{
		struct ucm_query_path_resp small;
		t_success(query(fd, id, QUERY_PATH, &small, 8), errno, "QUERY PATH with room for no path");
		t_eq(small.num_paths, 1, "QUERY PATH with room for no path: num_paths still 1");
	}
	memset(&qr, 0, sizeof(qr));
	t_success(ucm(fd, CMD_QUERY_ROUTE, &(struct ucm_query){ .response = (uintptr_t)&qr, .id = id },
		      sizeof(struct ucm_query), sizeof(qr)), errno, "QUERY_ROUTE after ROUTE_RESOLVED");
	t_eq(qr.num_paths, 1, "QUERY_ROUTE after ROUTE_RESOLVED: num_paths 1");
	t_eq(qr.port_num, 1, "QUERY_ROUTE: port_num 1");
	t_eq(be64toh(qr.node_guid), sysfs_node_guid_of(), "QUERY_ROUTE: node_guid is the device's");
	printf("# QUERY_ROUTE: mtu %u rate %u pkt_life %u hop %u sl %u dlid 0x%x slid 0x%x\n",
	       qr.ib_route[0].mtu, qr.ib_route[0].rate, qr.ib_route[0].packet_life_time,
	       qr.ib_route[0].hop_limit, qr.ib_route[0].sl, ntohs(qr.ib_route[0].dlid), ntohs(qr.ib_route[0].slid));
	t_ok(port_gid_known(qr.ib_route[0].sgid), "QUERY_ROUTE: sgid is one of the port's GIDs");
	t_success(query(fd, id, QUERY_GID, &qg, sizeof(qg)), errno, "QUERY GID");
	t_ok(qg.src_size == sizeof(struct ucm_sockaddr_ib) && qg.dst_size == sizeof(struct ucm_sockaddr_ib)
	     && sg->sib_family == AF_IB_FAMILY && dg->sib_family == AF_IB_FAMILY,
	     "QUERY GID: AF_IB addresses of 48 bytes");
	t_ok(port_gid_known(sg->sib_addr), "QUERY GID: the source GID is one of the port's GIDs");
	t_ok(memcmp(sg->sib_addr, dg->sib_addr, 16) == 0, "QUERY GID: a loopback route's destination GID is the source's");
	t_needs(NEED_IB);
	t_eq(ntohs(sg->sib_pkey), 0xffff, "QUERY GID: P_Key 0xffff");
	t_needs(0);
	t_eq(be64toh(sg->sib_sid) >> 16, 0x106, "QUERY GID: the service ID of RDMA_PS_TCP (0x0000000001060000 | port)");

	t_success(set_option(fd, id, 0, 0, &tos, 1), errno, "SET_OPTION ID TOS (1 byte)");
	t_errno(set_option(fd, id, 0, 0, &reuse, 4), errno, EINVAL, "SET_OPTION ID TOS of 4 bytes: EINVAL");
	t_success(set_option(fd, id, 0, 1, &reuse, 4), errno, "SET_OPTION ID REUSEADDR 1 of a resolved id");
	t_success(set_option(fd, id, 0, 3, &ack, 1), errno, "SET_OPTION ID ACK_TIMEOUT");
	t_errno(set_option(fd, id, 0, 9, &ack, 1), errno, ENOSYS, "SET_OPTION ID of option 9: ENOSYS");
	t_errno(set_option(fd, id, 5, 0, &ack, 1), errno, ENOSYS, "SET_OPTION of level 5: ENOSYS");
	t_errno(set_option(fd, id, 1, 9, &ack, 1), errno, ENOSYS, "SET_OPTION IB of option 9: ENOSYS");
	create_id(fd, 0x302, PS_TCP, 0, &l);
	t_success(set_option(fd, l, 0, 1, &reuse, 4), errno, "SET_OPTION ID REUSEADDR of a fresh id");
	t_success(set_option(fd, l, 0, 2, &reuse, 4), errno, "SET_OPTION ID AFONLY of a fresh id");

	/* RDMA_OPTION_IB_PATH (ucma_set_ib_path): the route's own path handed back as the user's, after
	 * a record that is not the primary bidirectional GMP one (0x2b), which is passed over */
	{
		struct ucm_path_data two[2];
		struct ucm_query_path_resp qn;
		uint32_t m;

		memset(two, 0, sizeof(two));
		two[1] = qp.path_data[0];
		t_errno(set_option(fd, l, 1, 1, &two[1], sizeof(two[1])), errno, EINVAL,
			"SET_OPTION IB PATH of an id without a device: EINVAL");
		create_id(fd, 0x304, PS_TCP, 0, &m);
		resolve_ip(fd, m, port_addr, next_port++);
		expect_event(fd, &ev, EV_ADDR_RESOLVED, 0x304, "RESOLVE_IP before IB PATH: ADDR_RESOLVED");
		t_errno(set_option(fd, m, 1, 1, two, sizeof(two) - 1), errno, EINVAL,
			"SET_OPTION IB PATH of 143 bytes (not whole records): EINVAL");
		t_errno(set_option(fd, m, 1, 1, two, sizeof(two[0])), errno, EINVAL,
			"SET_OPTION IB PATH without a primary GMP record: EINVAL");
		t_success(set_option(fd, m, 1, 1, two, sizeof(two)), errno, "SET_OPTION IB PATH, the primary record second");
		t_ok(readable(fd), "SET_OPTION IB PATH: the event is queued when the write returns");
		expect_event(fd, &ev, EV_ROUTE_RESOLVED, 0x304, "SET_OPTION IB PATH: ROUTE_RESOLVED");
		t_eq(ev.status, 0, "ROUTE_RESOLVED of IB PATH: status 0");
		t_success(query(fd, m, QUERY_PATH, &qn, sizeof(qn)), errno, "QUERY PATH after IB PATH");
		t_eq(qn.num_paths, 1, "QUERY PATH after IB PATH: one path");
		t_errno(set_option(fd, m, 1, 1, two, sizeof(two)), errno, EINVAL,
			"SET_OPTION IB PATH of a route-resolved id: EINVAL");
		destroy_id(fd, m, NULL);
	}
	destroy_id(fd, l, NULL);
	destroy_id(fd, id, NULL);

	/* UDP: INIT_QP_ATTR gives the QKEY instead of access flags (cma_ib_init_qp_attr) */
	create_id(fd, 0x303, PS_UDP, 0, &id);
	resolve_ip(fd, id, port_addr, next_port++);
	expect_event(fd, &ev, EV_ADDR_RESOLVED, 0x303, "RESOLVE_IP of a UDP id: ADDR_RESOLVED");
	t_success(init_qp_attr(fd, id, QPS_INIT, &qa), errno, "INIT_QP_ATTR INIT of a UDP id");
	t_eq(qa.qp_attr_mask, QP_STATE | QP_PKEY_INDEX | QP_PORT | QP_QKEY,
	     "INIT_QP_ATTR INIT (UD): STATE PKEY_INDEX PORT QKEY");
	t_eq(qa.qkey, 0x01234567, "INIT_QP_ATTR INIT (UD): the RDMA_UDP_QKEY 0x01234567");
	t_success(init_qp_attr(fd, id, QPS_RTR, &qa), errno, "INIT_QP_ATTR RTR of a UDP id");
	t_eq(qa.qp_attr_mask, QP_STATE | QP_PKEY_INDEX | QP_PORT | QP_QKEY, "INIT_QP_ATTR RTR (UD): the INIT mask");
	t_success(init_qp_attr(fd, id, QPS_RTS, &qa), errno, "INIT_QP_ATTR RTS of a UDP id");
	t_eq(qa.qp_attr_mask, QP_STATE | QP_PKEY_INDEX | QP_PORT | QP_QKEY, "INIT_QP_ATTR RTS (UD): the INIT mask");
	destroy_id(fd, id, NULL);
	drain(fd);
}

/* ---------------------------------------------------------------- listen */
static void check_listen(int fd)
{
	uint32_t id, b;
	struct ucm_query_addr_resp q;
	struct sockaddr_in *src = (struct sockaddr_in *)&q.src_addr;

	create_id(fd, 0x401, PS_TCP, 0, &id);
	t_success(listen_id(fd, id, 0), errno, "LISTEN before BIND (binds the wildcard address)");
	query(fd, id, QUERY_ADDR, &q, sizeof(q));
	t_ok(src->sin_family == AF_INET && src->sin_addr.s_addr == 0 && src->sin_port != 0,
	     "LISTEN before BIND: bound to 0.0.0.0 and a port the kernel picked");
	t_eq(q.port_num, 0, "LISTEN on the wildcard: no port (port_num 0)");
	t_errno(listen_id(fd, id, 5), errno, EINVAL, "LISTEN twice: EINVAL");
	t_errno(connect_id(fd, id, 1, "x"), errno, EINVAL, "CONNECT of a listening id (no device): EINVAL");
	destroy_id(fd, id, NULL);
	create_id(fd, 0x402, PS_TCP, 0, &b);
	bind_ip(fd, b, port_addr, next_port);
	t_success(listen_id(fd, b, 1), errno, "LISTEN on the port's address");
	t_errno(resolve_ip(fd, b, port_addr, 1), errno, EINVAL, "RESOLVE_IP of a listening id: EINVAL");
	destroy_id(fd, b, NULL);
	next_port++;
	drain(fd);
}

/* ---------------------------------------------------------------- connections */
struct conn {
	int sfd, cfd;        /* the listener's file and the client's (may be one) */
	uint32_t l, c, s;    /* listener, client, the server's id from CONNECT_REQUEST */
	uint16_t port;
};

/* A listener on sfd and a client on cfd with its route resolved to the listener. */
static void conn_setup(struct conn *k, int sfd, int cfd, uint64_t luid, uint64_t cuid, const char *what)
{
	struct ucm_event_resp ev;
	char d[160];
	k->sfd = sfd;
	k->cfd = cfd;
	k->port = next_port++;
	k->s = ~0u;
	create_id(sfd, luid, PS_TCP, 0, &k->l);
	bind_ip(sfd, k->l, port_addr, k->port);
	t_success(listen_id(sfd, k->l, 4), errno, (snprintf(d, sizeof(d), "%s: LISTEN", what), d));
	create_id(cfd, cuid, PS_TCP, 0, &k->c);
	resolve_ip(cfd, k->c, port_addr, k->port);
	next_event(cfd, &ev);
	resolve_route(cfd, k->c);
	t_ok(next_event(cfd, &ev) == 0 && ev.event == EV_ROUTE_RESOLVED,
	     (snprintf(d, sizeof(d), "%s: the client's route resolved", what), d));
}

static void conn_teardown(struct conn *k)
{
	destroy_id(k->cfd, k->c, NULL);
	if (k->s != ~0u)
		destroy_id(k->sfd, k->s, NULL);
	destroy_id(k->sfd, k->l, NULL);
	drain(k->sfd);
	drain(k->cfd);
}

/* The whole life of a connection: REQ, REP, RTU, DREQ, DREP, timewait; on one file or two. */
static void check_connection(int sfd, int cfd, const char *what)
{
	struct conn k;
	struct ucm_event_resp ev;
	struct ib_uverbs_qp_attr qa;
	uint32_t reported = 0;
	char d[200];
#define D(fmt) (snprintf(d, sizeof(d), "%s: " fmt, what), d)

	conn_setup(&k, sfd, cfd, 0x501, 0x502, what);
	t_success(connect_id(cfd, k.c, 0x123456, "ucma-probe-req"), errno, D("CONNECT"));
	if (expect_event(sfd, &ev, EV_CONNECT_REQUEST, 0x501, D("CONNECT_REQUEST on the listener's file"))) {
		k.s = ev.id;
		t_ok(ev.id != k.l && ev.id != k.c, D("CONNECT_REQUEST: a new id"));
		t_eq(ev.status, 0, D("CONNECT_REQUEST: status 0"));
		t_eq(ev.param.conn.private_data_len, REQ_PRIVATE - CMA_HDR, D("CONNECT_REQUEST: private_data_len 56 (92 less the cma header)"));
		t_ok(memcmp(ev.param.conn.private_data, "ucma-probe-req", 14) == 0, D("CONNECT_REQUEST: the client's private data"));
		t_eq(ev.param.conn.qp_num, 0x123456, D("CONNECT_REQUEST: the client's qp_num"));
		t_ok(ev.param.conn.responder_resources == 3 && ev.param.conn.initiator_depth == 2,
		     D("CONNECT_REQUEST: responder_resources and initiator_depth seen from the passive side"));
		t_ok(ev.param.conn.retry_count == 5 && ev.param.conn.rnr_retry_count == 6 && ev.param.conn.flow_control == 1
		     && ev.param.conn.srq == 0, D("CONNECT_REQUEST: retry 5, rnr_retry 6, flow_control 1, srq 0"));
		printf("# CONNECT_REQUEST: ece vendor 0x%x attr_mod 0x%x\n", ev.ece.vendor_id, ev.ece.attr_mod);
	}
	t_success(init_qp_attr(sfd, k.s, QPS_INIT, &qa), errno, D("INIT_QP_ATTR INIT of the new id"));
	t_eq(qa.qp_attr_mask, QP_STATE | QP_ACCESS_FLAGS | QP_PKEY_INDEX | QP_PORT, D("INIT_QP_ATTR INIT (REQ received): mask"));
	t_eq(qa.qp_access_flags, ACC_REMOTE_WRITE | ACC_REMOTE_READ | ACC_REMOTE_ATOMIC,
	     D("INIT_QP_ATTR INIT (REQ received): REMOTE_WRITE|READ|ATOMIC"));
	t_success(init_qp_attr(sfd, k.s, QPS_RTR, &qa), errno, D("INIT_QP_ATTR RTR of the new id"));
	t_eq(qa.qp_attr_mask, QP_STATE | QP_AV | QP_PATH_MTU | QP_DEST_QPN | QP_RQ_PSN | QP_MAX_DEST_RD_ATOMIC | QP_MIN_RNR_TIMER,
	     D("INIT_QP_ATTR RTR (REQ received): mask"));
	t_eq(qa.dest_qp_num, 0x123456, D("INIT_QP_ATTR RTR: dest_qp_num is the client's"));
	printf("# RTR: path_mtu %u max_dest_rd_atomic %u min_rnr_timer %u dlid 0x%x is_global %u sl %u\n", qa.path_mtu,
	       qa.max_dest_rd_atomic, qa.min_rnr_timer, qa.ah_attr.dlid, qa.ah_attr.is_global, qa.ah_attr.sl);
	t_success(accept_id(sfd, k.s, 0x5e5d, 0x654321, "ucma-probe-rep"), errno, D("ACCEPT"));
	if (expect_event(cfd, &ev, EV_CONNECT_RESPONSE, 0x502, D("CONNECT_RESPONSE on the client (it has no QP)"))) {
		t_eq(ev.param.conn.private_data_len, REP_PRIVATE, D("CONNECT_RESPONSE: private_data_len 196"));
		t_ok(memcmp(ev.param.conn.private_data, "ucma-probe-rep", 14) == 0, D("CONNECT_RESPONSE: the server's private data"));
		t_eq(ev.param.conn.qp_num, 0x654321, D("CONNECT_RESPONSE: the server's qp_num"));
	}
	t_success(init_qp_attr(cfd, k.c, QPS_RTR, &qa), errno, D("INIT_QP_ATTR RTR of the client"));
	t_eq(qa.dest_qp_num, 0x654321, D("INIT_QP_ATTR RTR of the client: dest_qp_num is the server's"));
	t_success(init_qp_attr(cfd, k.c, QPS_RTS, &qa), errno, D("INIT_QP_ATTR RTS of the client"));
	t_eq(qa.qp_attr_mask, QP_STATE | QP_SQ_PSN | QP_TIMEOUT | QP_RETRY_CNT | QP_RNR_RETRY | QP_MAX_QP_RD_ATOMIC,
	     D("INIT_QP_ATTR RTS (REP received): mask"));
	t_ok(qa.retry_cnt == 5 && qa.rnr_retry == 6, D("INIT_QP_ATTR RTS: retry_cnt 5, rnr_retry 6"));
	printf("# RTS: timeout %u max_rd_atomic %u\n", qa.timeout, qa.max_rd_atomic);
	t_success(accept_id(cfd, k.c, 0, 0, NULL), errno, D("ACCEPT on the client without conn_param (sends the RTU)"));
	expect_event(sfd, &ev, EV_ESTABLISHED, 0x5e5d, D("ESTABLISHED on the server"));
	destroy_id(sfd, k.s, &reported);
	k.s = ~0u;
	t_eq(reported, 1, D("DESTROY_ID of the new id: events_reported 1 (ESTABLISHED; the CONNECT_REQUEST counts for the listener)"));
	expect_event(cfd, &ev, EV_DISCONNECTED, 0x502, D("the server destroys its connected id: the client gets DISCONNECTED"));
	conn_teardown(&k);

	/* again, the server with a uid: ESTABLISHED, DISCONNECT both ways, TIMEWAIT_EXIT */
	conn_setup(&k, sfd, cfd, 0x511, 0x512, what);
	connect_id(cfd, k.c, 0x123456, "again");
	if (next_event(sfd, &ev) == 0 && ev.event == EV_CONNECT_REQUEST)
		k.s = ev.id;
	t_success(accept_id(sfd, k.s, 0x5e5e, 0x654321, "ok"), errno, D("ACCEPT with a uid"));
	expect_event(cfd, &ev, EV_CONNECT_RESPONSE, 0x512, D("CONNECT_RESPONSE again"));
	t_ok(!readable(sfd) || sfd == cfd, D("no ESTABLISHED before the client's RTU"));
	accept_id(cfd, k.c, 0, 0, NULL);
	expect_event(sfd, &ev, EV_ESTABLISHED, 0x5e5e, D("ESTABLISHED on the server after the RTU"));
	t_eq(ev.id, k.s, D("ESTABLISHED: the new id"));
	t_success(disconnect(cfd, k.c), errno, D("DISCONNECT on the client (DREQ)"));
	expect_event(sfd, &ev, EV_DISCONNECTED, 0x5e5e, D("DISCONNECTED on the server (DREQ received)"));
	t_success(disconnect(sfd, k.s), errno, D("DISCONNECT on the server (DREP)"));
	expect_event(cfd, &ev, EV_DISCONNECTED, 0x512, D("DISCONNECTED on the client (DREP received)"));
	/* both timewaits run at once: on one file their exits come in either order */
	if (sfd == cfd) {
		struct ucm_event_resp e2;
		int ok = next_event(sfd, &ev) == 0 && next_event(sfd, &e2) == 0 && ev.event == EV_TIMEWAIT_EXIT
			 && e2.event == EV_TIMEWAIT_EXIT && ev.uid + e2.uid == 0x512 + 0x5e5e && ev.uid != e2.uid;
		t_ok(ok, D("TIMEWAIT_EXIT on the client"));
		t_ok(ok, D("TIMEWAIT_EXIT on the server"));
	} else {
		expect_event(cfd, &ev, EV_TIMEWAIT_EXIT, 0x512, D("TIMEWAIT_EXIT on the client"));
		expect_event(sfd, &ev, EV_TIMEWAIT_EXIT, 0x5e5e, D("TIMEWAIT_EXIT on the server"));
	}
	conn_teardown(&k);
#undef D
}

static void check_reject(int fd)
{
	struct conn k;
	struct ucm_event_resp ev;
	uint32_t c;

	conn_setup(&k, fd, fd, 0x601, 0x602, "reject");
	connect_id(fd, k.c, 0x1111, "please");
	if (next_event(fd, &ev) == 0 && ev.event == EV_CONNECT_REQUEST)
		k.s = ev.id;
	t_errno(reject_id(fd, k.s, 5, "no"), errno, EINVAL, "REJECT with reason 5: EINVAL");
	t_success(reject_id(fd, k.s, 0, "go away"), errno, "REJECT with private data");
	expect_event(fd, &ev, EV_REJECTED, 0x602, "REJECTED on the client");
	t_eq(ev.status, REJ_CONSUMER_DEFINED, "REJECTED: status 28 (consumer defined)");
	t_eq(ev.param.conn.private_data_len, REJ_PRIVATE, "REJECTED: private_data_len 148");
	t_ok(memcmp(ev.param.conn.private_data, "go away", 7) == 0, "REJECTED: the server's private data");
	t_errno(connect_id(fd, k.c, 0x1111, "again"), errno, EINVAL, "CONNECT after REJECTED: EINVAL");
	conn_teardown(&k);

	/* a failed ACCEPT rejects the connection (rdma_accept's error path sends a REJ) */
	conn_setup(&k, fd, fd, 0x611, 0x612, "accept twice");
	connect_id(fd, k.c, 0x1111, "twice");
	if (next_event(fd, &ev) == 0 && ev.event == EV_CONNECT_REQUEST)
		k.s = ev.id;
	t_success(accept_id(fd, k.s, 0x613, 0x654321, "ok"), errno, "ACCEPT");
	t_errno(accept_id(fd, k.s, 0x613, 0x654321, "ok"), errno, EINVAL, "ACCEPT twice: EINVAL");
	expect_event(fd, &ev, EV_CONNECT_RESPONSE, 0x612, "ACCEPT twice: the client gets the REP (CONNECT_RESPONSE)");
	expect_event(fd, &ev, EV_REJECTED, 0x612, "ACCEPT twice: then REJECTED");
	t_eq(ev.status, REJ_CONSUMER_DEFINED, "ACCEPT twice: REJECTED with status 28");
	conn_teardown(&k);

	/* nobody listens on the port: the CM answers the REQ with REJ (invalid service ID) */
	create_id(fd, 0x603, PS_TCP, 0, &c);
	resolve_ip(fd, c, port_addr, next_port++);
	next_event(fd, &ev);
	resolve_route(fd, c);
	next_event(fd, &ev);
	t_success(connect_id(fd, c, 0x2222, "anyone"), errno, "CONNECT to a port nobody listens on");
	expect_event(fd, &ev, EV_REJECTED, 0x603, "CONNECT to a port nobody listens on: REJECTED");
	t_eq(ev.status, REJ_INVALID_SERVICE_ID, "REJECTED: status 8 (invalid service ID)");
	destroy_id(fd, c, NULL);
	drain(fd);
}

/* GET_EVENT blocks until an event comes (ucma_get_event's wait_event_interruptible). */
struct waiter {
	int fd, ret, err;
	struct ucm_event_resp ev;
};

static void *wait_event_thread(void *p)
{
	struct waiter *w = p;
	w->ret = get_event(w->fd, &w->ev);
	w->err = errno;
	return NULL;
}

static void check_blocking(int fd)
{
	pthread_t t;
	struct waiter w = { .fd = fd };
	uint32_t id;
	create_id(fd, 0x701, PS_TCP, 0, &id);
	t_ok(!readable(fd), "poll: nothing queued before RESOLVE_IP");
	pthread_create(&t, NULL, wait_event_thread, &w);
	resolve_ip(fd, id, port_addr, next_port++);
	pthread_join(t, NULL);
	t_ok(w.ret == 0 && w.ev.event == EV_ADDR_RESOLVED && w.ev.uid == 0x701,
	     "a blocked GET_EVENT returns the ADDR_RESOLVED that came");
	resolve_route(fd, id);
	{
		struct pollfd p = { .fd = fd, .events = POLLIN };
		t_ok(poll(&p, 1, 30000) == 1 && (p.revents & POLLIN), "poll: readable once ROUTE_RESOLVED is queued");
	}
	drain(fd);
	destroy_id(fd, id, NULL);
}

/* MIGRATE_ID moves an id between files (ucma_migrate_id): written to the new file, naming the old fd. */
static void check_migrate(int fd)
{
	int other = open_cm(0), notcm = open("/dev/null", O_RDONLY);
	uint32_t id, reported = 99;
	struct ucm_migrate_id m = { .response = (uintptr_t)&reported };
	struct ucm_event_resp ev;

	create_id(fd, 0x801, PS_TCP, 0, &id);
	resolve_ip(fd, id, port_addr, next_port++);
	next_event(fd, &ev);
	m.id = id;
	m.fd = notcm;
	t_errno(ucm(other, CMD_MIGRATE_ID, &m, sizeof(m), 4), errno, EINVAL, "MIGRATE_ID from a file that is not rdma_cm: EINVAL");
	m.fd = 999;
	t_errno(ucm(other, CMD_MIGRATE_ID, &m, sizeof(m), 4), errno, ENOENT, "MIGRATE_ID from a closed fd: ENOENT");
	m.fd = fd;
	t_success(ucm(other, CMD_MIGRATE_ID, &m, sizeof(m), 4), errno, "MIGRATE_ID to another file");
	t_eq(reported, 1, "MIGRATE_ID: events_reported 1");
	t_errno(resolve_route(fd, id), errno, EINVAL, "the migrated id on its old file: EINVAL");
	t_success(resolve_route(other, id), errno, "the migrated id on its new file");
	expect_event(other, &ev, EV_ROUTE_RESOLVED, 0x801, "ROUTE_RESOLVED comes to the new file");
	destroy_id(other, id, NULL);
	close(other);
	close(notcm);
}

/* close() destroys every id of the file; the listener's port is free again, the peer is told. */
static void check_close(void)
{
	int a = open_cm(0), b = open_cm(0), c;
	uint32_t id, l;
	uint16_t port = next_port++;
	struct conn k;
	struct ucm_event_resp ev;

	create_id(a, 0x901, PS_TCP, 0, &l);
	bind_ip(a, l, port_addr, port);
	listen_id(a, l, 1);
	create_id(a, 0x902, PS_UDP, 0, &id);
	t_success(close(a), errno, "close with ids live");
	c = open_cm(0);
	create_id(c, 0x903, PS_TCP, 0, &id);
	t_success(bind_ip(c, id, port_addr, port), errno, "reopen: the closed file's port is free");
	close(c);

	/* a connected server file closed: its DREQ reaches the client */
	a = open_cm(0);
	conn_setup(&k, a, b, 0x911, 0x912, "close");
	connect_id(b, k.c, 0x3333, "bye");
	if (next_event(a, &ev) == 0 && ev.event == EV_CONNECT_REQUEST)
		k.s = ev.id;
	accept_id(a, k.s, 0x913, 0x4444, "hi");
	next_event(b, &ev);
	accept_id(b, k.c, 0, 0, NULL);
	t_ok(next_event(a, &ev) == 0 && ev.event == EV_ESTABLISHED, "close: the connection is established");
	t_success(close(a), errno, "close of the server's file while connected");
	expect_event(b, &ev, EV_DISCONNECTED, 0x912, "close: the client gets DISCONNECTED");
	destroy_id(b, k.c, NULL);
	drain(b);
	close(b);
}

int main(void)
{
	int fd;
	setvbuf(stdout, NULL, _IOLBF, 0);
	watchdog(600);
	if (first_ibdev())
		t_bail("no RDMA device in %s/class/infiniband", sysfs_root());
	t_detect(ibdev);
	if (access(rdma_cm_path(), F_OK) != 0)
		t_bail("%s: %s", rdma_cm_path(), strerror(errno));
	if (find_port_addr())
		t_bail("no IPv4 address on %s's netdev (set IBEMU_UCMA_ADDR)", ibdev);
	printf("# device %s, address %s\n", ibdev, inet_ntoa(port_addr));

	check_device();
	fd = open_cm(0);
	check_framing(fd);
	check_ids(fd);
	check_bind(fd);
	check_resolve(fd);
	check_listen(fd);
	check_connection(fd, fd, "one file");
	{
		int other = open_cm(0);
		check_connection(fd, other, "two files");
		close(other);
	}
	check_reject(fd);
	check_blocking(fd);
	check_migrate(fd);
	close(fd);
	check_close();
	return t_done();
}
