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
 * For a device whose driver maps its queues the rxe way (drivers/infiniband/sw/
 * rxe: rxe_queue.c, rxe_verbs.c, rxe_mmap.c; include/uapi/rdma/rdma_user_rxe.h),
 * recognised by CREATE_CQ writing a whole struct mminfo into its udata:
 *   - each queue is a struct rxe_queue_buf (log2_elem_size, index_mask, the
 *     producer index at byte 128, the consumer at 256, data from 384) of a
 *     power-of-two number of slots (num_elem + 1 rounded up; CREATE_CQ answers
 *     cqe = slots - 1, CREATE_QP the counts as asked and QUERY_QP slots - 1),
 *     each slot a power of two of
 *     at least 64 bytes, mminfo.size page-aligned;
 *   - CREATE_QP answers the receive and the send queue's mminfo; the program
 *     writes rxe_recv_wqe and rxe_send_wqe and moves the producer (release), a
 *     POST_SEND with wr_count 0 is the send queue's doorbell (EINVAL before RTS),
 *     the device moves the consumer indices once a WQE is used, completions
 *     (ib_uverbs_wc at each CQ slot's start) are polled from the CQ queue;
 *   - overflow (a full CQ queue reports IB_EVENT_CQ_ERR) and RESIZE_CQ (a new
 *     mminfo, the waiting completions copied).
 * Skips (1..0) on a device that maps nothing (qib at ABI 1).
 *
 *   uverbs_rings --hold [/dev/infiniband/uverbsN]
 *
 * For a test of the release: creates a mapped CQ (rdmavt's or rxe's), closes the descriptor with the
 * mapping kept, prints "mapped pid=N", unmaps at SIGUSR1, prints "unmapped",
 * and waits to be killed. The device's objects must outlive the close (the
 * mapping holds the file, as a vma holds it) and go with the munmap.
 */
#include "uverbs_probe.h"
#include <rdma/rdma_user_rxe.h>
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

/* CREATE_CQ with len bytes of udata room for the driver's answer. */
static long create_cq(uint32_t cqe, struct ib_uverbs_create_cq_resp *out, void *driver, size_t len)
{
	return uv_create_cq_udata(fd, cqe, -1, 0, 0xc0, out, driver, len);
}

/* CREATE_QP of an RC QP on cq, with len bytes of udata room for the driver's answer. */
static long create_qp(uint32_t cq, uint32_t max_send_wr, uint32_t max_recv_wr, struct ib_uverbs_create_qp_resp *out,
		      void *driver, size_t len)
{
	struct qp_spec s;
	qp_spec_default(&s, QPT_RC, pd, cq);
	s.max_send_wr = max_send_wr;
	s.max_recv_wr = max_recv_wr;
	s.user_handle = 0x9b;
	return uv_create_qp_udata(fd, &s, out, driver, len);
}

static void *map(size_t len, uint64_t offset)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
}

/* GET_CONTEXT, QUERY_PORT of port 1, a PD and a 64 KiB buffer registered in it (lkey): where both drivers' checks start. */
static void open_context(struct ib_uverbs_get_context_resp *ctx, struct ib_uverbs_query_port_resp *port)
{
	uint32_t rkey;
	if (uv_get_context(fd, ctx) || uv_query_port(fd, 1, port))
		t_bail("GET_CONTEXT/QUERY_PORT: %s", strerror(errno));
	pd = (uint32_t)uv_alloc_pd(fd);
	if (!buf)
		buf = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (uv_reg_mr(fd, pd, buf, 1 << 16, (uintptr_t)buf, ACC_LOCAL_WRITE, &lkey, &rkey) < 0)
		t_bail("REG_MR: %s", strerror(errno));
}

/* wc: the completion of A's SEND 0x51, or of B's (qpn) receive 0x77 of its 4 bytes? */
static void send_recv_seen(const struct ib_uverbs_wc *wc, uint32_t qpn, int *send, int *recv)
{
	if (wc->wr_id == 0x51 && wc->status == WC_SUCCESS && wc->opcode == IB_UVERBS_WC_SEND)
		*send = 1;
	if (wc->wr_id == 0x77 && wc->status == WC_SUCCESS && wc->opcode == WC_RECV && wc->byte_len == 4 &&
	    wc->qp_num == qpn)
		*recv = 1;
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

struct rxe_cq_cmd_resp {
	struct ib_uverbs_create_cq_resp r;
	struct rxe_create_cq_resp d;
};

static long rxe_create_cq(uint32_t cqe, struct rxe_cq_cmd_resp *rb);

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
	struct rxe_cq_cmd_resp rb;
	size_t len;
	if (fd < 0 || uv_get_context(fd, &ctx) || rxe_create_cq(4, &rb) < 0)
		t_bail("hold: %s", strerror(errno));
	/* both drivers answer the offset first; rxe's mminfo also gives the size */
	cqe = rb.r.cqe;
	off = rb.d.mi.offset;
	len = rb.d.mi.size != 0xffffffffu ? rb.d.mi.size : cq_bytes(cqe);
	q = map(len, off);
	if (q == MAP_FAILED)
		t_bail("hold: mmap: %s", strerror(errno));
	close((int)ctx.async_fd);
	close(fd);
	printf("mapped pid=%d\n", (int)getpid());
	fflush(stdout);
	while (!unmap_now)
		pause();
	munmap(q, len);
	printf("unmapped\n");
	fflush(stdout);
	for (;;)
		pause();
}

/* ---- rxe (rdma_user_rxe.h) ---- */

static long rxe_create_cq(uint32_t cqe, struct rxe_cq_cmd_resp *rb)
{
	return create_cq(cqe, &rb->r, &rb->d, sizeof(rb->d));
}

static long rxe_create_qp(uint32_t cq, struct ib_uverbs_create_qp_resp *out, struct rxe_create_qp_resp *d)
{
	return create_qp(cq, 4, 4, out, d, sizeof(*d));
}

static _Atomic uint32_t *producer(struct rxe_queue_buf *q) { return (_Atomic uint32_t *)&q->producer_index; }
static _Atomic uint32_t *consumer(struct rxe_queue_buf *q) { return (_Atomic uint32_t *)&q->consumer_index; }
static void *slot(struct rxe_queue_buf *q, uint32_t i) { return q->data + ((i & q->index_mask) << q->log2_elem_size); }

/* rxe_post_one_recv: full when the next producer slot is the consumer's */
static int rxe_ring_recv(struct rxe_queue_buf *q, uint64_t wr_id, void *addr, uint32_t len)
{
	uint32_t prod = atomic_load_explicit(producer(q), memory_order_relaxed);
	if (((prod + 1) & q->index_mask) == atomic_load_explicit(consumer(q), memory_order_acquire))
		return -1;
	struct rxe_recv_wqe *w = slot(q, prod);
	memset(w, 0, sizeof(*w) + sizeof(struct rxe_sge));
	w->wr_id = wr_id;
	w->dma.sge[0].addr = (uintptr_t)addr;
	w->dma.sge[0].length = len;
	w->dma.sge[0].lkey = lkey;
	w->dma.length = w->dma.resid = len;
	w->dma.num_sge = 1;
	atomic_store_explicit(producer(q), (prod + 1) & q->index_mask, memory_order_release);
	return 0;
}

/* post_one_send: the WQE at the producer, the producer moved (release); the doorbell is separate */
static int rxe_ring_send(struct rxe_queue_buf *q, uint64_t wr_id, uint32_t len)
{
	uint32_t prod = atomic_load_explicit(producer(q), memory_order_relaxed);
	if (((prod + 1) & q->index_mask) == atomic_load_explicit(consumer(q), memory_order_acquire))
		return -1;
	struct rxe_send_wqe *w = slot(q, prod);
	memset(w, 0, sizeof(*w) + sizeof(struct rxe_sge));
	w->wr.wr_id = wr_id;
	w->wr.opcode = IB_UVERBS_WR_SEND;
	w->wr.send_flags = SEND_SIGNALED;
	w->dma.sge[0].addr = (uintptr_t)buf;
	w->dma.sge[0].length = len;
	w->dma.sge[0].lkey = lkey;
	w->dma.length = w->dma.resid = len;
	w->dma.num_sge = 1;
	atomic_store_explicit(producer(q), (prod + 1) & q->index_mask, memory_order_release);
	return 0;
}

/* post_send_db: a POST_SEND with no WRs */
static int rxe_doorbell(uint32_t qp)
{
	struct ib_uverbs_post_send c;
	struct ib_uverbs_post_send_resp r;
	memset(&c, 0, sizeof(c));
	c.qp_handle = qp;
	c.wqe_size = sizeof(struct ib_uverbs_send_wr);
	return uv_cmd(fd, IB_USER_VERBS_CMD_POST_SEND, &c, sizeof(c), &r, sizeof(r));
}

/* rxe_poll_cq: producer (acquire), the entry, then the consumer (release) */
static int rxe_poll(struct rxe_queue_buf *q, struct ib_uverbs_wc *wc)
{
	uint32_t cons = atomic_load_explicit(consumer(q), memory_order_relaxed);
	if (cons == atomic_load_explicit(producer(q), memory_order_acquire))
		return 0;
	memcpy(wc, slot(q, cons), sizeof(*wc));
	atomic_store_explicit(consumer(q), (cons + 1) & q->index_mask, memory_order_release);
	return 1;
}

static int rxe_wait(struct rxe_queue_buf *q, struct ib_uverbs_wc *wc)
{
	for (long i = 0; i < 2000000000L; i++) {
		if (rxe_poll(q, wc))
			return 1;
		if ((i & 0xfff) == 0xfff)
			sched_yield();
	}
	return 0;
}

static uint32_t rxe_count(struct rxe_queue_buf *q)
{
	return (atomic_load(producer(q)) - atomic_load(consumer(q))) & q->index_mask;
}

static int rxe_rings(struct ib_uverbs_get_context_resp *ctx, struct ib_uverbs_query_port_resp *port,
		     struct rxe_cq_cmd_resp *first)
{
	struct rxe_cq_cmd_resp rb;
	struct rxe_create_qp_resp da, db, dc;
	struct ib_uverbs_create_qp_resp qa, qb, qc;
	struct rxe_queue_buf *cq, *sqa, *rqb, *cq2;
	struct ib_uverbs_wc wc;
	struct peer p;
	uint32_t cqh;
	long qpa, qpb, qpc;
	void *m;

	t_ok(first->d.mi.offset % PAGE == 0 && first->d.mi.offset >= PAGE, "CREATE_CQ answers a page-aligned mminfo offset");
	t_eq(first->r.cqe, 7, "CREATE_CQ of 5: 8 slots, cqe 7 (rxe_queue_init)");
	t_eq(first->d.mi.size, pages(sizeof(struct rxe_queue_buf) + 8 * 128),
	     "mminfo.size: the header and 8 slots of 128 bytes, page-aligned (rxe_create_mmap_info)");
	cqh = (uint32_t)first->r.cq_handle;
	m = map(pages(first->d.mi.size) + PAGE, first->d.mi.offset);
	t_errno(m == MAP_FAILED ? -1 : 0, errno, EINVAL, "mmap larger than the queue: EINVAL (rxe_mmap)");
	m = map(PAGE, first->d.mi.offset + 64 * PAGE);
	t_errno(m == MAP_FAILED ? -1 : 0, errno, EINVAL, "mmap at an offset nothing waits at: EINVAL");
	cq = map(first->d.mi.size, first->d.mi.offset);
	t_ok(cq != MAP_FAILED, "mmap of the CQ queue at its mminfo");
	if (cq == MAP_FAILED)
		return t_done();
	m = map(first->d.mi.size, first->d.mi.offset);
	t_errno(m == MAP_FAILED ? -1 : 0, errno, EINVAL, "a second mmap of a taken offset: EINVAL");
	t_eq(cq->log2_elem_size, 7, "CQ header: log2_elem_size 7 (struct rxe_cqe, padded)");
	t_eq(cq->index_mask, 7, "CQ header: index_mask 7");
	t_eq(atomic_load(producer(cq)) | atomic_load(consumer(cq)), 0, "CQ header: producer and consumer 0");

	qpa = rxe_create_qp(cqh, &qa, &da);
	qpb = rxe_create_qp(cqh, &qb, &db);
	t_ok(qpa >= 0 && qpb >= 0, "CREATE_QP with room for rxe_create_qp_resp");
	t_eq(qa.max_send_wr, 4, "max_send_wr answered as asked (the queue's 8 slots are not told)");
	t_eq(qa.max_recv_wr, 4, "max_recv_wr answered as asked");
	{
		struct ib_uverbs_query_qp_resp q;
		t_success(uv_query_qp(fd, (uint32_t)qpa, QP_CAP, &q), errno, "QUERY_QP");
		t_eq(q.max_send_wr, 7, "QUERY_QP: max_send_wr 7, the send queue's slots - 1 (rxe_qp_to_init)");
		t_eq(q.max_recv_wr, 7, "QUERY_QP: max_recv_wr 7");
	}
	t_ok(da.rq_mi.offset != da.sq_mi.offset && da.sq_mi.offset % PAGE == 0 && da.rq_mi.offset % PAGE == 0 &&
	     da.sq_mi.offset != first->d.mi.offset, "each queue at an mminfo offset of its own");
	sqa = map(da.sq_mi.size, da.sq_mi.offset);
	rqb = map(db.rq_mi.size, db.rq_mi.offset);
	t_ok(sqa != MAP_FAILED && rqb != MAP_FAILED, "mmap of A's send queue and B's receive queue");
	if (sqa == MAP_FAILED || rqb == MAP_FAILED)
		return t_done();
	t_eq(sqa->log2_elem_size, 8, "send queue: 256-byte slots (rxe_send_wqe and one SGE)");
	t_eq(sqa->index_mask, 7, "send queue: index_mask 7");
	t_eq(rqb->log2_elem_size, 6, "receive queue: 64-byte slots (rxe_recv_wqe and one SGE)");
	t_eq(da.sq_mi.size, pages(sizeof(struct rxe_queue_buf) + 8 * 256), "send queue mminfo.size, page-aligned");

	/* ---- an SRQ's queue, and MODIFY_SRQ's new one (its mminfo written where the command says) */
	{
		struct ib_uverbs_create_srq c;
		struct {
			struct ib_uverbs_create_srq_resp r;
			struct rxe_create_srq_resp d;
		} rb;
		struct {
			struct ib_uverbs_modify_srq c;
			struct rxe_modify_srq_cmd d;
		} mc;
		struct ib_uverbs_query_srq qs;
		struct ib_uverbs_query_srq_resp qr;
		struct mminfo mi;
		struct rxe_queue_buf *srq, *srq2;
		memset(&c, 0, sizeof(c));
		memset(&rb, 0xff, sizeof(rb));
		c.pd_handle = pd;
		c.max_wr = 4;
		c.max_sge = 1;
		c.user_handle = 0x5e;
		t_success(uv_cmd(fd, IB_USER_VERBS_CMD_CREATE_SRQ, &c, sizeof(c), &rb, sizeof(rb)), errno,
			  "CREATE_SRQ with room for rxe_create_srq_resp");
		t_eq(rb.r.max_wr, 4, "CREATE_SRQ: max_wr answered as asked");
		t_ok(rb.d.mi.offset % PAGE == 0 && rb.d.mi.offset >= PAGE, "CREATE_SRQ: a page-aligned mminfo offset");
		t_eq(rb.d.mi.size, pages(sizeof(struct rxe_queue_buf) + 8 * 64), "CREATE_SRQ: mminfo.size of 8 slots of 64 bytes");
		t_ok(rb.d.srq_num != 0xffffffffu, "CREATE_SRQ: srq_num written");
		srq = map(rb.d.mi.size, rb.d.mi.offset);
		t_ok(srq != MAP_FAILED && srq->index_mask == 7 && srq->log2_elem_size == 6, "the SRQ's queue: 8 slots of 64 bytes");
		memset(&mc, 0, sizeof(mc));
		memset(&mi, 0xff, sizeof(mi));
		mc.c.srq_handle = rb.r.srq_handle;
		mc.c.attr_mask = 1; /* IB_SRQ_MAX_WR */
		mc.c.max_wr = 20;
		mc.d.mmap_info_addr = (uintptr_t)&mi;
		t_success(uv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_SRQ, &mc, sizeof(mc), NULL, 0), errno, "MODIFY_SRQ max_wr 20");
		t_ok(mi.offset != rb.d.mi.offset && mi.offset % PAGE == 0, "MODIFY_SRQ: the new queue's mminfo at mmap_info_addr");
		t_eq(mi.size, pages(sizeof(struct rxe_queue_buf) + 32 * 64), "MODIFY_SRQ: mminfo.size of 32 slots");
		srq2 = map(mi.size, mi.offset);
		t_ok(srq2 != MAP_FAILED && srq2->index_mask == 31, "the new queue: 32 slots");
		memset(&qs, 0, sizeof(qs));
		qs.srq_handle = rb.r.srq_handle;
		t_success(uv_cmd(fd, IB_USER_VERBS_CMD_QUERY_SRQ, &qs, sizeof(qs), &qr, sizeof(qr)), errno, "QUERY_SRQ");
		t_eq(qr.max_wr, 31, "QUERY_SRQ: max_wr 31, the queue's slots - 1");
	}

	qpc = rxe_create_qp(cqh, &qc, &dc);
	t_errno(rxe_doorbell((uint32_t)qpc), errno, EINVAL, "the doorbell of a QP in RESET: EINVAL (rxe_post_send)");
	if (!(t_have & NEED_IB)) {
		printf("# no LIDs on %s: the data path checks need an InfiniBand port\n", "this device");
		return t_done();
	}
	memset(&p, 0, sizeof(p));
	p.lid = port->lid;
	p.qpn = qb.qpn;
	t_success(qp_to_rts(fd, (uint32_t)qpa, QPT_RC, &p, 3, 7, 7, 14), errno, "A to RTS towards B");
	p.qpn = qa.qpn;
	t_success(qp_to_rts(fd, (uint32_t)qpb, QPT_RC, &p, 3, 7, 7, 14), errno, "B to RTS towards A");

	t_ok(rxe_ring_recv(rqb, 0x77, buf + 4096, 256) == 0, "a receive written into B's receive queue");
	memcpy(buf, "ring", 4);
	t_ok(rxe_ring_send(sqa, 0x51, 4) == 0, "a send written into A's send queue");
	t_success(rxe_doorbell((uint32_t)qpa), errno, "the doorbell: POST_SEND with wr_count 0");
	{
		int seen_send = 0, seen_recv = 0;
		for (int i = 0; i < 2 && rxe_wait(cq, &wc); i++)
			send_recv_seen(&wc, qb.qpn, &seen_send, &seen_recv);
		t_ok(seen_send, "the send's completion polled from the CQ queue");
		t_ok(seen_recv, "the receive's completion polled from the CQ queue (wr_id, byte_len, qp_num)");
		t_ok(memcmp(buf + 4096, "ring", 4) == 0, "the data landed in the buffer the receive WQE named");
		t_eq(atomic_load(consumer(sqa)), 1, "A's send queue: the device moved the consumer past the WQE");
		t_eq(atomic_load(consumer(rqb)), 1, "B's receive queue: the device moved the consumer past the WQE");
	}
	{
		uint32_t n = 0;
		while (rxe_ring_recv(rqb, 0x100 + n, buf + 8192, 64) == 0)
			n++;
		t_eq(n, rqb->index_mask, "the receive queue holds index_mask WQEs (slots - 1), the provider refuses the next");
	}
	/* ---- overflow: 8 sends complete twice each into 7 usable slots */
	{
		int sent = 0;
		for (int round = 0; round < 2; round++) {
			for (int i = 0; i < 4; i++)
				sent += rxe_ring_send(sqa, 0x600 + round * 4 + i, 1) == 0;
			rxe_doorbell((uint32_t)qpa);
			for (int spin = 0; spin < 100000 && atomic_load(consumer(sqa)) != atomic_load(producer(sqa)); spin++)
				sched_yield();
		}
		t_eq(sent, 8, "eight sends written in two batches");
		t_eq(rxe_count(cq), 7, "a full CQ queue holds cqe (7) completions");
		{
			struct ib_uverbs_async_event_desc ev;
			struct pollfd pf = { .fd = (int)ctx->async_fd, .events = POLLIN };
			ssize_t n = poll(&pf, 1, 20000) == 1 ? read((int)ctx->async_fd, &ev, sizeof(ev)) : -1;
			t_ok(n == sizeof(ev) && ev.event_type == IB_EVENT_CQ_ERR && ev.element == 0xc0,
			     "IB_EVENT_CQ_ERR on the async file, naming the CQ's user_handle");
		}
	}
	/* ---- resize: a new mminfo, the waiting completions copied */
	{
		struct ib_uverbs_resize_cq c;
		struct {
			struct ib_uverbs_resize_cq_resp r;
			struct rxe_resize_cq_resp d;
		} rr;
		uint32_t waiting = rxe_count(cq);
		memset(&c, 0, sizeof(c));
		memset(&rr, 0xff, sizeof(rr));
		c.cq_handle = cqh;
		c.cqe = 20;
		t_success(uv_cmd(fd, IB_USER_VERBS_CMD_RESIZE_CQ, &c, sizeof(c), &rr, sizeof(rr)), errno, "RESIZE_CQ to 20");
		t_eq(rr.r.cqe, 31, "RESIZE_CQ of 20 answers cqe 31");
		t_ok(rr.d.mi.offset != first->d.mi.offset && rr.d.mi.offset % PAGE == 0, "RESIZE_CQ answers a new mminfo");
		cq2 = map(rr.d.mi.size, rr.d.mi.offset);
		t_ok(cq2 != MAP_FAILED, "mmap of the resized CQ queue");
		if (cq2 != MAP_FAILED) {
			t_eq(rxe_count(cq2), waiting, "the waiting completions were copied into the new queue");
			t_ok(rxe_poll(cq2, &wc) && wc.status == WC_SUCCESS, "polled from the new queue");
		}
	}
	(void)rb;
	return t_done();
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--hold") == 0)
		return hold(argc > 2 ? argv[2] : uverbs_path());
	const char *path = argc > 1 ? argv[1] : uverbs_path();
	char ibdev[64], v[64], abi[64];
	struct ib_uverbs_get_context_resp ctx;
	struct ib_uverbs_query_port_resp port;
	struct ib_uverbs_create_cq_resp cr;
	struct ib_uverbs_create_qp_resp qa, qb;
	struct ib_uverbs_wc wc;
	struct stat st;
	struct ring_hdr *cq, *cq2, *rqb;
	uint32_t cqh, cqe = 0, cqe2, slots;
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
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		t_bail("open %s: %s", path, strerror(errno));
	{
		/* rxe's CREATE_CQ fills a whole struct mminfo of the udata; rdmavt's only a u64 */
		struct rxe_cq_cmd_resp first;
		open_context(&ctx, &port);
		if (rxe_create_cq(5, &first) >= 0 && first.d.mi.size != 0xffffffffu)
			return rxe_rings(&ctx, &port, &first);
		close(fd);
	}
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
	open_context(&ctx, &port);

	/* ---- mmap rules (rvt_mmap) */
	if (create_cq(4, &cr, &cq_off, sizeof(cq_off)) < 0)
		t_bail("CREATE_CQ with udata room: %s", strerror(errno));
	cqh = (uint32_t)create_cq(4, &cr, &cq_off, sizeof(cq_off)); /* the first one stays unmapped: a destroyed queue's offset is not reused */
	cqe = cr.cqe;
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
	qpa = create_qp(cqh, 16, 4, &qa, &qa_off, sizeof(qa_off));
	qpb = create_qp(cqh, 16, 4, &qb, &qb_off, sizeof(qb_off));
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
		for (int i = 0; i < 2 && ring_wait(cq, cqe, &wc); i++)
			send_recv_seen(&wc, qb.qpn, &seen_send, &seen_recv);
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
