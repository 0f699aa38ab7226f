/*
 * umad_rw.c - read/write/poll/close ABI of /dev/infiniband/umadN.
 *
 * Build: gcc -O2 -Wall -o umad_rw umad_rw.c
 * Run:   ./umad_rw               (IBEMU_UMAD / IBEMU_SYSFS override paths)
 *
 * Rules from drivers/infiniband/core/user_mad.c (ib_umad_write,
 * is_duplicate, ib_umad_read, copy_recv_mad, copy_send_mad, send_handler,
 * recv_handler, ib_umad_poll, ib_umad_close), mad.c (ib_create_send_mad,
 * ib_post_send_mad, handle_outgoing_dr_smp, local_completions,
 * generate_unmatched_resp, timeout_sends) and smi.c
 * (smi_handle_dr_smp_send).
 */
#include "probe.h"

static struct port_id P;
static uint64_t node_guid;
static long port_lid;

#define ETIMEDOUT_STATUS 110

static void open_or_bail(struct uf *u, int flags)
{
	if (uf_open(u, flags) < 0)
		t_bail("open %s: %s", umad_path(), strerror(errno));
}

static uint32_t reg_or_bail(struct uf *u, int v2, uint8_t qpn, uint8_t cls, uint8_t ver,
			    uint8_t rmpp)
{
	uint32_t id;
	int r = v2 ? reg2(u->fd, qpn, cls, ver, 0, 0, 0, rmpp, 0, &id, NULL)
		   : reg1(u->fd, qpn, cls, ver, 0, 0, 0, rmpp, &id);
	if (r)
		t_bail("register class 0x%02x qpn %d: %s", cls, qpn, strerror(errno));
	if (v2)
		u->hsz = HDR_NEW;
	return id;
}

static void gsi_mad(uint8_t *m, uint8_t cls, uint8_t ver, uint8_t method, uint64_t tid,
		    uint16_t attr)
{
	memset(m, 0, MAD_SIZE);
	mad_hdr(m, cls, ver, method, tid, attr, 0);
}

/* Checks a hop-0 SubnGet(NodeInfo) answer read from u. */
static void check_nodeinfo_resp(const char *what, const struct uf *u, const uint8_t *buf,
				ssize_t n, uint32_t agent, uint32_t tid_lo)
{
	char d[256];
	struct ib_user_mad_hdr h;
	const uint8_t *m = buf + u->hsz;
	uint32_t hi;

	snprintf(d, sizeof(d), "%s: read returns header (%d) + 256", what, u->hsz);
	t_eq(n, u->hsz + MAD_SIZE, d);
	if (n < u->hsz + MAD_SIZE)
		return;
	uf_hdr(u, buf, &h);
	snprintf(d, sizeof(d), "%s: hdr.length = %d", what, u->hsz + MAD_SIZE);
	t_eq(h.length, u->hsz + MAD_SIZE, d);
	snprintf(d, sizeof(d), "%s: hdr.status = 0", what);
	t_eq(h.status, 0, d);
	snprintf(d, sizeof(d), "%s: hdr.id = sending agent", what);
	t_eq(h.id, agent, d);
	snprintf(d, sizeof(d), "%s: hdr.qpn = 0 (source QP0)", what);
	t_eq(ntohl(h.qpn), 0, d);
	snprintf(d, sizeof(d), "%s: hdr.lid = 0xffff (dr_slid of the request, build_smp_wc)", what);
	t_eq(ntohs(h.lid), 0xffff, d);
	snprintf(d, sizeof(d), "%s: class 0x81 method GetResp", what);
	t_eq(m[1] << 8 | m[3], CLS_SUBN_DR << 8 | M_GET_RESP, d);
	snprintf(d, sizeof(d), "%s: MAD status 0x8000 (direction bit only)", what);
	t_eq(get16(m + MAD_STATUS), SMP_DIRECTION, d);
	snprintf(d, sizeof(d), "%s: TID low 32 bits as sent", what);
	t_eq((uint32_t)get64(m + MAD_TID), tid_lo, d);
	hi = get64(m + MAD_TID) >> 32;
	snprintf(d, sizeof(d), "%s: TID high 32 bits replaced by the agent's hi_tid (1..0xffffff)",
		 what);
	t_line(hi != 0xa5a5a5a5 && hi >= 1 && hi <= 0xffffff, d, "got 0x%08x", hi);
	snprintf(d, sizeof(d), "%s: attribute NodeInfo", what);
	t_eq(get16(m + MAD_ATTR), ATTR_NODE_INFO, d);
	snprintf(d, sizeof(d), "%s: NodeType 1 (CA)", what);
	t_eq(m[SMP_DATA + 2], 1, d);
	snprintf(d, sizeof(d), "%s: NodeGUID = sysfs node_guid", what);
	t_eq((long long)get64(m + SMP_DATA + 12), (long long)node_guid, d);
	snprintf(d, sizeof(d), "%s: LocalPortNum = umad port", what);
	t_eq(m[SMP_DATA + 36], P.port, d);
}

/* ------------------------------------------------------------ write errors */
static void test_write_errors(void)
{
	struct uf W;
	struct uaddr a;
	uint8_t mad[MAD_SIZE + 64], buf[4096];
	uint32_t ag;
	ssize_t n;

	open_or_bail(&W, 0);
	ag = reg_or_bail(&W, 0, 0, CLS_SUBN_DR, 1, 0); /* old layout: 56-byte header */

	dr_smp(mad, M_GET, ATTR_NODE_INFO, 0, 0x1001);
	uaddr_dr(&a, ag);
	t_errno(uf_send(&W, &a, mad, MGMT_RMPP_HDR - 1), errno, EINVAL,
		"write of header + 35 bytes: EINVAL");
	a.id = MAX_AGENTS;
	t_errno(uf_send(&W, &a, mad, MAD_SIZE), errno, EINVAL, "write with agent id 32: EINVAL");
	a.id = 0xffffffffu;
	t_errno(uf_send(&W, &a, mad, MAD_SIZE), errno, EINVAL,
		"write with agent id 0xffffffff: EINVAL");
	a.id = ag + 5;
	t_errno(uf_send(&W, &a, mad, MAD_SIZE), errno, EIO,
		"write with an id not registered on this file: EIO");
	a.id = ag;
	memset(mad + MAD_SIZE, 0, 64);
	t_errno(uf_send(&W, &a, mad, MAD_SIZE + 1), errno, EINVAL,
		"non-RMPP MAD of 257 bytes: EINVAL");

	/* directed route validated on send (smi_handle_dr_smp_send) */
	dr_smp(mad, M_GET, ATTR_NODE_INFO, 0, 0x1002);
	mad[SMP_HOP_CNT] = 64;
	t_errno(uf_send(&W, &a, mad, MAD_SIZE), errno, EINVAL, "DR SMP with hop_cnt 64: EINVAL");
	dr_smp(mad, M_GET, ATTR_NODE_INFO, 0, 0x1003);
	mad[SMP_HOP_CNT] = 1;
	mad[SMP_INITIAL_PATH + 1] = (uint8_t)(P.port + 1);
	t_errno(uf_send(&W, &a, mad, MAD_SIZE), errno, EINVAL,
		"DR SMP hop 1 whose first hop is not the sending port: EINVAL");

	/* a short MAD (header + 36) is accepted and zero-padded to 256 */
	dr_smp(mad, M_GET, ATTR_NODE_INFO, 0, 0x1004);
	n = uf_send(&W, &a, mad, MGMT_RMPP_HDR);
	t_ret(n, errno, W.hsz + MGMT_RMPP_HDR, "write of header + 36 bytes returns the count");
	if (n > 0) {
		n = uf_recv_tid(&W, buf, sizeof(buf), 0x1004, 3000);
		if (n == -2)
			t_line(0, "short SubnGet(NodeInfo) answered", "no answer in 3 s");
		else
			check_nodeinfo_resp("short request, old layout", &W, buf, n, ag, 0x1004);
	}

	/* an agent of another file is not ours */
	{
		struct uf O;
		uint32_t oag;
		open_or_bail(&O, 0);
		oag = reg_or_bail(&O, 0, 1, 0, 0, 0);
		oag = reg_or_bail(&O, 0, 1, 0, 0, 0); /* id 1 on O */
		(void)oag;
		a.id = 1; /* not registered on W (W has only id 0) */
		t_errno(uf_send(&W, &a, mad, MAD_SIZE), errno, EIO,
			"write through an id registered only on another file: EIO");
		uf_close(&O);
	}

	/* unregistered agent */
	unreg(W.fd, ag);
	a.id = ag;
	t_errno(uf_send(&W, &a, mad, MAD_SIZE), errno, EIO,
		"write through an unregistered agent: EIO");
	uf_close(&W);
}

/* ------------------------------------------------------------ read + poll */
static void test_read_poll(void)
{
	struct uf R;
	struct pollfd pf;
	uint8_t buf[4096];
	uint32_t ag, ag2;
	double t0, dt;
	ssize_t n;
	int r;

	open_or_bail(&R, O_NONBLOCK);
	ag = reg_or_bail(&R, 1, 0, CLS_SUBN_DR, 1, 0); /* REGISTER_AGENT2: 64-byte header */

	t_errno(read(R.fd, buf, HDR_NEW - 1), errno, EINVAL,
		"read with buffer smaller than the header (empty queue): EINVAL");
	t_errno(read(R.fd, buf, HDR_NEW), errno, EAGAIN, "O_NONBLOCK read, nothing queued: EAGAIN");
	t_errno(read(R.fd, buf, sizeof(buf)), errno, EAGAIN,
		"O_NONBLOCK read with big buffer, nothing queued: EAGAIN");
	/* stream_open in ib_umad_open: no seeking, no positional I/O */
	t_errno(lseek(R.fd, 0, SEEK_SET), errno, ESPIPE, "lseek on umad: ESPIPE");
	t_errno(pread(R.fd, buf, sizeof(buf), 0), errno, ESPIPE, "pread on umad: ESPIPE");
	t_errno(pwrite(R.fd, buf, HDR_NEW + MAD_SIZE, 0), errno, ESPIPE, "pwrite on umad: ESPIPE");

	pf.fd = R.fd;
	pf.events = POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM;
	pf.revents = 0;
	r = poll(&pf, 1, 0);
	t_eq(r == 1 ? pf.revents : -1, POLLOUT | POLLWRNORM,
	     "poll on empty queue: POLLOUT|POLLWRNORM only");

	pf.events = POLLIN;
	t0 = now_ms();
	r = poll(&pf, 1, 300);
	dt = now_ms() - t0;
	t_eq(r, 0, "poll(POLLIN, 300 ms) on empty queue times out");
	t_line(dt >= 280, "  ... after blocking about 300 ms", "returned after %.0f ms", dt);

	{
		uint8_t mad[MAD_SIZE];
		struct uaddr a;
		dr_smp(mad, M_GET, ATTR_NODE_INFO, 0, 0xbeef0001);
		uaddr_dr(&a, ag);
		n = uf_send(&R, &a, mad, sizeof(mad));
		t_ret(n, errno, HDR_NEW + MAD_SIZE, "write of a full SubnGet(NodeInfo) returns the count");
	}
	pf.events = POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM;
	t0 = now_ms();
	r = poll(&pf, 1, 3000);
	dt = now_ms() - t0;
	t_line(r == 1 && (pf.revents & POLLIN) && dt < 1000,
	       "poll wakes up when the response is queued", "poll=%d revents=0x%x after %.0f ms", r,
	       pf.revents, dt);
	t_eq(r == 1 ? pf.revents : -1, POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM,
	     "poll with a MAD queued: POLLIN|POLLRDNORM|POLLOUT|POLLWRNORM");

	t_errno(read(R.fd, buf, HDR_NEW + MAD_SIZE - 1), errno, EINVAL,
		"read with room for the header but not the whole MAD: EINVAL");
	r = poll(&pf, 1, 0);
	t_line(r == 1 && (pf.revents & POLLIN), "  ... the MAD stays queued (POLLIN)",
	       "poll=%d revents=0x%x", r, pf.revents);
	n = read(R.fd, buf, HDR_NEW + MAD_SIZE);
	if (n < 0)
		t_line(0, "read with an exactly-sized buffer gets the MAD", "errno %s", ename(errno));
	else
		check_nodeinfo_resp("new layout (REGISTER_AGENT2)", &R, buf, n, ag, 0xbeef0001);
	if (n >= HDR_NEW) {
		struct ib_user_mad_hdr h;
		uf_hdr(&R, buf, &h);
		t_eq(h.pkey_index, 0, "new layout: hdr.pkey_index = 0");
	}
	t_errno(read(R.fd, buf, sizeof(buf)), errno, EAGAIN, "queue empty again: EAGAIN");

	/* TID high part is per agent; the answer goes back to the sending agent */
	ag2 = reg_or_bail(&R, 1, 0, 0, 0, 0);
	n = dr_get(&R, ag, ATTR_NODE_INFO, 0, 0x77, buf, sizeof(buf));
	{
		uint8_t buf2[4096];
		ssize_t n2 = dr_get(&R, ag2, ATTR_NODE_INFO, 0, 0x77, buf2, sizeof(buf2));
		if (n < HDR_NEW + MGMT_MAD_HDR || n2 < HDR_NEW + MGMT_MAD_HDR) {
			t_line(0, "two agents, same TID: both answered", "n=%zd n2=%zd", n, n2);
		} else {
			struct ib_user_mad_hdr h1, h2;
			uf_hdr(&R, buf, &h1);
			uf_hdr(&R, buf2, &h2);
			t_line(h1.id == ag && h2.id == ag2,
			       "two agents, same TID: each answer goes to its sender",
			       "ids %u,%u want %u,%u", h1.id, h2.id, ag, ag2);
			t_line(get64(buf + HDR_NEW + MAD_TID) >> 32 != get64(buf2 + HDR_NEW + MAD_TID) >> 32,
			       "two agents: different TID high 32 bits",
			       "both 0x%08llx",
			       (unsigned long long)(get64(buf + HDR_NEW + MAD_TID) >> 32));
		}
	}
	uf_close(&R);
}

/* ------------------------------------------------------------ header layouts */
static void test_layouts(void)
{
	struct uf O, N;
	uint8_t buf[4096];
	uint32_t ag;
	ssize_t n;

	open_or_bail(&O, 0);
	ag = reg_or_bail(&O, 0, 0, CLS_SUBN_DR, 1, 0);
	t_eq(HDR_OLD, 56, "sizeof(struct ib_user_mad_hdr_old) = 56 (compile-time)");
	n = dr_get(&O, ag, ATTR_NODE_INFO, 0, 0x2001, buf, sizeof(buf));
	if (n < 0)
		t_line(0, "old layout: SubnGet(NodeInfo) answered", "%s",
		       n == -2 ? "no answer in 3 s" : ename(errno));
	else
		check_nodeinfo_resp("old layout (REGISTER_AGENT)", &O, buf, n, ag, 0x2001);
	uf_close(&O);

	open_or_bail(&N, 0);
	if (ioctl(N.fd, IB_USER_MAD_ENABLE_PKEY))
		t_line(0, "ENABLE_PKEY on a fresh file", "errno %s", ename(errno));
	N.hsz = HDR_NEW;
	ag = reg_or_bail(&N, 0, 0, CLS_SUBN_DR, 1, 0);
	N.hsz = HDR_NEW;
	n = dr_get(&N, ag, ATTR_NODE_INFO, 0, 0x2002, buf, sizeof(buf));
	if (n < 0)
		t_line(0, "ENABLE_PKEY layout: SubnGet(NodeInfo) answered", "%s",
		       n == -2 ? "no answer in 3 s" : ename(errno));
	else
		check_nodeinfo_resp("new layout (ENABLE_PKEY + REGISTER_AGENT)", &N, buf, n, ag, 0x2002);
	uf_close(&N);
}

/* ------------------------------------------------------------ blocking read */
static void test_blocking_read(void)
{
	struct uf B;
	uint32_t ag;
	int pfd[2];
	pid_t pid;
	long res[3];

	open_or_bail(&B, 0);
	ag = reg_or_bail(&B, 0, 0, CLS_SUBN_DR, 1, 0);
	if (pipe(pfd))
		t_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		uint8_t buf[4096];
		ssize_t n;
		close(pfd[0]);
		signal(SIGALRM, SIG_DFL);
		alarm(3); /* bounds how long a wrongly blocked parent write can wait */
		n = read(B.fd, buf, sizeof(buf));
		res[0] = n;
		res[1] = n < 0 ? errno : 0;
		res[2] = n >= B.hsz + MGMT_MAD_HDR ? (long)(uint32_t)get64(buf + B.hsz + MAD_TID) : -1;
		if (write(pfd[1], res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	t_eq(wait_readable(pfd[0], 300), 0, "blocking read with nothing queued blocks (300 ms)");
	{
		/*
		 * The kernel opens umad with stream_open(): no f_pos_lock, so a
		 * write on the same open file is not held up by a read blocked in
		 * another process or thread. A FUSE file opened without
		 * FOPEN_STREAM serialises them (FMODE_ATOMIC_POS).
		 */
		uint8_t mad[MAD_SIZE];
		struct uaddr a;
		double t0 = now_ms(), dt;
		ssize_t w;
		dr_smp(mad, M_GET, ATTR_NODE_INFO, 0, 0x3001);
		uaddr_dr(&a, ag);
		w = uf_send(&B, &a, mad, sizeof(mad));
		dt = now_ms() - t0;
		t_line(w == B.hsz + MAD_SIZE && dt < 1000,
		       "write on the same open file while another process is blocked in read returns at once",
		       "write returned %zd after %.0f ms (stream_open/FOPEN_STREAM missing?)", w, dt);
	}
	if (wait_readable(pfd[0], 3000) == 1 && read(pfd[0], res, sizeof(res)) == sizeof(res)) {
		t_line(res[0] == B.hsz + MAD_SIZE && res[2] == 0x3001,
		       "blocked read returns the response once it arrives",
		       "read=%ld errno=%s tid=0x%lx", res[0], ename((int)res[1]), res[2]);
	} else {
		t_line(0, "blocked read returns the response once it arrives", "child still blocked after 3 s");
		kill(pid, SIGKILL);
	}
	waitpid(pid, NULL, 0);
	close(pfd[0]);
	uf_close(&B);
}

/* ------------------------------------------------------------ timeout */
static void test_timeout(void)
{
	struct uf T;
	struct uaddr a;
	struct ib_user_mad_hdr h;
	uint8_t mad[MAD_SIZE], buf[4096];
	uint32_t ag;
	double t0, dt;
	ssize_t n;

	open_or_bail(&T, 0);
	ag = reg_or_bail(&T, 1, 1, 0x0a, 1, 0);
	gsi_mad(mad, 0x0a, 1, M_GET, 0x4001, 0x0010);
	uaddr_gsi(&a, ag, 0x5555);
	a.timeout_ms = 50;
	a.retries = 1;
	a.length = 0xabcd; /* the kernel never rewrites the sender's length field */
	t0 = now_ms();
	n = uf_send(&T, &a, mad, sizeof(mad));
	t_ret(n, errno, HDR_NEW + MAD_SIZE, "GSI Get to unreachable LID 0x5555 accepted");
	if (wait_readable(T.fd, 5000) != 1) {
		t_line(0, "unanswered request comes back", "nothing after 5 s");
		uf_close(&T);
		return;
	}
	dt = now_ms() - t0;
	t_line(dt >= 90 && dt <= 1000, "timed-out request returned after ~timeout*(retries+1) = 100 ms",
	       "after %.0f ms", dt);
	t_errno(read(T.fd, buf, HDR_NEW + MGMT_MAD_HDR - 1), errno, EINVAL,
		"read too small for header + 24: EINVAL (copy_send_mad)");
	n = read(T.fd, buf, sizeof(buf));
	t_ret(n, errno, HDR_NEW + MGMT_MAD_HDR, "timed-out send reads as header + 24-byte MAD header");
	if (n < HDR_NEW + MGMT_MAD_HDR) {
		uf_close(&T);
		return;
	}
	uf_hdr(&T, buf, &h);
	t_eq(h.status, ETIMEDOUT_STATUS, "timed-out send: hdr.status = ETIMEDOUT (110)");
	t_eq(h.id, ag, "timed-out send: hdr.id = sending agent");
	t_eq(h.length, 0xabcd, "timed-out send: hdr.length as the sender wrote it");
	t_eq(ntohs(h.lid), 0x5555, "timed-out send: hdr.lid as sent");
	t_eq(h.timeout_ms, 50, "timed-out send: hdr.timeout_ms as sent");
	t_eq(buf[HDR_NEW + 1] << 8 | buf[HDR_NEW + 3], 0x0a << 8 | M_GET,
	     "timed-out send: MAD header class/method as sent");
	t_eq((uint32_t)get64(buf + HDR_NEW + MAD_TID), 0x4001, "timed-out send: TID low 32 bits");
	{
		uint32_t hi = get64(buf + HDR_NEW + MAD_TID) >> 32;
		t_line(hi >= 1 && hi <= 0xffffff,
		       "timed-out send: TID high 32 bits carry the agent's hi_tid", "got 0x%08x", hi);
	}
	uf_close(&T);
}

/* ------------------------------------------------------------ duplicates */
static void test_duplicates(void)
{
	struct uf T, T2;
	struct uaddr a;
	uint8_t mad[MAD_SIZE], buf[4096];
	uint32_t ag, ag2, oag;
	int expected = 0, got = 0;
	ssize_t n;

	open_or_bail(&T, 0);
	open_or_bail(&T2, 0);
	ag = reg_or_bail(&T, 1, 1, 0x0a, 1, 0);
	ag2 = reg_or_bail(&T, 1, 1, 0, 0, 0);
	oag = reg_or_bail(&T2, 1, 1, 0x0a, 1, 0);

	gsi_mad(mad, 0x0a, 1, M_GET, 0x5001, 0x0010);
	uaddr_gsi(&a, ag, 0x5555);
	a.timeout_ms = 1000;
	n = uf_send(&T, &a, mad, sizeof(mad));
	t_ret(n, errno, HDR_NEW + MAD_SIZE, "request TID 0x5001 (outstanding for 1 s)");
	expected += n > 0;
	t_errno(uf_send(&T, &a, mad, sizeof(mad)), errno, EINVAL,
		"same TID and class while outstanding: EINVAL (is_duplicate)");
	a.lid = 0x5556;
	t_errno(uf_send(&T, &a, mad, sizeof(mad)), errno, EINVAL,
		"same TID and class to another LID: still EINVAL (requests ignore destination)");
	a.lid = 0x5555;
	mad[1] = 0x0b;
	n = uf_send(&T, &a, mad, sizeof(mad));
	t_ret(n, errno, HDR_NEW + MAD_SIZE, "same TID, other class: accepted");
	expected += n > 0;
	mad[1] = 0x0a;
	put64(mad + MAD_TID, 0x5002);
	n = uf_send(&T, &a, mad, sizeof(mad));
	t_ret(n, errno, HDR_NEW + MAD_SIZE, "other TID, same class: accepted");
	expected += n > 0;
	put64(mad + MAD_TID, 0x5001);
	a.id = ag2;
	n = uf_send(&T, &a, mad, sizeof(mad));
	t_ret(n, errno, HDR_NEW + MAD_SIZE,
	      "same TID through another agent of the file (other hi_tid): accepted");
	expected += n > 0;
	a.id = oag;
	n = uf_send(&T2, &a, mad, sizeof(mad));
	t_ret(n, errno, HDR_NEW + MAD_SIZE, "same TID from another file: accepted");
	a.id = ag;
	mad[3] = M_GET_RESP;
	a.timeout_ms = 0;
	n = uf_send(&T, &a, mad, sizeof(mad));
	t_ret(n, errno, HDR_NEW + MAD_SIZE,
	      "response carrying the TID of an outstanding request: accepted");

	/* drain the timeouts, then the TID is free again */
	while (got < expected) {
		n = uf_recv(&T, buf, sizeof(buf), 4000);
		if (n < 0)
			break;
		if (n >= HDR_NEW) {
			struct ib_user_mad_hdr h;
			uf_hdr(&T, buf, &h);
			if (h.status == ETIMEDOUT_STATUS)
				got++;
		}
	}
	t_eq(got, expected, "every accepted request came back with ETIMEDOUT");
	mad[3] = M_GET;
	a.timeout_ms = 50;
	n = uf_send(&T, &a, mad, sizeof(mad));
	t_ret(n, errno, HDR_NEW + MAD_SIZE, "same TID after the first one timed out: accepted");
	if (n > 0)
		uf_recv(&T, buf, sizeof(buf), 3000);
	uf_recv(&T2, buf, sizeof(buf), 3000);
	uf_close(&T);
	uf_close(&T2);
}

/* ------------------------------------------------------------ unsupported / unmatched */
static void test_unsupported(void)
{
	struct uf U;
	uint8_t buf[4096];
	uint32_t ag, gag;
	uint16_t attrs[2] = { ATTR_SWITCH_INFO, 0x00fe };
	const char *names[2] = { "SubnGet(SwitchInfo) to a CA", "SubnGet(attribute 0x00fe)" };
	char d[256];
	ssize_t n;
	int i;

	open_or_bail(&U, 0);
	ag = reg_or_bail(&U, 1, 0, CLS_SUBN_DR, 1, 0);
	for (i = 0; i < 2; i++) {
		n = dr_get(&U, ag, attrs[i], 0, 0x6001 + i, buf, sizeof(buf));
		snprintf(d, sizeof(d), "hop-0 %s: answered with status 0x800c", names[i]);
		if (n < HDR_NEW + MGMT_MAD_HDR) {
			t_line(0, d, "%s", n == -2 ? "no answer in 3 s" : ename(errno));
			continue;
		}
		t_line(buf[HDR_NEW + 3] == M_GET_RESP &&
		       get16(buf + HDR_NEW + MAD_STATUS) == (SMP_DIRECTION | STATUS_UNSUP_METH_ATTR),
		       d, "method 0x%02x status 0x%04x", buf[HDR_NEW + 3],
		       get16(buf + HDR_NEW + MAD_STATUS));
	}

	/* GSI Get of a class nobody registered, to our own LID (generate_unmatched_resp) */
	gag = reg_or_bail(&U, 1, 1, 0, 0, 0);
	if (port_lid <= 0) {
		t_skip("GSI Get of unregistered class 0x0b to own LID: GetResp status 0x000c",
		       "needs fabric (port LID is 0: no SM)");
	} else {
		uint8_t mad[MAD_SIZE];
		struct uaddr a;
		gsi_mad(mad, 0x0b, 1, M_GET, 0x6101, 0x0010);
		uaddr_gsi(&a, gag, (uint16_t)port_lid);
		a.timeout_ms = 500;
		if (uf_send(&U, &a, mad, sizeof(mad)) < 0) {
			t_line(0, "GSI Get of unregistered class 0x0b to own LID accepted", "%s",
			       ename(errno));
		} else {
			n = uf_recv_tid(&U, buf, sizeof(buf), 0x6101, 3000);
			if (n >= HDR_NEW + MGMT_MAD_HDR &&
			    ((struct ib_user_mad_hdr *)buf)->status == ETIMEDOUT_STATUS)
				t_skip("GSI Get of unregistered class 0x0b to own LID: GetResp status 0x000c",
				       "needs fabric (request timed out)");
			else if (n >= HDR_NEW + MGMT_MAD_HDR)
				t_line(buf[HDR_NEW + 3] == M_GET_RESP &&
				       get16(buf + HDR_NEW + MAD_STATUS) == STATUS_UNSUP_METH_ATTR,
				       "GSI Get of unregistered class 0x0b to own LID: GetResp status 0x000c",
				       "method 0x%02x status 0x%04x", buf[HDR_NEW + 3],
				       get16(buf + HDR_NEW + MAD_STATUS));
			else
				t_line(0, "GSI Get of unregistered class 0x0b to own LID answered",
				       "n=%zd", n);
		}
	}
	uf_close(&U);
}

/* ------------------------------------------------------------ RMPP-related write checks */
static void test_write_rmpp_rules(void)
{
	struct uf S;
	struct uaddr a;
	uint8_t mad[1024];
	uint32_t kr, plain;

	open_or_bail(&S, 0);
	kr = reg_or_bail(&S, 1, 1, CLS_SUBN_ADM, 2, 1);  /* kernel-RMPP agent */
	plain = reg_or_bail(&S, 1, 1, 0, 0, 0);          /* no RMPP */

	memset(mad, 0, sizeof(mad));
	gsi_mad(mad, 0x0a, 1, M_GET, 0x7001, 0x0010);
	uaddr_gsi(&a, kr, 0x5555);
	t_errno(uf_send(&S, &a, mad, MAD_SIZE), errno, EINVAL,
		"RMPP agent sending a non-RMPP class: EINVAL (ib_post_send_mad)");

	memset(mad, 0, sizeof(mad));
	mad_hdr(mad, CLS_SUBN_ADM, 2, M_GET, 0x7002, 0x0011, 0);
	a.id = plain;
	t_errno(uf_send(&S, &a, mad, MAD_SIZE + 1), errno, EINVAL,
		"non-RMPP agent, SA MAD of 257 bytes: EINVAL");
	a.id = kr;
	t_errno(uf_send(&S, &a, mad, MAD_SIZE + 1), errno, EINVAL,
		"RMPP agent, 257-byte SA MAD without the RMPP active flag: EINVAL");
	uf_close(&S);
}

/* ------------------------------------------------------------ close */
static void test_close(void)
{
	struct uf X1, X2;
	uint32_t id;
	int r;

	open_or_bail(&X1, 0);
	open_or_bail(&X2, 0);
	r = reg1(X1.fd, 1, 0x0c, 1, 0, 1ULL << M_GET, 0, 0, &id);
	t_ret(r, errno, 0, "file 1 registers class 0x0c v1 Get");
	r = reg1(X2.fd, 1, 0x0c, 1, 0, 1ULL << M_GET, 0, 0, &id);
	t_errno(r, errno, EINVAL, "file 2, same registration while file 1 is open: EINVAL");
	uf_close(&X1);
	/* FUSE delivers RELEASE asynchronously after close(): allow 1 s */
	{
		double t0 = now_ms();
		do {
			r = reg1(X2.fd, 1, 0x0c, 1, 0, 1ULL << M_GET, 0, 0, &id);
			if (r == 0)
				break;
			sleep_ms(10);
		} while (now_ms() - t0 < 1000);
		t_ret(r, errno, 0, "after file 1 is closed, file 2 can register it (close unregisters)");
		t_diag("registration free %.0f ms after close", now_ms() - t0);
	}
	uf_close(&X2);
}

int main(void)
{
	watchdog(90);
	if (port_lookup(&P))
		t_bail("cannot resolve %s in %s/class/infiniband_mad", umad_path(), sysfs_root());
	t_detect(P.ibdev);
	if (t_lacks(NEED_IB)) {
		/* the other parts start with a QP0 agent and directed-route SMPs, or send to a
		 * LID (on RoCE every such write fails at the AH, EINVAL, before what they test) */
		t_diag("no InfiniBand port: only the registration checks of test_close run");
		test_close();
		return t_done();
	}
	if (sysfs_node_guid(&P, &node_guid))
		t_bail("cannot read node_guid of %s", P.ibdev);
	port_lid = sysfs_hex(&P, "lid");
	t_diag("%s = %s port %d, node_guid 0x%016llx, lid 0x%lx", P.umad, P.ibdev, P.port,
	       (unsigned long long)node_guid, port_lid);

	test_write_errors();
	test_read_poll();
	test_layouts();
	test_blocking_read();
	test_timeout();
	test_duplicates();
	test_unsupported();
	test_write_rmpp_rules();
	test_close();
	return t_done();
}
