/*
 * cuse_echo - a character device served from user space through CUSE (libfuse2's
 * cuse_lowlevel), for KernelVmTest: it checks in the kernel VM (scripts/kernel-vm,
 * whose kernel has CUSE; the host's has not) what a CUSE backend of devfs would rely on.
 *
 *   cuse_echo DEVNAME MAJOR MINOR      e.g. cuse_echo infiniband/umad9 231 9
 *
 * read() answers "cuse\n"; ioctl(fd, any, &u64) uses the unrestricted ioctl protocol
 * (CUSE_UNRESTRICTED_IOCTL): it asks the kernel to fetch 8 bytes at the caller's
 * pointer (fuse_reply_ioctl_retry) and returns their low byte.
 * Runs in the foreground until killed.
 *
 * Build: gcc -O2 -Wall -o cuse_echo cuse_echo.c -lfuse
 */
#define _FILE_OFFSET_BITS 64
#define FUSE_USE_VERSION 29
#include <fuse/cuse_lowlevel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

static void echo_open(fuse_req_t req, struct fuse_file_info *fi)
{
	fuse_reply_open(req, fi);
}

static void echo_read(fuse_req_t req, size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)off;
	(void)fi;
	fuse_reply_buf(req, "cuse\n", size < 5 ? size : 5);
}

static void echo_ioctl(fuse_req_t req, int cmd, void *arg, struct fuse_file_info *fi, unsigned flags,
		       const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	unsigned long long v;
	(void)cmd;
	(void)fi;
	(void)flags;
	(void)out_bufsz;
	if (in_bufsz < sizeof(v)) {
		struct iovec iov = { arg, sizeof(v) };
		fuse_reply_ioctl_retry(req, &iov, 1, NULL, 0);
		return;
	}
	memcpy(&v, in_buf, sizeof(v));
	fuse_reply_ioctl(req, (int)(v & 0xff), NULL, 0);
}

static const struct cuse_lowlevel_ops ops = {
	.open = echo_open,
	.read = echo_read,
	.ioctl = echo_ioctl,
};

int main(int argc, char **argv)
{
	char devname[256];
	const char *info[1];
	char *fargv[] = { argv[0], "-f", NULL };
	struct cuse_info ci;
	if (argc != 4) {
		fprintf(stderr, "usage: %s DEVNAME MAJOR MINOR\n", argv[0]);
		return 2;
	}
	snprintf(devname, sizeof(devname), "DEVNAME=%s", argv[1]);
	info[0] = devname;
	memset(&ci, 0, sizeof(ci));
	ci.dev_major = (unsigned)atoi(argv[2]);
	ci.dev_minor = (unsigned)atoi(argv[3]);
	ci.dev_info_argc = 1;
	ci.dev_info_argv = info;
	ci.flags = CUSE_UNRESTRICTED_IOCTL;
	return cuse_lowlevel_main(2, fargv, &ci, &ops, NULL);
}
