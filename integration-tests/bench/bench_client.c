/*
 * bench_client.c - round-trip latency of umad devices, as libibumad uses them.
 *
 *   (a) ioctl: REGISTER_AGENT + UNREGISTER_AGENT pairs, each ioctl timed
 *   (b) smp:   hop-0 SubnGet(NodeInfo) as libibumad's umad_send/umad_recv do
 *              it: write(), poll(POLLIN), read()
 *
 * Several devices are measured in one run, round by round (device A, device B,
 * device A, ...), so every device sees the same machine state; samples of all
 * rounds are pooled per device.
 *
 * Build: gcc -O2 -Wall -o bench_client bench_client.c
 * Run:   ./bench_client [-n ITERATIONS] [-w WARMUP] [-r ROUNDS] NAME=DEVICE...
 *        -n  timed iterations per round (default 20000)
 *        -w  untimed iterations before the first round of each device
 *            (default 20000: enough for a JVM to compile its path with C2);
 *            later rounds get WARMUP/10
 *        -r  rounds (default 3)
 * Prints per device and operation:
 *   "ioctl_us NAME median=M p90=P p99=Q n=N rounds=R1/R2/..."
 * where rounds= lists the median of each round (to show the spread).
 * Exit status non-zero if a device misbehaves.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "bench_time.h"

#include <rdma/ib_user_mad.h>
#include <rdma/rdma_user_ioctl.h>

#define MAX_DEVICES 4
#define MAX_ROUNDS 32

struct device {
	const char *name;
	const char *path;
	int fd, hsz;
	uint32_t id;          /* the agent SMPs are sent with */
	double *ioctl_us, *smp_us;
	int n_ioctl, n_smp;
	double round_ioctl[MAX_ROUNDS], round_smp[MAX_ROUNDS];
	uint32_t tid;
};

static void report(const char *op, struct device *d, double *v, int n, double *rounds, int nrounds)
{
	int r;
	qsort(v, n, sizeof(*v), cmp_double);
	printf("%s %s median=%.2f p90=%.2f p99=%.2f n=%d rounds=", op, d->name, v[n / 2],
	       v[(int)(n * 0.90)], v[(int)(n * 0.99)], n);
	for (r = 0; r < nrounds; r++)
		printf("%s%.2f", r ? "/" : "", rounds[r]);
	printf("\n");
	fflush(stdout);
}

static int reg(int fd, uint32_t *id)
{
	struct ib_user_mad_reg_req r;
	memset(&r, 0, sizeof(r));
	r.qpn = 0;
	r.mgmt_class = 0x81;
	r.mgmt_class_version = 1;
	if (ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &r))
		return -1;
	*id = r.id;
	return 0;
}

static int open_device(struct device *d)
{
	/* as libibumad's umad_open_port: O_NONBLOCK, then try the new header */
	d->fd = open(d->path, O_RDWR | O_NONBLOCK);
	if (d->fd < 0) {
		fprintf(stderr, "open %s: %s\n", d->path, strerror(errno));
		return -1;
	}
	d->hsz = ioctl(d->fd, IB_USER_MAD_ENABLE_PKEY) == 0 ? (int)sizeof(struct ib_user_mad_hdr)
							    : (int)sizeof(struct ib_user_mad_hdr_old);
	return 0;
}

/* (a) warm + timed REGISTER/UNREGISTER pairs; samples appended to d->ioctl_us */
static int ioctl_round(struct device *d, int warm, int iters, int round)
{
	int i, first = d->n_ioctl;
	uint32_t id;
	for (i = -warm; i < iters; i++) {
		double t0, t1, t2;
		t0 = now_us();
		if (reg(d->fd, &id)) {
			fprintf(stderr, "%s: REGISTER_AGENT: %s\n", d->name, strerror(errno));
			return -1;
		}
		t1 = now_us();
		if (ioctl(d->fd, IB_USER_MAD_UNREGISTER_AGENT, &id)) {
			fprintf(stderr, "%s: UNREGISTER_AGENT: %s\n", d->name, strerror(errno));
			return -1;
		}
		t2 = now_us();
		if (i >= 0) {
			d->ioctl_us[d->n_ioctl++] = t1 - t0;
			d->ioctl_us[d->n_ioctl++] = t2 - t1;
		}
	}
	d->round_ioctl[round] = median_of(d->ioctl_us + first, d->n_ioctl - first);
	return 0;
}

/* (b) warm + timed SubnGet(NodeInfo): write, poll, read */
static int smp_round(struct device *d, int warm, int iters, int round)
{
	uint8_t out[sizeof(struct ib_user_mad_hdr) + 256], in[4096], *m;
	struct ib_user_mad_hdr h;
	int i, first = d->n_smp;

	memset(&h, 0, sizeof(h));
	h.id = d->id;
	h.timeout_ms = 1000;
	h.lid = htons(0xffff);
	memset(out, 0, sizeof(out));
	memcpy(out, &h, d->hsz);
	m = out + d->hsz;
	m[0] = 1;
	m[1] = 0x81;
	m[2] = 1;
	m[3] = 0x01;   /* Get */
	m[17] = 0x11;  /* NodeInfo */
	m[32] = m[33] = m[34] = m[35] = 0xff; /* dr_slid, dr_dlid permissive */
	for (i = -warm; i < iters; i++) {
		struct pollfd p = { d->fd, POLLIN, 0 };
		ssize_t r;
		double t0;
		uint32_t tid = d->tid++; /* TID low 32 bits: unique per request */
		m[12] = (uint8_t)(tid >> 24);
		m[13] = (uint8_t)(tid >> 16);
		m[14] = (uint8_t)(tid >> 8);
		m[15] = (uint8_t)tid;
		t0 = now_us();
		if (write(d->fd, out, d->hsz + 256) != d->hsz + 256) {
			fprintf(stderr, "%s: write: %s\n", d->name, strerror(errno));
			return -1;
		}
		if (poll(&p, 1, 5000) != 1) {
			fprintf(stderr, "%s: poll: no response in 5 s\n", d->name);
			return -1;
		}
		r = read(d->fd, in, sizeof(in));
		if (r < d->hsz + 24) {
			fprintf(stderr, "%s: read: %zd %s\n", d->name, r, r < 0 ? strerror(errno) : "short");
			return -1;
		}
		if (i >= 0)
			d->smp_us[d->n_smp++] = now_us() - t0;
	}
	d->round_smp[round] = median_of(d->smp_us + first, d->n_smp - first);
	return 0;
}

int main(int argc, char **argv)
{
	int iters = 20000, warm = 20000, rounds = 3, ndev = 0, opt, r, k;
	struct device dev[MAX_DEVICES];

	while ((opt = getopt(argc, argv, "n:w:r:")) != -1) {
		switch (opt) {
		case 'n': iters = atoi(optarg); break;
		case 'w': warm = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (iters < 100 || warm < 0 || rounds < 1 || rounds > MAX_ROUNDS || optind >= argc
	    || argc - optind > MAX_DEVICES)
		goto usage;
	memset(dev, 0, sizeof(dev));
	for (; optind < argc; optind++) {
		struct device *d = &dev[ndev++];
		char *eq = strchr(argv[optind], '=');
		if (!eq)
			goto usage;
		*eq = 0;
		d->name = argv[optind];
		d->path = eq + 1;
		d->ioctl_us = calloc(2 * (size_t)iters * rounds, sizeof(double));
		d->smp_us = calloc((size_t)iters * rounds, sizeof(double));
		if (!d->ioctl_us || !d->smp_us || open_device(d))
			return 1;
		if (reg(d->fd, &d->id)) {
			fprintf(stderr, "%s: REGISTER_AGENT: %s\n", d->name, strerror(errno));
			return 1;
		}
	}
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < ndev; k++) {
			int w = r == 0 ? warm : warm / 10;
			if (ioctl_round(&dev[k], w, iters, r) || smp_round(&dev[k], w, iters, r))
				return 1;
		}
	}
	for (k = 0; k < ndev; k++) {
		report("ioctl_us", &dev[k], dev[k].ioctl_us, dev[k].n_ioctl, dev[k].round_ioctl, rounds);
		report("smp_us", &dev[k], dev[k].smp_us, dev[k].n_smp, dev[k].round_smp, rounds);
		close(dev[k].fd);
	}
	return 0;
usage:
	fprintf(stderr, "usage: %s [-n ITERATIONS>=100] [-w WARMUP] [-r ROUNDS<=%d] NAME=DEVICE... (<= %d)\n",
		argv[0], MAX_ROUNDS, MAX_DEVICES);
	return 2;
}
