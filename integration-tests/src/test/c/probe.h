/*
 * probe.h - shared helpers for the raw-ABI umad/issm probes (TAP output).
 *
 * Header-only on purpose: each probe builds with one gcc line, e.g.
 *   gcc -O2 -Wall -o umad_ioctl umad_ioctl.c
 * (this file is picked up from the same directory).
 *
 * Environment (all optional):
 *   IBEMU_UMAD   umad device to probe          (default /dev/infiniband/umad0)
 *   IBEMU_ISSM   issm device of the same port  (default /dev/infiniband/issm0)
 *   IBEMU_SYSFS  sysfs root                    (default /sys)
 *
 * The kernel's drivers/infiniband/core/user_mad.c and mad.c are the
 * specification; comments name the kernel function each rule comes from.
 */
#ifndef IBEMU_PROBE_H
#define IBEMU_PROBE_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * A probe linked against libibumad defines PROBE_LIBIBUMAD first: its
 * <infiniband/umad.h> redefines struct ib_user_mad, so the raw-ABI part of
 * this file (kernel uapi headers and the struct uf helpers) is left out.
 */
#ifdef PROBE_LIBIBUMAD
#include <infiniband/umad.h>
#define HDR_OLD 56
#define HDR_NEW 64
#else
#include <rdma/ib_user_mad.h>
#include <rdma/rdma_user_ioctl.h>

/* ---- sizes the kernel uses (include/rdma/ib_mad.h) ---- */
#define HDR_OLD ((int)sizeof(struct ib_user_mad_hdr_old)) /* 56 */
#define HDR_NEW ((int)sizeof(struct ib_user_mad_hdr))     /* 64 */
#endif
#define MAD_SIZE 256
#define MGMT_MAD_HDR 24   /* IB_MGMT_MAD_HDR */
#define MGMT_RMPP_HDR 36  /* IB_MGMT_RMPP_HDR */
#define MGMT_SA_HDR 56    /* IB_MGMT_SA_HDR */
#define MAX_AGENTS 32     /* IB_UMAD_MAX_AGENTS */

/* management classes / methods / attributes */
#define CLS_SUBN_LID 0x01
#define CLS_SUBN_DR 0x81
#define CLS_SUBN_ADM 0x03
#define M_GET 0x01
#define M_SET 0x02
#define M_GET_RESP 0x81
#define M_GETTABLE 0x12
#define M_GETTABLE_RESP 0x92
#define ATTR_NODE_INFO 0x0011
#define ATTR_SWITCH_INFO 0x0012
#define ATTR_PORT_INFO 0x0015
#define SMP_DIRECTION 0x8000
#define STATUS_UNSUP_METH_ATTR 0x000c
#define GSI_QKEY 0x80010000u
#define IB_PORT_SM_BIT (1u << 1) /* IB_PORT_SM in include/rdma/ib_verbs.h */

/* ---------------------------------------------------------------- TAP */
static int t_num, t_failed;

/*
 * What a check needs of the device under test. The same probes run against
 * ibemu and against the kernel in a VM (scripts/kernel-vm, where the device is
 * soft-RoCE rxe); a check whose needs the device lacks prints as
 * "ok N - DESC # SKIP needs WHAT" on that device, so only checks that apply to
 * both are compared. t_detect() reads what the device has from sysfs; a probe
 * that never calls it assumes everything (the needs then never skip).
 */
#define NEED_IB (1u << 0)      /* an InfiniBand port: LIDs, QP0 and SMPs (rdma_cap_ib_smi) */
#define NEED_PCI (1u << 1)     /* a PCI parent device (device/vendor in sysfs; rxe has none) */
#define NEED_QIB (1u << 2)     /* the ib_qib driver's answers: ABI version, write() data path */
#define NEED_XRC (1u << 3)     /* XRC domains (device_cap_flags XRC); without, the XRCD methods are disabled */
#define NEED_ROCE (1u << 4)    /* a RoCE port (link layer Ethernet): its GIDs are made of IP addresses */
static const char *const need_names[] = { "ib", "pci", "qib", "xrc", "roce" };
static unsigned t_needs_now;
static unsigned t_have = ~0u;

/* The checks that follow need MASK (0: nothing). */
static inline void t_needs(unsigned mask) { t_needs_now = mask; }

/* The first of MASK's needs the device lacks, or NULL. */
static inline const char *t_lacks(unsigned mask)
{
	unsigned i;
	for (i = 0; i < sizeof(need_names) / sizeof(need_names[0]); i++)
		if ((mask & (1u << i)) && !(t_have & (1u << i)))
			return need_names[i];
	return NULL;
}

static inline void t_line(int ok, const char *desc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * The device's answer to the check's call (fuzz.c's cases: an errno name or a return value), or
 * NULL. Printed at the end of the line as "# answer WHAT"; Conformance compares it between devices.
 */
static const char *t_answer_now;

static inline void t_line(int ok, const char *desc, const char *fmt, ...)
{
	t_num++;
	if (t_lacks(t_needs_now)) {
		printf("ok %d - %s # SKIP needs %s\n", t_num, desc, t_lacks(t_needs_now));
		fflush(stdout);
		return;
	}
	if (ok) {
		printf("ok %d - %s", t_num, desc);
	} else {
		t_failed++;
		printf("not ok %d - %s", t_num, desc);
		if (fmt) {
			va_list ap;
			printf(": ");
			va_start(ap, fmt);
			vprintf(fmt, ap);
			va_end(ap);
		}
	}
	if (t_answer_now)
		printf(" # answer %s", t_answer_now);
	printf("\n");
	fflush(stdout);
}

static inline void t_ok(int cond, const char *desc)
{
	t_line(cond, desc, "%s", "condition false");
}

static inline void t_eq(long long got, long long want, const char *desc)
{
	t_line(got == want, desc, "got %lld (0x%llx), want %lld (0x%llx)",
	       got, (unsigned long long)got, want, (unsigned long long)want);
}

static inline const char *ename(int e)
{
	const char *n = e ? strerrorname_np(e) : "0";
	return n ? n : "?";
}

/* A call that must fail with errno `want`. */
static inline void t_errno_f(long ret, int err, int want, const char *desc)
{
	if (ret == -1)
		t_line(err == want, desc, "got errno %s(%d), want %s(%d)",
		       ename(err), err, ename(want), want);
	else
		t_line(0, desc, "got return %ld (success), want errno %s(%d)",
		       ret, ename(want), want);
}

/* A call that must succeed (ret >= 0), optionally with a given value. */
static inline void t_success_f(long ret, int err, const char *desc)
{
	if (ret >= 0)
		t_line(1, desc, NULL);
	else
		t_line(0, desc, "got errno %s(%d), want success", ename(err), err);
}

static inline void t_ret_f(long ret, int err, long want, const char *desc)
{
	if (ret == -1)
		t_line(0, desc, "got errno %s(%d), want return %ld", ename(err),
		       err, want);
	else
		t_line(ret == want, desc, "got return %ld, want %ld", ret, want);
}

/*
 * t_errno / t_success / t_ret evaluate the call first and the error
 * expression (errno, or -ret for libibumad) after it: C leaves the order of
 * function arguments unspecified, so a plain function would read errno early.
 */
#define t_errno(call, err, want, desc) \
	do { long t_r_ = (long)(call); int t_e_ = (err); t_errno_f(t_r_, t_e_, (want), (desc)); } while (0)
#define t_success(call, err, desc) \
	do { long t_r_ = (long)(call); int t_e_ = (err); t_success_f(t_r_, t_e_, (desc)); } while (0)
#define t_ret(call, err, want, desc) \
	do { long t_r_ = (long)(call); int t_e_ = (err); t_ret_f(t_r_, t_e_, (want), (desc)); } while (0)

static inline void t_skip(const char *desc, const char *reason)
{
	t_num++;
	printf("ok %d - %s # SKIP %s\n", t_num, desc, reason);
	fflush(stdout);
}

static inline void t_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void t_diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline int t_done(void)
{
	printf("1..%d\n", t_num);
	if (t_failed)
		printf("# %d of %d checks failed\n", t_failed, t_num);
	fflush(stdout);
	return t_failed ? 1 : 0;
}

static inline void t_bail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static inline void t_bail(const char *fmt, ...)
{
	va_list ap;
	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(2);
}

/* Whole-program watchdog: a daemon that never answers must not hang CI. */
static inline void watchdog_fire(int sig)
{
	static const char m[] = "Bail out! watchdog: probe exceeded its time limit\n";
	(void)sig;
	if (write(1, m, sizeof(m) - 1) < 0) { /* nothing to do */ }
	_exit(3);
}

/* PROBE_WATCHDOG=off: the caller bounds the run itself (kernel-vm's --step-timeout), so
 * a slow machine (a VM under TCG, a loaded host) is not mistaken for a hang. */
static inline void watchdog(unsigned seconds)
{
	const char *w = getenv("PROBE_WATCHDOG");
	if (w && strcmp(w, "off") == 0)
		return;
	signal(SIGALRM, watchdog_fire);
	alarm(seconds);
}

/* ---------------------------------------------------------------- time */
static inline double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* ---------------------------------------------------------------- paths */
static inline const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);
	return v && *v ? v : def;
}

static inline const char *umad_path(void) { return env_or("IBEMU_UMAD", "/dev/infiniband/umad0"); }
static inline const char *issm_path(void) { return env_or("IBEMU_ISSM", "/dev/infiniband/issm0"); }
static inline const char *sysfs_root(void) { return env_or("IBEMU_SYSFS", "/sys"); }

/* Reads a small text file; strips the trailing newline. 0 on success. */
static inline int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

/* What ibdev (a name in class/infiniband) offers: sets the needs t_line honours. */
static inline void t_detect(const char *ibdev)
{
	char path[512], v[128];
	ssize_t n;
	t_have = 0;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/1/link_layer", sysfs_root(), ibdev);
	if (read_text(path, v, sizeof(v)) == 0)
		t_have |= strcmp(v, "InfiniBand") == 0 ? NEED_IB : strcmp(v, "Ethernet") == 0 ? NEED_ROCE : 0;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/vendor", sysfs_root(), ibdev);
	if (access(path, R_OK) == 0)
		t_have |= NEED_PCI;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/driver", sysfs_root(), ibdev);
	n = readlink(path, v, sizeof(v) - 1);
	if (n > 0) {
		v[n] = 0;
		if (strcmp(strrchr(v, '/') ? strrchr(v, '/') + 1 : v, "ib_qib") == 0)
			t_have |= NEED_QIB;
	}
	printf("# device %s has:%s%s%s%s\n", ibdev, t_have & NEED_IB ? " ib" : "", t_have & NEED_ROCE ? " roce" : "",
	       t_have & NEED_PCI ? " pci" : "", t_have & NEED_QIB ? " qib" : "");
}

/* The whole probe needs MASK: on a device without it, TAP's skip-all and exit 0. */
static inline void t_require(unsigned mask)
{
	if (t_lacks(mask)) {
		printf("1..0 # SKIP needs %s\n", t_lacks(mask));
		fflush(stdout);
		exit(0);
	}
}

struct port_id {
	char umad[64];   /* "umad0" */
	char ibdev[64];  /* "mlx5_0" */
	int port;        /* 1 */
};

/* Resolves the umad device's ibdev and port from /sys/class/infiniband_mad. */
static inline int port_lookup(struct port_id *p)
{
	char path[512], v[128];
	const char *u = strrchr(umad_path(), '/');
	snprintf(p->umad, sizeof(p->umad), "%s", u ? u + 1 : umad_path());
	snprintf(path, sizeof(path), "%s/class/infiniband_mad/%s/ibdev", sysfs_root(), p->umad);
	if (read_text(path, p->ibdev, sizeof(p->ibdev)))
		return -1;
	snprintf(path, sizeof(path), "%s/class/infiniband_mad/%s/port", sysfs_root(), p->umad);
	if (read_text(path, v, sizeof(v)))
		return -1;
	p->port = atoi(v);
	return 0;
}

static inline int port_attr(const struct port_id *p, const char *attr, char *buf, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%d/%s", sysfs_root(),
		 p->ibdev, p->port, attr);
	return read_text(path, buf, len);
}

/* node_guid in sysfs is "%04x:%04x:%04x:%04x" (sysfs.c node_guid_show). */
static inline int sysfs_node_guid(const struct port_id *p, uint64_t *guid)
{
	char path[512], v[64];
	unsigned a, b, c, d;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/node_guid", sysfs_root(), p->ibdev);
	if (read_text(path, v, sizeof(v)) || sscanf(v, "%x:%x:%x:%x", &a, &b, &c, &d) != 4)
		return -1;
	*guid = ((uint64_t)a << 48) | ((uint64_t)b << 32) | ((uint64_t)c << 16) | d;
	return 0;
}

/* ports/N/lid is "0x%x"; cap_mask is "0x%08x" (sysfs.c). */
static inline long sysfs_hex(const struct port_id *p, const char *attr)
{
	char v[64];
	if (port_attr(p, attr, v, sizeof(v)))
		return -1;
	return strtol(v, NULL, 0);
}

/* ---------------------------------------------------------------- byte order */
static inline void put16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = v; }
static inline void put32(uint8_t *p, uint32_t v) { put16(p, v >> 16); put16(p + 2, v); }
static inline void put64(uint8_t *p, uint64_t v) { put32(p, v >> 32); put32(p + 4, v); }
static inline uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t get32(const uint8_t *p) { return (uint32_t)get16(p) << 16 | get16(p + 2); }
static inline uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) << 32 | get32(p + 4); }

/* ---------------------------------------------------------------- MAD layout
 * Common MAD header (struct ib_mad_hdr):
 *   0 base_version, 1 mgmt_class, 2 class_version, 3 method, 4 status(be16),
 *   6 class_specific(be16), 8 tid(be64), 16 attr_id(be16), 18 resv,
 *   20 attr_mod(be32)
 * Directed-route SMP (struct ib_smp): 4 status (bit 15 = D), 6 hop_ptr,
 *   7 hop_cnt, 24 mkey, 32 dr_slid, 34 dr_dlid, 64 data[64],
 *   128 initial_path[64], 192 return_path[64]
 * RMPP header (struct ib_rmpp_hdr) at 24: version, type, resptime_flags,
 *   status, seg_num(be32) at 28, paylen_newwin(be32) at 32
 */
#define MAD_STATUS 4
#define MAD_TID 8
#define MAD_ATTR 16
#define MAD_ATTR_MOD 20
#define SMP_HOP_PTR 6
#define SMP_HOP_CNT 7
#define SMP_DR_SLID 32
#define SMP_DR_DLID 34
#define SMP_DATA 64
#define SMP_INITIAL_PATH 128

static inline void mad_hdr(uint8_t *m, uint8_t cls, uint8_t ver, uint8_t method, uint64_t tid,
		    uint16_t attr, uint32_t mod)
{
	m[0] = 1; /* base version */
	m[1] = cls;
	m[2] = ver;
	m[3] = method;
	put64(m + MAD_TID, tid);
	put16(m + MAD_ATTR, attr);
	put32(m + MAD_ATTR_MOD, mod);
}

/* Hop-0 directed-route SMP to the local port (dr_slid = dr_dlid = permissive). */
static inline void dr_smp(uint8_t *m, uint8_t method, uint16_t attr, uint32_t mod, uint64_t tid)
{
	memset(m, 0, MAD_SIZE);
	mad_hdr(m, CLS_SUBN_DR, 1, method, tid, attr, mod);
	m[SMP_HOP_PTR] = 0;
	m[SMP_HOP_CNT] = 0;
	put16(m + SMP_DR_SLID, 0xffff);
	put16(m + SMP_DR_DLID, 0xffff);
}

#ifndef PROBE_LIBIBUMAD
/* ---------------------------------------------------------------- umad file */
struct uf {
	int fd;
	int hsz; /* 56 (old layout) or 64 (after ENABLE_PKEY / REGISTER_AGENT2) */
};

static inline int uf_open(struct uf *u, int flags)
{
	u->fd = open(umad_path(), O_RDWR | flags);
	u->hsz = HDR_OLD;
	return u->fd;
}

static inline void uf_close(struct uf *u)
{
	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
}

/* REGISTER_AGENT (old request). Returns ioctl's result; *id gets the slot. */
static inline int reg1(int fd, uint8_t qpn, uint8_t cls, uint8_t ver, uint32_t oui,
		uint64_t mask_lo, uint64_t mask_hi, uint8_t rmpp, uint32_t *id)
{
	struct ib_user_mad_reg_req r;
	uint64_t mask[2] = { mask_lo, mask_hi };
	int ret;
	memset(&r, 0, sizeof(r));
	r.id = 0xdeadbeef;
	memcpy(r.method_mask, mask, sizeof(r.method_mask));
	r.qpn = qpn;
	r.mgmt_class = cls;
	r.mgmt_class_version = ver;
	r.oui[0] = oui >> 16;
	r.oui[1] = oui >> 8;
	r.oui[2] = oui;
	r.rmpp_version = rmpp;
	ret = ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &r);
	if (id)
		*id = r.id;
	return ret;
}

/* REGISTER_AGENT2. *flags_out gets the flags field as the kernel left it. */
static inline int reg2(int fd, uint32_t qpn, uint8_t cls, uint8_t ver, uint32_t oui,
		uint64_t mask_lo, uint64_t mask_hi, uint8_t rmpp, uint32_t flags,
		uint32_t *id, uint32_t *flags_out)
{
	struct ib_user_mad_reg_req2 r;
	int ret;
	memset(&r, 0, sizeof(r));
	r.id = 0xdeadbeef;
	r.qpn = qpn;
	r.mgmt_class = cls;
	r.mgmt_class_version = ver;
	r.flags = flags;
	r.method_mask[0] = mask_lo;
	r.method_mask[1] = mask_hi;
	r.oui = oui;
	r.rmpp_version = rmpp;
	ret = ioctl(fd, IB_USER_MAD_REGISTER_AGENT2, &r);
	if (id)
		*id = r.id;
	if (flags_out)
		*flags_out = r.flags;
	return ret;
}

static inline int unreg(int fd, uint32_t id)
{
	return ioctl(fd, IB_USER_MAD_UNREGISTER_AGENT, &id);
}

/* Address part of a umad header (host-order arguments). */
struct uaddr {
	uint32_t id, timeout_ms, retries, length;
	uint32_t qpn, qkey;
	uint16_t lid;
	uint16_t pkey_index;
};

static inline void uaddr_dr(struct uaddr *a, uint32_t id)
{
	memset(a, 0, sizeof(*a));
	a->id = id;
	a->timeout_ms = 1000; /* libibmad style: a request always has a timeout */
	a->qpn = 0;
	a->lid = 0xffff;      /* permissive: DR SMP */
}

static inline void uaddr_gsi(struct uaddr *a, uint32_t id, uint16_t lid)
{
	memset(a, 0, sizeof(*a));
	a->id = id;
	a->timeout_ms = 1000;
	a->qpn = 1;
	a->qkey = GSI_QKEY;
	a->lid = lid;
}

/* Writes header (hsz bytes) + mad (madlen bytes) in one write(). */
static inline ssize_t uf_send(const struct uf *u, const struct uaddr *a, const void *mad, size_t madlen)
{
	uint8_t buf[HDR_NEW + 8192];
	struct ib_user_mad_hdr h;
	if (madlen > sizeof(buf) - HDR_NEW) {
		errno = E2BIG;
		return -1;
	}
	memset(&h, 0, sizeof(h));
	h.id = a->id;
	h.timeout_ms = a->timeout_ms;
	h.retries = a->retries;
	h.length = a->length;
	h.qpn = htonl(a->qpn);
	h.qkey = htonl(a->qkey);
	h.lid = htons(a->lid);
	h.pkey_index = a->pkey_index;
	memcpy(buf, &h, u->hsz);
	memcpy(buf + u->hsz, mad, madlen);
	return write(u->fd, buf, u->hsz + madlen);
}

/* Parses a received buffer's header (either layout) into a full struct. */
static inline void uf_hdr(const struct uf *u, const uint8_t *buf, struct ib_user_mad_hdr *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h, buf, u->hsz);
}

/* Waits up to ms for POLLIN. 1 readable, 0 timeout, -1 error. */
static inline int wait_readable(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	int r;
	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	if (r > 0 && (p.revents & POLLIN))
		return 1;
	return r < 0 ? -1 : 0;
}

/* Waits up to ms for a MAD and reads it. Returns read()'s value, or -2 on timeout. */
static inline ssize_t uf_recv(const struct uf *u, void *buf, size_t len, int ms)
{
	int r = wait_readable(u->fd, ms);
	if (r == 0)
		return -2;
	if (r < 0)
		return -1;
	return read(u->fd, buf, len);
}

/* Reads MADs until one with this TID's low 32 bits arrives (others are
 * reported as diagnostics and dropped). Returns read()'s value or -2. */
static inline ssize_t uf_recv_tid(const struct uf *u, void *buf, size_t len, uint32_t tid_lo, int ms)
{
	double end = now_ms() + ms;
	for (;;) {
		int left = (int)(end - now_ms());
		ssize_t n;
		if (left < 0)
			left = 0;
		n = uf_recv(u, buf, len, left);
		if (n < 0)
			return n;
		if (n >= u->hsz + MGMT_MAD_HDR &&
		    (uint32_t)get64((uint8_t *)buf + u->hsz + MAD_TID) == tid_lo)
			return n;
		t_diag("dropping unrelated MAD (%zd bytes, tid 0x%016llx)", n,
		       n >= u->hsz + MGMT_MAD_HDR ?
		       (unsigned long long)get64((uint8_t *)buf + u->hsz + MAD_TID) : 0ULL);
		if (left == 0)
			return -2;
	}
}

/* Hop-0 SubnGet(attr) on file u through agent id; returns bytes read, the
 * reply in buf, or -2 on timeout, -1 with errno on a failed syscall. */
static inline ssize_t dr_get(const struct uf *u, uint32_t agent, uint16_t attr, uint32_t mod,
		      uint32_t tid_lo, void *buf, size_t len)
{
	uint8_t mad[MAD_SIZE];
	struct uaddr a;
	dr_smp(mad, M_GET, attr, mod, 0xa5a5a5a500000000ULL | tid_lo);
	uaddr_dr(&a, agent);
	if (uf_send(u, &a, mad, sizeof(mad)) != (ssize_t)(u->hsz + sizeof(mad)))
		return -1;
	return uf_recv_tid(u, buf, len, tid_lo, 3000);
}

#endif /* !PROBE_LIBIBUMAD */

#endif
