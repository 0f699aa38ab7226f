/*
 * fuzz.c - random and mutated operations on every emulated interface, with a seed.
 *
 * Build: gcc -O2 -Wall -o fuzz fuzz.c
 * Run:   ./fuzz SEED OPS SECONDS [TARGETS]   inside an instance (scripts/ibemu exec)
 *        TARGETS: letters of u (umad), i (issm), s (sysfs), c (control socket), v (uverbs);
 *        default "uiscv". IBEMU_CONTROL names the control socket (STATE/control.sock).
 *
 * Each operation is drawn from a xorshift generator seeded with SEED, so a run repeats.
 * Checked for every call:
 *  - a failure's errno is one the kernel's driver could give for that call
 *    (drivers/infiniband/core/user_mad.c, uverbs_main.c + uverbs_cmd.c, kernfs);
 *  - a failed call leaves the caller's buffer as it was (guard-filled before the call),
 *    except where the kernel itself writes and fails (umad read ENOSPC: header + first
 *    segment; REGISTER_AGENT2 EINVAL: the supported flags);
 *  - every control request gets a reply ending in "ok" or "error: ...", within 10 s.
 * Prints one line per failed check (at most 20), then
 *   "ops N umad N issm N sysfs N control N uverbs N errors N" and "N passed, N failed".
 * Exit 0 if every check held.
 */
#include "probe.h"
#include "uverbs_probe.h"
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <sys/mman.h>
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
	printf("FAIL %s: ", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* errno must be in the zero-terminated list */
static long by_errno[512];

static void expect_errno(const char *what, long ret, int err, const int *allowed)
{
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

static void op_umad(void)
{
	uint8_t buf[BUF], mad[MAD_SIZE];
	struct ib_user_mad_hdr h;
	long r;
	int cmd, k = (int)below(10);

	if (umad_fd < 0 || k == 0) {
		if (umad_fd >= 0)
			close(umad_fd);
		umad_fd = open(umad_path(), O_RDWR | O_NONBLOCK);
		umad_hsz = HDR_OLD;
		if (umad_fd < 0) {
			fail("umad open", "%s", ename(errno));
			return;
		}
		if (below(2))
			reg1(umad_fd, (uint8_t)below(2), below(2) ? CLS_SUBN_DR : (uint8_t)next(), 1, 0,
			     next(), next(), (uint8_t)below(2), NULL);
		return;
	}
	switch (below(5)) {
	case 0: /* a valid SubnGet, mutated or not, behind a random or sane header */
		dr_smp(mad, M_GET, below(2) ? ATTR_NODE_INFO : (uint16_t)next(), (uint32_t)below(4), next());
		if (below(2))
			mutate(mad, sizeof(mad));
		memset(&h, 0, sizeof(h));
		if (below(3)) {
			h.id = (uint32_t)below(4);
			h.lid = htons(0xffff);
			h.timeout_ms = (uint32_t)below(3) * 10;
		} else {
			random_bytes((uint8_t *)&h, sizeof(h));
		}
		memcpy(buf, &h, umad_hsz);
		memcpy(buf + umad_hsz, mad, sizeof(mad));
		r = write(umad_fd, buf, (size_t)umad_hsz + (below(4) ? MAD_SIZE : below(2 * MAD_SIZE)));
		expect_errno("umad write", r, errno, UMAD_WRITE);
		break;
	case 1: { /* a read of any size into a guarded buffer */
		size_t n = below(BUF);
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
		fill_guard(buf, sizeof(buf));
		random_bytes(buf, 16 + below(96));
		memcpy(mad, buf, sizeof(mad));
		fill_guard(buf + 128, sizeof(buf) - 128);
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
		r = poll(&p, 1, 0);
		if (r < 0)
			fail("umad poll", "%s", ename(errno));
		break;
	}
	default: /* garbage write of any size */
		random_bytes(buf, 512);
		r = write(umad_fd, buf, below(512));
		expect_errno("umad write", r, errno, UMAD_WRITE);
	}
}

/* ---------------------------------------------------------------- issm */

static int issm_fd = -1;

static void op_issm(void)
{
	static const int OPEN[] = { EAGAIN, 0 }, RW[] = { EINVAL, 0 }, IOC[] = { ENOTTY, 0 };
	uint8_t buf[256];
	long r;

	switch (below(4)) {
	case 0:
		if (issm_fd >= 0) {
			close(issm_fd);
			issm_fd = -1;
		} else {
			issm_fd = open(issm_path(), O_RDWR | O_NONBLOCK);
			expect_errno("issm open", issm_fd, errno, OPEN);
		}
		break;
	case 1:
		if (issm_fd >= 0) {
			fill_guard(buf, sizeof(buf));
			r = read(issm_fd, buf, below(sizeof(buf)));
			expect_errno("issm read", r, errno, RW);
			expect_untouched("issm read", buf, sizeof(buf));
		}
		break;
	case 2:
		if (issm_fd >= 0) {
			r = write(issm_fd, buf, below(sizeof(buf)));
			expect_errno("issm write", r, errno, RW);
		}
		break;
	default:
		if (issm_fd >= 0) {
			fill_guard(buf, sizeof(buf));
			r = ioctl(issm_fd, _IOC((unsigned)below(4), (unsigned)next() & 0xff, (unsigned)below(32),
						(unsigned)below(128)), buf);
			expect_errno("issm ioctl", r, errno, IOC);
			expect_untouched("issm ioctl", buf, sizeof(buf));
		}
	}
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

static void op_uverbs(void)
{
	static uint8_t *resp;
	char what[128];
	uint8_t body[512];
	uint32_t command;
	uint16_t in_words, out_words;
	size_t blen;
	long r;
	int i, err;

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
	if (uverbs_fd < 0 || below(50) == 0)
		uverbs_reset();
	if (uverbs_fd < 0)
		return;
	/* commands 0..52 (GET_CONTEXT .. the last), extended or not, sane sizes or not */
	command = (uint32_t)below(53);
	if (below(8) == 0)
		command |= IB_USER_VERBS_CMD_FLAG_EXTENDED;
	blen = below(4) ? 8 * below(16) : below(sizeof(body));
	random_bytes(body, sizeof(body));
	/* the leading u64 is the response pointer: our guarded buffer, or anything */
	if (below(4)) {
		uint64_t p = (uintptr_t)resp;
		memcpy(body, &p, sizeof(p));
	}
	for (i = 8; i + 4 <= (int)blen; i += 4) /* small handles make lookups reach real objects */
		if (below(3) == 0)
			memset(body + i, 0, 3);
	in_words = below(4) ? (uint16_t)((sizeof(struct ib_uverbs_cmd_hdr) + blen) / 4) : (uint16_t)next();
	out_words = below(2) ? (uint16_t)below(64) : (uint16_t)next();
	fill_guard(resp, BUF);
	r = uv_raw(uverbs_fd, command, in_words, out_words, body, blen);
	snprintf(what, sizeof(what), "uverbs command 0x%x (in %u out %u words, %zu bytes) %s", command, in_words,
		 out_words, blen, r < 0 ? ename(errno) : "ok");
	err = errno;
	expect_errno(what, r, err, UVERBS_WRITE);
	/* EFAULT from the zero fill past a response longer than the buffer comes after writing, as there */
	if (r < 0 && !(err == EFAULT && (size_t)out_words * 4 > BUF))
		expect_untouched(what, resp, BUF);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
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
