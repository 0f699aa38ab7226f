/*
 * fuzz.c - random and mutated operations on every emulated interface, with a seed.
 *
 * Build: gcc -O2 -Wall -o fuzz fuzz.c
 * Two modes:
 *   ./fuzz SEED OPS SECONDS [TARGETS]   the walk: one state carried from operation to operation
 *        (inside an instance, scripts/ibemu exec); TARGETS: letters of u (umad), i (issm),
 *        s (sysfs), c (control socket), v (uverbs); default "uiscv". IBEMU_CONTROL names the
 *        control socket (STATE/control.sock).
 *   ./fuzz [--cases SEED N [FAMILIES] | --case FAMILY SEED I]   the comparable corpus: N cases of
 *        each family (u, i, v, x: the interfaces the kernel has too; x is uverbs' ioctl; r: the
 *        rdma_cm write ABI, its own corpus: fuzz_ucma.c), each one operation of the walk
 *        on fresh files set up from the case's own seed, printed as TAP with the device's answer
 *        ("ok 7 - uverbs 1.6: command 0x10, ... # answer EOPNOTSUPP"). With no argument: seed 1,
 *        CORPUS_CASES cases, what KernelConformanceTest runs on the kernel (VM) and on ibemu.
 *        A case whose answer depends on what the device is says so with t_needs (probe.h).
 *
 * Each operation is drawn from a xorshift generator seeded with SEED, so a run repeats.
 * Checked for every call:
 *  - a failure's errno is one the kernel's driver could give for that call
 *    (drivers/infiniband/core/user_mad.c, uverbs_main.c + uverbs_cmd.c, kernfs);
 *  - a failed call leaves the caller's buffer as it was (guard-filled before the call),
 *    except where the kernel itself writes and fails (umad read ENOSPC: header + first
 *    segment; REGISTER_AGENT2 EINVAL: the supported flags);
 *  - every control request gets a reply ending in "ok" or "error: ...", within 10 s.
 * The walk prints one line per failed check (at most 20), then
 *   "ops N umad N issm N sysfs N control N uverbs N errors N" and "N passed, N failed".
 * Exit 0 if every check held.
 */
#include "probe.h"
#include "uverbs_probe.h"
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_cm.h>
#include <sys/socket.h>
#include <sys/un.h>

#define GUARD 0xA5
#define BUF 8192
#define MAX_FILES 512

static uint64_t rng;
static long checks_failed, checks_passed, errors_seen;
static long counts[5];
static char *attrs[MAX_FILES];
static int nattrs;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t below(uint64_t n) { return n ? next() % n : 0; }

static void fail(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const char *what, const char *fmt, ...)
{
	va_list ap;
	if (checks_failed++ >= 20)
		return;
	printf("# FAIL %s: ", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* errno must be in the zero-terminated list */
static long by_errno[512];

/* What a case compares between devices: the return and errno of its operation's last call. */
static long answer_ret;
static int answer_err;
/* What the operation was (the same words on every device: drawn from the seed only). */
static char op_desc[200];

static void expect_errno(const char *what, long ret, int err, const int *allowed)
{
	answer_ret = ret;
	answer_err = ret < 0 ? err : 0;
	if (ret >= 0) {
		checks_passed++;
		return;
	}
	errors_seen++;
	by_errno[err & 511]++;
	for (; *allowed; allowed++)
		if (*allowed == err) {
			checks_passed++;
			return;
		}
	fail(what, "errno %s is not one the kernel gives here", ename(err));
}

static void fill_guard(uint8_t *b, size_t n) { memset(b, GUARD, n); }

static void expect_untouched(const char *what, const uint8_t *b, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (b[i] != GUARD) {
			fail(what, "failed, yet byte %zu of the caller's buffer changed (0x%02x)", i, b[i]);
			return;
		}
	checks_passed++;
}

static void random_bytes(uint8_t *b, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		b[i] = (uint8_t)next();
}

/* Flips a few bytes of a valid message. */
static void mutate(uint8_t *b, size_t n)
{
	int k = 1 + (int)below(4);
	while (k-- > 0)
		b[below(n)] = (uint8_t)next();
}

/* ---------------------------------------------------------------- umad */

static const int UMAD_WRITE[] = { EINVAL, EFAULT, ENOMEM, EIO, 0 };
static const int UMAD_READ[] = { EINVAL, EAGAIN, ENOSPC, EFAULT, EIO, 0 };
static const int UMAD_IOCTL[] = { EINVAL, ENOTTY, EFAULT, ENOMEM, EPERM, ENOSPC, 0 };
static int umad_fd = -1;
static int umad_hsz = HDR_OLD;
/* What the case's operation needs of the device (probe.h NEED_*); ORed in as it is drawn. */
static unsigned case_needs;
static int umad_agent; /* the set-up registered an agent (a write can reach the send) */

/* A fresh file, with an agent or not. */
static void umad_setup(void)
{
	uint8_t qpn;
	if (umad_fd >= 0)
		close(umad_fd);
	umad_fd = open(umad_path(), O_RDWR | O_NONBLOCK);
	umad_hsz = HDR_OLD;
	umad_agent = 0;
	if (umad_fd < 0) {
		fail("umad open", "%s", ename(errno));
		return;
	}
	if (below(2)) {
		qpn = (uint8_t)below(2);
		umad_agent = 1;
		/* QP0 on a RoCE port: ib_register_mad_agent refuses (EPROTONOSUPPORT, no SMI there) */
		if (qpn == 0)
			case_needs |= NEED_IB;
		reg1(umad_fd, qpn, below(2) ? CLS_SUBN_DR : (uint8_t)next(), 1, 0, next(), next(),
		     (uint8_t)below(2), NULL);
	}
}

/*
 * A write that gets past ib_umad_write's agent lookup sends: on RoCE the address handle needs a
 * GRH (rdma_check_ah_attr, EINVAL), on IB it goes out. Only writes with no agent compare.
 */
static void umad_write_needs(void)
{
	if (umad_agent)
		case_needs |= NEED_IB;
}

/* One operation on the open file. */
static void umad_act(void)
{
	uint8_t buf[BUF], mad[MAD_SIZE];
	struct ib_user_mad_hdr h;
	long r;
	int cmd;

	switch (below(5)) {
	case 0: { /* a valid SubnGet, mutated or not, behind a random or sane header */
		uint16_t attr = below(2) ? ATTR_NODE_INFO : (uint16_t)next();
		int mutated, sane;
		size_t n;
		dr_smp(mad, M_GET, attr, (uint32_t)below(4), next());
		mutated = (int)below(2);
		if (mutated)
			mutate(mad, sizeof(mad));
		memset(&h, 0, sizeof(h));
		sane = below(3) != 0;
		if (sane) {
			h.id = (uint32_t)below(4);
			h.lid = htons(0xffff);
			h.timeout_ms = (uint32_t)below(3) * 10;
		} else {
			random_bytes((uint8_t *)&h, sizeof(h));
		}
		memcpy(buf, &h, umad_hsz);
		memcpy(buf + umad_hsz, mad, sizeof(mad));
		n = (size_t)umad_hsz + (below(4) ? MAD_SIZE : below(2 * MAD_SIZE));
		snprintf(op_desc, sizeof(op_desc), "write of %zu bytes: a SubnGet(0x%04x)%s behind a %s header",
			 n, attr, mutated ? ", mutated," : "", sane ? "sane" : "random");
		umad_write_needs();
		r = write(umad_fd, buf, n);
		expect_errno("umad write", r, errno, UMAD_WRITE);
		break;
	}
	case 1: { /* a read of any size into a guarded buffer */
		size_t n = below(BUF);
		snprintf(op_desc, sizeof(op_desc), "read of %zu bytes", n);
		fill_guard(buf, sizeof(buf));
		r = read(umad_fd, buf, n);
		expect_errno("umad read", r, errno, UMAD_READ);
		if (r < 0 && errno != ENOSPC)
			expect_untouched("umad read", buf, sizeof(buf));
		break;
	}
	case 2: { /* umad's ioctls and others, with random arguments */
		static const unsigned long known[] = { IB_USER_MAD_REGISTER_AGENT, IB_USER_MAD_UNREGISTER_AGENT,
			IB_USER_MAD_ENABLE_PKEY, IB_USER_MAD_REGISTER_AGENT2 };
		unsigned long req = below(3) ? known[below(4)]
			: _IOC((unsigned)below(4), (unsigned)next() & 0xff, (unsigned)below(32), (unsigned)below(256));
		struct ib_user_mad_reg_req r1;
		struct ib_user_mad_reg_req2 r2;
		fill_guard(buf, sizeof(buf));
		random_bytes(buf, 16 + below(96));
		memcpy(mad, buf, sizeof(mad));
		fill_guard(buf + 128, sizeof(buf) - 128);
		memcpy(&r1, buf, sizeof(r1));
		memcpy(&r2, buf, sizeof(r2));
		/* a registration on QP0 (ib_umad_reg_agent*: qpn 0 or 1) needs the SMI */
		if ((req == IB_USER_MAD_REGISTER_AGENT && r1.qpn == 0) ||
		    (req == IB_USER_MAD_REGISTER_AGENT2 && r2.qpn == 0))
			case_needs |= NEED_IB;
		snprintf(op_desc, sizeof(op_desc), "ioctl 0x%lx, random argument", req);
		r = ioctl(umad_fd, req, buf);
		cmd = errno;
		expect_errno("umad ioctl", r, cmd, UMAD_IOCTL);
		if (r == 0 && req == IB_USER_MAD_ENABLE_PKEY)
			umad_hsz = HDR_NEW;
		if (r == 0 && req == IB_USER_MAD_REGISTER_AGENT2)
			umad_hsz = HDR_NEW;
		if (r < 0 && !(req == IB_USER_MAD_REGISTER_AGENT2 && cmd == EINVAL)) {
			if (memcmp(mad, buf, 128))
				fail("umad ioctl", "failed (%s), yet the caller's argument changed", ename(cmd));
			else
				expect_untouched("umad ioctl", buf + 128, sizeof(buf) - 128);
		}
		break;
	}
	case 3: {
		struct pollfd p = { umad_fd, (short)(POLLIN | POLLOUT), 0 };
		snprintf(op_desc, sizeof(op_desc), "poll (the answer: revents)");
		r = poll(&p, 1, 0);
		if (r < 0)
			fail("umad poll", "%s", ename(errno));
		answer_ret = r < 0 ? -1 : p.revents;
		answer_err = r < 0 ? errno : 0;
		break;
	}
	default: { /* garbage write of any size */
		size_t n;
		random_bytes(buf, 512);
		n = below(512);
		snprintf(op_desc, sizeof(op_desc), "write of %zu random bytes", n);
		umad_write_needs();
		r = write(umad_fd, buf, n);
		expect_errno("umad write", r, errno, UMAD_WRITE);
	}
	}
}

static void op_umad(void)
{
	int k = (int)below(10);
	if (umad_fd < 0 || k == 0)
		umad_setup();
	else
		umad_act();
}

/* ---------------------------------------------------------------- issm */

static int issm_fd = -1;
static const int ISSM_OPEN[] = { EAGAIN, 0 };

static void issm_act(void)
{
	static const int RW[] = { EINVAL, 0 }, IOC[] = { ENOTTY, 0 };
	uint8_t buf[256];
	size_t n;
	long r;

	switch (below(4)) {
	case 0:
		if (issm_fd >= 0) {
			snprintf(op_desc, sizeof(op_desc), "close");
			answer_ret = close(issm_fd);
			answer_err = answer_ret < 0 ? errno : 0;
			issm_fd = -1;
		} else {
			snprintf(op_desc, sizeof(op_desc), "open");
			issm_fd = open(issm_path(), O_RDWR | O_NONBLOCK);
			expect_errno("issm open", issm_fd, errno, ISSM_OPEN);
		}
		break;
	case 1:
		if (issm_fd >= 0) {
			n = below(sizeof(buf));
			snprintf(op_desc, sizeof(op_desc), "read of %zu bytes", n);
			fill_guard(buf, sizeof(buf));
			r = read(issm_fd, buf, n);
			expect_errno("issm read", r, errno, RW);
			expect_untouched("issm read", buf, sizeof(buf));
		}
		break;
	case 2:
		if (issm_fd >= 0) {
			n = below(sizeof(buf));
			snprintf(op_desc, sizeof(op_desc), "write of %zu bytes", n);
			r = write(issm_fd, buf, n);
			expect_errno("issm write", r, errno, RW);
		}
		break;
	default:
		if (issm_fd >= 0) {
			unsigned long req = _IOC((unsigned)below(4), (unsigned)next() & 0xff, (unsigned)below(32),
						 (unsigned)below(128));
			snprintf(op_desc, sizeof(op_desc), "ioctl 0x%lx", req);
			fill_guard(buf, sizeof(buf));
			r = ioctl(issm_fd, req, buf);
			expect_errno("issm ioctl", r, errno, IOC);
			expect_untouched("issm ioctl", buf, sizeof(buf));
		}
	}
}

static void op_issm(void)
{
	issm_act();
}

/* ---------------------------------------------------------------- sysfs */

static int collect(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)f;
	if (type == FTW_F && S_ISREG(st->st_mode) && nattrs < MAX_FILES)
		attrs[nattrs++] = strdup(path);
	return 0;
}

static void collect_attributes(void)
{
	static const char *roots[] = { "class/infiniband", "class/infiniband_mad", "class/infiniband_verbs" };
	char dir[512], real[PATH_MAX];
	size_t i;
	for (i = 0; i < sizeof(roots) / sizeof(*roots); i++) {
		DIR *d;
		struct dirent *e;
		snprintf(dir, sizeof(dir), "%s/%s", sysfs_root(), roots[i]);
		d = opendir(dir);
		if (!d)
			continue;
		while ((e = readdir(d))) {
			char link[1024];
			if (e->d_name[0] == '.')
				continue;
			snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
			if (realpath(link, real))
				nftw(real, collect, 16, FTW_PHYS);
		}
		closedir(d);
	}
}

static void op_sysfs(void)
{
	static const int READ[] = { EIO, EINVAL, ENODATA, EOPNOTSUPP, ENODEV, ENOENT, EACCES, 0 };
	static const int WRITE[] = { EINVAL, EIO, EACCES, EPERM, E2BIG, EOPNOTSUPP, ENODEV, ENOENT, ERANGE, EBUSY, 0 };
	uint8_t buf[BUF];
	const char *path;
	long r;
	int fd, write_it;

	if (!nattrs)
		return;
	path = attrs[below((uint64_t)nattrs)];
	write_it = below(4) == 0;
	fd = open(path, write_it ? O_WRONLY : O_RDONLY);
	if (fd < 0) {
		expect_errno("sysfs open", -1, errno, write_it ? WRITE : READ);
		return;
	}
	if (write_it) {
		size_t n = below(3) ? below(64) : below(BUF);
		random_bytes(buf, n);
		if (below(2) && n > 0)
			buf[n - 1] = '\n';
		r = pwrite(fd, buf, n, (off_t)(below(4) ? 0 : below(8192)));
		expect_errno("sysfs write", r, errno, WRITE);
	} else {
		fill_guard(buf, sizeof(buf));
		r = pread(fd, buf, below(BUF), (off_t)(below(2) ? 0 : below(8192)));
		expect_errno("sysfs read", r, errno, READ);
		if (r < 0)
			expect_untouched("sysfs read", buf, sizeof(buf));
	}
	close(fd);
}

/* ---------------------------------------------------------------- control socket */

static int control_fd = -1;

static int control_connect(void)
{
	struct sockaddr_un a;
	const char *p = getenv("IBEMU_CONTROL");
	int fd;
	if (!p)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", p);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		fail("control connect", "%s", ename(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads lines until one is "ok" or starts with "error: "; 1 if so, 0 at EOF/timeout. */
static int control_reply(int fd)
{
	static char line[1 << 16];
	size_t len = 0;
	char c;
	for (;;) {
		if (wait_readable(fd, 10000) != 1)
			return 0;
		if (read(fd, &c, 1) != 1)
			return 0;
		if (c != '\n') {
			if (len < sizeof(line) - 1)
				line[len++] = c;
			continue;
		}
		line[len] = 0;
		if (!strcmp(line, "ok") || !strncmp(line, "error: ", 7))
			return 1;
		len = 0;
	}
}

static void op_control(void)
{
	static const char *words[] = { "link", "node", "drop", "counter", "guid", "lid", "dump", "help",
		"cut", "restore", "add", "remove", "0x", "1", "-1", "99999999999", "\"", "'", "local", "switch" };
	char line[4096];
	size_t n = 0;
	int k, i;

	if (control_fd < 0 || below(8) == 0) {
		if (control_fd >= 0)
			close(control_fd);
		control_fd = control_connect();
		if (control_fd < 0)
			return;
	}
	k = (int)below(3);
	if (k == 0) { /* raw garbage, NULs and bytes past ASCII included */
		n = below(sizeof(line) - 1);
		random_bytes((uint8_t *)line, n);
		for (i = 0; i < (int)n; i++)
			if (line[i] == '\n')
				line[i] = ' ';
	} else { /* words of the vocabulary in random order, some mutated; never `node remove`/`link cut` of real nodes matter */
		int w = 1 + (int)below(6);
		while (w-- > 0 && n < 200) {
			const char *word = words[below(sizeof(words) / sizeof(*words))];
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s ", word);
		}
		if (k == 2)
			mutate((uint8_t *)line, n);
		for (i = 0; i < (int)n; i++)
			if (line[i] == '\n')
				line[i] = ' ';
	}
	line[n++] = '\n';
	if (write(control_fd, line, n) != (ssize_t)n || !control_reply(control_fd)) {
		fail("control", "no reply ending in ok/error to a %zu-byte line", n);
		close(control_fd);
		control_fd = -1;
	} else {
		checks_passed++;
	}
}

/* ---------------------------------------------------------------- uverbs */

static const int UVERBS_WRITE[] = { EINVAL, EOPNOTSUPP, ENOSPC, EIO, EFAULT, EBADF, EBUSY, EAGAIN, EPERM,
	ENOENT, ENOMEM, ENOSYS, EMFILE, ERANGE, EACCES, E2BIG, EOVERFLOW, 0 };
static int uverbs_fd = -1;
static int fd_floor;

/* Closes the verbs file and every descriptor its commands made (async and completion fds). */
static void uverbs_reset(void)
{
	int fd;
	if (uverbs_fd >= 0)
		close(uverbs_fd);
	for (fd = fd_floor; fd < 1024; fd++)
		if (fd != umad_fd && fd != issm_fd && fd != control_fd)
			close(fd);
	uverbs_fd = open(uverbs_path(), O_RDWR | O_CLOEXEC);
	if (uverbs_fd < 0) {
		fail("uverbs open", "%s", ename(errno));
		return;
	}
	/* mostly with a context, a PD and a CQ (handles 0), so that commands get past the lookups */
	if (below(4)) {
		struct ib_uverbs_get_context_resp ctx;
		if (uv_get_context(uverbs_fd, &ctx) == 0 && uv_alloc_pd(uverbs_fd) >= 0)
			uv_create_cq(uverbs_fd, 16, -1, 0, 0, NULL);
	}
}

/*
 * Commands whose answer the driver decides (needs NEED_QIB, the profile ibemu presents), with the
 * kernel function that decides it on rxe.
 */
static unsigned uverbs_command_needs(uint32_t command)
{
	switch (command) {
	case IB_USER_VERBS_CMD_POLL_CQ:       /* rxe's data path is mmap'd rings: not offered through */
	case IB_USER_VERBS_CMD_POST_RECV:     /* write() (the uapi disables the method, EOPNOTSUPP) */
	case IB_USER_VERBS_CMD_POST_SRQ_RECV:
	case IB_USER_VERBS_CMD_REREG_MR:      /* rxe has no rereg_user_mr: the method is disabled */
		return NEED_QIB;
	case IB_USER_VERBS_CMD_OPEN_XRCD:     /* UAPI_DEF_METHOD_NEEDS_FN(alloc_xrcd) and the rest of */
	case IB_USER_VERBS_CMD_CLOSE_XRCD:    /* UVERBS_OBJECT_XRCD's write methods: disabled without */
	case IB_USER_VERBS_CMD_OPEN_QP:       /* XRC (rxe), offered by ibemu */
	case IB_USER_VERBS_CMD_CREATE_XSRQ:
		return NEED_XRC;
	default:
		return 0;
	}
}

static uint8_t *uverbs_response_buffer(void)
{
	static uint8_t *resp;
	if (!resp) {
		/*
		 * The response buffer ends at a PROT_NONE page: like the kernel's uverbs_response
		 * (copy, then clear_user of the rest of out_words), the daemon zero-fills past the
		 * response, and that must fault here, not run over this program's memory.
		 */
		uint8_t *m = mmap(NULL, BUF + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED || mprotect(m + BUF, 4096, PROT_NONE))
			t_bail("mmap: %s", strerror(errno));
		resp = m;
	}
	return resp;
}

/* One command with a random header and body on the open file. */
static void uverbs_act(void)
{
	uint8_t *resp = uverbs_response_buffer();
	char what[256];
	uint8_t body[512];
	uint32_t command;
	uint16_t in_words, out_words;
	size_t blen;
	long r;
	int i, err, ours;

	/* commands 0..52 (GET_CONTEXT .. the last), extended or not, sane sizes or not */
	command = (uint32_t)below(53);
	if (below(8) == 0)
		command |= IB_USER_VERBS_CMD_FLAG_EXTENDED;
	blen = below(4) ? 8 * below(16) : below(sizeof(body));
	random_bytes(body, sizeof(body));
	/* the leading u64 is the response pointer: our guarded buffer, or anything */
	ours = below(4) != 0;
	if (ours) {
		uint64_t p = (uintptr_t)resp;
		memcpy(body, &p, sizeof(p));
	}
	for (i = 8; i + 4 <= (int)blen; i += 4) /* small handles make lookups reach real objects */
		if (below(3) == 0)
			memset(body + i, 0, 3);
	in_words = below(4) ? (uint16_t)((sizeof(struct ib_uverbs_cmd_hdr) + blen) / 4) : (uint16_t)next();
	out_words = below(2) ? (uint16_t)below(64) : (uint16_t)next();
	snprintf(op_desc, sizeof(op_desc), "command 0x%x, in %u out %u words, %zu bytes, %s response pointer",
		 command, in_words, out_words, blen, ours ? "a valid" : "a random");
	case_needs |= uverbs_command_needs(command);
	fill_guard(resp, BUF);
	r = uv_raw(uverbs_fd, command, in_words, out_words, body, blen);
	err = errno;
	snprintf(what, sizeof(what), "uverbs %s: %s", op_desc, r < 0 ? ename(err) : "ok");
	expect_errno(what, r, err, UVERBS_WRITE);
	/*
	 * EFAULT from the zero fill past a response longer than the buffer comes after writing, as
	 * there; GET_CONTEXT writes its response before ib_init_ucontext refuses a second context.
	 */
	if (r < 0 && !(err == EFAULT && (size_t)out_words * 4 > BUF) &&
	    !(command == IB_USER_VERBS_CMD_GET_CONTEXT && err == EINVAL))
		expect_untouched(what, resp, BUF);
}

/* ---------------------------------------------------------------- uverbs ioctl */

static const int UVERBS_IOCTL[] = { EINVAL, EOPNOTSUPP, EPROTONOSUPPORT, ENOSPC, EIO, EFAULT, EBADF, EBUSY,
	EAGAIN, EPERM, ENOENT, ENOMEM, ENOSYS, EMFILE, ERANGE, EACCES, E2BIG, EOVERFLOW, ENODATA, ENOTTY, 0 };
static int64_t ioctl_driver_id = -1;

/* The device's driver id: the one for which an unknown object is EPROTONOSUPPORT (EINVAL for others). */
static uint32_t uverbs_driver_id(int fd)
{
	struct ib_uverbs_ioctl_hdr h;
	uint32_t id;
	if (ioctl_driver_id >= 0)
		return (uint32_t)ioctl_driver_id;
	for (id = 0; id < 64; id++) {
		memset(&h, 0, sizeof(h));
		h.length = sizeof(h);
		h.object_id = 0x7ff;
		h.driver_id = id;
		if (ioctl(fd, RDMA_VERBS_IOCTL, &h) < 0 && errno == EPROTONOSUPPORT)
			return (uint32_t)(ioctl_driver_id = id);
	}
	return (uint32_t)(ioctl_driver_id = 0);
}

/*
 * Methods whose answer the driver decides, not the ioctl framework: the creates rxe serves with
 * its mmap'd rings (and needs room in UHW_OUT for, where rdmavt needs none), XRC, and the GID
 * queries (rxe's table has other sizes and empty slots).
 */
static unsigned uverbs_method_needs(uint16_t object, uint16_t method, uint64_t write_cmd, int has_cmd)
{
	if (object == UVERBS_OBJECT_DEVICE && method == UVERBS_METHOD_INVOKE_WRITE && has_cmd)
		return uverbs_command_needs((uint32_t)write_cmd) |
		       ((uint32_t)write_cmd == IB_USER_VERBS_CMD_CREATE_CQ || (uint32_t)write_cmd == IB_USER_VERBS_CMD_CREATE_QP ||
				(uint32_t)write_cmd == IB_USER_VERBS_CMD_CREATE_SRQ ? NEED_QIB : 0);
	if (object == UVERBS_OBJECT_DEVICE &&
	    (method == UVERBS_METHOD_QUERY_GID_TABLE || method == UVERBS_METHOD_QUERY_GID_ENTRY))
		return NEED_QIB;
	if ((object == UVERBS_OBJECT_CQ || object == UVERBS_OBJECT_QP || object == UVERBS_OBJECT_SRQ ||
	     object == UVERBS_OBJECT_WQ) && method == 0)
		return NEED_QIB;
	if (object == UVERBS_OBJECT_XRCD)
		return NEED_XRC;
	return 0;
}

/* One RDMA_VERBS_IOCTL with a random object, method and attribute array. */
static void uverbs_ioctl_act(void)
{
	static const uint16_t objects[] = { UVERBS_OBJECT_DEVICE, UVERBS_OBJECT_DEVICE, UVERBS_OBJECT_PD,
		UVERBS_OBJECT_COMP_CHANNEL, UVERBS_OBJECT_CQ, UVERBS_OBJECT_QP, UVERBS_OBJECT_SRQ, UVERBS_OBJECT_AH,
		UVERBS_OBJECT_MR, UVERBS_OBJECT_MW, UVERBS_OBJECT_XRCD, UVERBS_OBJECT_DM, UVERBS_OBJECT_COUNTERS,
		UVERBS_OBJECT_ASYNC_EVENT };
	static const uint16_t lens[] = { 0, 0, 4, 8, 8, 16, 32, 48 };
	static const uint16_t methods[][2] = {
		{ UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE }, { UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES },
		{ UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT }, { UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT },
		{ UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT }, { UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY },
		{ UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY }, { UVERBS_OBJECT_AH, UVERBS_METHOD_AH_DESTROY },
		{ UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY }, { UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR },
		{ UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR }, { UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC },
	};
	uint8_t *resp = uverbs_response_buffer();
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[8];
	} c;
	char what[320];
	uint64_t write_cmd = 0;
	int has_cmd = 0, n, i, err, touched;
	long r;

	memset(&c, 0, sizeof(c));
	if (below(4)) { /* a method 6.1 has, so that attributes and handlers are reached */
		const uint16_t *m = methods[below(sizeof(methods) / sizeof(*methods))];
		c.hdr.object_id = m[0];
		c.hdr.method_id = m[1];
	} else {
		c.hdr.object_id = below(8) ? objects[below(sizeof(objects) / sizeof(*objects))] : (uint16_t)below(24);
		c.hdr.method_id = (uint16_t)below(8);
	}
	c.hdr.driver_id = uverbs_driver_id(uverbs_fd);
	n = (int)below(7);
	for (i = 0; i < n; i++) {
		struct ib_uverbs_attr *a = &c.attrs[i];
		a->attr_id = below(5) ? (uint16_t)below(5) : below(2) ? (uint16_t)(UVERBS_ATTR_UHW_IN + below(2)) : (uint16_t)next();
		a->len = below(8) ? lens[below(sizeof(lens) / sizeof(*lens))] : (uint16_t)below(80);
		a->flags = below(4) ? 0 : (uint16_t)below(4);
		a->attr_data.reserved = below(10) ? 0 : (uint16_t)next();
		if (a->len > 8)
			a->data = below(8) ? (uintptr_t)(resp + 8 * below(BUF / 8 - 16)) : next();
		else
			a->data = below(3) ? below(4) : next();
		if (a->attr_id == UVERBS_ATTR_WRITE_CMD && c.hdr.object_id == UVERBS_OBJECT_DEVICE &&
		    c.hdr.method_id == UVERBS_METHOD_INVOKE_WRITE) {
			a->data = below(45);
			write_cmd = a->data;
			has_cmd = 1;
		}
	}
	c.hdr.num_attrs = (uint16_t)n;
	c.hdr.length = (uint16_t)(sizeof(c.hdr) + n * sizeof(struct ib_uverbs_attr));
	if (below(16) == 0)
		c.hdr.length = (uint16_t)next();
	if (below(16) == 0)
		c.hdr.reserved1 = next();
	if (below(16) == 0)
		c.hdr.driver_id ^= 1 + below(4);
	snprintf(op_desc, sizeof(op_desc), "ioctl object %u method %u, %d attributes (ids", c.hdr.object_id,
		 c.hdr.method_id, n);
	for (i = 0; i < n; i++)
		snprintf(op_desc + strlen(op_desc), sizeof(op_desc) - strlen(op_desc), " %u/%u", c.attrs[i].attr_id,
			 c.attrs[i].len);
	snprintf(op_desc + strlen(op_desc), sizeof(op_desc) - strlen(op_desc), ")");
	case_needs |= uverbs_method_needs(c.hdr.object_id, c.hdr.method_id, write_cmd, has_cmd);
	fill_guard(resp, BUF);
	r = ioctl(uverbs_fd, RDMA_VERBS_IOCTL, &c);
	err = errno;
	snprintf(what, sizeof(what), "uverbs %s: %s", op_desc, r < 0 ? ename(err) : "ok");
	expect_errno(what, r, err, UVERBS_IOCTL);
	/* outputs may be written before a later step fails, as the kernel's handlers do: the
	 * answer says whether the caller's memory changed, and must say the same on both */
	touched = 0;
	for (i = 0; i < BUF; i++)
		if (resp[i] != GUARD)
			touched = 1;
	if (r < 0 && touched)
		snprintf(op_desc + strlen(op_desc), sizeof(op_desc) - strlen(op_desc), ", memory written");
}

static void op_uverbs(void)
{
	if (uverbs_fd < 0 || below(50) == 0)
		uverbs_reset();
	if (uverbs_fd >= 0)
		uverbs_act();
}

/* ---------------------------------------------------------------- rdma_cm (ucma)
 *
 * One random write to /dev/infiniband/rdma_cm (ucma_write and the command it reaches), on a file
 * opened O_NONBLOCK (GET_EVENT answers EAGAIN rather than waiting) holding up to two fresh ids
 * (0 and 1). What the kernel's answer may depend on the machine is kept out: every write carries
 * the whole largest request (the kernel copies sizeof(cmd) past the header whatever `in` says, from
 * memory a FUSE device never sees), addresses are a family and the any-address (no route is looked
 * up), MIGRATE_ID's fd is one no process has.
 */
static const int UCMA_WRITE[] = { EINVAL, ENOSYS, ENOSPC, EFAULT, ENOENT, EAGAIN, EADDRNOTAVAIL, EADDRINUSE,
	ENODEV, EAFNOSUPPORT, ENOMEM, EIO, ENXIO, EBUSY, EOPNOTSUPP, EPERM, EACCES, ERANGE, 0 };
static int ucma_fd = -1;

static const char *rdma_cm_path(void) { return env_or("IBEMU_RDMA_CM", "/dev/infiniband/rdma_cm"); }

/* ucma's request layouts (rdma_user_cm.h): where the response pointer, the id and addresses sit. */
struct ucma_layout {
	int in;                /* sizeof the request */
	int response;          /* offset of the response pointer, -1 for none */
	int addr[2], addr_len; /* sockaddr areas (-1: none) and their size: sockaddr_in6 or sockaddr_storage */
};
#define UCMA_REQ(s, resp, a0, a1, alen) { sizeof(struct s), resp, { a0, a1 }, alen }
#define AT(s, f) ((int)offsetof(struct s, f))
#define IN6 ((int)sizeof(struct sockaddr_in6))
#define STORAGE ((int)sizeof(struct __kernel_sockaddr_storage))
static const struct ucma_layout UCMA_LAYOUT[] = {
	[RDMA_USER_CM_CMD_CREATE_ID] = UCMA_REQ(rdma_ucm_create_id, AT(rdma_ucm_create_id, response), -1, -1, 0),
	[RDMA_USER_CM_CMD_DESTROY_ID] = UCMA_REQ(rdma_ucm_destroy_id, AT(rdma_ucm_destroy_id, response), -1, -1, 0),
	[RDMA_USER_CM_CMD_BIND_IP] = UCMA_REQ(rdma_ucm_bind_ip, AT(rdma_ucm_bind_ip, response), AT(rdma_ucm_bind_ip, addr), -1, IN6),
	[RDMA_USER_CM_CMD_RESOLVE_IP] = UCMA_REQ(rdma_ucm_resolve_ip, -1, AT(rdma_ucm_resolve_ip, src_addr),
						  AT(rdma_ucm_resolve_ip, dst_addr), IN6),
	[RDMA_USER_CM_CMD_RESOLVE_ROUTE] = UCMA_REQ(rdma_ucm_resolve_route, -1, -1, -1, 0),
	[RDMA_USER_CM_CMD_QUERY_ROUTE] = UCMA_REQ(rdma_ucm_query, AT(rdma_ucm_query, response), -1, -1, 0),
	[RDMA_USER_CM_CMD_CONNECT] = UCMA_REQ(rdma_ucm_connect, -1, -1, -1, 0),
	[RDMA_USER_CM_CMD_LISTEN] = UCMA_REQ(rdma_ucm_listen, -1, -1, -1, 0),
	[RDMA_USER_CM_CMD_ACCEPT] = UCMA_REQ(rdma_ucm_accept, -1, -1, -1, 0),
	[RDMA_USER_CM_CMD_REJECT] = UCMA_REQ(rdma_ucm_reject, -1, -1, -1, 0),
	[RDMA_USER_CM_CMD_DISCONNECT] = UCMA_REQ(rdma_ucm_disconnect, -1, -1, -1, 0),
	[RDMA_USER_CM_CMD_INIT_QP_ATTR] = UCMA_REQ(rdma_ucm_init_qp_attr, AT(rdma_ucm_init_qp_attr, response), -1, -1, 0),
	[RDMA_USER_CM_CMD_GET_EVENT] = UCMA_REQ(rdma_ucm_get_event, AT(rdma_ucm_get_event, response), -1, -1, 0),
	[RDMA_USER_CM_CMD_GET_OPTION] = { 0, -1, { -1, -1 }, 0 }, /* no handler */
	[RDMA_USER_CM_CMD_SET_OPTION] = UCMA_REQ(rdma_ucm_set_option, AT(rdma_ucm_set_option, optval), -1, -1, 0),
	[RDMA_USER_CM_CMD_NOTIFY] = UCMA_REQ(rdma_ucm_notify, -1, -1, -1, 0),
	[RDMA_USER_CM_CMD_JOIN_IP_MCAST] = UCMA_REQ(rdma_ucm_join_ip_mcast, AT(rdma_ucm_join_ip_mcast, response),
						    AT(rdma_ucm_join_ip_mcast, addr), -1, IN6),
	[RDMA_USER_CM_CMD_LEAVE_MCAST] = UCMA_REQ(rdma_ucm_destroy_id, AT(rdma_ucm_destroy_id, response), -1, -1, 0),
	[RDMA_USER_CM_CMD_MIGRATE_ID] = UCMA_REQ(rdma_ucm_migrate_id, AT(rdma_ucm_migrate_id, response), -1, -1, 0),
	[RDMA_USER_CM_CMD_QUERY] = UCMA_REQ(rdma_ucm_query, AT(rdma_ucm_query, response), -1, -1, 0),
	[RDMA_USER_CM_CMD_BIND] = UCMA_REQ(rdma_ucm_bind, -1, AT(rdma_ucm_bind, addr), -1, STORAGE),
	[RDMA_USER_CM_CMD_RESOLVE_ADDR] = UCMA_REQ(rdma_ucm_resolve_addr, -1, AT(rdma_ucm_resolve_addr, src_addr),
						    AT(rdma_ucm_resolve_addr, dst_addr), STORAGE),
	[RDMA_USER_CM_CMD_JOIN_MCAST] = UCMA_REQ(rdma_ucm_join_mcast, AT(rdma_ucm_join_mcast, response),
						 AT(rdma_ucm_join_mcast, addr), -1, STORAGE),
};
#define UCMA_COMMANDS ((uint32_t)(sizeof(UCMA_LAYOUT) / sizeof(UCMA_LAYOUT[0])))
#define UCMA_LARGEST ((int)sizeof(struct rdma_ucm_accept))

/* CREATE_ID on fd in port space ps, the new id's number answered at *id: 0, or -1 with errno. */
static ssize_t ucma_create_id(int fd, uint64_t uid, uint16_t ps, uint32_t *id)
{
	struct {
		struct rdma_ucm_cmd_hdr h;
		struct rdma_ucm_create_id c;
	} w = { { RDMA_USER_CM_CMD_CREATE_ID, sizeof(w.c), sizeof(*id) },
		{ .uid = uid, .response = (uintptr_t)id, .ps = ps } };
	return write(fd, &w, sizeof(w)) == (ssize_t)sizeof(w) ? 0 : -1;
}

static void ucma_setup(void)
{
	int n = (int)below(3), i;
	if (ucma_fd >= 0)
		close(ucma_fd);
	ucma_fd = open(rdma_cm_path(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (ucma_fd < 0) {
		fail("rdma_cm open", "%s", ename(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		uint32_t id;
		if (ucma_create_id(ucma_fd, 1 + i, i ? RDMA_PS_UDP : RDMA_PS_TCP, &id) < 0)
			fail("rdma_cm create_id", "%s", ename(errno));
	}
}

static void ucma_act(void)
{
	static const uint16_t families[] = { 0, AF_INET, AF_INET6, 27 /* AF_IB */ };
	uint8_t *resp = uverbs_response_buffer();
	uint8_t buf[8 + UCMA_LARGEST + 64];
	char what[256];
	uint32_t cmd;
	uint16_t in, out;
	size_t len;
	long r;
	int i, k, err, ours;

	if (ucma_fd < 0)
		return;
	cmd = below(8) ? (uint32_t)below(UCMA_COMMANDS) : below(2) ? UCMA_COMMANDS + (uint32_t)below(8) : (uint32_t)next();
	random_bytes(buf, sizeof(buf));
	for (i = 8; i + 4 <= (int)sizeof(buf); i += 4) /* small values make ids 0 and 1 reachable */
		if (below(3) == 0) {
			uint32_t v = (uint32_t)below(3);
			memcpy(buf + i, &v, 4);
		}
	ours = below(4) != 0;
	if (cmd < UCMA_COMMANDS) {
		const struct ucma_layout *l = &UCMA_LAYOUT[cmd];
		if (l->response >= 0 && ours) {
			uint64_t p = (uintptr_t)resp;
			memcpy(buf + 8 + l->response, &p, 8);
		}
		for (k = 0; k < 2; k++) {
			if (l->addr[k] < 0 || below(4) == 0)
				continue;
			memset(buf + 8 + l->addr[k], 0, l->addr_len);
			memcpy(buf + 8 + l->addr[k], &families[below(4)], 2);
		}
		if (cmd == RDMA_USER_CM_CMD_CREATE_ID && below(4)) { /* mostly a port space that exists */
			static const uint16_t ps[] = { RDMA_PS_IPOIB, RDMA_PS_IB, RDMA_PS_TCP, RDMA_PS_UDP };
			memcpy(buf + 8 + AT(rdma_ucm_create_id, ps), &ps[below(4)], 2);
		}
		if (cmd == RDMA_USER_CM_CMD_MIGRATE_ID) { /* an fd no process has */
			uint32_t fd = 900 + (uint32_t)below(100);
			memcpy(buf + 8 + AT(rdma_ucm_migrate_id, fd), &fd, 4);
		}
	}
	/* `in`: the request's size, or anything up to the largest, or any u16; out: likewise */
	in = cmd < UCMA_COMMANDS && below(4) ? (uint16_t)UCMA_LAYOUT[cmd].in : below(8) ? (uint16_t)below(UCMA_LARGEST + 16)
									  : (uint16_t)next();
	out = below(2) ? 400 : below(4) ? (uint16_t)below(400) : (uint16_t)next();
	memcpy(buf, &cmd, 4);
	memcpy(buf + 4, &in, 2);
	memcpy(buf + 6, &out, 2);
	len = below(16) ? sizeof(buf) : 1 + below(7); /* the whole largest request, or short of a header */
	snprintf(op_desc, sizeof(op_desc), "command %u, in %u out %u, %zu bytes, %s response pointer", cmd, in, out,
		 len, ours ? "a valid" : "a random");
	fill_guard(resp, BUF);
	r = write(ucma_fd, buf, len);
	err = errno;
	snprintf(what, sizeof(what), "rdma_cm %s: %s", op_desc, r < 0 ? ename(err) : "ok");
	expect_errno(what, r < 0 ? -1 : r, err, UCMA_WRITE);
	if (r >= 0 && (size_t)r != len)
		fail(what, "write returned %ld of %zu", r, len);
}

/* The device still answers: a new file makes an id and destroys it. */
static int ucma_alive(void)
{
	int fd = open(rdma_cm_path(), O_RDWR | O_CLOEXEC), ok;
	uint32_t id = ~0u, reported;
	struct {
		struct rdma_ucm_cmd_hdr h;
		struct rdma_ucm_destroy_id c;
	} d = { { RDMA_USER_CM_CMD_DESTROY_ID, sizeof(d.c), sizeof(reported) }, { .response = (uintptr_t)&reported } };
	if (ucma_fd >= 0)
		close(ucma_fd);
	ucma_fd = -1;
	if (fd < 0)
		return 0;
	ok = ucma_create_id(fd, 9, RDMA_PS_TCP, &id) == 0;
	d.c.id = id;
	ok = ok && write(fd, &d, sizeof(d)) == sizeof(d);
	close(fd);
	return ok;
}

/* ---------------------------------------------------------------- cases
 *
 * The comparable corpus (./fuzz with no arguments, or --cases): each case is one operation of the
 * walk above on a fresh file set up from the case's own seed, so its answer does not depend on any
 * earlier case and "fuzz --case FAMILY SEED" repeats it alone. Its TAP line carries the answer
 * (return or errno) after "# answer", which Conformance compares between the kernel and ibemu;
 * "ok" means the walk's invariants held (an errno the kernel can give, buffers untouched) and the
 * device still answers afterwards on a new file.
 */
static int uverbs_had_context;

static void uverbs_setup(void)
{
	uverbs_reset();
	uverbs_had_context = 0;
}

/* The device still answers: a QUERY_PORT on the case's file, or a context on a new one. */
static int uverbs_alive(void)
{
	struct ib_uverbs_get_context_resp ctx;
	struct ib_uverbs_query_device_resp d;
	int fd = open(uverbs_path(), O_RDWR | O_CLOEXEC), ok;
	if (fd < 0)
		return 0;
	ok = uv_get_context(fd, &ctx) == 0 && uv_query_device(fd, &d) == 0;
	if (ok)
		close((int)ctx.async_fd);
	close(fd);
	return ok;
}

static int umad_alive(void)
{
	int fd = open(umad_path(), O_RDWR | O_NONBLOCK), ok;
	if (fd < 0)
		return 0;
	/* a send-only GSI agent: registers on IB and RoCE alike (ib_register_mad_agent) */
	ok = reg1(fd, 1, 0, 0, 0, 0, 0, 0, NULL) == 0;
	close(fd);
	return ok;
}

/* issm is free again once the case's file is closed (ib_umad_sm_close), and opens. */
static int issm_alive(void)
{
	int fd;
	if (issm_fd >= 0)
		close(issm_fd);
	issm_fd = -1;
	fd = open(issm_path(), O_RDWR | O_NONBLOCK);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* QUERY_DEVICE's device_cap_flags on a context of its own. */
static int uverbs_has_xrc(void)
{
	struct ib_uverbs_get_context_resp ctx;
	struct ib_uverbs_query_device_resp d;
	int fd = open(uverbs_path(), O_RDWR | O_CLOEXEC), xrc = 0;
	if (fd < 0)
		return 0;
	if (uv_get_context(fd, &ctx) == 0) {
		close((int)ctx.async_fd);
		xrc = uv_query_device(fd, &d) == 0 && (d.device_cap_flags & IB_UVERBS_DEVICE_XRC);
	}
	close(fd);
	return xrc;
}

struct family {
	char letter;
	const char *name;
	unsigned needs; /* of every case of the family */
	void (*setup)(void);
	void (*act)(void);
	int (*alive)(void);
};

static void issm_setup(void)
{
	if (issm_fd >= 0)
		close(issm_fd);
	issm_fd = open(issm_path(), O_RDWR | O_NONBLOCK);
	if (issm_fd < 0)
		fail("issm open", "%s", ename(errno));
}

static void umad_close(void)
{
	if (umad_fd >= 0)
		close(umad_fd);
	umad_fd = -1;
}

static const struct family families[] = {
	{ 'u', "umad", 0, umad_setup, umad_act, umad_alive },
	{ 'i', "issm", 0, issm_setup, issm_act, issm_alive },
	{ 'v', "uverbs", 0, uverbs_setup, uverbs_act, uverbs_alive },
	{ 'x', "uverbs-ioctl", 0, uverbs_setup, uverbs_ioctl_act, uverbs_alive },
	{ 'r', "ucma", 0, ucma_setup, ucma_act, ucma_alive },
};

static uint64_t case_seed(uint64_t seed, char letter, long i)
{
	return (seed * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(unsigned char)letter << 56) ^ ((uint64_t)i + 1);
}

static void run_case(const struct family *f, uint64_t seed, long i)
{
	char desc[320], answer[32];
	long failed = checks_failed;
	int alive;

	rng = case_seed(seed, f->letter, i) * 0x2545F4914F6CDD1Dull + 1;
	case_needs = f->needs;
	answer_ret = 0;
	answer_err = 0;
	snprintf(op_desc, sizeof(op_desc), "(no operation)");
	f->setup();
	f->act();
	alive = f->alive();
	if (f->letter == 'u')
		umad_close();
	t_needs(case_needs);
	snprintf(desc, sizeof(desc), "%s %llu.%ld: %s", f->name, (unsigned long long)seed, i, op_desc);
	if (answer_ret < 0)
		snprintf(answer, sizeof(answer), "%s", ename(answer_err));
	else
		snprintf(answer, sizeof(answer), "%ld", answer_ret);
	t_answer_now = answer;
	if (!alive)
		t_line(0, desc, "the device no longer answers (a new %s file)", f->name);
	else
		t_line(checks_failed == failed, desc, "%ld invariants broken (FAIL lines above)", checks_failed - failed);
	t_answer_now = NULL;
	t_needs(0);
}

static int run_cases(uint64_t seed, long n, const char *targets, long only)
{
	size_t k;
	char ibdev[64];
	if (uverbs_ibdev(uverbs_path(), ibdev, sizeof(ibdev)) == 0)
		t_detect(ibdev);
	t_have |= uverbs_has_xrc() ? NEED_XRC : 0;
	t_diag("xrc: %s", t_have & NEED_XRC ? "yes" : "no");
	fd_floor = 3;
	for (k = 0; k < sizeof(families) / sizeof(*families); k++) {
		long i;
		if (!strchr(targets, families[k].letter))
			continue;
		for (i = only >= 0 ? only : 0; i < (only >= 0 ? only + 1 : n); i++)
			run_case(&families[k], seed, i);
	}
	umad_close();
	if (issm_fd >= 0)
		close(issm_fd);
	if (uverbs_fd >= 0)
		close(uverbs_fd);
	return t_done();
}

/* ---------------------------------------------------------------- main */

static int walk(int argc, char **argv);

/* Cases per family of the default corpus (./fuzz with no arguments: what KernelConformanceTest runs). */
#define CORPUS_SEED 1
#define CORPUS_CASES 128
#ifndef CORPUS_FAMILIES
#define CORPUS_FAMILIES "uivx"
#endif

int main(int argc, char **argv)
{
	if (argc == 1 || strcmp(argv[1], "--cases") == 0 || strcmp(argv[1], "--case") == 0) {
		signal(SIGPIPE, SIG_IGN);
		watchdog(600);
		if (argc == 1)
			return run_cases(CORPUS_SEED, CORPUS_CASES, CORPUS_FAMILIES, -1);
		if (argc < 4 || (strcmp(argv[1], "--case") == 0 && argc < 5))
			t_bail("usage: fuzz --cases SEED N [FAMILIES] | fuzz --case FAMILY SEED I");
		if (strcmp(argv[1], "--case") == 0)
			return run_cases(strtoull(argv[3], NULL, 0), 0, argv[2], atol(argv[4]));
		return run_cases(strtoull(argv[2], NULL, 0), atol(argv[3]), argc > 4 ? argv[4] : "uivx", -1);
	}
	return walk(argc, argv);
}

/* The walk: SEED OPS SECONDS [TARGETS], one state carried from operation to operation. */
static int walk(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
	long ops = argc > 2 ? atol(argv[2]) : 10000, done = 0;
	double seconds = argc > 3 ? atof(argv[3]) : 60, t0 = now_ms();
	const char *targets = argc > 4 ? argv[4] : "uiscv";
	int ntargets = (int)strlen(targets);

	signal(SIGPIPE, SIG_IGN);
	rng = seed * 0x9E3779B97F4A7C15ull + 1;
	fd_floor = 3;
	if (strchr(targets, 's'))
		collect_attributes();
	for (; done < ops && now_ms() - t0 < seconds * 1000; done++) {
		switch (targets[below((uint64_t)ntargets)]) {
		case 'u': counts[0]++; op_umad(); break;
		case 'i': counts[1]++; op_issm(); break;
		case 's': counts[2]++; op_sysfs(); break;
		case 'c': counts[3]++; op_control(); break;
		case 'v': counts[4]++; op_uverbs(); break;
		}
	}
	printf("seed %llu ops %ld umad %ld issm %ld sysfs %ld (%d attributes) control %ld uverbs %ld errors %ld in %.1f s\n",
	       (unsigned long long)seed, done, counts[0], counts[1], counts[2], nattrs, counts[3], counts[4],
	       errors_seen, (now_ms() - t0) / 1000);
	printf("errno:");
	for (int e = 1; e < 512; e++)
		if (by_errno[e])
			printf(" %s %ld", ename(e), by_errno[e]);
	printf("\n%ld passed, %ld failed\n", checks_passed, checks_failed);
	return checks_failed ? 1 : 0;
}
