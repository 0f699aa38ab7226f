/*
 * uverbs_rings - the mapped queues of a uverbs device, at the raw ABI (TAP).
 *
 *   uverbs_rings [/dev/infiniband/uverbsN]
 *
 * For a device whose driver maps its queues the rdmavt way (qib at driver ABI 2:
 * drivers/infiniband/sw/rdmavt cq.c, qp.c, srq.c, mmap.c): a create whose udata
 * has room for a u64 answers the queue's mmap offset there, and
 *   - mmap (rvt_mmap): each pending offset is taken by one mmap of at most its
 *     (page-aligned) size; a larger size, an offset nothing waits at, or a
 *     second mmap of a taken offset is EINVAL; no context yet is EINVAL;
 *   - the CQ ring {u32 head, u32 tail, ib_uverbs_wc[cqe + 1]}: the device
 *     produces at head, the program consumes at tail; POLL_CQ of a mapped CQ is
 *     EINVAL (rvt_poll_cq);
 *   - the receive ring {u32 head, u32 tail, rvt_rwqe[max_wr + 1]}: the program
 *     posts at head, the device consumes at tail;
 *   - post, doorbell (POST_SEND), poll, overflow (a full ring loses the
 *     completion and reports IB_EVENT_CQ_ERR), resize (new offset, waiting
 *     completions copied), and the mapping shared across fork;
 *   - the file itself answers as a char device: lseek/pread ESPIPE, read
 *     EINVAL, ftruncate EINVAL, fallocate ENODEV, fstat S_IFCHR.
 * Skips (1..0) on a device that maps nothing (qib at ABI 1).
 *
 *   uverbs_rings --hold [/dev/infiniband/uverbsN]
 *
 * For a test of the release: creates a mapped CQ, closes the descriptor with the
 * mapping kept, prints "mapped pid=N", unmaps at SIGUSR1, prints "unmapped",
 * and waits to be killed. The device's objects must outlive the close (the
 * mapping holds the file, as a vma holds it) and go with the munmap.
 */
#include "uverbs_probe.h"
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define PAGE 4096
#define IB_EVENT_CQ_ERR 0

struct ring_hdr {
	_Atomic uint32_t head;
	_Atomic uint32_t tail;
};

struct rwqe {
	uint64_t wr_id;
	uint8_t num_sge;
	uint8_t pad[7];
	struct ib_uverbs_sge sge[1];
};

static int fd;
static uint32_t pd, lkey;
static uint8_t *buf;

static size_t cq_bytes(uint32_t cqe) { return sizeof(struct ring_hdr) + sizeof(struct ib_uverbs_wc) * (cqe + 1); }
static size_t rq_bytes(uint32_t slots) { return sizeof(struct ring_hdr) + sizeof(struct rwqe) * slots; }
static size_t pages(size_t n) { return (n + PAGE - 1) & ~(size_t)(PAGE - 1); }

/* CREATE_CQ with 8 bytes of udata room: the handle, cqe and offset. */
static long create_cq(uint32_t cqe, uint32_t *cqe_out, uint64_t *offset)
{
	struct ib_uverbs_create_cq c;
	struct {
		struct ib_uverbs_create_cq_resp r;
		uint64_t offset;
	} rb;
	memset(&c, 0, sizeof(c));
	memset(&rb, 0xff, sizeof(rb));
	c.cqe = cqe;
	c.comp_channel = -1;
	c.user_handle = 0xc0;
	if (uv_cmd(fd, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c), &rb, sizeof(rb)))
		return -1;
	*cqe_out = rb.r.cqe;
	*offset = rb.offset;
	return rb.r.cq_handle;
}

static long create_qp(uint32_t cq, uint32_t max_recv_wr, struct ib_uverbs_create_qp_resp *out, uint64_t *offset)
{
	struct ib_uverbs_create_qp c;
	struct {
		struct ib_uverbs_create_qp_resp r;
		uint64_t offset;
	} rb;
	memset(&c, 0, sizeof(c));
	memset(&rb, 0xff, sizeof(rb));
	c.pd_handle = pd;
	c.send_cq_handle = cq;
	c.recv_cq_handle = cq;
	c.max_send_wr = 16;
	c.max_recv_wr = max_recv_wr;
	c.max_send_sge = 1;
	c.max_recv_sge = 1;
	c.qp_type = QPT_RC;
	c.user_handle = 0x9b;
	if (uv_cmd(fd, IB_USER_VERBS_CMD_CREATE_QP, &c, sizeof(c), &rb, sizeof(rb)))
		return -1;
	*out = rb.r;
	*offset = rb.offset;
	return rb.r.qp_handle;
}

static void *map(size_t len, uint64_t offset)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
}

/* ipath_post_recv: the WQE at head, then head (release). */
static int ring_post_recv(struct ring_hdr *rq, uint32_t slots, uint64_t wr_id, void *addr, uint32_t len)
{
	struct rwqe *wq = (struct rwqe *)(rq + 1);
	uint32_t head = atomic_load_explicit(&rq->head, memory_order_relaxed);
	uint32_t next = head + 1 >= slots ? 0 : head + 1;
	if (next == atomic_load_explicit(&rq->tail, memory_order_acquire))
		return -1;
	wq[head].wr_id = wr_id;
	wq[head].num_sge = 1;
	wq[head].sge[0].addr = (uintptr_t)addr;
	wq[head].sge[0].length = len;
	wq[head].sge[0].lkey = lkey;
	atomic_store_explicit(&rq->head, next, memory_order_release);
	return 0;
}

/* ipath_poll_cq: head (acquire), then the entry; tail stored after. */
static int ring_poll(struct ring_hdr *cq, uint32_t cqe, struct ib_uverbs_wc *wc)
{
	struct ib_uverbs_wc *q = (struct ib_uverbs_wc *)(cq + 1);
	uint32_t tail = atomic_load_explicit(&cq->tail, memory_order_relaxed);
	if (tail == atomic_load_explicit(&cq->head, memory_order_acquire))
		return 0;
	*wc = q[tail];
	atomic_store_explicit(&cq->tail, tail == cqe ? 0 : tail + 1, memory_order_release);
	return 1;
}

static int ring_wait(struct ring_hdr *cq, uint32_t cqe, struct ib_uverbs_wc *wc)
{
	for (long i = 0; i < 2000000000L; i++) {
		if (ring_poll(cq, cqe, wc))
			return 1;
		if ((i & 0xfff) == 0xfff)
			sched_yield();
	}
	return 0;
}

static uint32_t outstanding(struct ring_hdr *cq, uint32_t cqe)
{
	uint32_t h = atomic_load(&cq->head), t = atomic_load(&cq->tail);
	return h >= t ? h - t : h + cqe + 1 - t;
}

static int post_send(uint32_t qp, uint64_t wr_id, uint32_t len)
{
	struct send_req s = { .wr_id = wr_id, .opcode = IB_UVERBS_WR_SEND, .flags = SEND_SIGNALED,
			      .addr = (uintptr_t)buf, .len = len, .lkey = lkey };
	return uv_post_send(fd, qp, &s, NULL);
}

static volatile sig_atomic_t unmap_now;
static void on_usr1(int sig) { (void)sig; unmap_now = 1; }

static int hold(const char *path)
{
	struct ib_uverbs_get_context_resp ctx;
	uint32_t cqe;
	uint64_t off;
	void *q;
	signal(SIGUSR1, on_usr1);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || uv_get_context(fd, &ctx) || create_cq(4, &cqe, &off) < 0)
		t_bail("hold: %s", strerror(errno));
	q = map(cq_bytes(cqe), off);
	if (q == MAP_FAILED)
		t_bail("hold: mmap: %s", strerror(errno));
	close((int)ctx.async_fd);
	close(fd);
	printf("mapped pid=%d\n", (int)getpid());
	fflush(stdout);
	while (!unmap_now)
		pause();
	munmap(q, cq_bytes(cqe));
	printf("unmapped\n");
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--hold") == 0)
		return hold(argc > 2 ? argv[2] : uverbs_path());
	const char *path = argc > 1 ? argv[1] : uverbs_path();
	char ibdev[64], v[64], abi[64];
	struct ib_uverbs_get_context_resp ctx;
	struct ib_uverbs_query_port_resp port;
	struct ib_uverbs_create_qp_resp qa, qb;
	struct ib_uverbs_wc wc;
	struct stat st;
	struct ring_hdr *cq, *cq2, *rqb;
	uint32_t cqh, cqe = 0, cqe2, rkey, slots;
	uint64_t cq_off = 0, qa_off = 0, qb_off = 0, off2;
	long qpa, qpb;
	struct peer p;
	char c;
	void *m;

	watchdog(120);
	if (uverbs_ibdev(path, ibdev, sizeof(ibdev)))
		t_bail("no ibdev for %s", path);
	snprintf(v, sizeof(v), "%s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	{
		char f[256];
		snprintf(f, sizeof(f), "%s/class/infiniband_verbs/%s/abi_version", sysfs_root(), v);
		if (read_text(f, abi, sizeof(abi)))
			t_bail("no %s", f);
	}
	t_detect(ibdev);
	if (!(t_have & NEED_QIB) || atoi(abi) < 2) {
		printf("1..0 # SKIP %s maps no rdmavt queues (driver %s, abi_version %s)\n", ibdev,
		       t_have & NEED_QIB ? "qib" : "other", abi);
		return 0;
	}
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		t_bail("open %s: %s", path, strerror(errno));

	/* no context: ib_uverbs_mmap's ib_uverbs_get_ucontext_file */
	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, PAGE);
	t_errno(m == MAP_FAILED ? -1 : 0, errno, EINVAL, "mmap before GET_CONTEXT: EINVAL");
	if (uv_get_context(fd, &ctx) || uv_query_port(fd, 1, &port))
		t_bail("GET_CONTEXT/QUERY_PORT: %s", strerror(errno));
	pd = (uint32_t)uv_alloc_pd(fd);
	buf = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (uv_reg_mr(fd, pd, buf, 1 << 16, (uintptr_t)buf, ACC_LOCAL_WRITE, &lkey, &rkey) < 0)
		t_bail("REG_MR: %s", strerror(errno));

	/* ---- mmap rules (rvt_mmap) */
	if (create_cq(4, &cqe, &cq_off) < 0)
		t_bail("CREATE_CQ with udata room: %s", strerror(errno));
	cqh = (uint32_t)create_cq(4, &cqe, &cq_off); /* the first one stays unmapped: a destroyed queue's offset is not reused */
	t_ok(cq_off != 0 && cq_off % PAGE == 0, "CREATE_CQ with udata room answers a page-aligned mmap offset");
	m = map(PAGE, cq_off + 64 * PAGE);
	t_errno(m == MAP_FAILED ? -1 : 0, errno, EINVAL, "mmap at an offset nothing waits at: EINVAL");
	m = map(pages(cq_bytes(cqe)) + PAGE, cq_off);
	t_errno(m == MAP_FAILED ? -1 : 0, errno, EINVAL, "mmap larger than the queue: EINVAL");
	cq = map(cq_bytes(cqe), cq_off);
	t_ok(cq != MAP_FAILED, "mmap of the CQ ring at its offset and size");
	m = map(cq_bytes(cqe), cq_off);
	t_errno(m == MAP_FAILED ? -1 : 0, errno, EINVAL, "a second mmap of a taken offset: EINVAL");
	t_eq(atomic_load(&cq->head), 0, "a new CQ ring: head 0");
	t_eq(atomic_load(&cq->tail), 0, "a new CQ ring: tail 0");
	{
		struct ib_uverbs_wc w[1];
		t_errno(uv_poll_cq(fd, cqh, 1, w), errno, EINVAL, "POLL_CQ of a mapped CQ: EINVAL (rvt_poll_cq)");
	}

	/* ---- the file answers as a char device */
	t_errno(lseek(fd, 0, SEEK_SET), errno, ESPIPE, "lseek: ESPIPE (no_llseek)");
	t_errno(pread(fd, &c, 1, 0), errno, ESPIPE, "pread: ESPIPE");
	t_errno(read(fd, &c, 1), errno, EINVAL, "read: EINVAL (uverbs has no read)");
	t_errno(ftruncate(fd, 0), errno, EINVAL, "ftruncate: EINVAL (not a regular file)");
	t_errno(fallocate(fd, 0, 0, PAGE), errno, ENODEV, "fallocate: ENODEV");
	t_ok(fstat(fd, &st) == 0 && S_ISCHR(st.st_mode), "fstat: a character device");

	/* ---- two RC QPs on this port, connected to each other */
	qpa = create_qp(cqh, 4, &qa, &qa_off);
	qpb = create_qp(cqh, 4, &qb, &qb_off);
	t_ok(qpa >= 0 && qpb >= 0 && qa_off && qb_off && qa_off != qb_off && qa_off != cq_off,
	     "CREATE_QP with udata room: each receive ring at an offset of its own");
	slots = qb.max_recv_wr + 1;
	rqb = map(rq_bytes(slots), qb_off);
	t_ok(rqb != MAP_FAILED, "mmap of the receive ring");
	memset(&p, 0, sizeof(p));
	p.lid = port.lid;
	p.qpn = qb.qpn;
	t_success(qp_to_rts(fd, (uint32_t)qpa, QPT_RC, &p, 3, 7, 7, 14), errno, "A to RTS towards B");
	p.qpn = qa.qpn;
	t_success(qp_to_rts(fd, (uint32_t)qpb, QPT_RC, &p, 3, 7, 7, 14), errno, "B to RTS towards A");

	/* ---- post in the ring, doorbell, poll the ring */
	t_ok(ring_post_recv(rqb, slots, 0x77, buf + 4096, 256) == 0, "a receive posted in B's ring");
	memcpy(buf, "ring", 4);
	t_success(post_send(qpa, 0x51, 4), errno, "POST_SEND on A");
	{
		int seen_send = 0, seen_recv = 0;
		for (int i = 0; i < 2 && ring_wait(cq, cqe, &wc); i++) {
			if (wc.wr_id == 0x51 && wc.status == WC_SUCCESS && wc.opcode == IB_UVERBS_WC_SEND)
				seen_send = 1;
			if (wc.wr_id == 0x77 && wc.status == WC_SUCCESS && wc.opcode == WC_RECV && wc.byte_len == 4 &&
			    wc.qp_num == qb.qpn)
				seen_recv = 1;
		}
		t_ok(seen_send, "the send's completion read from the CQ ring");
		t_ok(seen_recv, "the receive's completion read from the CQ ring (wr_id, byte_len, qp_num)");
		t_ok(memcmp(buf + 4096, "ring", 4) == 0, "the data landed in the buffer the ring's WQE named");
		t_eq(atomic_load(&rqb->tail), 1, "B's receive ring: the device moved tail past the WQE");
	}

	/* ---- a receive ring that is full refuses the next WQE in the provider, not in the device */
	{
		uint32_t n = 0;
		while (ring_post_recv(rqb, slots, 0x100 + n, buf + 8192, 64) == 0)
			n++;
		t_eq(n, qb.max_recv_wr, "the receive ring holds max_recv_wr WQEs");
	}

	/* ---- the mapping is shared with a child (fork keeps MAP_SHARED) */
	t_success(post_send(qpa, 0x52, 1), errno, "POST_SEND on A (for the child)");
	{
		pid_t pid;
		int status = 0, got = 0;
		for (int i = 0; i < 2 && ring_wait(cq, cqe, &wc); i++)
			got++;
		t_eq(got, 2, "two more completions (send and receive)");
		t_success(post_send(qpa, 0x53, 1), errno, "POST_SEND on A, polled by the child");
		pid = fork();
		if (pid == 0) {
			int n = 0;
			for (int i = 0; i < 2 && ring_wait(cq, cqe, &wc); i++)
				n++;
			_exit(n == 2 ? 0 : 1);
		}
		waitpid(pid, &status, 0);
		t_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a child polled two completions from its copy of the mapping");
		t_eq(outstanding(cq, cqe), 0, "the child's consumption shows in the parent's mapping");
	}

	/* ---- overflow: a full CQ ring loses the completion and reports CQ_ERR */
	{
		uint32_t before = outstanding(cq, cqe);
		int sent = 0;
		while (ring_post_recv(rqb, slots, 0x500, buf + 8192, 64) == 0)
			;
		/* each send completes twice here (send and receive): cqe sends overfill the ring */
		for (uint32_t i = 0; i < cqe; i++)
			sent += post_send(qpa, 0x600 + i, 1) == 0;
		for (int spin = 0; spin < 1000000 && outstanding(cq, cqe) < cqe; spin++)
			sched_yield();
		t_eq(outstanding(cq, cqe), cqe, "a full CQ ring holds cqe completions");
		t_ok(before == 0 && sent > 0, "sends posted past the ring's room");
		{
			struct ib_uverbs_async_event_desc ev;
			struct pollfd pf = { .fd = (int)ctx.async_fd, .events = POLLIN };
			ssize_t n = poll(&pf, 1, 20000) == 1 ? read((int)ctx.async_fd, &ev, sizeof(ev)) : -1;
			t_ok(n == sizeof(ev) && ev.event_type == IB_EVENT_CQ_ERR && ev.element == 0xc0,
			     "IB_EVENT_CQ_ERR on the async file, naming the CQ's user_handle");
		}
	}

	/* ---- resize: a new ring at a new offset, the waiting completions copied */
	{
		struct ib_uverbs_resize_cq c;
		struct {
			struct ib_uverbs_resize_cq_resp r;
			uint64_t offset;
		} rb;
		uint32_t waiting = outstanding(cq, cqe);
		memset(&c, 0, sizeof(c));
		memset(&rb, 0xff, sizeof(rb));
		c.cq_handle = cqh;
		c.cqe = 32;
		t_success(uv_cmd(fd, IB_USER_VERBS_CMD_RESIZE_CQ, &c, sizeof(c), &rb, sizeof(rb)), errno, "RESIZE_CQ to 32");
		cqe2 = rb.r.cqe;
		off2 = rb.offset;
		t_ok(off2 != cq_off && off2 % PAGE == 0, "RESIZE_CQ answers a new offset");
		cq2 = map(cq_bytes(cqe2), off2);
		t_ok(cq2 != MAP_FAILED, "mmap of the resized ring");
		t_eq(outstanding(cq2, cqe2), waiting, "the waiting completions were copied into the new ring");
		t_ok(ring_poll(cq2, cqe2, &wc) && wc.status == WC_SUCCESS, "polled from the new ring");
	}
	return t_done();
}
