/*
 * notify_floor [-n N] [-w WARMUP] - the cost of one seccomp user notification on this kernel:
 * a child under a filter that notifies getppid(2) calls it N times; the parent answers each
 * with CONTINUE, as ibemu's supervisor answers a umad read it has checked. Prints the round
 * trip (caller's syscall until its return) with the listener in the mode ibemu uses
 * (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, waiting in SECCOMP_IOCTL_NOTIF_RECV) and, for
 * comparison, with a poll(2) before each RECV and without the synchronous wake-up.
 *
 * A umad SMP under the socket carrier costs two such round trips (the write, the read's
 * check): twice this figure is the floor of any supervisor, before any work of its own.
 * Not a test: it prints numbers.
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* <linux/seccomp.h> of Linux 6.6; older headers lack them */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1UL
#endif

static int send_fd(int sock, int fd)
{
	char byte = 0, control[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &byte, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof(control) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int receive_fd(int sock)
{
	char byte, control[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &byte, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof(control) };
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &m, 0) != 1 || !(c = CMSG_FIRSTHDR(&m)))
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* The caller: installs the filter, hands its listener over, times n notified calls. */
static void caller(int sock, long n, long warmup)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog program = { sizeof(code) / sizeof(code[0]), code };
	struct timespec a, b;
	int listener;
	long i;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    (listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &program)) < 0 ||
	    send_fd(sock, listener)) {
		perror("notify_floor: filter");
		_exit(1);
	}
	close(listener);
	for (i = 0; i < warmup; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (write(sock, &(double){ ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n / 1000.0 },
		  sizeof(double)) != sizeof(double))
		_exit(1);
	_exit(0);
}

/* One run: the round trip in µs with the listener in the given mode, or -1. */
static double run(long n, long warmup, int sync_wake, int poll_first)
{
	int pair[2], listener;
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	double us = -1;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pair[1]);
		caller(pair[0], n, warmup);
	}
	close(pair[0]);
	listener = receive_fd(pair[1]);
	if (listener < 0)
		return -1;
	if (sync_wake && ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP))
		fprintf(stderr, "notify_floor: no SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux 6.6+)\n");
	for (;;) {
		if (poll_first) {
			struct pollfd p = { listener, POLLIN, 0 };
			if (poll(&p, 1, -1) < 0 || !(p.revents & POLLIN))
				break;
		}
		memset(&req, 0, sizeof(req));
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req))
			break; /* ENOENT once the caller has exited */
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
	if (read(pair[1], &us, sizeof(us)) != sizeof(us))
		us = -1;
	waitpid(pid, NULL, 0);
	close(listener);
	close(pair[1]);
	return us;
}

int main(int argc, char **argv)
{
	long n = 200000, warmup = 20000;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0); /* nothing buffered for a forked caller to print again */
	while ((opt = getopt(argc, argv, "n:w:")) != -1) {
		if (opt == 'n')
			n = atol(optarg);
		else if (opt == 'w')
			warmup = atol(optarg);
		else {
			fprintf(stderr, "usage: notify_floor [-n N] [-w WARMUP]\n");
			return 2;
		}
	}
	printf("notify_us mode=recv,sync_wake %.2f\n", run(n, warmup, 1, 0));
	printf("notify_us mode=poll+recv,sync_wake %.2f\n", run(n, warmup, 1, 1));
	printf("notify_us mode=recv %.2f\n", run(n / 10, warmup / 10, 0, 0));
	return 0;
}
