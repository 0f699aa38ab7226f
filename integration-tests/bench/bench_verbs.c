/*
 * bench_verbs.c - verbs latency and bandwidth between two local HCAs, one
 * process, one thread (so every write() the provider makes is on one path and
 * can be counted), against the FUSE floor and memcpy.
 *
 *   pingpong: 8-byte RC SENDs, A -> B -> A, each side signalled and
 *             re-posting its receive, as ibv_rc_pingpong does; one sample
 *             is one round trip. The write() commands made per round trip
 *             (post_send, post_recv, every poll_cq call) are counted.
 *   write:    one signalled RDMA WRITE of SIZE bytes from A's buffer into
 *             B's, polled to completion; one sample per message.
 *   floor:    the same number of write()s per sample to a FUSE file (the
 *             floor's "uverbs0", answered by floor.c with no work), so
 *             the sample costs exactly the transport.
 *   memcpy:   the same bytes copied in this process (twice for a round trip).
 *
 * Rounds alternate (floor, ibemu, memcpy, floor, ...): all see one machine
 * state. Prints per measure: "NAME SYSTEM median=M p90=P p99=Q n=N
 * writes=W rounds=R1/R2/..." (microseconds).
 *
 * Build: gcc -O2 -Wall -o bench_verbs bench_verbs.c -libverbs
 * Run:   ./bench_verbs [-n ITER] [-w WARMUP] [-r ROUNDS] [-s SIZE]... FLOORFILE
 *        (devices ibemu0 and ibemu1, ports 1, already Active with LIDs)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_time.h"

#define MAX_ROUNDS 32
#define MAX_SIZES 4
#define RECV_SLOTS 1

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	size_t len;
	uint16_t lid;
};

static long writes; /* write() commands made by the provider, counted at each call */

static void die(const char *what)
{
	fprintf(stderr, "bench_verbs: %s: %s\n", what, strerror(errno));
	exit(1);
}

static struct ibv_context *open_named(const char *name)
{
	int n, i;
	struct ibv_device **list = ibv_get_device_list(&n);
	struct ibv_context *ctx = NULL;
	if (!list)
		die("ibv_get_device_list");
	for (i = 0; i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx) {
		fprintf(stderr, "bench_verbs: cannot open %s\n", name);
		exit(1);
	}
	return ctx;
}

static void setup(struct side *s, const char *name, size_t len)
{
	struct ibv_port_attr pa;
	struct ibv_qp_init_attr qi = {0};
	struct ibv_qp_attr a = {0};

	s->ctx = open_named(name);
	if (ibv_query_port(s->ctx, 1, &pa))
		die("ibv_query_port");
	if (pa.state != IBV_PORT_ACTIVE || pa.lid == 0) {
		fprintf(stderr, "bench_verbs: %s port 1 not active with a LID (no SM?)\n", name);
		exit(1);
	}
	s->lid = pa.lid;
	s->len = len;
	if (posix_memalign((void **)&s->buf, 4096, len))
		die("posix_memalign");
	memset(s->buf, 0x5a, len);
	if (!(s->pd = ibv_alloc_pd(s->ctx)))
		die("ibv_alloc_pd");
	s->mr = ibv_reg_mr(s->pd, s->buf, len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s->mr)
		die("ibv_reg_mr");
	if (!(s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0)))
		die("ibv_create_cq");
	qi.send_cq = s->cq;
	qi.recv_cq = s->cq;
	qi.qp_type = IBV_QPT_RC;
	qi.cap.max_send_wr = 16;
	qi.cap.max_recv_wr = 16;
	qi.cap.max_send_sge = 1;
	qi.cap.max_recv_sge = 1;
	if (!(s->qp = ibv_create_qp(s->pd, &qi)))
		die("ibv_create_qp");
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify INIT");
}

static void connect_to(struct side *s, struct side *peer)
{
	struct ibv_qp_attr a = {0};
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_4096;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.dlid = peer->lid;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN
			  | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify RTR");
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY
			  | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify RTS");
}

static void post_recv(struct side *s)
{
	struct ibv_sge sge = {(uintptr_t)s->buf + 4096, 8, s->mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = 2, .sg_list = &sge, .num_sge = 1}, *bad;
	writes++;
	if (ibv_post_recv(s->qp, &wr, &bad))
		die("ibv_post_recv");
}

static void post_send(struct side *s, int opcode, size_t len, struct side *target)
{
	struct ibv_sge sge = {(uintptr_t)s->buf, (uint32_t)len, s->mr->lkey};
	struct ibv_send_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = opcode,
				 .send_flags = IBV_SEND_SIGNALED}, *bad;
	if (target) {
		wr.wr.rdma.remote_addr = (uintptr_t)target->buf;
		wr.wr.rdma.rkey = target->mr->rkey;
	}
	writes++;
	if (ibv_post_send(s->qp, &wr, &bad))
		die("ibv_post_send");
}

/* Polls until the completions whose wr_ids are in `want` (bit 1: send, bit 2: recv) are all in. */
static void await(struct side *s, int want)
{
	struct ibv_wc wc[4];
	while (want) {
		int i, n;
		writes++;
		n = ibv_poll_cq(s->cq, 4, wc);
		if (n < 0)
			die("ibv_poll_cq");
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "bench_verbs: completion status %s\n", ibv_wc_status_str(wc[i].status));
				exit(1);
			}
			want &= ~(int)wc[i].wr_id;
		}
	}
}

static struct side A, B;

static void pingpong_once(void)
{
	post_send(&A, IBV_WR_SEND, 8, NULL);
	await(&B, 2);
	post_recv(&B);
	post_send(&B, IBV_WR_SEND, 8, NULL);
	await(&B, 1);
	await(&A, 3);
	post_recv(&A);
}

static void write_once(size_t size)
{
	post_send(&A, IBV_WR_RDMA_WRITE, size, &B);
	await(&A, 1);
}

/* The floor: k write()s of `len` bytes each to the floor's file. */
static int floor_fd;
static char floor_cmd[256];

static void floor_once(int k)
{
	int i;
	for (i = 0; i < k; i++)
		if (write(floor_fd, floor_cmd, sizeof(floor_cmd)) != sizeof(floor_cmd))
			die("floor write");
}

static char *copy_src, *copy_dst;

static void memcpy_once(size_t size, int times)
{
	int i;
	for (i = 0; i < times; i++) {
		memcpy(copy_dst, copy_src, size);
		__asm__ volatile("" ::: "memory");
	}
}

struct series {
	double *v;
	int n;
	double rounds[MAX_ROUNDS];
	int nrounds;
};

static void add_round(struct series *s, double *v, int n)
{
	memcpy(s->v + s->n, v, n * sizeof(*v));
	s->n += n;
	s->rounds[s->nrounds++] = median_of(v, n);
}

static void print(const char *what, const char *system, struct series *s, double writes_per)
{
	int r;
	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	printf("%s %s median=%.2f p90=%.2f p99=%.2f n=%d writes=%.2f rounds=", what, system,
	       s->v[s->n / 2], s->v[(int)(s->n * 0.9)], s->v[(int)(s->n * 0.99)], s->n, writes_per);
	for (r = 0; r < s->nrounds; r++)
		printf("%s%.2f", r ? "/" : "", s->rounds[r]);
	printf("\n");
}

/* what: 0 pingpong, otherwise an RDMA WRITE size. */
static void measure(const char *label, size_t size, int iter, int warm, int rounds)
{
	struct series ib = {0}, fl = {0}, mc = {0};
	double *v = malloc(iter * sizeof(*v));
	double t, wper;
	long w0;
	int r, i, k;

	ib.v = malloc(iter * rounds * sizeof(double));
	fl.v = malloc(iter * rounds * sizeof(double));
	mc.v = malloc(iter * rounds * sizeof(double));
	/* warm-up, and the write() count per sample */
	for (i = 0; i < warm; i++)
		size ? write_once(size) : pingpong_once();
	w0 = writes;
	for (i = 0; i < 1000; i++)
		size ? write_once(size) : pingpong_once();
	wper = (writes - w0) / 1000.0;
	k = (int)(wper + 0.5);
	for (i = 0; i < warm / 10 + 100; i++)
		floor_once(k);
	w0 = writes;
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < iter; i++) {
			t = now_us();
			floor_once(k);
			v[i] = now_us() - t;
		}
		add_round(&fl, v, iter);
		for (i = 0; i < iter; i++) {
			t = now_us();
			size ? write_once(size) : pingpong_once();
			v[i] = now_us() - t;
		}
		add_round(&ib, v, iter);
		for (i = 0; i < iter; i++) {
			t = now_us();
			memcpy_once(size ? size : 8, size ? 1 : 2);
			v[i] = now_us() - t;
		}
		add_round(&mc, v, iter);
	}
	wper = (double)(writes - w0) / ((double)iter * rounds);
	print(label, "floor", &fl, k);
	print(label, "ibemu", &ib, wper);
	print(label, "memcpy", &mc, 0);
	free(v);
	free(ib.v);
	free(fl.v);
	free(mc.v);
}

int main(int argc, char **argv)
{
	int iter = 2000, warm = 5000, rounds = 3, opt, nsizes = 0, i;
	size_t sizes[MAX_SIZES], big = 8192;
	char label[64];

	while ((opt = getopt(argc, argv, "n:w:r:s:")) != -1) {
		switch (opt) {
		case 'n': iter = atoi(optarg); break;
		case 'w': warm = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 's':
			if (nsizes < MAX_SIZES)
				sizes[nsizes++] = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-n ITER] [-w WARMUP] [-r ROUNDS] [-s SIZE]... FLOORFILE\n", argv[0]);
			return 2;
		}
	}
	if (optind != argc - 1 || rounds < 1 || rounds > MAX_ROUNDS || iter < 1) {
		fprintf(stderr, "usage: %s [-n ITER] [-w WARMUP] [-r ROUNDS] [-s SIZE]... FLOORFILE\n", argv[0]);
		return 2;
	}
	if ((floor_fd = open(argv[optind], O_RDWR)) < 0)
		die(argv[optind]);
	for (i = 0; i < nsizes; i++)
		if (sizes[i] > big)
			big = sizes[i];
	setup(&A, "ibemu0", big);
	setup(&B, "ibemu1", big);
	connect_to(&A, &B);
	connect_to(&B, &A);
	copy_src = malloc(big);
	copy_dst = malloc(big);
	memset(copy_src, 1, big);
	memset(copy_dst, 2, big);
	post_recv(&A);
	post_recv(&B);

	measure("pingpong_us", 0, iter, warm, rounds);
	for (i = 0; i < nsizes; i++) {
		snprintf(label, sizeof(label), "write%zu_us", sizes[i]);
		measure(label, sizes[i], iter / (sizes[i] >= (1 << 20) ? 4 : 1),
			warm / (sizes[i] >= (1 << 20) ? 10 : 2), rounds);
	}
	return 0;
}
