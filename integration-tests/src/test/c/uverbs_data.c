/*
 * uverbs_data.c - the data path of two HCAs through the fabric, raw write() (one CQ by ioctl).
 *
 * Build: gcc -O2 -Wall -o uverbs_data uverbs_data.c
 * Run:   ./uverbs_data [DEV_A [DEV_B]]   (default /dev/infiniband/uverbs0 and uverbs1)
 *
 * The process forks: the parent plays side A on DEV_A (mostly the responder),
 * the child side B on DEV_B (mostly the requester). They exchange LID, QPN,
 * PSN, rkey and address over pipes; the child sends its check results to the
 * parent, which alone prints TAP.
 *
 * Assumes a configured subnet: both ports ACTIVE with LIDs and routes (an SM
 * such as `opensm -o` has run). The multicast part joins the IPoIB broadcast
 * group ff12:401b:ffff::ffff:ffff that OpenSM creates for the default
 * partition, through an SA MCMemberRecord Set on each port's umad device, and
 * takes the MLID and Q_Key from the SA's answer: only a join makes the SM
 * program the switches' multicast forwarding tables for the port.
 *
 * Side A's CQ is made by RDMA_VERBS_IOCTL's CQ_CREATE with its COMP_CHANNEL where the device
 * serves it (as libibverbs makes it), so the completion-event checks cover that path's routing.
 *
 * Completion codes are those of the IB spec as rdmavt (the qib driver's
 * kernel core) reports them: REM_ACCESS_ERR for a bad rkey, LOC_PROT_ERR for a
 * bad lkey, RNR_RETRY_EXC_ERR with rnr_retry 0 and no receive, LOC_LEN_ERR /
 * REM_INV_REQ_ERR for a receive buffer too short, WR_FLUSH_ERR afterwards.
 */
#include "uverbs_probe.h"
#include <sys/ioctl.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_cmds.h>

#define BIG (8u << 20)
#define MSG_DESC 200

/* ------------------------------------------------------------ two processes */
enum { M_SYNC = 1, M_REPORT, M_PEER, M_VALUE };
struct msg {
	int kind, ok;
	char desc[MSG_DESC];
	struct peer p;
	uint64_t v;
};

static int is_child, to_peer = -1, from_peer = -1;

static void msg_send(const struct msg *m)
{
	if (write(to_peer, m, sizeof(*m)) != (ssize_t)sizeof(*m))
		t_bail("pipe write: %s", strerror(errno));
}

/* Reads the next message of `kind`; the parent prints the child's reports on the way. */
static void msg_wait(int kind, struct msg *out)
{
	struct msg m;
	for (;;) {
		size_t got = 0;
		while (got < sizeof(m)) {
			ssize_t n;
			if (wait_readable(from_peer, 60000) != 1)
				t_bail("%s: no message from the other side in 60 s", is_child ? "B" : "A");
			n = read(from_peer, (char *)&m + got, sizeof(m) - got);
			if (n <= 0)
				t_bail("%s: the other side is gone", is_child ? "B" : "A");
			got += (size_t)n;
		}
		if (m.kind == M_REPORT && !is_child) {
			t_line(m.ok, m.desc, "%s", "(side B)");
			continue;
		}
		if (m.kind == kind) {
			if (out)
				*out = m;
			return;
		}
	}
}

static void sync_sides(void)
{
	struct msg m = { .kind = M_SYNC };
	if (is_child) {
		msg_send(&m);
		msg_wait(M_SYNC, NULL);
	} else {
		msg_wait(M_SYNC, NULL);
		msg_send(&m);
	}
}

/* A check on either side: printed by the parent, sent to it by the child. */
static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
	struct msg m = { .kind = M_REPORT, .ok = ok };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m.desc, sizeof(m.desc), fmt, ap);
	va_end(ap);
	if (is_child)
		msg_send(&m);
	else
		t_line(ok, m.desc, "%s", "(side A)");
}

static void send_value(uint64_t v)
{
	struct msg m = { .kind = M_VALUE, .v = v };
	msg_send(&m);
}

static uint64_t recv_value(void)
{
	struct msg m;
	msg_wait(M_VALUE, &m);
	return m.v;
}

/* ------------------------------------------------------------ one side */
struct side {
	int fd, chan;
	char ibdev[64];
	uint32_t pd, cq, rc, ud, mr, lkey, rkey;
	uint32_t rc_qpn, ud_qpn;
	uint8_t *buf; /* [0, BIG+4096): receive/target area; [BIG+4096, 2*(BIG+4096)): send/source */
	uint8_t *src;
	struct ib_uverbs_query_port_resp port;
	uint8_t gid[16];
	uint32_t psn;
	uint64_t cq_user_handle;
};

static struct side S;
static struct peer P; /* the other side's RC QP */
static uint32_t peer_ud_qpn;

/*
 * CQ_CREATE by ioctl (uverbs_std_types_cq.c) with the completion channel and no UHW_OUT (no
 * mapped ring: POLL_CQ serves it); -1 with errno ENOTTY or EPROTONOSUPPORT where the device has
 * no such path. The driver id is the one whose unknown object is EPROTONOSUPPORT.
 */
static long ioctl_create_cq(int fd, uint32_t cqe, int chan, uint64_t user_handle)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[6];
	} c;
	uint32_t resp_cqe = 0;
	for (uint16_t id = 0; id < 64; id++) {
		memset(&c, 0, sizeof(c));
		c.hdr.length = sizeof(c.hdr);
		c.hdr.object_id = 0x7ff;
		c.hdr.driver_id = id;
		if (ioctl(fd, RDMA_VERBS_IOCTL, &c) == 0 || errno == ENOTTY)
			return -1;
		if (errno != EPROTONOSUPPORT)
			continue;
		struct ib_uverbs_attr a[6] = {
			{ .attr_id = UVERBS_ATTR_CREATE_CQ_HANDLE },
			{ .attr_id = UVERBS_ATTR_CREATE_CQ_CQE, .len = 4, .data = cqe },
			{ .attr_id = UVERBS_ATTR_CREATE_CQ_USER_HANDLE, .len = 8, .data = user_handle },
			{ .attr_id = UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, .data = (uint64_t)chan },
			{ .attr_id = UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, .len = 4, .data = 0 },
			{ .attr_id = UVERBS_ATTR_CREATE_CQ_RESP_CQE, .len = 4, .data = (uintptr_t)&resp_cqe },
		};
		c.hdr.object_id = UVERBS_OBJECT_CQ;
		c.hdr.method_id = UVERBS_METHOD_CQ_CREATE;
		c.hdr.num_attrs = 6;
		c.hdr.length = sizeof(c);
		memcpy(c.attrs, a, sizeof(a));
		if (ioctl(fd, RDMA_VERBS_IOCTL, &c))
			return -1;
		return (long)c.attrs[0].data;
	}
	errno = ENOTTY;
	return -1;
}

static int parse_gid(const char *s, uint8_t *g)
{
	unsigned w[8];
	if (sscanf(s, "%x:%x:%x:%x:%x:%x:%x:%x", &w[0], &w[1], &w[2], &w[3], &w[4], &w[5], &w[6], &w[7]) != 8)
		return -1;
	for (int i = 0; i < 8; i++) {
		g[2 * i] = (uint8_t)(w[i] >> 8);
		g[2 * i + 1] = (uint8_t)w[i];
	}
	return 0;
}

static void side_open(const char *path)
{
	struct ib_uverbs_get_context_resp ctx;
	struct qp_spec s;
	struct ib_uverbs_create_qp_resp r;
	char v[128];
	size_t len = 2 * ((size_t)BIG + 4096);
	long cq;

	S.fd = open(path, O_RDWR | O_CLOEXEC);
	if (S.fd < 0)
		t_bail("%s: open %s: %s", is_child ? "B" : "A", path, strerror(errno));
	if (uverbs_ibdev(path, S.ibdev, sizeof(S.ibdev)))
		t_bail("no ibdev for %s", path);
	if (uv_get_context(S.fd, &ctx))
		t_bail("GET_CONTEXT on %s: %s", path, strerror(errno));
	if (uv_query_port(S.fd, 1, &S.port))
		t_bail("QUERY_PORT on %s: %s", path, strerror(errno));
	if (S.port.state != 4 || S.port.lid == 0)
		t_bail("%s port 1 is not ACTIVE with a LID (state %u lid %u): run an SM first", S.ibdev,
		       S.port.state, S.port.lid);
	if (sysfs_port_text(S.ibdev, 1, "gids/0", v, sizeof(v)) || parse_gid(v, S.gid))
		t_bail("%s: no ports/1/gids/0", S.ibdev);
	S.pd = (uint32_t)uv_alloc_pd(S.fd);
	S.chan = uv_create_comp_channel(S.fd);
	S.cq_user_handle = is_child ? 0xb0b0 : 0xa0a0;
	cq = is_child ? -1 : ioctl_create_cq(S.fd, 512, S.chan, S.cq_user_handle);
	if (cq < 0 && !is_child && errno != ENOTTY && errno != EPROTONOSUPPORT)
		t_bail("CQ_CREATE by ioctl: %s", strerror(errno));
	if (!is_child)
		t_diag("side A's CQ by %s", cq < 0 ? "write() (no ioctl CQ_CREATE)" : "ioctl CQ_CREATE");
	if (cq < 0)
		cq = uv_create_cq(S.fd, 512, S.chan, 0, S.cq_user_handle, NULL);
	S.cq = (uint32_t)cq;
	S.buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (S.buf == MAP_FAILED)
		t_bail("mmap: %s", strerror(errno));
	S.src = S.buf + BIG + 4096;
	S.mr = (uint32_t)uv_reg_mr(S.fd, S.pd, S.buf, len, (uintptr_t)S.buf,
				   ACC_LOCAL_WRITE | ACC_REMOTE_WRITE | ACC_REMOTE_READ | ACC_REMOTE_ATOMIC,
				   &S.lkey, &S.rkey);
	qp_spec_default(&s, QPT_RC, S.pd, S.cq);
	s.max_send_wr = 64;
	s.max_recv_wr = 64;
	if (uv_create_qp(S.fd, &s, &r) < 0)
		t_bail("CREATE_QP RC: %s", strerror(errno));
	S.rc = r.qp_handle;
	S.rc_qpn = r.qpn;
	qp_spec_default(&s, QPT_UD, S.pd, S.cq);
	if (uv_create_qp(S.fd, &s, &r) < 0)
		t_bail("CREATE_QP UD: %s", strerror(errno));
	S.ud = r.qp_handle;
	S.ud_qpn = r.qpn;
	S.psn = is_child ? 0x100 : 0x200;
}

static void exchange(void)
{
	struct msg m = { .kind = M_PEER };
	m.p.lid = S.port.lid;
	m.p.qpn = S.rc_qpn;
	m.p.psn = S.psn;
	m.p.rkey = S.rkey;
	m.p.addr = (uintptr_t)S.buf;
	memcpy(m.p.gid, S.gid, 16);
	m.v = S.ud_qpn;
	msg_send(&m);
	msg_wait(M_PEER, &m);
	P = m.p;
	peer_ud_qpn = (uint32_t)m.v;
}

/* Both sides: RC QP through RESET to RTS towards the peer (new PSNs each time). */
static int rc_connect(uint8_t rnr_retry)
{
	struct ib_uverbs_modify_qp m;
	struct peer p = P;
	int ret;
	modify_fill(&m, S.rc, QPS_RESET, QP_STATE, NULL, 1);
	uv_modify_qp(S.fd, &m);
	/* our rq_psn is what the peer sends from: its sq_psn, which modify_fill fixes at 0x1234 */
	p.psn = 0x1234;
	ret = qp_to_rts(S.fd, S.rc, QPT_RC, &p, S.port.active_mtu, rnr_retry, 7, 14);
	sync_sides();
	return ret;
}

static void drain(void)
{
	struct ib_uverbs_wc wc[16];
	while (uv_poll_cq(S.fd, S.cq, 16, wc) > 0)
		;
}

static void pattern(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)(x >> 16);
	}
}

static size_t first_diff(const uint8_t *a, uint32_t seed, size_t n)
{
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		if (a[i] != (uint8_t)(x >> 16))
			return i;
	}
	return n;
}

static int wait_wc(struct ib_uverbs_wc *wc, uint32_t len)
{
	int ms = 10000 + (int)(len >> 10); /* 10 s plus 1 ms per KiB */
	return uv_wait_wc(S.fd, S.cq, wc, ms);
}

static const uint32_t sizes[] = { 1, 63, 4096, 65537, 1u << 20, BIG };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* ------------------------------------------------------------ RC operations */
static void rc_send_recv(int with_imm)
{
	for (unsigned i = 0; i < NSIZES; i++) {
		uint32_t n = sizes[i], seed = n + (uint32_t)with_imm;
		struct ib_uverbs_wc wc;
		int got;
		if (!is_child) {
			memset(S.buf, 0, n + 1);
			uv_post_recv(S.fd, S.rc, 0, 0x1000 + i, (uintptr_t)S.buf, BIG, S.lkey, NULL);
			sync_sides();
			got = wait_wc(&wc, n);
			check(got == 1 && wc.status == WC_SUCCESS && wc.opcode == WC_RECV && wc.byte_len == n &&
				      wc.wr_id == 0x1000 + i && wc.qp_num == S.rc_qpn,
			      "RC %s %u B: receive completion (status %u opcode %u len %u)",
			      with_imm ? "SEND_WITH_IMM" : "SEND", n, got == 1 ? wc.status : 99, wc.opcode, wc.byte_len);
			if (with_imm)
				check(got == 1 && (wc.wc_flags & WC_FLAG_WITH_IMM) && wc.ex.imm_data == htonl(0xabc00000u + i),
				      "RC SEND_WITH_IMM %u B: IBV_WC_WITH_IMM and the immediate (0x%x)", n,
				      ntohl(wc.ex.imm_data));
			check(got == 1 && first_diff(S.buf, seed, n) == n && S.buf[n] == 0,
			      "RC %s %u B: data byte for byte, nothing past it", with_imm ? "SEND_WITH_IMM" : "SEND", n);
		} else {
			struct send_req sr = { .wr_id = 0x2000 + i, .opcode = with_imm ? IB_UVERBS_WR_SEND_WITH_IMM
										: IB_UVERBS_WR_SEND,
					       .flags = SEND_SIGNALED, .imm = 0xabc00000u + i,
					       .addr = (uintptr_t)S.src, .len = n, .lkey = S.lkey };
			pattern(S.src, n, seed);
			sync_sides();
			check(uv_post_send(S.fd, S.rc, &sr, NULL) == 0, "RC %s %u B: POST_SEND",
			      with_imm ? "SEND_WITH_IMM" : "SEND", n);
			got = wait_wc(&wc, n);
			check(got == 1 && wc.status == WC_SUCCESS && wc.opcode == IB_UVERBS_WC_SEND && wc.wr_id == 0x2000 + i,
			      "RC %s %u B: send completion SUCCESS (status %u opcode %u)",
			      with_imm ? "SEND_WITH_IMM" : "SEND", n, got == 1 ? wc.status : 99, wc.opcode);
		}
		sync_sides();
	}
}

static void rc_write(int with_imm)
{
	for (unsigned i = 0; i < NSIZES; i++) {
		uint32_t n = sizes[i], seed = 7 * n + (uint32_t)with_imm, off = 64;
		struct ib_uverbs_wc wc;
		int got;
		if (!is_child) {
			memset(S.buf, 0, n + off + 1);
			if (with_imm)
				uv_post_recv(S.fd, S.rc, 0, 0x3000 + i, (uintptr_t)S.buf + BIG, 16, S.lkey, NULL);
			sync_sides();
			if (with_imm) {
				got = wait_wc(&wc, n);
				check(got == 1 && wc.status == WC_SUCCESS && wc.opcode == WC_RECV_RDMA_WITH_IMM &&
					      (wc.wc_flags & WC_FLAG_WITH_IMM) && wc.ex.imm_data == htonl(0x77000000u + i),
				      "RC RDMA_WRITE_WITH_IMM %u B: RECV_RDMA_WITH_IMM completion with the immediate "
				      "(status %u opcode %u)", n, got == 1 ? wc.status : 99, wc.opcode);
			}
			sync_sides(); /* the writer saw its completion */
			check(first_diff(S.buf + off, seed, n) == n && S.buf[off - 1] == 0 && S.buf[off + n] == 0,
			      "RC RDMA_WRITE%s %u B at offset %u: data byte for byte, nothing around it",
			      with_imm ? "_WITH_IMM" : "", n, off);
		} else {
			struct send_req sr = { .wr_id = 0x4000 + i,
					       .opcode = with_imm ? IB_UVERBS_WR_RDMA_WRITE_WITH_IMM : IB_UVERBS_WR_RDMA_WRITE,
					       .flags = SEND_SIGNALED, .imm = 0x77000000u + i,
					       .addr = (uintptr_t)S.src, .len = n, .lkey = S.lkey,
					       .remote_addr = P.addr + off, .rkey = P.rkey };
			pattern(S.src, n, seed);
			sync_sides();
			uv_post_send(S.fd, S.rc, &sr, NULL);
			got = wait_wc(&wc, n);
			check(got == 1 && wc.status == WC_SUCCESS && wc.opcode == IB_UVERBS_WC_RDMA_WRITE,
			      "RC RDMA_WRITE%s %u B: completion SUCCESS (status %u opcode %u)", with_imm ? "_WITH_IMM" : "",
			      n, got == 1 ? wc.status : 99, wc.opcode);
			sync_sides();
		}
		sync_sides();
	}
}

static void rc_read(void)
{
	for (unsigned i = 0; i < NSIZES; i++) {
		uint32_t n = sizes[i], seed = 13 * n;
		struct ib_uverbs_wc wc;
		int got;
		if (!is_child) {
			pattern(S.buf, n, seed);
			sync_sides();
		} else {
			struct send_req sr = { .wr_id = 0x5000 + i, .opcode = IB_UVERBS_WR_RDMA_READ,
					       .flags = SEND_SIGNALED, .addr = (uintptr_t)S.src, .len = n,
					       .lkey = S.lkey, .remote_addr = P.addr, .rkey = P.rkey };
			memset(S.src, 0, n + 1);
			sync_sides();
			uv_post_send(S.fd, S.rc, &sr, NULL);
			got = wait_wc(&wc, n);
			check(got == 1 && wc.status == WC_SUCCESS && wc.opcode == IB_UVERBS_WC_RDMA_READ && wc.byte_len == n,
			      "RC RDMA_READ %u B: completion SUCCESS, byte_len (status %u opcode %u len %u)", n,
			      got == 1 ? wc.status : 99, wc.opcode, wc.byte_len);
			check(first_diff(S.src, seed, n) == n && S.src[n] == 0,
			      "RC RDMA_READ %u B: data byte for byte, nothing past it", n);
		}
		sync_sides();
	}
}

static void rc_atomics(uint32_t atomic_cap)
{
	uint64_t *target = (uint64_t *)(void *)(S.buf + 4096);
	struct {
		uint32_t op;
		uint64_t cmp, swap, old, after;
		const char *what;
	} steps[] = {
		{ IB_UVERBS_WR_ATOMIC_CMP_AND_SWP, 0x1111, 0x2222, 0x1111, 0x2222, "CMP_AND_SWP equal: swaps" },
		{ IB_UVERBS_WR_ATOMIC_CMP_AND_SWP, 0x9999, 0x3333, 0x2222, 0x2222, "CMP_AND_SWP unequal: keeps" },
		{ IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD, 5, 0, 0x2222, 0x2227, "FETCH_AND_ADD 5" },
		{ IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD, 0xffffffffffffffffULL, 0, 0x2227, 0x2226, "FETCH_AND_ADD -1 (wraps)" },
	};
	if (atomic_cap == 0) {
		if (!is_child)
			t_skip("RC atomics", "device reports atomic_cap IB_ATOMIC_NONE");
		return;
	}
	if (!is_child)
		*target = 0x1111;
	sync_sides();
	for (unsigned i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct ib_uverbs_wc wc;
		int got;
		if (is_child) {
			uint64_t *old = (uint64_t *)(void *)S.src;
			struct send_req sr = { .wr_id = 0x6000 + i, .opcode = steps[i].op, .flags = SEND_SIGNALED,
					       .addr = (uintptr_t)S.src, .len = 8, .lkey = S.lkey,
					       .remote_addr = P.addr + 4096, .rkey = P.rkey,
					       .compare_add = steps[i].cmp, .swap = steps[i].swap };
			*old = 0xdeaddeaddeaddeadULL;
			uv_post_send(S.fd, S.rc, &sr, NULL);
			got = wait_wc(&wc, 8);
			check(got == 1 && wc.status == WC_SUCCESS &&
				      wc.opcode == (steps[i].op == IB_UVERBS_WR_ATOMIC_CMP_AND_SWP ? IB_UVERBS_WC_COMP_SWAP
												: IB_UVERBS_WC_FETCH_ADD),
			      "RC ATOMIC %s: completion SUCCESS (status %u opcode %u)", steps[i].what,
			      got == 1 ? wc.status : 99, wc.opcode);
			check(*old == steps[i].old, "RC ATOMIC %s: original value 0x%llx returned (got 0x%llx)",
			      steps[i].what, (unsigned long long)steps[i].old, (unsigned long long)*old);
			sync_sides();
			sync_sides(); /* A has read the target: the next atomic may change it */
		} else {
			sync_sides();
			check(*target == steps[i].after, "RC ATOMIC %s: target now 0x%llx (got 0x%llx)", steps[i].what,
			      (unsigned long long)steps[i].after, (unsigned long long)*target);
			sync_sides();
		}
	}
	sync_sides();
}

/* A blocking read of the completion channel after REQ_NOTIFY_CQ (ib_uverbs_comp_handler). */
static void on_alarm(int sig) { (void)sig; }

static void completion_event(void)
{
	struct ib_uverbs_wc wc;
	if (!is_child) {
		struct ib_uverbs_comp_event_desc ev;
		struct sigaction sa, old;
		ssize_t n;
		int got;
		drain();
		uv_post_recv(S.fd, S.rc, 0, 0x7000, (uintptr_t)S.buf, BIG, S.lkey, NULL);
		check(uv_req_notify(S.fd, S.cq, 0) == 0, "REQ_NOTIFY_CQ before the event");
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm; /* no SA_RESTART: a hang ends in EINTR */
		sigaction(SIGALRM, &sa, &old);
		alarm(20);
		sync_sides();
		memset(&ev, 0, sizeof(ev));
		n = read(S.chan, &ev, sizeof(ev));
		alarm(0);
		sigaction(SIGALRM, &old, NULL);
		watchdog(300);
		check(n == (ssize_t)sizeof(ev), "completion channel: blocking read returns one 8-byte event (ret %zd %s)",
		      n, n < 0 ? ename(errno) : "");
		check(ev.cq_handle == S.cq_user_handle, "completion event names the CQ's user_handle (0x%llx)",
		      (unsigned long long)ev.cq_handle);
		got = wait_wc(&wc, 100);
		check(got == 1 && wc.status == WC_SUCCESS && wc.wr_id == 0x7000, "the event's completion is on the CQ");
		check(wait_readable(S.chan, 300) == 0, "completion channel: no second event without REQ_NOTIFY_CQ");
	} else {
		struct send_req sr = { .wr_id = 0x7100, .opcode = IB_UVERBS_WR_SEND, .flags = SEND_SIGNALED,
				       .addr = (uintptr_t)S.src, .len = 100, .lkey = S.lkey };
		sync_sides();
		sleep_ms(200); /* let A block in read() first */
		uv_post_send(S.fd, S.rc, &sr, NULL);
		wait_wc(&wc, 100);
	}
	sync_sides();
	drain();
}

/* ------------------------------------------------------------ RC errors */
static void rc_errors(void)
{
	struct ib_uverbs_wc wc;
	int got;

	/* bad rkey: the responder NAKs with Remote Access Error */
	rc_connect(7);
	if (is_child) {
		struct send_req sr = { .wr_id = 0x8000, .opcode = IB_UVERBS_WR_RDMA_WRITE, .flags = SEND_SIGNALED,
				       .addr = (uintptr_t)S.src, .len = 64, .lkey = S.lkey,
				       .remote_addr = P.addr, .rkey = P.rkey ^ 0x5a5a00 };
		uv_post_send(S.fd, S.rc, &sr, NULL);
		got = wait_wc(&wc, 0);
		check(got == 1 && wc.status == WC_REM_ACCESS_ERR && wc.wr_id == 0x8000,
		      "RDMA_WRITE with a bad rkey: REM_ACCESS_ERR (status %u)", got == 1 ? wc.status : 99);
		sr.wr_id = 0x8001;
		sr.opcode = IB_UVERBS_WR_SEND;
		check(uv_post_send(S.fd, S.rc, &sr, NULL) == 0, "POST_SEND after the error: accepted (QP in ERR)");
		got = wait_wc(&wc, 0);
		check(got == 1 && wc.status == WC_WR_FLUSH_ERR && wc.wr_id == 0x8001,
		      "  ... and flushed: WR_FLUSH_ERR (status %u)", got == 1 ? wc.status : 99);
		{
			struct ib_uverbs_query_qp_resp q;
			check(uv_query_qp(S.fd, S.rc, QP_STATE, &q) == 0 && q.qp_state == QPS_ERR,
			      "requester QP is in ERR after REM_ACCESS_ERR (state %u)", q.qp_state);
		}
	}
	sync_sides();
	drain();

	/* bad lkey: the requester's own check */
	rc_connect(7);
	if (is_child) {
		struct send_req sr = { .wr_id = 0x8100, .opcode = IB_UVERBS_WR_SEND, .flags = SEND_SIGNALED,
				       .addr = (uintptr_t)S.src, .len = 64, .lkey = S.lkey ^ 0x5a5a00 };
		uv_post_send(S.fd, S.rc, &sr, NULL);
		got = wait_wc(&wc, 0);
		check(got == 1 && wc.status == WC_LOC_PROT_ERR && wc.wr_id == 0x8100,
		      "SEND with a bad lkey: LOC_PROT_ERR (status %u)", got == 1 ? wc.status : 99);
	}
	sync_sides();
	drain();

	/* receiver not ready, rnr_retry 0 */
	rc_connect(0);
	if (is_child) {
		struct send_req sr = { .wr_id = 0x8200, .opcode = IB_UVERBS_WR_SEND, .flags = SEND_SIGNALED,
				       .addr = (uintptr_t)S.src, .len = 64, .lkey = S.lkey };
		uv_post_send(S.fd, S.rc, &sr, NULL);
		got = wait_wc(&wc, 0);
		check(got == 1 && wc.status == WC_RNR_RETRY_EXC_ERR && wc.wr_id == 0x8200,
		      "SEND with no receive posted, rnr_retry 0: RNR_RETRY_EXC_ERR (status %u)",
		      got == 1 ? wc.status : 99);
	}
	sync_sides();
	drain();

	/* receive buffer too short */
	rc_connect(7);
	if (!is_child) {
		uv_post_recv(S.fd, S.rc, 0, 0x8300, (uintptr_t)S.buf, 16, S.lkey, NULL);
		sync_sides();
		got = wait_wc(&wc, 0);
		check(got == 1 && wc.status == WC_LOC_LEN_ERR && wc.wr_id == 0x8300,
		      "responder: 100 B into a 16 B receive: LOC_LEN_ERR (status %u)", got == 1 ? wc.status : 99);
	} else {
		struct send_req sr = { .wr_id = 0x8301, .opcode = IB_UVERBS_WR_SEND, .flags = SEND_SIGNALED,
				       .addr = (uintptr_t)S.src, .len = 100, .lkey = S.lkey };
		sync_sides();
		uv_post_send(S.fd, S.rc, &sr, NULL);
		got = wait_wc(&wc, 0);
		check(got == 1 && wc.status == WC_REM_INV_REQ_ERR && wc.wr_id == 0x8301,
		      "requester: 100 B into a 16 B receive: REM_INV_REQ_ERR (status %u)", got == 1 ? wc.status : 99);
	}
	sync_sides();
	drain();
}

/* ------------------------------------------------------------ UD */
static void ud_grh(void)
{
	struct ib_uverbs_modify_qp m;
	struct ib_uverbs_wc wc;
	int got;

	modify_fill(&m, S.ud, QPS_INIT, mask_reset_init(QPT_UD), NULL, 1);
	uv_modify_qp(S.fd, &m);
	modify_fill(&m, S.ud, QPS_RTR, mask_init_rtr(QPT_UD), NULL, 1);
	uv_modify_qp(S.fd, &m);
	modify_fill(&m, S.ud, QPS_RTS, mask_rtr_rts(QPT_UD), NULL, 1);
	check(uv_modify_qp(S.fd, &m) == 0, "UD QP to RTS");
	for (int grh = 1; grh >= 0; grh--) {
		if (!is_child) {
			memset(S.buf, 0xee, 4096);
			uv_post_recv(S.fd, S.ud, 0, 0x9000 + (unsigned)grh, (uintptr_t)S.buf, 40 + 256, S.lkey, NULL);
			sync_sides();
			got = wait_wc(&wc, 0);
			check(got == 1 && wc.status == WC_SUCCESS && wc.opcode == WC_RECV && wc.byte_len == 40 + 100,
			      "UD %s GRH: receive of 100 B, byte_len 140 (the 40-byte GRH area counts) (status %u len %u)",
			      grh ? "with" : "without", got == 1 ? wc.status : 99, wc.byte_len);
			check(got == 1 && !!(wc.wc_flags & WC_FLAG_GRH) == grh, "UD %s GRH: IBV_WC_GRH %s (flags 0x%x)",
			      grh ? "with" : "without", grh ? "set" : "clear", wc.wc_flags);
			check(got == 1 && wc.src_qp == peer_ud_qpn && wc.slid == P.lid,
			      "UD %s GRH: src_qp and slid name the sender (0x%x, %u)", grh ? "with" : "without", wc.src_qp,
			      wc.slid);
			check(first_diff(S.buf + 40, 0x99, 100) == 100, "UD %s GRH: payload after the 40 bytes",
			      grh ? "with" : "without");
			if (grh)
				check(S.buf[0] >> 4 == 6 && memcmp(S.buf + 8, P.gid, 16) == 0 && memcmp(S.buf + 24, S.gid, 16) == 0,
				      "UD with GRH: IPv6 version 6, SGID = sender's GID, DGID = ours");
		} else {
			long ah = uv_create_ah(S.fd, S.pd, P.lid, 1, grh ? P.gid : NULL);
			struct send_req sr = { .wr_id = 0x9100, .opcode = IB_UVERBS_WR_SEND, .flags = SEND_SIGNALED,
					       .addr = (uintptr_t)S.src, .len = 100, .lkey = S.lkey,
					       .ah = (uint32_t)ah, .remote_qpn = peer_ud_qpn, .remote_qkey = 0x11111111 };
			check(ah >= 0, "CREATE_AH %s GRH to the peer", grh ? "with" : "without");
			pattern(S.src, 100, 0x99);
			sync_sides();
			check(uv_post_send(S.fd, S.ud, &sr, NULL) == 0, "UD POST_SEND");
			got = wait_wc(&wc, 0);
			check(got == 1 && wc.status == WC_SUCCESS, "UD send completion SUCCESS (status %u)",
			      got == 1 ? wc.status : 99);
			if (ah >= 0)
				uv_destroy_ah(S.fd, (uint32_t)ah);
		}
		sync_sides();
	}
}

/* ------------------------------------------------------------ multicast */
static int umad_for(const char *ibdev)
{
	char path[256], v[64];
	for (int i = 0; i < 32; i++) {
		snprintf(path, sizeof(path), "%s/class/infiniband_mad/umad%d/ibdev", sysfs_root(), i);
		if (read_text(path, v, sizeof(v)) == 0 && strcmp(v, ibdev) == 0) {
			snprintf(path, sizeof(path), "%s/class/infiniband_mad/umad%d/port", sysfs_root(), i);
			if (read_text(path, v, sizeof(v)) == 0 && atoi(v) == 1)
				return i;
		}
	}
	return -1;
}

/* SA MCMemberRecord Set (join, full member) of the IPoIB broadcast group: MLID and Q_Key back. */
static int sa_join(const uint8_t *mgid, uint16_t *mlid, uint32_t *qkey)
{
	char path[64];
	struct uf u;
	uint32_t agent;
	uint8_t mad[MAD_SIZE], buf[HDR_NEW + MAD_SIZE];
	struct uaddr a;
	ssize_t n;
	int num = umad_for(S.ibdev);
	if (num < 0)
		return -1;
	snprintf(path, sizeof(path), "/dev/infiniband/umad%d", num);
	setenv("IBEMU_UMAD", path, 1);
	if (uf_open(&u, 0) < 0)
		return -1;
	if (reg1(u.fd, 1, CLS_SUBN_ADM, 2, 0, 0, 0, 1, &agent)) {
		uf_close(&u);
		return -1;
	}
	memset(mad, 0, sizeof(mad));
	mad_hdr(mad, CLS_SUBN_ADM, 2, M_SET, 0x5a00000000000000ULL | (is_child ? 2 : 1), 0x0038, 0);
	mad[24] = 1; /* RMPP version, no RMPP active */
	put64(mad + 48, (1u << 0) | (1u << 1) | (1u << 16)); /* MGID, PortGID, JoinState */
	memcpy(mad + 56, mgid, 16);
	memcpy(mad + 56 + 16, S.gid, 16);
	mad[56 + 48] = 0x01; /* scope 0 in the high nibble (ignored), JoinState full member */
	uaddr_gsi(&a, agent, S.port.sm_lid);
	if (uf_send(&u, &a, mad, sizeof(mad)) < 0) {
		uf_close(&u);
		return -1;
	}
	n = uf_recv_tid(&u, buf, sizeof(buf), is_child ? 2 : 1, 5000);
	uf_close(&u);
	if (n < u.hsz + 56 + 40 || get16(buf + u.hsz + MAD_STATUS) != 0)
		return -1;
	*qkey = get32(buf + u.hsz + 56 + 32);
	*mlid = get16(buf + u.hsz + 56 + 36);
	return 0;
}

static void multicast(void)
{
	static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	uint16_t mlid = 0;
	uint32_t qkey = 0;
	int joined = sa_join(mgid, &mlid, &qkey) == 0;
	uint32_t qps[2];
	int nq = is_child ? 1 : 2;
	struct ib_uverbs_wc wc;

	check(joined && mlid >= 0xc000, "SA join of the IPoIB broadcast group: MLID 0x%x (>= 0xC000)", mlid);
	send_value(joined);
	if (!joined || !recv_value()) {
		sync_sides();
		return;
	}
	for (int i = 0; i < nq; i++) {
		struct qp_spec s;
		struct ib_uverbs_modify_qp m;
		qp_spec_default(&s, QPT_UD, S.pd, S.cq);
		qps[i] = (uint32_t)uv_create_qp(S.fd, &s, NULL);
		modify_fill(&m, qps[i], QPS_INIT, mask_reset_init(QPT_UD), NULL, 1);
		m.qkey = qkey;
		uv_modify_qp(S.fd, &m);
		modify_fill(&m, qps[i], QPS_RTR, mask_init_rtr(QPT_UD), NULL, 1);
		uv_modify_qp(S.fd, &m);
		modify_fill(&m, qps[i], QPS_RTS, mask_rtr_rts(QPT_UD), NULL, 1);
		check(uv_modify_qp(S.fd, &m) == 0, "multicast UD QP %c%d to RTS", is_child ? 'B' : 'A', i);
		check(uv_mcast(S.fd, 1, qps[i], mgid, mlid) == 0, "ATTACH_MCAST QP %c%d to MLID 0x%x",
		      is_child ? 'B' : 'A', i, mlid);
		uv_post_recv(S.fd, qps[i], 0, 0xa000 + (unsigned)i, (uintptr_t)S.buf + (size_t)i * 4096, 2048, S.lkey, NULL);
	}
	drain();
	sync_sides();
	if (is_child) {
		/* B sends to the group: both of A's QPs receive one copy each */
		long ah = uv_create_ah(S.fd, S.pd, mlid, 1, mgid);
		struct send_req sr = { .wr_id = 0xa100, .opcode = IB_UVERBS_WR_SEND, .flags = SEND_SIGNALED,
				       .addr = (uintptr_t)S.src, .len = 200, .lkey = S.lkey, .ah = (uint32_t)ah,
				       .remote_qpn = 0xffffff, .remote_qkey = qkey };
		int posted = ah >= 0, delivered = 0;
		pattern(S.src, 200, 0x3c);
		/*
		 * OpenSM answers the join before it has programmed the switches' multicast tables:
		 * until it has, the packet is lost in the fabric, as on hardware. Send again until A
		 * has its copies (each send reaches A's port whole or not at all).
		 */
		for (int attempt = 0; attempt < 20 && posted && !delivered; attempt++) {
			posted = uv_post_send(S.fd, qps[0], &sr, NULL) == 0;
			send_value((uint64_t)posted);
			delivered = (int)recv_value();
		}
		check(posted, "UD send to the multicast group");
		sync_sides();
		uv_destroy_ah(S.fd, (uint32_t)ah);
	} else {
		int got[2] = { 0, 0 }, bad = 0;
		for (int attempt = 0; attempt < 20; attempt++) {
			double end = now_ms() + 250;
			int done;
			if (!recv_value()) {
				send_value(0);
				break;
			}
			while ((!got[0] || !got[1]) && now_ms() < end) {
				if (uv_poll_cq(S.fd, S.cq, 1, &wc) == 1) {
					if (wc.opcode == WC_RECV && (wc.wr_id == 0xa000 || wc.wr_id == 0xa001)) {
						int i = (int)(wc.wr_id - 0xa000);
						got[i]++;
						bad |= wc.status != WC_SUCCESS || wc.byte_len != 240 ||
						       first_diff(S.buf + (size_t)i * 4096 + 40, 0x3c, 200) != 200 ||
						       !(wc.wc_flags & WC_FLAG_GRH);
					}
				} else {
					sleep_ms(1);
				}
			}
			done = got[0] && got[1];
			send_value((uint64_t)done);
			if (done)
				break;
		}
		check(got[0] == 1 && got[1] == 1 && !bad,
		      "multicast: each of A's two attached QPs receives the 200 B (with GRH) once (%d, %d%s)", got[0],
		      got[1], bad ? ", bad completion or data" : "");
		sync_sides(); /* B may destroy its AH: A has its copies */
	}
	for (int i = 0; i < nq; i++) {
		uv_mcast(S.fd, 0, qps[i], mgid, mlid);
		uv_destroy_qp(S.fd, qps[i]);
	}
	drain();
	sync_sides();
}

static void teardown(void)
{
	struct ib_uverbs_destroy_cq_resp dr = { 99, 99 };
	uv_destroy_qp(S.fd, S.rc);
	uv_destroy_qp(S.fd, S.ud);
	uv_dereg_mr(S.fd, S.mr);
	/* A read one completion event, B none (ib_uverbs_event_read counts what was read) */
	int destroyed = uv_destroy_cq(S.fd, S.cq, &dr); /* before the check reads dr: argument order is unspecified */
	check(destroyed == 0 && dr.comp_events_reported == (is_child ? 0u : 1u),
	      "DESTROY_CQ on side %c: comp_events_reported %d (got %u)", is_child ? 'B' : 'A', is_child ? 0 : 1,
	      dr.comp_events_reported);
	check(uv_dealloc_pd(S.fd, S.pd) == 0, "DEALLOC_PD after everything else");
	close(S.chan);
	close(S.fd);
}

int main(int argc, char **argv)
{
	const char *a = argc > 1 ? argv[1] : "/dev/infiniband/uverbs0";
	const char *b = argc > 2 ? argv[2] : "/dev/infiniband/uverbs1";
	int ab[2], ba[2], st = 0;
	pid_t pid;
	struct ib_uverbs_query_device_resp d;

	watchdog(300);
	if (pipe(ab) || pipe(ba))
		t_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		t_bail("fork: %s", strerror(errno));
	is_child = pid == 0;
	if (is_child) {
		to_peer = ba[1];
		from_peer = ab[0];
		close(ab[1]);
		close(ba[0]);
	} else {
		to_peer = ab[1];
		from_peer = ba[0];
		close(ab[0]);
		close(ba[1]);
	}
	side_open(is_child ? b : a);
	exchange();
	check(rc_connect(7) == 0, "RC QP RESET->INIT->RTR->RTS towards the peer");
	drain();
	rc_send_recv(0);
	rc_send_recv(1);
	rc_write(0);
	rc_write(1);
	rc_read();
	uv_query_device(S.fd, &d);
	rc_atomics(d.atomic_cap);
	completion_event();
	rc_errors();
	ud_grh();
	multicast();
	teardown();
	if (is_child) {
		struct msg m = { .kind = M_SYNC };
		msg_send(&m);
		_exit(0);
	}
	msg_wait(M_SYNC, NULL);
	waitpid(pid, &st, 0);
	t_line(WIFEXITED(st) && WEXITSTATUS(st) == 0, "side B exited 0", "status 0x%x", st);
	return t_done();
}
