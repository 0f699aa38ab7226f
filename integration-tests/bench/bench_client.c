/*
 * bench_client.c - round-trip latency of a umad device, as libibumad uses it.
 *
 *   (a) ioctl: REGISTER_AGENT + UNREGISTER_AGENT pairs, each ioctl timed
 *   (b) smp:   hop-0 SubnGet(NodeInfo) as libibumad's umad_send/umad_recv do
 *              it: write(), poll(POLLIN), read()
 *
 * Build: gcc -O2 -Wall -o bench_client bench_client.c
 * Run:   ./bench_client /dev/infiniband/umad0 [iterations]
 * Prints: "ioctl_us median=M p99=P n=N" and "smp_us median=M p99=P n=N".
 * Exit status non-zero if the device misbehaves.
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

#include <rdma/ib_user_mad.h>
#include <rdma/rdma_user_ioctl.h>

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *name, double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	printf("%s median=%.2f p99=%.2f n=%d\n", name, v[n / 2], v[(int)(n * 0.99)], n);
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

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/infiniband/umad0";
	int iters = argc > 2 ? atoi(argv[2]) : 20000;
	int warm = iters / 10 + 10, fd, hsz, i, n = 0;
	double *v, t0;
	uint32_t id;
	uint8_t out[sizeof(struct ib_user_mad_hdr) + 256], in[4096], *m;
	struct ib_user_mad_hdr h;

	v = calloc(2 * (size_t)iters, sizeof(*v));
	if (!v || iters < 100) {
		fprintf(stderr, "usage: %s DEVICE [iterations >= 100]\n", argv[0]);
		return 2;
	}
	/* as libibumad's umad_open_port: O_NONBLOCK, then try the new header */
	fd = open(dev, O_RDWR | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "open %s: %s\n", dev, strerror(errno));
		return 1;
	}
	hsz = ioctl(fd, IB_USER_MAD_ENABLE_PKEY) == 0 ? (int)sizeof(struct ib_user_mad_hdr)
						      : (int)sizeof(struct ib_user_mad_hdr_old);

	/* (a) ioctl round trips */
	for (i = -warm; i < iters; i++) {
		double t1, t2;
		t0 = now_us();
		if (reg(fd, &id)) {
			fprintf(stderr, "REGISTER_AGENT: %s\n", strerror(errno));
			return 1;
		}
		t1 = now_us();
		if (ioctl(fd, IB_USER_MAD_UNREGISTER_AGENT, &id)) {
			fprintf(stderr, "UNREGISTER_AGENT: %s\n", strerror(errno));
			return 1;
		}
		t2 = now_us();
		if (i >= 0) {
			v[n++] = t1 - t0;
			v[n++] = t2 - t1;
		}
	}
	report("ioctl_us", v, n);

	/* (b) hop-0 SubnGet(NodeInfo): write, poll, read */
	if (reg(fd, &id)) {
		fprintf(stderr, "REGISTER_AGENT: %s\n", strerror(errno));
		return 1;
	}
	memset(&h, 0, sizeof(h));
	h.id = id;
	h.timeout_ms = 1000;
	h.lid = htons(0xffff);
	memset(out, 0, sizeof(out));
	memcpy(out, &h, hsz);
	m = out + hsz;
	m[0] = 1;
	m[1] = 0x81;
	m[2] = 1;
	m[3] = 0x01;   /* Get */
	m[17] = 0x11;  /* NodeInfo */
	m[32] = m[33] = m[34] = m[35] = 0xff; /* dr_slid, dr_dlid permissive */
	n = 0;
	for (i = -warm; i < iters; i++) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t r;
		m[12] = (uint8_t)(i >> 24); /* TID low 32 bits: unique per request */
		m[13] = (uint8_t)(i >> 16);
		m[14] = (uint8_t)(i >> 8);
		m[15] = (uint8_t)i;
		t0 = now_us();
		if (write(fd, out, hsz + 256) != hsz + 256) {
			fprintf(stderr, "write: %s\n", strerror(errno));
			return 1;
		}
		if (poll(&p, 1, 5000) != 1) {
			fprintf(stderr, "poll: no response in 5 s\n");
			return 1;
		}
		r = read(fd, in, sizeof(in));
		if (r < hsz + 24) {
			fprintf(stderr, "read: %zd %s\n", r, r < 0 ? strerror(errno) : "short");
			return 1;
		}
		if (i >= 0)
			v[n++] = now_us() - t0;
	}
	report("smp_us", v, n);
	close(fd);
	free(v);
	return 0;
}
