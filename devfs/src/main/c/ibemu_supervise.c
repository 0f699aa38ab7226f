/*
 * ibemu-supervise --socket PATH -- CMD [ARG]...
 *
 * Puts CMD (and everything it starts, static binaries included) under a seccomp filter whose
 * user notifications the ibemu daemon answers: the daemon makes its emulated char devices
 * behave as kernel ones in the caller's own process (open, fstat, write commands, new fds).
 * The stub: PR_SET_NO_NEW_PRIVS, installs the filter with a notification listener, hands the
 * listener to the daemon ("PID LISTENER_FD BASE COUNT\n" on the daemon's unix socket; the
 * daemon takes it with pidfd_getfd and answers "ok\n" or "error: ...\n"), then execvp's CMD.
 * Exit status as env(1): 125 when the stub fails, 126/127 when CMD cannot be run.
 *
 * The filter notifies only what may concern an emulated device, so programs that do not use
 * one stay at full speed: opens that are not read-only (a device is opened O_RDWR), and
 * write/read/readv/ioctl/fstat on the reserved descriptor range [BASE, BASE+COUNT) where the
 * daemon installs the device files it opens (umad files are socket pairs there: the daemon
 * checks each read, which then copies natively, and serves write and ioctl), and
 * dup/dup2/dup3/fcntl there, so that a copy of such a descriptor stays one the daemon serves
 * (dup2/dup3 onto a range number too). socket(AF_NETLINK, *, NETLINK_RDMA) is notified too: the daemon
 * answers RDMA netlink, installing a socket of its own in the range, and the socket calls
 * (connect..getsockopt) on range descriptors are notified so it can play the kernel's side.
 * mmap of a range descriptor is notified (a device file that is a memfd of the daemon's: the
 * daemon checks offset and size as the driver's mmap would, then lets the kernel map it), and
 * so are lseek, positioned I/O, ftruncate and fallocate there, which such a file would
 * otherwise serve natively.
 * rt_sigreturn is notified too (once per handled signal): a notified call that a signal ended
 * before the daemon took it is restarted there, as the kernel's own calls would not fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define EX_STUB 125
#define RANGE 64
#define NETLINK_RDMA_PROTO 20

static void die(const char *what)
{
	fprintf(stderr, "ibemu-supervise: %s: %s\n", what, strerror(errno));
	exit(EX_STUB);
}

#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))

#if defined(__x86_64__)
/*
 * The filter as a list of instructions whose jumps name labels (BPF jumps go forward by
 * relative offsets); assemble() resolves them.
 */
enum label { NEXT, ALLOW, NOTIFY, SOCKET, OPENS, OPEN, OPENAT, FSTATAT, STATX, DUPTO, TARGET, MMAP, FD, LABELS };

struct insn {
	int label; /* this instruction starts that label, or -1 */
	struct sock_filter f;
	enum label jt, jf;
};

#define LD(off) { -1, BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off)), NEXT, NEXT }
#define LD_AT(l, off) { l, BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off)), NEXT, NEXT }
#define JMP(op, k, t, f) { -1, BPF_JUMP(BPF_JMP | (op) | BPF_K, (k), 0, 0), t, f }
#define JMP_AT(l, op, k, t, f) { l, BPF_JUMP(BPF_JMP | (op) | BPF_K, (k), 0, 0), t, f }
#define RET_AT(l, v) { l, BPF_STMT(BPF_RET | BPF_K, (v)), NEXT, NEXT }

static int assemble(const struct insn *in, unsigned n, struct sock_filter *out)
{
	int at[LABELS];
	unsigned i;

	for (i = 0; i < LABELS; i++)
		at[i] = -1;
	for (i = 0; i < n; i++)
		if (in[i].label >= 0)
			at[in[i].label] = (int)i;
	for (i = 0; i < n; i++) {
		int t = in[i].jt == NEXT ? (int)i + 1 : at[in[i].jt];
		int f = in[i].jf == NEXT ? (int)i + 1 : at[in[i].jf];

		out[i] = in[i].f;
		if (BPF_CLASS(in[i].f.code) != BPF_JMP)
			continue;
		if (t <= (int)i || f <= (int)i || t - (int)i - 1 > 255 || f - (int)i - 1 > 255)
			return -1;
		out[i].jt = (unsigned char)(t - (int)i - 1);
		out[i].jf = (unsigned char)(f - (int)i - 1);
	}
	return 0;
}

static int install_filter(unsigned base)
{
	const struct insn prog[] = {
		LD(offsetof(struct seccomp_data, arch)),
		JMP(BPF_JEQ, AUDIT_ARCH_X86_64, NEXT, ALLOW),
		LD(offsetof(struct seccomp_data, nr)),
		JMP(BPF_JEQ, SYS_write, FD, NEXT), /* first: the hot ones of those the cache cannot skip */
		JMP(BPF_JEQ, SYS_read, FD, NEXT),
		JMP(BPF_JEQ, SYS_socket, SOCKET, NEXT),
		/* connect .. getsockopt (42..55 on x86_64): calls on a socket, asked about the range */
		JMP(BPF_JGE, SYS_connect, NEXT, OPENS),
		JMP(BPF_JGT, SYS_getsockopt, OPENS, FD),
		JMP_AT(OPENS, BPF_JEQ, SYS_open, OPEN, NEXT),
		JMP(BPF_JEQ, SYS_openat, OPENAT, NEXT),
		JMP(BPF_JEQ, SYS_openat2, NOTIFY, NEXT), /* flags in a struct: a rare call, always asked */
		JMP(BPF_JEQ, SYS_writev, FD, NEXT),
		JMP(BPF_JEQ, SYS_readv, FD, NEXT),
		JMP(BPF_JEQ, SYS_ioctl, FD, NEXT),
		/* copies of a range fd: the daemon keeps them in the range, or makes them FUSE files */
		JMP(BPF_JEQ, SYS_dup, FD, NEXT),
		JMP(BPF_JEQ, SYS_dup2, DUPTO, NEXT),
		JMP(BPF_JEQ, SYS_dup3, DUPTO, NEXT),
		JMP(BPF_JEQ, SYS_fcntl, FD, NEXT),
		JMP(BPF_JEQ, SYS_pwrite64, FD, NEXT),
		JMP(BPF_JEQ, SYS_fstat, FD, NEXT),
		/* a mapped device file (memfd): its mmap checked, and what its file would otherwise
		 * answer natively (seek, positioned I/O, size) answered as the device's */
		JMP(BPF_JEQ, SYS_mmap, MMAP, NEXT),
		JMP(BPF_JEQ, SYS_lseek, FD, NEXT),
		JMP(BPF_JEQ, SYS_pread64, FD, NEXT),
		JMP(BPF_JEQ, SYS_preadv, FD, NEXT),
		JMP(BPF_JEQ, SYS_pwritev, FD, NEXT),
		JMP(BPF_JEQ, SYS_preadv2, FD, NEXT),
		JMP(BPF_JEQ, SYS_pwritev2, FD, NEXT),
		JMP(BPF_JEQ, SYS_ftruncate, FD, NEXT),
		JMP(BPF_JEQ, SYS_fallocate, FD, NEXT),
		JMP(BPF_JEQ, SYS_newfstatat, FSTATAT, NEXT),
		JMP(BPF_JEQ, SYS_rt_sigreturn, NOTIFY, NEXT), /* a handler returns: see Listener.signalReturn */
		JMP(BPF_JEQ, SYS_statx, STATX, ALLOW),
		/* socket(domain, type, protocol): RDMA netlink is the daemon's */
		LD_AT(SOCKET, ARG_LO(0)),
		JMP(BPF_JEQ, AF_NETLINK, NEXT, ALLOW),
		LD(ARG_LO(2)),
		JMP(BPF_JEQ, NETLINK_RDMA_PROTO, NOTIFY, ALLOW),
		/* open(path, flags), openat(dirfd, path, flags): all but read-only opens */
		LD_AT(OPEN, ARG_LO(1)),
		JMP(BPF_JSET, O_ACCMODE, NOTIFY, ALLOW),
		LD_AT(OPENAT, ARG_LO(2)),
		JMP(BPF_JSET, O_ACCMODE, NOTIFY, ALLOW),
		/* newfstatat(fd, path, buf, flags), statx(fd, path, flags, ...): fstat of an fd */
		LD_AT(FSTATAT, ARG_LO(3)),
		JMP(BPF_JSET, AT_EMPTY_PATH, FD, ALLOW),
		LD_AT(STATX, ARG_LO(2)),
		JMP(BPF_JSET, AT_EMPTY_PATH, FD, ALLOW),
		/* dup2/dup3(old, new): either in the range (a copy over a range number replaces
		 * what the daemon knew stood there) */
		LD_AT(DUPTO, ARG_LO(0)),
		JMP(BPF_JGE, base, NEXT, TARGET),
		JMP(BPF_JGE, base + RANGE, TARGET, NOTIFY),
		LD_AT(TARGET, ARG_LO(1)),
		JMP(BPF_JGE, base, NEXT, ALLOW),
		JMP(BPF_JGE, base + RANGE, ALLOW, NOTIFY),
		/* mmap(addr, length, prot, flags, fd, offset): fd in the reserved range */
		LD_AT(MMAP, ARG_LO(4)),
		JMP(BPF_JGE, base, NEXT, ALLOW),
		JMP(BPF_JGE, base + RANGE, ALLOW, NOTIFY),
		/* the fd (first argument) in the reserved range */
		LD_AT(FD, ARG_LO(0)),
		JMP(BPF_JGE, base, NEXT, ALLOW),
		JMP(BPF_JGE, base + RANGE, ALLOW, NOTIFY),
		RET_AT(ALLOW, SECCOMP_RET_ALLOW),
		RET_AT(NOTIFY, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_filter code[sizeof(prog) / sizeof(prog[0])];
	struct sock_fprog fprog = { .len = sizeof(prog) / sizeof(prog[0]), .filter = code };

	if (assemble(prog, fprog.len, code) != 0) {
		fprintf(stderr, "ibemu-supervise: bad filter program\n");
		exit(EX_STUB);
	}
	/*
	 * WAIT_KILLABLE_RECV: once the daemon has taken a notification, only a fatal signal
	 * interrupts the call, so a device command is never run twice by a restarted write.
	 * SPEC_ALLOW: this filter is no sandbox, so CMD keeps the speculative store bypass
	 * setting it would have without it (the kernel otherwise forces the mitigation on
	 * seccomp tasks, which slowed dd bs=16 by half).
	 */
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
			    | SECCOMP_FILTER_FLAG_SPEC_ALLOW, &fprog);
}
#else
static int install_filter(unsigned base)
{
	(void)base;
	return -2; /* no filter on other architectures: CMD runs unsupervised */
}
#endif

/* The reserved fd range's first number: below select()'s FD_SETSIZE and the soft limit. */
static unsigned reserved_base(void)
{
	struct rlimit limit;
	rlim_t top = 1024;

	if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < top)
		top = limit.rlim_cur;
	if (top < 2 * RANGE) {
		fprintf(stderr, "ibemu-supervise: RLIMIT_NOFILE %lu is below %d: no room for the device descriptors\n",
			(unsigned long)top, 2 * RANGE);
		exit(EX_STUB);
	}
	return (unsigned)top - RANGE;
}

static void hand_over(const char *socket_path, int listener, unsigned base)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char line[512];
	ssize_t got;
	size_t have = 0;
	int fd, len;

	if (strlen(socket_path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "ibemu-supervise: socket path too long: %s\n", socket_path);
		exit(EX_STUB);
	}
	strcpy(addr.sun_path, socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		fprintf(stderr, "ibemu-supervise: cannot reach the daemon at %s: %s\n", socket_path, strerror(errno));
		exit(EX_STUB);
	}
	len = snprintf(line, sizeof(line), "%d %d %u %d\n", (int)getpid(), listener, base, RANGE);
	if (write(fd, line, (size_t)len) != len)
		die("write to the daemon");
	while (have < sizeof(line) - 1 && (got = read(fd, line + have, sizeof(line) - 1 - have)) > 0) {
		have += (size_t)got;
		if (memchr(line, '\n', have))
			break;
	}
	line[have] = '\0';
	close(fd);
	if (strcmp(line, "ok\n") != 0) {
		fprintf(stderr, "ibemu-supervise: the daemon refused: %s%s", have ? line : "(no answer)\n",
			have && line[have - 1] != '\n' ? "\n" : "");
		exit(EX_STUB);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: ibemu-supervise --socket PATH -- CMD [ARG]...\n");
	exit(EX_STUB);
}

int main(int argc, char **argv)
{
	const char *socket_path = NULL;
	unsigned base;
	int i = 1, listener;

	for (; i < argc; i++) {
		if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc)
			socket_path = argv[++i];
		else if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else
			usage();
	}
	if (socket_path == NULL || i >= argc)
		usage();
	base = reserved_base();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		die("prctl(PR_SET_NO_NEW_PRIVS)");
	listener = install_filter(base);
	if (listener == -2) {
		fprintf(stderr, "ibemu-supervise: no filter for this architecture; running unsupervised\n");
	} else if (listener < 0) {
		die("seccomp(SECCOMP_SET_MODE_FILTER)");
	} else {
		/* From here until the daemon holds the listener, no notified syscall may be made. */
		hand_over(socket_path, listener, base);
		close(listener);
	}
	execvp(argv[i], argv + i);
	fprintf(stderr, "ibemu-supervise: %s: %s\n", argv[i], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
