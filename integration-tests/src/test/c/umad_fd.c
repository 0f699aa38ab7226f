/*
 * umad_fd.c - a umad descriptor as a file: fstat, the ioctls the VFS answers, fcntl, dup,
 * readv, calls that belong to sockets, access modes, signals during a blocking read, and the
 * release at close.
 *
 * Build: gcc -O2 -Wall -o umad_fd umad_fd.c
 * Run:   ./umad_fd               (IBEMU_UMAD / IBEMU_SYSFS override paths)
 *
 * Rules from fs/ioctl.c (do_vfs_ioctl: FIOCLEX, FIONCLEX, FIONBIO, FIOASYNC for every file;
 * FIONREAD only for regular files, else the driver, and ib_umad_ioctl knows none),
 * fs/read_write.c (do_loop_readv_writev: a driver without read_iter gets one read per
 * segment while each fills its segment), fs/file.c (dup, dup2, F_DUPFD share the open file),
 * mm/mmap.c (no f_op->mmap: ENODEV), net/socket.c (sockfd_lookup: ENOTSOCK), and
 * drivers/infiniband/core/user_mad.c (ib_umad_read's wait_event_interruptible, ib_umad_close
 * unregistering the file's agents before close returns).
 */
#include "probe.h"
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/uio.h>

static struct port_id P;

static void open_or_bail(struct uf *u, int flags)
{
	if (uf_open(u, flags) < 0)
		t_bail("open %s: %s", umad_path(), strerror(errno));
}

/* A REGISTER_AGENT2 SMI agent on u (64-byte header from here on). */
static uint32_t smi_agent(struct uf *u)
{
	uint32_t id;
	if (reg2(u->fd, 0, CLS_SUBN_DR, 1, 0, 0, 0, 0, 0, &id, NULL))
		t_bail("register a directed-route agent: %s", strerror(errno));
	u->hsz = HDR_NEW;
	return id;
}

/* Writes a hop-0 SubnGet(NodeInfo) with this TID through fd (which may be a copy of u's). */
static ssize_t send_get(const struct uf *u, int fd, uint32_t agent, uint32_t tid)
{
	struct uf via = *u;
	uint8_t mad[MAD_SIZE];
	struct uaddr a;
	via.fd = fd;
	dr_smp(mad, M_GET, ATTR_NODE_INFO, 0, tid);
	uaddr_dr(&a, agent);
	return uf_send(&via, &a, mad, sizeof(mad));
}

/* ------------------------------------------------------------ the file itself */
static void test_file(void)
{
	struct uf U;
	struct stat st;
	char path[512], dev[32];
	unsigned maj = 0, min = 0;
	int one = 1, zero = 0, n;
	uint8_t buf[512];

	open_or_bail(&U, 0);
	snprintf(path, sizeof(path), "%s/class/infiniband_mad/%s/dev", sysfs_root(), P.umad);
	if (read_text(path, dev, sizeof(dev)) || sscanf(dev, "%u:%u", &maj, &min) != 2)
		t_bail("cannot read %s", path);
	t_line(fstat(U.fd, &st) == 0 && S_ISCHR(st.st_mode), "fstat: a character device", "mode 0%o", st.st_mode);
	t_line(major(st.st_rdev) == maj && minor(st.st_rdev) == min, "fstat: st_rdev is the sysfs dev",
	       "got %u:%u, sysfs %u:%u", major(st.st_rdev), minor(st.st_rdev), maj, min);

	t_errno(ioctl(U.fd, FIONREAD, &n), errno, ENOTTY, "FIONREAD: ENOTTY (umad has no such ioctl)");
	t_ret(ioctl(U.fd, FIOCLEX), errno, 0, "FIOCLEX: 0");
	t_line(fcntl(U.fd, F_GETFD) == FD_CLOEXEC, "  ... and the descriptor is close-on-exec", NULL);
	t_ret(ioctl(U.fd, FIONCLEX), errno, 0, "FIONCLEX: 0");
	t_line(fcntl(U.fd, F_GETFD) == 0, "  ... and it is not any more", NULL);
	t_ret(ioctl(U.fd, FIONBIO, &one), errno, 0, "FIONBIO 1: 0");
	t_line((fcntl(U.fd, F_GETFL) & O_NONBLOCK) != 0, "  ... sets O_NONBLOCK", NULL);
	t_errno(read(U.fd, buf, sizeof(buf)), errno, EAGAIN, "  ... so a read of the empty queue: EAGAIN");
	t_ret(ioctl(U.fd, FIONBIO, &zero), errno, 0, "FIONBIO 0: 0");
	t_ret(fcntl(U.fd, F_SETFL, O_NONBLOCK), errno, 0, "fcntl(F_SETFL, O_NONBLOCK): 0");
	t_errno(read(U.fd, buf, sizeof(buf)), errno, EAGAIN, "  ... a read of the empty queue: EAGAIN");
	t_line((fcntl(U.fd, F_GETFL) & O_ACCMODE) == O_RDWR, "fcntl(F_GETFL): O_RDWR", NULL);

	t_errno(getsockopt(U.fd, SOL_SOCKET, SO_TYPE, &n, &(socklen_t){sizeof(n)}), errno, ENOTSOCK,
		"getsockopt: ENOTSOCK");
	t_errno(send(U.fd, buf, 8, 0), errno, ENOTSOCK, "send: ENOTSOCK");
	t_errno(recv(U.fd, buf, sizeof(buf), MSG_DONTWAIT), errno, ENOTSOCK, "recv: ENOTSOCK");
	t_errno(shutdown(U.fd, SHUT_RDWR), errno, ENOTSOCK, "shutdown: ENOTSOCK");
	{
		void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, U.fd, 0);
		t_errno(m == MAP_FAILED ? -1 : 0, errno, ENODEV, "mmap: ENODEV (umad has no mmap)");
		if (m != MAP_FAILED)
			munmap(m, 4096);
	}
	uf_close(&U);

	if (uf_open(&U, 0) < 0)
		t_bail("open: %s", strerror(errno));
	close(U.fd);
	U.fd = open(umad_path(), O_WRONLY);
	t_success(U.fd, errno, "open O_WRONLY");
	t_errno(read(U.fd, buf, sizeof(buf)), errno, EBADF, "read of a write-only open: EBADF");
	uf_close(&U);
}

/* ------------------------------------------------------------ copies */
static void test_copies(void)
{
	struct uf U;
	uint8_t buf[4096];
	uint32_t ag;
	int d;
	ssize_t n;

	open_or_bail(&U, O_NONBLOCK);
	ag = smi_agent(&U);

	d = dup(U.fd);
	t_success(d, errno, "dup");
	t_ret(send_get(&U, d, ag, 0x4001), errno, HDR_NEW + MAD_SIZE, "  ... a write through the copy is sent");
	n = uf_recv_tid(&U, buf, sizeof(buf), 0x4001, 3000);
	t_ret(n, errno, HDR_NEW + MAD_SIZE, "  ... and its answer is read through the original");
	t_line((fcntl(d, F_GETFL) & O_NONBLOCK) != 0, "  ... the copy shares O_NONBLOCK (one open file)", NULL);
	{
		/* dup2 of another file over the used copy: that number is now the other file's */
		int p[2];
		char got[4] = { 0 };

		if (pipe(p) != 0)
			t_bail("pipe: %s", strerror(errno));
		t_ret(dup2(p[1], d), errno, d, "dup2 of a pipe over the copy");
		n = write(d, "abc", 3);
		t_ret(n, errno, 3, "  ... a write there goes into the pipe");
		t_line(n == 3 && read(p[0], got, 3) == 3 && memcmp(got, "abc", 3) == 0, "  ... and is read from it",
		       NULL);
		t_ret(send_get(&U, U.fd, ag, 0x4005), errno, HDR_NEW + MAD_SIZE, "  ... the original still writes");
		n = uf_recv_tid(&U, buf, sizeof(buf), 0x4005, 3000);
		t_ret(n, errno, HDR_NEW + MAD_SIZE, "  ... and reads");
		close(p[0]);
		close(p[1]);
	}
	close(d);

	d = dup2(U.fd, 100);
	t_ret(d, errno, 100, "dup2 to descriptor 100");
	t_ret(send_get(&U, 100, ag, 0x4002), errno, HDR_NEW + MAD_SIZE, "  ... a write through 100 is sent");
	{
		struct uf C = U;
		C.fd = 100;
		n = uf_recv_tid(&C, buf, sizeof(buf), 0x4002, 3000);
		t_ret(n, errno, HDR_NEW + MAD_SIZE, "  ... and its answer is read through 100");
	}
	t_ret(send_get(&U, U.fd, ag, 0x4003), errno, HDR_NEW + MAD_SIZE, "  ... the original still writes");
	n = uf_recv_tid(&U, buf, sizeof(buf), 0x4003, 3000);
	t_ret(n, errno, HDR_NEW + MAD_SIZE, "  ... and reads");
	t_errno(read(100, buf, sizeof(buf)), errno, EAGAIN, "  ... through either: the queue is one (EAGAIN)");
	close(100);

	d = fcntl(U.fd, F_DUPFD_CLOEXEC, 0);
	t_success(d, errno, "fcntl(F_DUPFD_CLOEXEC)");
	t_line(fcntl(d, F_GETFD) == FD_CLOEXEC, "  ... the copy is close-on-exec", NULL);
	t_ret(send_get(&U, d, ag, 0x4004), errno, HDR_NEW + MAD_SIZE, "  ... a write through it is sent");
	n = uf_recv_tid(&U, buf, sizeof(buf), 0x4004, 3000);
	t_ret(n, errno, HDR_NEW + MAD_SIZE, "  ... and answered");
	close(d);
	uf_close(&U);
}

/* ------------------------------------------------------------ readv */
static void test_readv(void)
{
	struct uf U;
	uint8_t a[4096], b[4096];
	struct iovec v[2];
	uint32_t ag;
	ssize_t n;

	open_or_bail(&U, O_NONBLOCK);
	ag = smi_agent(&U);
	send_get(&U, U.fd, ag, 0x5001);
	if (wait_readable(U.fd, 3000) != 1)
		t_bail("no answer to a SubnGet(NodeInfo) in 3 s");
	v[0] = (struct iovec){ a, HDR_NEW };
	v[1] = (struct iovec){ b, MAD_SIZE };
	t_errno(readv(U.fd, v, 2), errno, EINVAL,
		"readv, first segment only a header: EINVAL (one read per segment)");
	v[0] = (struct iovec){ a, sizeof(a) };
	n = readv(U.fd, v, 2);
	t_ret(n, errno, HDR_NEW + MAD_SIZE, "readv, a large first segment: one MAD");
	t_line(n == HDR_NEW + MAD_SIZE && (uint32_t)get64(a + HDR_NEW + MAD_TID) == 0x5001,
	       "  ... the one that was queued", NULL);

	send_get(&U, U.fd, ag, 0x5002);
	send_get(&U, U.fd, ag, 0x5003);
	sleep_ms(200);
	v[0] = (struct iovec){ a, HDR_NEW + MAD_SIZE };
	v[1] = (struct iovec){ b, HDR_NEW + MAD_SIZE };
	n = readv(U.fd, v, 2);
	t_ret(n, errno, 2 * (HDR_NEW + MAD_SIZE), "readv, two exact segments, two MADs queued: both");
	t_line(n == 2 * (HDR_NEW + MAD_SIZE) && (uint32_t)get64(a + HDR_NEW + MAD_TID) == 0x5002
	       && (uint32_t)get64(b + HDR_NEW + MAD_TID) == 0x5003, "  ... in order, one per segment", NULL);
	v[0] = (struct iovec){ a, sizeof(a) };
	t_errno(readv(U.fd, v, 1), errno, EAGAIN, "readv of the empty queue: EAGAIN");
	uf_close(&U);
}

/* ------------------------------------------------------------ a buffer the read cannot fill */
/* ib_umad_read: a copy_to_user that fails puts the packet back at the head (EFAULT) */
static void test_fault(void)
{
	struct uf U;
	uint8_t buf[4096], b[4096];
	struct iovec v[2];
	uint32_t ag;
	ssize_t n;
	uint8_t *two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (two == MAP_FAILED || mprotect(two + 4096, 4096, PROT_READ) != 0)
		t_bail("mmap/mprotect: %s", strerror(errno));
	open_or_bail(&U, O_NONBLOCK);
	ag = smi_agent(&U);
	send_get(&U, U.fd, ag, 0x6001);
	if (wait_readable(U.fd, 3000) != 1)
		t_bail("no answer to a SubnGet(NodeInfo) in 3 s");
	t_errno(read(U.fd, two + 4096, sizeof(buf)), errno, EFAULT, "read into a read-only page: EFAULT");
	t_errno(read(U.fd, two + 4096 - 100, sizeof(buf)), errno, EFAULT,
		"read into a buffer whose second page is read-only: EFAULT");
	v[0] = (struct iovec){ two + 4096, sizeof(buf) };
	v[1] = (struct iovec){ b, sizeof(b) };
	t_errno(readv(U.fd, v, 2), errno, EFAULT, "readv, first segment read-only: EFAULT");
	n = read(U.fd, buf, sizeof(buf));
	t_ret(n, errno, HDR_NEW + MAD_SIZE, "  ... then a read into a good buffer takes the packet");
	t_line(n == HDR_NEW + MAD_SIZE && (uint32_t)get64(buf + HDR_NEW + MAD_TID) == 0x6001,
	       "  ... the one the failed reads left at the head", NULL);
	t_errno(read(U.fd, buf, sizeof(buf)), errno, EAGAIN, "  ... and it was read once");
	munmap(two, 8192);
	uf_close(&U);
}

/* ------------------------------------------------------------ signals */
static int alarms;
static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void test_signals(void)
{
	struct uf U;
	struct sigaction sa, old;
	struct itimerval t = { { 0, 0 }, { 0, 200000 } };
	uint8_t buf[4096];
	uint32_t ag;
	double t0;
	ssize_t n;
	pid_t pid;

	open_or_bail(&U, 0);
	ag = smi_agent(&U);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, &old);
	alarms = 0;
	t0 = now_ms();
	setitimer(ITIMER_REAL, &t, NULL);
	n = read(U.fd, buf, sizeof(buf));
	t_errno(n, errno, EINTR, "blocking read, a signal without SA_RESTART: EINTR");
	t_line(alarms == 1 && now_ms() - t0 < 2000, "  ... once the handler ran", "alarms %d after %.0f ms", alarms,
	       now_ms() - t0);

	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	alarms = 0;
	pid = fork();
	if (pid == 0) {
		sleep_ms(600);
		_exit(send_get(&U, U.fd, ag, 0x6001) == HDR_NEW + MAD_SIZE ? 0 : 1);
	}
	setitimer(ITIMER_REAL, &t, NULL);
	n = read(U.fd, buf, sizeof(buf));
	t_ret(n, errno, HDR_NEW + MAD_SIZE, "blocking read, a signal with SA_RESTART: the read goes on to the answer");
	t_line(alarms == 1, "  ... and the handler ran once", "alarms %d", alarms);
	waitpid(pid, NULL, 0);
	sigaction(SIGALRM, &old, NULL);
	watchdog(90);
	uf_close(&U);
}

/* ------------------------------------------------------------ release */
static void test_release(void)
{
	struct uf X1, X2;
	uint32_t id;

	open_or_bail(&X1, 0);
	t_ret(reg1(X1.fd, 1, 0x0c, 1, 0, 1ULL << M_GET, 0, 0, &id), errno, 0, "file 1 registers class 0x0c v1 Get");
	uf_close(&X1);
	open_or_bail(&X2, 0);
	t_ret(reg1(X2.fd, 1, 0x0c, 1, 0, 1ULL << M_GET, 0, 0, &id), errno, 0,
	      "right after file 1's close, file 2 registers the same (the close released it)");
	uf_close(&X2);
}

int main(void)
{
	watchdog(90);
	if (port_lookup(&P))
		t_bail("cannot resolve %s in %s/class/infiniband_mad", umad_path(), sysfs_root());
	t_detect(P.ibdev);
	test_file();
	test_release();
	if (t_lacks(NEED_IB)) {
		t_diag("no InfiniBand port: the checks that need SMPs do not run");
		return t_done();
	}
	test_copies();
	test_readv();
	test_fault();
	test_signals();
	return t_done();
}
