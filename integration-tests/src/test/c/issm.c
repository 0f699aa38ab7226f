/*
 * issm.c - /dev/infiniband/issmN: the IsSM capability bit and its lock.
 *
 * Build: gcc -O2 -Wall -o issm issm.c
 * Run:   ./issm                  (IBEMU_UMAD / IBEMU_ISSM / IBEMU_SYSFS override paths)
 *
 * Rules from drivers/infiniband/core/user_mad.c: ib_umad_sm_open (down_trylock
 * -> EAGAIN under O_NONBLOCK, else down_interruptible; ib_modify_port sets
 * IB_PORT_SM = 1<<1 in the port's CapabilityMask), ib_umad_sm_close (clears it,
 * up()), umad_sm_fops (no read/write/ioctl/poll: the VFS answers EINVAL,
 * EINVAL, ENOTTY, DEFAULT_POLLMASK; nonseekable_open: ESPIPE).
 */
#include "probe.h"

static struct port_id P;
static struct uf U;
static uint32_t smp_agent;

/* CapabilityMask from a hop-0 SubnGet(PortInfo); -1 if no answer. */
static long portinfo_capmask(uint32_t tid)
{
	uint8_t buf[4096];
	ssize_t n = dr_get(&U, smp_agent, ATTR_PORT_INFO, P.port, tid, buf, sizeof(buf));
	if (n < U.hsz + MAD_SIZE || get16(buf + U.hsz + MAD_STATUS) != SMP_DIRECTION)
		return -1;
	return get32(buf + U.hsz + SMP_DATA + 20);
}

/* Polls sysfs cap_mask until the SM bit has the wanted value (up to ms). */
static long capmask_wait(int want_set, int ms)
{
	double t0 = now_ms();
	long c;
	for (;;) {
		c = sysfs_hex(&P, "cap_mask");
		if (c >= 0 && !!(c & IB_PORT_SM_BIT) == want_set)
			return c;
		if (now_ms() - t0 > ms)
			return c;
		sleep_ms(10);
	}
}

static void check_bit(const char *when, int want_set, uint32_t tid)
{
	char d[256];
	long s = capmask_wait(want_set, 1000), m;

	snprintf(d, sizeof(d), "%s: sysfs ports/%d/cap_mask IsSM bit (0x2) %s", when, P.port,
		 want_set ? "set" : "clear");
	t_line(s >= 0 && !!(s & IB_PORT_SM_BIT) == want_set, d, "cap_mask 0x%08lx", s);
	m = portinfo_capmask(tid);
	snprintf(d, sizeof(d), "%s: PortInfo.CapabilityMask IsSM bit %s", when,
		 want_set ? "set" : "clear");
	t_line(m >= 0 && !!(m & IB_PORT_SM_BIT) == want_set, d, "%s 0x%08lx",
	       m < 0 ? "no PortInfo answer" : "CapabilityMask", m);
	snprintf(d, sizeof(d), "%s: sysfs cap_mask equals PortInfo.CapabilityMask", when);
	t_line(m >= 0 && s == m, d, "sysfs 0x%08lx, PortInfo 0x%08lx", s, m);
}

/*
 * ib_umad_sm_close runs at the last close of the file, before close() returns: a
 * non-blocking open right after it finds the port free (FUSE's RELEASE comes later,
 * so the emulation frees the port at the FLUSH that leaves no descriptor). A close
 * that leaves another descriptor (dup, a child's copy) keeps the port held.
 */
static void last_close_frees(void)
{
	int i, fd = -1, dup_fd, again = 0, other = 0, first_err = 0;
	double t0 = now_ms();
	pid_t pid;
	int st;

	for (i = 0; i < 3000; i++) {
		fd = open(issm_path(), O_RDWR | O_NONBLOCK);
		if (fd < 0) {
			if (errno == EAGAIN)
				again++;
			else if (!other++)
				first_err = errno;
			sleep_ms(5); /* let the held port go before the next try */
			continue;
		}
		close(fd);
	}
	t_line(again == 0 && other == 0, "3000 x (non-blocking open, close): the port is free at every open",
	       "%d EAGAIN, %d other errors (first %s)", again, other, other ? ename(first_err) : "-");
	t_diag("3000 open/close cycles in %.0f ms", now_ms() - t0);

	fd = open(issm_path(), O_RDWR | O_NONBLOCK);
	if (fd < 0)
		t_bail("open issm: %s", strerror(errno));
	dup_fd = dup(fd);
	close(fd);
	fd = open(issm_path(), O_RDWR | O_NONBLOCK);
	t_errno(fd, errno, EAGAIN, "close of one of two descriptors (dup): the port stays held");
	if (fd >= 0)
		close(fd);
	close(dup_fd);
	fd = open(issm_path(), O_RDWR | O_NONBLOCK);
	t_success(fd, errno, "close of the last descriptor (dup): free at once");

	/* a child's inherited copy holds the file past the parent's close */
	pid = fork();
	if (pid == 0) {
		sleep_ms(300);
		_exit(0);
	}
	close(fd);
	fd = open(issm_path(), O_RDWR | O_NONBLOCK);
	t_errno(fd, errno, EAGAIN, "parent closes while a child holds a copy: still held");
	if (fd >= 0)
		close(fd);
	waitpid(pid, &st, 0);
	fd = open(issm_path(), O_RDWR | O_NONBLOCK);
	t_success(fd, errno, "the child exits: free at once");
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	int sm, fd, go[2], rep[2], st;
	long before;
	pid_t pid;
	char c;
	uint8_t buf[512];

	watchdog(60);
	if (port_lookup(&P))
		t_bail("cannot resolve %s in %s/class/infiniband_mad", umad_path(), sysfs_root());
	t_detect(P.ibdev);
	t_require(NEED_IB); /* the SM's QP0 agent and PortInfo:CapabilityMask.IsSM */
	if (uf_open(&U, 0) < 0)
		t_bail("open %s: %s", umad_path(), strerror(errno));
	if (reg1(U.fd, 0, CLS_SUBN_DR, 1, 0, 0, 0, 0, &smp_agent))
		t_bail("register class 0x81: %s", strerror(errno));

	before = sysfs_hex(&P, "cap_mask");
	sm = open(issm_path(), O_RDWR | O_NONBLOCK);
	if (sm < 0 && errno == EAGAIN)
		t_bail("%s is held by another process; cannot test", issm_path());
	if (sm < 0)
		t_bail("open %s: %s", issm_path(), strerror(errno));
	t_line(before >= 0 && !(before & IB_PORT_SM_BIT),
	       "before any open: sysfs cap_mask IsSM bit clear", "cap_mask 0x%08lx", before);
	close(sm);
	check_bit("no issm holder", 0, 0x100);

	sm = open(issm_path(), O_RDWR);
	t_success(sm, errno, "blocking open of a free issm succeeds");
	if (sm < 0)
		return t_done();
	check_bit("issm held", 1, 0x101);

	/* second opener */
	fd = open(issm_path(), O_RDWR | O_NONBLOCK);
	t_errno(fd, errno, EAGAIN, "second open with O_NONBLOCK: EAGAIN");
	if (fd >= 0)
		close(fd);

	/* the VFS answers for the operations issm does not have */
	t_errno(read(sm, buf, sizeof(buf)), errno, EINVAL, "read on issm: EINVAL");
	t_errno(write(sm, buf, 64), errno, EINVAL, "write on issm: EINVAL");
	{
		struct ib_user_mad_reg_req r;
		int tio[16];
		memset(&r, 0, sizeof(r));
		t_errno(ioctl(sm, IB_USER_MAD_REGISTER_AGENT, &r), errno, ENOTTY,
			"ioctl REGISTER_AGENT on issm: ENOTTY");
		t_errno(ioctl(sm, IB_USER_MAD_ENABLE_PKEY), errno, ENOTTY,
			"ioctl ENABLE_PKEY on issm: ENOTTY");
		t_errno(ioctl(sm, TCGETS, tio), errno, ENOTTY, "TCGETS on issm: ENOTTY");
	}
	{
		struct pollfd p = { sm, POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM, 0 };
		int r = poll(&p, 1, 0);
		t_eq(r == 1 ? p.revents : -1, POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM,
		     "poll on issm: DEFAULT_POLLMASK at once");
	}
	t_errno(lseek(sm, 0, SEEK_SET), errno, ESPIPE, "lseek on issm: ESPIPE");

	/* a blocking second open waits for the holder */
	if (pipe(go) || pipe(rep))
		t_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		int f;
		signal(SIGALRM, SIG_DFL);
		alarm(20);
		close(sm); /* the inherited reference would keep the parent's issm file open */
		close(go[1]);
		close(rep[0]);
		c = 's';
		if (write(rep[1], &c, 1) != 1)
			_exit(1);
		f = open(issm_path(), O_RDWR);
		c = f >= 0 ? 'o' : 'e';
		if (write(rep[1], &c, 1) != 1)
			_exit(1);
		if (read(go[0], &c, 1) < 0) { /* hold until told */ }
		if (f >= 0)
			close(f);
		_exit(f >= 0 ? 0 : 2);
	}
	close(go[0]);
	close(rep[1]);
	if (wait_readable(rep[0], 5000) != 1 || read(rep[0], &c, 1) != 1 || c != 's')
		t_bail("child did not start");
	t_eq(wait_readable(rep[0], 300), 0, "blocking second open waits while issm is held (300 ms)");
	close(sm);
	{
		double t0 = now_ms();
		int r = wait_readable(rep[0], 1000);
		double dt = now_ms() - t0;
		c = 0;
		if (r == 1 && read(rep[0], &c, 1) != 1)
			c = 0;
		t_line(c == 'o', "holder closes: the waiting open returns successfully within 1 s",
		       "%s after %.0f ms", r == 1 ? (c == 'e' ? "open failed" : "?") : "still blocked", dt);
		if (c == 'o')
			t_diag("waiting open returned %.0f ms after close", dt);
	}
	if (c == 'o')
		check_bit("issm held by the second opener", 1, 0x102);
	c = 'x';
	if (write(go[1], &c, 1) != 1) { /* child may be gone */ }
	close(go[1]);
	{
		double t0 = now_ms();
		pid_t w;
		while ((w = waitpid(pid, &st, WNOHANG)) == 0 && now_ms() - t0 < 2000)
			sleep_ms(10);
		if (w == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
		}
	}
	close(rep[0]);

	/* close clears the bit */
	check_bit("all issm holders closed", 0, 0x103);
	sm = open(issm_path(), O_RDWR | O_NONBLOCK);
	t_success(sm, errno, "issm free again after both holders closed");
	if (sm >= 0) {
		check_bit("issm re-opened", 1, 0x104);
		close(sm);
		check_bit("issm closed again", 0, 0x105);
	}
	last_close_frees();
	uf_close(&U);
	return t_done();
}
