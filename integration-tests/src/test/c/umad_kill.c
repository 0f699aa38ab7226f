/*
 * umad_kill.c - processes blocked in the emulated devices can be killed.
 *
 * Build: gcc -O2 -Wall -o umad_kill umad_kill.c
 * Run:   ./umad_kill             (IBEMU_UMAD / IBEMU_ISSM override paths)
 *
 * The kernel sleeps interruptibly in ib_umad_read (wait_event_interruptible),
 * ib_umad_poll (poll_wait) and ib_umad_sm_open (down_interruptible): a fatal
 * signal ends each at once, and a killed opener of issm never takes the
 * semaphore. On exit the file is released (ib_umad_close) and its agents
 * unregistered.
 */
#include "probe.h"

enum { BLOCK_READ, BLOCK_POLL, BLOCK_ISSM_OPEN, BLOCK_READ_REGISTERED };

/* Child body: get into the blocking call, telling the parent just before. */
static void child(int what, int ready_fd)
{
	uint8_t buf[4096];
	char c = 'r';
	int fd;

	signal(SIGALRM, SIG_DFL);
	alarm(20); /* never outlive a broken parent */
	if (what == BLOCK_ISSM_OPEN) {
		if (write(ready_fd, &c, 1) != 1)
			_exit(1);
		fd = open(issm_path(), O_RDWR);
		_exit(fd < 0 ? 2 : 3); /* reaching here means open returned */
	}
	fd = open(umad_path(), O_RDWR);
	if (fd < 0)
		_exit(4);
	if (what == BLOCK_READ_REGISTERED) {
		uint32_t id;
		if (reg1(fd, 1, 0x0d, 1, 0, 1ULL << M_GET, 0, 0, &id))
			_exit(5);
	}
	if (write(ready_fd, &c, 1) != 1)
		_exit(1);
	if (what == BLOCK_POLL) {
		struct pollfd p = { fd, POLLIN, 0 };
		poll(&p, 1, -1);
		_exit(6);
	}
	if (read(fd, buf, sizeof(buf)) < 0)
		_exit(7);
	_exit(8);
}

/* Forks a child that blocks in `what`; returns its pid once it is about to block. */
static pid_t spawn_blocked(int what)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		t_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		t_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		child(what, p[1]);
	}
	close(p[1]);
	if (wait_readable(p[0], 5000) != 1 || read(p[0], &c, 1) != 1) {
		close(p[0]);
		return -pid; /* child died or hung before blocking */
	}
	close(p[0]);
	return pid;
}

/* Waits for pid for up to ms; returns elapsed ms or -1 if still running. */
static double reap_within(pid_t pid, int ms, int *status)
{
	double t0 = now_ms();
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return now_ms() - t0;
		if (r < 0)
			return -1;
		if (now_ms() - t0 > ms)
			return -1;
		sleep_ms(5);
	}
}

static void kill_case(int what, int sig, const char *name)
{
	char d[256];
	int st = 0;
	double dt;
	pid_t pid = spawn_blocked(what);

	if (pid <= 0) {
		snprintf(d, sizeof(d), "%s: child reaches the blocking call", name);
		t_line(0, d, "child failed before blocking");
		waitpid(-pid, NULL, 0);
		return;
	}
	sleep_ms(300);
	snprintf(d, sizeof(d), "%s: child still blocked after 300 ms", name);
	t_line(waitpid(pid, &st, WNOHANG) == 0, d, "child exited early, status 0x%x", st);
	kill(pid, sig);
	dt = reap_within(pid, 1000, &st);
	snprintf(d, sizeof(d), "%s: %s ends it, waitpid returns within 1 s", name, strsignal(sig));
	if (dt < 0) {
		t_line(0, d, "child not reaped after 1 s (uninterruptible in the daemon?)");
		return; /* leave it: an unkillable child cannot be waited for */
	}
	t_line(WIFSIGNALED(st) && WTERMSIG(st) == sig, d, "reaped after %.0f ms, status 0x%x", dt, st);
	t_diag("%s: reaped %.1f ms after the signal", name, dt);
}

static void daemon_alive(const char *when)
{
	char d[256];
	uint8_t buf[4096];
	uint32_t id;
	int fd = open(umad_path(), O_RDWR | O_NONBLOCK);

	snprintf(d, sizeof(d), "%s: open umad works", when);
	t_success(fd, errno, d);
	if (fd < 0)
		return;
	snprintf(d, sizeof(d), "%s: REGISTER_AGENT works", when);
	t_ret(reg1(fd, 1, 0, 0, 0, 0, 0, 0, &id), errno, 0, d);
	snprintf(d, sizeof(d), "%s: O_NONBLOCK read answers EAGAIN", when);
	t_errno(read(fd, buf, sizeof(buf)), errno, EAGAIN, d);
	close(fd);
}

int main(void)
{
	int issm, fd, st;
	uint32_t id;
	double t0;

	watchdog(60);
	daemon_alive("before");

	kill_case(BLOCK_READ, SIGKILL, "blocking read on umad");
	daemon_alive("after killing a reader");
	kill_case(BLOCK_READ, SIGTERM, "blocking read on umad");
	kill_case(BLOCK_POLL, SIGKILL, "poll(POLLIN, -1) on umad");

	/* registrations of a killed process are released */
	{
		pid_t pid = spawn_blocked(BLOCK_READ_REGISTERED);
		fd = open(umad_path(), O_RDWR);
		if (pid <= 0 || fd < 0) {
			t_line(0, "killed holder's registration test set up", "pid %d fd %d", pid, fd);
			if (pid < 0)
				waitpid(-pid, NULL, 0);
		} else {
			int r = reg1(fd, 1, 0x0d, 1, 0, 1ULL << M_GET, 0, 0, &id);
			t_errno(r, errno, EINVAL, "class 0x0d Get held by the blocked child: EINVAL");
			kill(pid, SIGKILL);
			if (reap_within(pid, 1000, &st) < 0) {
				t_line(0, "registered reader killed within 1 s", "not reaped");
			} else {
				/* FUSE sends RELEASE asynchronously after the last close: allow 1 s */
				t0 = now_ms();
				do {
					r = reg1(fd, 1, 0x0d, 1, 0, 1ULL << M_GET, 0, 0, &id);
					if (r == 0)
						break;
					sleep_ms(10);
				} while (now_ms() - t0 < 1000);
				t_ret(r, errno, 0, "after the holder is killed its registration is released");
				t_diag("registration free %.0f ms after reaping", now_ms() - t0);
			}
			close(fd);
		}
	}

	/* blocking open of issm while another file holds it */
	issm = open(issm_path(), O_RDWR | O_NONBLOCK);
	if (issm < 0 && errno == EAGAIN) {
		t_skip("blocking issm open killed", "issm already held by another process");
	} else if (issm < 0) {
		t_line(0, "open issm", "errno %s", ename(errno));
	} else {
		kill_case(BLOCK_ISSM_OPEN, SIGKILL, "blocking open of held issm");
		close(issm);
		/* the killed opener must not have taken the port's SM semaphore */
		t0 = now_ms();
		do {
			issm = open(issm_path(), O_RDWR | O_NONBLOCK);
			if (issm >= 0 || errno != EAGAIN)
				break;
			sleep_ms(10);
		} while (now_ms() - t0 < 1000);
		t_success(issm, errno, "issm can be opened again after the killed opener");
		if (issm >= 0)
			close(issm);
	}

	daemon_alive("at the end");
	return t_done();
}
