/*
 * Run under ibemu-supervise by SupervisorTest, against CommandDevice nodes at
 * /dev/infiniband/sup0 (231:192, 0666) and sup1 (231:193, 0600) and the plain FUSE file
 * /dev/infiniband/plain0, and open0 (231:194, 0600) whose open only is supervised. Prints TAP lines; every check is one line.
 * Usage: supervise_probe TMPDIR
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>

#define SUP0 "/dev/infiniband/sup0"
#define SUP1 "/dev/infiniband/sup1"
#define PLAIN "/dev/infiniband/plain0"
#define OPEN_ONLY "/dev/infiniband/open0"
enum { ECHO = 1, NEW_FD = 2, EVENT = 3, WHO = 4 };

static int checks, failures;

static void check(int ok, const char *what, ...)
{
	checks++;
	if (!ok)
		failures++;
	printf("%sok %d - %s", ok ? "" : "not ", checks, what);
	if (!ok)
		printf(" (errno %d %s)", errno, strerror(errno));
	printf("\n");
	fflush(stdout);
}

struct command {
	uint32_t cmd;
	uint32_t pad;
	uint64_t response;
	unsigned char payload[16];
};

static ssize_t command(int fd, uint32_t cmd, void *response, const void *payload, size_t n)
{
	struct command c = { .cmd = cmd, .response = (uintptr_t)response };
	memcpy(c.payload, payload, n);
	return write(fd, &c, 16 + n);
}

static int event_fd;
static volatile unsigned long alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/*
 * A SIGALRM every few microseconds, handled without SA_RESTART, while the supervised calls
 * run: the kernel's own write/fstat/open of these files never fail with EINTR, and a signal
 * that comes before the daemon has taken the notification must not make them fail either.
 */
static void signal_storm(int fd, const char *tmpdir)
{
	struct sigaction sa = { .sa_handler = on_alarm }; /* sa_flags 0: no SA_RESTART */
	struct itimerval every = { .it_interval = { 0, 199 }, .it_value = { 0, 199 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	unsigned long writes = 0, write_eintr = 0, stats = 0, stat_eintr = 0, opens = 0, open_eintr = 0;
	unsigned long files = 0, file_eintr = 0, wrong = 0;
	struct timespec start, now;
	char path[256], buf[1];
	uint32_t out[4], in[1] = { 0x29 };
	struct stat st;
	int pipefd[2];

	snprintf(path, sizeof(path), "%s/storm", tmpdir);
	sigaction(SIGALRM, &sa, NULL);
	if (pipe(pipefd) == 0) {
		alarm(1);
		check(read(pipefd[0], buf, 1) < 0 && errno == EINTR,
		      "the handler has no SA_RESTART: a read of an empty pipe ends with EINTR");
		close(pipefd[0]);
		close(pipefd[1]);
	}
	{
		char fifo[256];
		int f;
		snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
		if (mkfifo(fifo, 0600) == 0) {
			alarm(1);
			f = open(fifo, O_WRONLY | O_CLOEXEC); /* no reader: sleeps until the signal */
			check(f < 0 && errno == EINTR, "an open of a FIFO with no reader still ends with EINTR");
			unlink(fifo);
		}
	}
	alarms = 0;
	setitimer(ITIMER_REAL, &every, NULL);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		int i;
		for (i = 0; i < 200; i++) {
			ssize_t n = command(fd, ECHO, out, in, 4);
			writes++;
			if (n < 0 && errno == EINTR)
				write_eintr++;
			else if (n != 20 || out[0] != 0x0101012a) { /* each byte plus one */
				if (!wrong++)
					printf("# storm: write gave %zd, response %u, errno %d\n", n, out[0], errno);
			}
			stats++;
			if (fstat(fd, &st) < 0) {
				if (errno == EINTR)
					stat_eintr++;
				else if (!wrong++)
					printf("# storm: fstat errno %d\n", errno);
			}
		}
		for (i = 0; i < 20; i++) {
			int o = open(SUP0, O_RDWR | O_CLOEXEC), w;
			opens++;
			if (o >= 0)
				close(o);
			else if (errno == EINTR)
				open_eintr++;
			else if (!wrong++)
				printf("# storm: device open errno %d\n", errno);
			w = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
			files++;
			if (w >= 0)
				close(w);
			else if (errno == EINTR)
				file_eintr++;
			else if (!wrong++)
				printf("# storm: file open errno %d\n", errno);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec < 3);
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	printf("# signal storm: %lu signals; %lu writes (%lu EINTR), %lu fstats (%lu), %lu device opens (%lu), "
	       "%lu file opens (%lu)\n", alarms, writes, write_eintr, stats, stat_eintr, opens, open_eintr, files, file_eintr);
	check(alarms > 1000, "the storm delivered signals during the calls");
	check(write_eintr == 0 && stat_eintr == 0, "no supervised write or fstat ends with EINTR");
	check(open_eintr == 0 && file_eintr == 0, "no supervised open ends with EINTR");
	check(wrong == 0, "every call of the storm gave its right answer");
}
static uint32_t read_value;
static volatile int read_done;

static void *reader(void *arg)
{
	(void)arg;
	if (read(event_fd, &read_value, 4) == 4)
		read_done = 1;
	else
		read_done = -1;
	return NULL;
}

int main(int argc, char **argv)
{
	struct rlimit limit;
	struct stat st, by_path;
	struct statx stx;
	unsigned base;
	int fd, s, status;
	unsigned char in[4] = { 1, 2, 3, 4 }, out[4] = { 0 };
	uint32_t who[2], value;
	char tmp[4096];

	getrlimit(RLIMIT_NOFILE, &limit);
	base = (limit.rlim_cur < 1024 ? (unsigned)limit.rlim_cur : 1024) - 64;

	errno = 0;
	s = socket(AF_NETLINK, SOCK_RAW, NETLINK_RDMA);
	check(s < 0 && errno == EPROTONOSUPPORT, "socket(AF_NETLINK, NETLINK_RDMA) fails with EPROTONOSUPPORT");
	s = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	check(s >= 0, "socket(AF_NETLINK, NETLINK_ROUTE) works");
	close(s);

	errno = 0;
	check(open(SUP0, O_RDONLY) < 0 && errno == EACCES, "O_RDONLY open of the node is EACCES (nodev)");

	fd = open(SUP0, O_RDWR | O_CLOEXEC);
	check(fd >= (int)base && fd < (int)base + 64, "O_RDWR open lands in the reserved range");
	printf("# fd %d base %u\n", fd, base);
	check((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0, "O_CLOEXEC is kept");

	check(fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(231, 192)
	      && (st.st_mode & 07777) == 0666, "fstat: a char device 231:192, mode 0666");
	check(stat(SUP0, &by_path) == 0 && S_ISCHR(by_path.st_mode) && by_path.st_rdev == st.st_rdev
	      && by_path.st_ino == st.st_ino && by_path.st_dev == st.st_dev && by_path.st_mode == st.st_mode,
	      "stat by path shows the same node as fstat");
	check(statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) == 0 && S_ISCHR(stx.stx_mode)
	      && stx.stx_rdev_major == 231 && stx.stx_rdev_minor == 192, "statx(AT_EMPTY_PATH): the node");

	check(command(fd, ECHO, out, in, 4) == 20 && out[0] == 2 && out[3] == 5,
	      "write is served by the device, response in the caller's memory");
	{
		struct command c = { .cmd = ECHO, .response = (uintptr_t)out };
		struct iovec iov[2] = { { &c, 16 }, { in, 4 } };
		memset(out, 0, 4);
		check(writev(fd, iov, 2) == 20 && out[0] == 2 && out[3] == 5, "writev is joined and served");
	}
	check(command(fd, WHO, who, NULL, 0) == 16 && who[0] == (uint32_t)gettid() && who[1] == getuid(),
	      "the device sees the caller's tid and uid");
	errno = 0;
	check(command(fd, 99, out, NULL, 0) < 0 && errno == EINVAL, "a device errno reaches the caller");
	errno = 0;
	check(pwrite(fd, tmp, 16, 0) < 0 && errno == ESPIPE, "pwrite is ESPIPE");
	{
		/* the daemon remembers which file a (tid, fd) was; every close must make it forget */
		struct stat ts;
		int d = open(SUP0, O_RDWR | O_CLOEXEC), t, keep;
		int served = d >= 0 && command(d, ECHO, out, in, 4) == 20 && command(d, ECHO, out, in, 4) == 20;
		keep = dup(d); /* the open file outlives the number: no release, only the close tells */
		snprintf(tmp, sizeof(tmp), "%s/dup2-target", argc > 1 ? argv[1] : "/tmp");
		t = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0600);
		check(served && keep >= 0 && t >= 0 && dup2(t, d) == d && command(d, ECHO, out, in, 4) == 20 && fstat(t, &ts) == 0
			      && ts.st_size == 20,
		      "after dup2 over a supervised fd, its writes reach the new file");
		close(keep);
		close(d);
		d = open(SUP0, O_RDWR | O_CLOEXEC);
		check(d >= 0 && command(d, ECHO, out, in, 4) == 20 && out[0] == 2 && fstat(t, &ts) == 0 && ts.st_size == 20,
		      "a supervised open at that number is served by the device again");
		close(d);
		close(t);
	}

	event_fd = -1;
	check(command(fd, NEW_FD, &event_fd, NULL, 0) == 16 && event_fd >= 0 && event_fd < (int)base,
	      "a command installs a new fd at the lowest free number");
	printf("# event fd %d\n", event_fd);
	check((fcntl(event_fd, F_GETFD) & FD_CLOEXEC) != 0, "the new fd is close-on-exec");
	{
		struct pollfd p = { .fd = event_fd, .events = POLLIN };
		check(poll(&p, 1, 200) == 0, "poll of the new fd waits while no event is queued");
	}
	{
		pthread_t t;
		pthread_create(&t, NULL, reader, NULL);
		usleep(300000);
		check(read_done == 0, "read of the new fd blocks");
		value = 42;
		check(command(fd, EVENT, NULL, &value, 4) == 20, "an event is queued");
		pthread_join(t, NULL);
		check(read_done == 1 && read_value == 42, "the blocked read returns the event");
	}
	{
		struct pollfd p = { .fd = event_fd, .events = POLLIN };
		value = 7;
		command(fd, EVENT, NULL, &value, 4);
		check(poll(&p, 1, 2000) == 1 && (p.revents & POLLIN), "poll reports the queued event");
		check(read(event_fd, &value, 4) == 4 && value == 7, "read returns it");
	}

	fflush(stdout);
	if (fork() == 0) {
		struct stat cs;
		unsigned char o[4] = { 0 };
		int ok = command(fd, ECHO, o, in, 4) == 20 && o[0] == 2 && fstat(fd, &cs) == 0 && S_ISCHR(cs.st_mode)
			 && command(fd, WHO, who, NULL, 0) == 16 && who[0] == (uint32_t)gettid();
		_exit(ok ? 0 : 1);
	}
	check(wait(&status) > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "a forked child writes and fstats the inherited fd");

	fflush(stdout);
	if (fork() == 0) {
		int a, b;
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(2);
		errno = 0;
		a = open(SUP1, O_RDWR);
		if (!(a < 0 && errno == EACCES))
			_exit(3);
		b = open(SUP0, O_RDWR);
		if (b < 0)
			_exit(4);
		close(b);
		_exit(0);
	}
	check(wait(&status) > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "as nobody: the 0600 node is EACCES, the 0666 node opens");

	{
		int p = open(PLAIN, O_RDWR);
		memset(out, 0, 4);
		check(p >= 0 && p < (int)base, "a plain FUSE file opens outside the range");
		check(command(p, ECHO, out, in, 4) == 20 && out[0] == 2, "and its writes go through FUSE");
		errno = 0;
		check(command(p, NEW_FD, &value, NULL, 0) < 0 && errno == EOPNOTSUPP,
		      "installFile from a FUSE request is EOPNOTSUPP");
		close(p);
	}
	{
		/* a node whose open only is supervised (umad): a FUSE file at the lowest free fd */
		struct stat node, file;
		int o = open(OPEN_ONLY, O_RDWR);
		memset(out, 0, 4);
		check(o >= 0 && o < (int)base, "an open-only node opens outside the range");
		check(stat(OPEN_ONLY, &node) == 0 && S_ISCHR(node.st_mode) && node.st_rdev == makedev(231, 194)
		      && fstat(o, &file) == 0 && S_ISREG(file.st_mode),
		      "its node is 231:194 to stat, its descriptor the FUSE file to fstat");
		check(command(o, ECHO, out, in, 4) == 20 && out[0] == 2, "and its writes go through FUSE");
		close(o);
	}
	{
		int w;
		snprintf(tmp, sizeof(tmp), "%s/written", argc > 1 ? argv[1] : "/tmp");
		w = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		check(w >= 0 && write(w, "data", 4) == 4 && close(w) == 0, "other files open and write as usual");
	}
	{
		/* not a check: what one supervised write and one fstat cost, for docs/performance.md */
		struct timespec a, b;
		int i, n = 20000;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (i = 0; i < n; i++)
			command(fd, ECHO, out, in, 4);
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("# supervised write: %.1f us\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n / 1e3);
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (i = 0; i < n; i++)
			fstat(fd, &st);
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("# supervised fstat: %.1f us\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n / 1e3);
	}
	signal_storm(fd, argc > 1 ? argv[1] : "/tmp");
	close(event_fd);
	close(fd);
	printf("1..%d\n", checks);
	return failures ? 1 : 0;
}
