/*
 * uverbs_probe.h - raw write() helpers for the /dev/infiniband/uverbsN probes.
 *
 * Header-only, next to probe.h (TAP helpers): no libibverbs, every command is
 * a struct from <rdma/ib_user_verbs.h> written with write(2), as rdma-core's
 * libibverbs/cmd.c would in its write-ABI fallback.
 *
 * Framing (drivers/infiniband/core/uverbs_main.c ib_uverbs_write, verify_hdr):
 *   plain:    struct ib_uverbs_cmd_hdr, then the request; in_words counts the
 *             header too (count == in_words * 4), out_words * 4 is the size of
 *             the response buffer whose address is the request's first u64.
 *   extended: command | IB_USER_VERBS_CMD_FLAG_EXTENDED, then
 *             struct ib_uverbs_ex_cmd_hdr (response pointer, provider words),
 *             then the request; in/out_words count 8-byte words and not the
 *             headers.
 *
 * Environment: IBEMU_UVERBS (default /dev/infiniband/uverbs0), IBEMU_SYSFS.
 */
#ifndef IBEMU_UVERBS_PROBE_H
#define IBEMU_UVERBS_PROBE_H

#include "probe.h"
#include <endian.h>
#include <stddef.h>
#include <sys/mman.h>
#include <rdma/ib_user_verbs.h>

/* enum ib_qp_attr_mask (include/rdma/ib_verbs.h; same bits as ibv_qp_attr_mask) */
#define QP_STATE (1u << 0)
#define QP_CUR_STATE (1u << 1)
#define QP_EN_SQD_ASYNC_NOTIFY (1u << 2)
#define QP_ACCESS_FLAGS (1u << 3)
#define QP_PKEY_INDEX (1u << 4)
#define QP_PORT (1u << 5)
#define QP_QKEY (1u << 6)
#define QP_AV (1u << 7)
#define QP_PATH_MTU (1u << 8)
#define QP_TIMEOUT (1u << 9)
#define QP_RETRY_CNT (1u << 10)
#define QP_RNR_RETRY (1u << 11)
#define QP_RQ_PSN (1u << 12)
#define QP_MAX_QP_RD_ATOMIC (1u << 13)
#define QP_ALT_PATH (1u << 14)
#define QP_MIN_RNR_TIMER (1u << 15)
#define QP_SQ_PSN (1u << 16)
#define QP_MAX_DEST_RD_ATOMIC (1u << 17)
#define QP_PATH_MIG_STATE (1u << 18)
#define QP_CAP (1u << 19)
#define QP_DEST_QPN (1u << 20)

/* enum ib_qp_state, ib_qp_type */
enum { QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD, QPS_SQE, QPS_ERR };
enum { QPT_SMI, QPT_GSI, QPT_RC, QPT_UC, QPT_UD };

/* enum ib_wc_status, ib_wc_opcode (receive side), ib_wc_flags, ib_send_flags */
enum {
	WC_SUCCESS, WC_LOC_LEN_ERR, WC_LOC_QP_OP_ERR, WC_LOC_EEC_OP_ERR, WC_LOC_PROT_ERR,
	WC_WR_FLUSH_ERR, WC_MW_BIND_ERR, WC_BAD_RESP_ERR, WC_LOC_ACCESS_ERR,
	WC_REM_INV_REQ_ERR, WC_REM_ACCESS_ERR, WC_REM_OP_ERR, WC_RETRY_EXC_ERR,
	WC_RNR_RETRY_EXC_ERR,
};
#define WC_RECV 128
#define WC_RECV_RDMA_WITH_IMM 129
#define WC_FLAG_GRH 1
#define WC_FLAG_WITH_IMM 2
#define SEND_SIGNALED 2
#define SEND_SOLICITED 4

#define ACC_LOCAL_WRITE 1
#define ACC_REMOTE_WRITE 2
#define ACC_REMOTE_READ 4
#define ACC_REMOTE_ATOMIC 8

/* enum ib_event_type values a probe waits for */
#define EV_QP_FATAL 1
#define EV_PORT_ERR 10
#define EV_QP_LAST_WQE_REACHED 16

static inline const char *uverbs_path(void) { return env_or("IBEMU_UVERBS", "/dev/infiniband/uverbs0"); }

/*
 * Room for the driver's part of a CREATE_CQ/CREATE_QP/CREATE_SRQ/RESIZE_CQ
 * response (udata). ipathverbs at ABI 1 (the qib profile) gives none, and with
 * none rdmavt creates no mmap'd queue (rvt_create_cq: udata->outlen < 8); rxe
 * refuses a response without its struct rxe_create_*_resp (EINVAL).
 */
#define UV_DRIVER_ROOM_MAX 64
static inline size_t uv_driver_room(void) { return (t_have & NEED_QIB) ? 0 : UV_DRIVER_ROOM_MAX; }

/* ---------------------------------------------------------------- framing */

/* Any header and body, as given: the probes of verify_hdr need wrong ones. */
static inline ssize_t uv_raw(int fd, uint32_t command, uint16_t in_words, uint16_t out_words,
			     const void *body, size_t blen)
{
	static uint8_t buf[1 << 16];
	struct ib_uverbs_cmd_hdr h = { command, in_words, out_words };
	if (blen > sizeof(buf) - sizeof(h)) {
		errno = E2BIG;
		return -1;
	}
	memcpy(buf, &h, sizeof(h));
	if (blen)
		memcpy(buf + sizeof(h), body, blen);
	return write(fd, buf, sizeof(h) + blen);
}

/*
 * A well-formed plain command. With resp, its address goes into the request's
 * leading `response` u64 and out_words covers resplen. 0, or -1 with errno.
 */
static inline int uv_cmd(int fd, uint32_t command, void *req, size_t reqlen, void *resp, size_t resplen)
{
	ssize_t n;
	if (resp) {
		uint64_t p = (uintptr_t)resp;
		memcpy(req, &p, sizeof(p));
	}
	n = uv_raw(fd, command, (uint16_t)((sizeof(struct ib_uverbs_cmd_hdr) + reqlen) / 4),
		   (uint16_t)(resplen / 4), req, reqlen);
	if (n < 0)
		return -1;
	if ((size_t)n != sizeof(struct ib_uverbs_cmd_hdr) + reqlen) {
		errno = EMSGSIZE; /* short write: not a kernel answer */
		return -1;
	}
	return 0;
}

/* An extended command with every header field under the caller's control. */
static inline ssize_t uv_ex_raw(int fd, uint32_t command, uint16_t in_words, uint16_t out_words,
				uint64_t response, uint16_t prov_in, uint16_t prov_out, uint32_t reserved,
				const void *body, size_t blen)
{
	static uint8_t buf[1 << 16];
	struct ib_uverbs_cmd_hdr h = { command | IB_USER_VERBS_CMD_FLAG_EXTENDED, in_words, out_words };
	struct ib_uverbs_ex_cmd_hdr x;
	memset(&x, 0, sizeof(x));
	x.response = response;
	x.provider_in_words = prov_in;
	x.provider_out_words = prov_out;
	x.cmd_hdr_reserved = reserved;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &x, sizeof(x));
	if (blen)
		memcpy(buf + sizeof(h) + sizeof(x), body, blen);
	return write(fd, buf, sizeof(h) + sizeof(x) + blen);
}

/* A well-formed extended command (request and response sizes multiples of 8). */
static inline int uv_ex(int fd, uint32_t command, const void *req, size_t reqlen, void *resp, size_t resplen)
{
	ssize_t n = uv_ex_raw(fd, command, (uint16_t)(reqlen / 8), (uint16_t)(resplen / 8),
			      (uintptr_t)resp, 0, 0, 0, req, reqlen);
	if (n < 0)
		return -1;
	return 0;
}

/* ---------------------------------------------------------------- objects */

static inline int uv_get_context(int fd, struct ib_uverbs_get_context_resp *r)
{
	struct ib_uverbs_get_context c;
	memset(&c, 0, sizeof(c));
	memset(r, 0, sizeof(*r));
	return uv_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &c, sizeof(c), r, sizeof(*r));
}

static inline int uv_query_device(int fd, struct ib_uverbs_query_device_resp *r)
{
	struct ib_uverbs_query_device c;
	memset(&c, 0, sizeof(c));
	memset(r, 0, sizeof(*r));
	return uv_cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &c, sizeof(c), r, sizeof(*r));
}

static inline int uv_query_port(int fd, uint8_t port, struct ib_uverbs_query_port_resp *r)
{
	struct ib_uverbs_query_port c;
	memset(&c, 0, sizeof(c));
	memset(r, 0, sizeof(*r));
	c.port_num = port;
	return uv_cmd(fd, IB_USER_VERBS_CMD_QUERY_PORT, &c, sizeof(c), r, sizeof(*r));
}

/* Returns the new handle, or -1 with errno. */
static inline long uv_alloc_pd(int fd)
{
	struct ib_uverbs_alloc_pd c;
	struct ib_uverbs_alloc_pd_resp r;
	memset(&c, 0, sizeof(c));
	memset(&r, 0xff, sizeof(r));
	if (uv_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &c, sizeof(c), &r, sizeof(r)))
		return -1;
	return r.pd_handle;
}

static inline int uv_dealloc_pd(int fd, uint32_t h)
{
	struct ib_uverbs_dealloc_pd c = { .pd_handle = h };
	return uv_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_PD, &c, sizeof(c), NULL, 0);
}

static inline long uv_reg_mr(int fd, uint32_t pd, const void *addr, uint64_t len, uint64_t hca_va,
			     uint32_t access, uint32_t *lkey, uint32_t *rkey)
{
	struct ib_uverbs_reg_mr c;
	struct ib_uverbs_reg_mr_resp r;
	memset(&c, 0, sizeof(c));
	memset(&r, 0xff, sizeof(r));
	c.start = (uintptr_t)addr;
	c.length = len;
	c.hca_va = hca_va;
	c.pd_handle = pd;
	c.access_flags = access;
	if (uv_cmd(fd, IB_USER_VERBS_CMD_REG_MR, &c, sizeof(c), &r, sizeof(r)))
		return -1;
	if (lkey)
		*lkey = r.lkey;
	if (rkey)
		*rkey = r.rkey;
	return r.mr_handle;
}

static inline int uv_dereg_mr(int fd, uint32_t h)
{
	struct ib_uverbs_dereg_mr c = { .mr_handle = h };
	return uv_cmd(fd, IB_USER_VERBS_CMD_DEREG_MR, &c, sizeof(c), NULL, 0);
}

/* Returns the channel's file descriptor, or -1 with errno. */
static inline int uv_create_comp_channel(int fd)
{
	struct ib_uverbs_create_comp_channel c;
	struct ib_uverbs_create_comp_channel_resp r;
	memset(&c, 0, sizeof(c));
	r.fd = -1;
	if (uv_cmd(fd, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &c, sizeof(c), &r, sizeof(r)))
		return -1;
	return (int)r.fd;
}

/*
 * CREATE_CQ with driver_len bytes of udata room after the response: the driver's answer there is
 * copied to driver (0xff where it wrote nothing). uv_create_cq gives uv_driver_room() and reads none.
 */
static inline long uv_create_cq_udata(int fd, uint32_t cqe, int32_t channel, uint32_t vector, uint64_t user_handle,
				      struct ib_uverbs_create_cq_resp *out, void *driver, size_t driver_len)
{
	struct ib_uverbs_create_cq c;
	struct {
		struct ib_uverbs_create_cq_resp r;
		uint8_t driver[UV_DRIVER_ROOM_MAX];
	} rb;
	if (driver_len > UV_DRIVER_ROOM_MAX) {
		errno = E2BIG;
		return -1;
	}
	memset(&c, 0, sizeof(c));
	memset(&rb, 0xff, sizeof(rb));
	c.user_handle = user_handle;
	c.cqe = cqe;
	c.comp_vector = vector;
	c.comp_channel = channel;
	if (uv_cmd(fd, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c), &rb, sizeof(rb.r) + driver_len))
		return -1;
	if (out)
		*out = rb.r;
	if (driver)
		memcpy(driver, rb.driver, driver_len);
	return rb.r.cq_handle;
}

static inline long uv_create_cq(int fd, uint32_t cqe, int32_t channel, uint32_t vector, uint64_t user_handle,
				uint32_t *cqe_out)
{
	struct ib_uverbs_create_cq_resp r;
	long h = uv_create_cq_udata(fd, cqe, channel, vector, user_handle, &r, NULL, uv_driver_room());
	if (h >= 0 && cqe_out)
		*cqe_out = r.cqe;
	return h;
}

static inline int uv_destroy_cq(int fd, uint32_t h, struct ib_uverbs_destroy_cq_resp *out)
{
	struct ib_uverbs_destroy_cq c;
	struct ib_uverbs_destroy_cq_resp r;
	memset(&c, 0, sizeof(c));
	memset(&r, 0xff, sizeof(r));
	c.cq_handle = h;
	if (uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_CQ, &c, sizeof(c), &r, sizeof(r)))
		return -1;
	if (out)
		*out = r;
	return 0;
}

static inline int uv_req_notify(int fd, uint32_t cq, int solicited)
{
	struct ib_uverbs_req_notify_cq c = { .cq_handle = cq, .solicited_only = (uint32_t)solicited };
	return uv_cmd(fd, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &c, sizeof(c), NULL, 0);
}

/* POLL_CQ for up to n completions; returns how many, or -1 with errno. */
static inline int uv_poll_cq(int fd, uint32_t cq, int n, struct ib_uverbs_wc *wc)
{
	struct ib_uverbs_poll_cq c;
	uint8_t buf[sizeof(struct ib_uverbs_poll_cq_resp) + 16 * sizeof(struct ib_uverbs_wc)];
	struct ib_uverbs_poll_cq_resp *r = (void *)buf;
	if (n > 16)
		n = 16;
	memset(&c, 0, sizeof(c));
	memset(buf, 0xa5, sizeof(buf));
	c.cq_handle = cq;
	c.ne = (uint32_t)n;
	if (uv_cmd(fd, IB_USER_VERBS_CMD_POLL_CQ, &c, sizeof(c), buf,
		   sizeof(*r) + (size_t)n * sizeof(struct ib_uverbs_wc)))
		return -1;
	if (r->count > (uint32_t)n) {
		errno = ERANGE;
		return -1;
	}
	memcpy(wc, buf + sizeof(*r), r->count * sizeof(struct ib_uverbs_wc));
	return (int)r->count;
}

/* Polls until one completion arrives or ms pass: 1, 0 on timeout, -1 on error. */
static inline int uv_wait_wc(int fd, uint32_t cq, struct ib_uverbs_wc *wc, int ms)
{
	double end = now_ms() + ms;
	for (;;) {
		int n = uv_poll_cq(fd, cq, 1, wc);
		if (n != 0)
			return n;
		if (now_ms() > end)
			return 0;
		sleep_ms(1);
	}
}

struct qp_spec {
	uint8_t type;
	uint32_t pd, send_cq, recv_cq, srq;
	int is_srq;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline;
	uint8_t sq_sig_all;
	uint64_t user_handle;
};

static inline void qp_spec_default(struct qp_spec *s, uint8_t type, uint32_t pd, uint32_t cq)
{
	memset(s, 0, sizeof(*s));
	s->type = type;
	s->pd = pd;
	s->send_cq = cq;
	s->recv_cq = cq;
	s->max_send_wr = 16;
	s->max_recv_wr = 16;
	s->max_send_sge = 1;
	s->max_recv_sge = 1;
	s->user_handle = 0x5150000000000000ULL | type;
}

/* CREATE_QP with driver_len bytes of udata room, read back as uv_create_cq_udata does. */
static inline long uv_create_qp_udata(int fd, const struct qp_spec *s, struct ib_uverbs_create_qp_resp *out,
				      void *driver, size_t driver_len)
{
	struct ib_uverbs_create_qp c;
	struct {
		struct ib_uverbs_create_qp_resp r;
		uint8_t driver[UV_DRIVER_ROOM_MAX];
	} rb;
	if (driver_len > UV_DRIVER_ROOM_MAX) {
		errno = E2BIG;
		return -1;
	}
	memset(&c, 0, sizeof(c));
	memset(&rb, 0xff, sizeof(rb));
	c.user_handle = s->user_handle;
	c.pd_handle = s->pd;
	c.send_cq_handle = s->send_cq;
	c.recv_cq_handle = s->recv_cq;
	c.srq_handle = s->srq;
	c.max_send_wr = s->max_send_wr;
	c.max_recv_wr = s->max_recv_wr;
	c.max_send_sge = s->max_send_sge;
	c.max_recv_sge = s->max_recv_sge;
	c.max_inline_data = s->max_inline;
	c.sq_sig_all = s->sq_sig_all;
	c.qp_type = s->type;
	c.is_srq = (uint8_t)s->is_srq;
	if (uv_cmd(fd, IB_USER_VERBS_CMD_CREATE_QP, &c, sizeof(c), &rb, sizeof(rb.r) + driver_len))
		return -1;
	if (out)
		*out = rb.r;
	if (driver)
		memcpy(driver, rb.driver, driver_len);
	return rb.r.qp_handle;
}

static inline long uv_create_qp(int fd, const struct qp_spec *s, struct ib_uverbs_create_qp_resp *out)
{
	return uv_create_qp_udata(fd, s, out, NULL, uv_driver_room());
}

static inline int uv_destroy_qp(int fd, uint32_t h)
{
	struct ib_uverbs_destroy_qp c;
	struct ib_uverbs_destroy_qp_resp r;
	memset(&c, 0, sizeof(c));
	c.qp_handle = h;
	return uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_QP, &c, sizeof(c), &r, sizeof(r));
}

static inline int uv_modify_qp(int fd, const struct ib_uverbs_modify_qp *m)
{
	struct ib_uverbs_modify_qp c = *m;
	return uv_cmd(fd, IB_USER_VERBS_CMD_MODIFY_QP, &c, sizeof(c), NULL, 0);
}

static inline int uv_query_qp(int fd, uint32_t h, uint32_t mask, struct ib_uverbs_query_qp_resp *r)
{
	struct ib_uverbs_query_qp c;
	memset(&c, 0, sizeof(c));
	memset(r, 0, sizeof(*r));
	c.qp_handle = h;
	c.attr_mask = mask;
	return uv_cmd(fd, IB_USER_VERBS_CMD_QUERY_QP, &c, sizeof(c), r, sizeof(*r));
}

/* Peer address for connected QPs and AHs. */
struct peer {
	uint16_t lid;
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint64_t addr;
	uint8_t gid[16];
};

/*
 * Fills every field a transition of ib_modify_qp_is_ok may take with a value
 * rdmavt's rvt_modify_qp accepts, so that only the mask decides.
 */
static inline void modify_fill(struct ib_uverbs_modify_qp *m, uint32_t qp, uint8_t state, uint32_t mask,
			       const struct peer *p, uint8_t mtu)
{
	memset(m, 0, sizeof(*m));
	m->qp_handle = qp;
	m->attr_mask = mask;
	m->qp_state = state;
	m->qkey = 0x11111111;
	m->rq_psn = p ? p->psn : 0;
	m->sq_psn = 0x1234;
	m->dest_qp_num = p ? p->qpn : 2;
	m->qp_access_flags = ACC_LOCAL_WRITE | ACC_REMOTE_WRITE | ACC_REMOTE_READ | ACC_REMOTE_ATOMIC;
	m->pkey_index = 0;
	m->alt_pkey_index = 0;
	m->path_mtu = mtu ? mtu : 1;
	m->path_mig_state = 0; /* IB_MIG_MIGRATED */
	m->max_rd_atomic = 1;
	m->max_dest_rd_atomic = 1;
	m->min_rnr_timer = 12;
	m->port_num = 1;
	m->timeout = 14;
	m->retry_cnt = 7;
	m->rnr_retry = 7;
	m->alt_port_num = 1;
	m->alt_timeout = 14;
	m->dest.dlid = p && p->lid ? p->lid : 1;
	m->dest.port_num = 1;
	m->alt_dest.dlid = m->dest.dlid;
	m->alt_dest.port_num = 1;
}

/* Minimal masks of ib_modify_qp_is_ok (verbs.c qp_state_table) for RC, UC, UD. */
static inline uint32_t mask_reset_init(int t)
{
	return QP_STATE | QP_PKEY_INDEX | QP_PORT | (t == QPT_UD ? QP_QKEY : QP_ACCESS_FLAGS);
}

static inline uint32_t mask_init_rtr(int t)
{
	if (t == QPT_UD)
		return QP_STATE;
	if (t == QPT_UC)
		return QP_STATE | QP_AV | QP_PATH_MTU | QP_DEST_QPN | QP_RQ_PSN;
	return QP_STATE | QP_AV | QP_PATH_MTU | QP_DEST_QPN | QP_RQ_PSN | QP_MAX_DEST_RD_ATOMIC |
	       QP_MIN_RNR_TIMER;
}

static inline uint32_t mask_rtr_rts(int t)
{
	if (t == QPT_RC)
		return QP_STATE | QP_TIMEOUT | QP_RETRY_CNT | QP_RNR_RETRY | QP_SQ_PSN | QP_MAX_QP_RD_ATOMIC;
	return QP_STATE | QP_SQ_PSN;
}

/* RESET -> INIT -> RTR -> RTS with the minimal masks. 0 or -1 with errno. */
static inline int qp_to_rts(int fd, uint32_t qp, int type, const struct peer *p, uint8_t mtu,
			    uint8_t rnr_retry, uint8_t retry_cnt, uint8_t timeout)
{
	struct ib_uverbs_modify_qp m;
	modify_fill(&m, qp, QPS_INIT, mask_reset_init(type), p, mtu);
	if (uv_modify_qp(fd, &m))
		return -1;
	modify_fill(&m, qp, QPS_RTR, mask_init_rtr(type), p, mtu);
	if (uv_modify_qp(fd, &m))
		return -1;
	modify_fill(&m, qp, QPS_RTS, mask_rtr_rts(type), p, mtu);
	m.rnr_retry = rnr_retry;
	m.retry_cnt = retry_cnt;
	m.timeout = timeout;
	if (uv_modify_qp(fd, &m))
		return -1;
	return 0;
}

static inline int qp_to_state(int fd, uint32_t qp, uint8_t state)
{
	struct ib_uverbs_modify_qp m;
	modify_fill(&m, qp, state, QP_STATE, NULL, 1);
	return uv_modify_qp(fd, &m);
}

/* POST_SEND of one work request with one SGE (or none when len == 0). */
struct send_req {
	uint64_t wr_id;
	uint32_t opcode, flags, imm;
	uint64_t addr;
	uint32_t len, lkey;
	uint64_t remote_addr;
	uint32_t rkey;
	uint64_t compare_add, swap;
	uint32_t ah, remote_qpn, remote_qkey;
};

static inline int uv_post_send(int fd, uint32_t qp, const struct send_req *s, uint32_t *bad_wr)
{
	struct {
		struct ib_uverbs_post_send c;
		struct ib_uverbs_send_wr wr;
		struct ib_uverbs_sge sge;
	} __attribute__((packed)) m;
	struct ib_uverbs_post_send_resp r;
	int nsge = s->len ? 1 : 0;
	int ret;
	memset(&m, 0, sizeof(m));
	r.bad_wr = 0xdeadbeef;
	m.c.qp_handle = qp;
	m.c.wr_count = 1;
	m.c.sge_count = (uint32_t)nsge;
	m.c.wqe_size = sizeof(struct ib_uverbs_send_wr);
	m.wr.wr_id = s->wr_id;
	m.wr.num_sge = (uint32_t)nsge;
	m.wr.opcode = s->opcode;
	m.wr.send_flags = s->flags;
	m.wr.ex.imm_data = htonl(s->imm);
	if (s->opcode == IB_UVERBS_WR_ATOMIC_CMP_AND_SWP || s->opcode == IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD) {
		m.wr.wr.atomic.remote_addr = s->remote_addr;
		m.wr.wr.atomic.compare_add = s->compare_add;
		m.wr.wr.atomic.swap = s->swap;
		m.wr.wr.atomic.rkey = s->rkey;
	} else if (s->ah || s->remote_qpn) {
		m.wr.wr.ud.ah = s->ah;
		m.wr.wr.ud.remote_qpn = s->remote_qpn;
		m.wr.wr.ud.remote_qkey = s->remote_qkey;
	} else {
		m.wr.wr.rdma.remote_addr = s->remote_addr;
		m.wr.wr.rdma.rkey = s->rkey;
	}
	m.sge.addr = s->addr;
	m.sge.length = s->len;
	m.sge.lkey = s->lkey;
	ret = uv_cmd(fd, IB_USER_VERBS_CMD_POST_SEND, &m,
		     sizeof(m.c) + sizeof(m.wr) + (size_t)nsge * sizeof(m.sge), &r, sizeof(r));
	if (bad_wr)
		*bad_wr = r.bad_wr;
	return ret;
}

/* POST_RECV (or POST_SRQ_RECV when srq) of one WR with one SGE. */
static inline int uv_post_recv(int fd, uint32_t handle, int srq, uint64_t wr_id, uint64_t addr, uint32_t len,
			       uint32_t lkey, uint32_t *bad_wr)
{
	struct {
		struct ib_uverbs_post_recv c;
		struct ib_uverbs_recv_wr wr;
		struct ib_uverbs_sge sge;
	} __attribute__((packed)) m;
	struct ib_uverbs_post_recv_resp r;
	int ret;
	memset(&m, 0, sizeof(m));
	r.bad_wr = 0xdeadbeef;
	m.c.qp_handle = handle; /* same offset as ib_uverbs_post_srq_recv.srq_handle */
	m.c.wr_count = 1;
	m.c.sge_count = 1;
	m.c.wqe_size = sizeof(struct ib_uverbs_recv_wr);
	m.wr.wr_id = wr_id;
	m.wr.num_sge = 1;
	m.sge.addr = addr;
	m.sge.length = len;
	m.sge.lkey = lkey;
	ret = uv_cmd(fd, srq ? IB_USER_VERBS_CMD_POST_SRQ_RECV : IB_USER_VERBS_CMD_POST_RECV, &m, sizeof(m),
		     &r, sizeof(r));
	if (bad_wr)
		*bad_wr = r.bad_wr;
	return ret;
}

static inline long uv_create_ah(int fd, uint32_t pd, uint16_t dlid, uint8_t port, const uint8_t *dgid)
{
	struct ib_uverbs_create_ah c;
	struct ib_uverbs_create_ah_resp r;
	memset(&c, 0, sizeof(c));
	memset(&r, 0xff, sizeof(r));
	c.user_handle = 0xa4;
	c.pd_handle = pd;
	c.attr.dlid = dlid;
	c.attr.port_num = port;
	if (dgid) {
		c.attr.is_global = 1;
		memcpy(c.attr.grh.dgid, dgid, 16);
		c.attr.grh.hop_limit = 1;
		c.attr.grh.sgid_index = 0;
	}
	if (uv_cmd(fd, IB_USER_VERBS_CMD_CREATE_AH, &c, sizeof(c), &r, sizeof(r)))
		return -1;
	return r.ah_handle;
}

static inline int uv_destroy_ah(int fd, uint32_t h)
{
	struct ib_uverbs_destroy_ah c = { .ah_handle = h };
	return uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_AH, &c, sizeof(c), NULL, 0);
}

static inline int uv_mcast(int fd, int attach, uint32_t qp, const uint8_t *gid, uint16_t mlid)
{
	struct ib_uverbs_attach_mcast c; /* same layout as ib_uverbs_detach_mcast */
	memset(&c, 0, sizeof(c));
	memcpy(c.gid, gid, 16);
	c.qp_handle = qp;
	c.mlid = mlid;
	return uv_cmd(fd, attach ? IB_USER_VERBS_CMD_ATTACH_MCAST : IB_USER_VERBS_CMD_DETACH_MCAST, &c,
		      sizeof(c), NULL, 0);
}

static inline long uv_create_srq(int fd, uint32_t pd, uint32_t max_wr, uint32_t max_sge, uint32_t limit,
				 struct ib_uverbs_create_srq_resp *out)
{
	struct ib_uverbs_create_srq c;
	struct {
		struct ib_uverbs_create_srq_resp r;
		uint8_t driver[UV_DRIVER_ROOM_MAX];
	} rb;
	struct ib_uverbs_create_srq_resp r;
	memset(&c, 0, sizeof(c));
	memset(&rb, 0xff, sizeof(rb));
	c.user_handle = 0x5e;
	c.pd_handle = pd;
	c.max_wr = max_wr;
	c.max_sge = max_sge;
	c.srq_limit = limit;
	if (uv_cmd(fd, IB_USER_VERBS_CMD_CREATE_SRQ, &c, sizeof(c), &rb, sizeof(rb.r) + uv_driver_room()))
		return -1;
	r = rb.r;
	if (out)
		*out = r;
	return r.srq_handle;
}

static inline int uv_destroy_srq(int fd, uint32_t h)
{
	struct ib_uverbs_destroy_srq c;
	struct ib_uverbs_destroy_srq_resp r;
	memset(&c, 0, sizeof(c));
	c.srq_handle = h;
	return uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &c, sizeof(c), &r, sizeof(r));
}

/* ---------------------------------------------------------------- sysfs */

/* The ib device behind a uverbs node (class/infiniband_verbs/uverbsN/ibdev). */
static inline int uverbs_ibdev(const char *uverbs, char *ibdev, size_t len)
{
	char path[512];
	const char *u = strrchr(uverbs, '/');
	snprintf(path, sizeof(path), "%s/class/infiniband_verbs/%s/ibdev", sysfs_root(), u ? u + 1 : uverbs);
	return read_text(path, ibdev, len);
}

/* A "%04x:%04x:%04x:%04x" GUID attribute of class/infiniband/DEV (sysfs.c). */
static inline int sysfs_guid(const char *ibdev, const char *attr, uint64_t *guid)
{
	char path[512], v[64];
	unsigned a, b, c, d;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/%s", sysfs_root(), ibdev, attr);
	if (read_text(path, v, sizeof(v)) || sscanf(v, "%x:%x:%x:%x", &a, &b, &c, &d) != 4)
		return -1;
	*guid = ((uint64_t)a << 48) | ((uint64_t)b << 32) | ((uint64_t)c << 16) | d;
	return 0;
}

/* ports/N/ATTR of class/infiniband/DEV as text. */
static inline int sysfs_port_text(const char *ibdev, int port, const char *attr, char *v, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%d/%s", sysfs_root(), ibdev, port, attr);
	return read_text(path, v, len);
}

#endif
