/*
 * floor.c - the cheapest possible FUSE umad: a C libfuse2 (high-level API)
 * file system serving one file, "umad0", that answers like a umad device
 * without doing any work. Its round-trip times are the floor ibemu is
 * measured against (scripts/bench-umad).
 *
 *   ioctl REGISTER_AGENT(2) -> id 0;  UNREGISTER_AGENT, ENABLE_PKEY -> 0;
 *   other ioctls -> ENOTTY
 *   write -> the count; marks a response pending (and wakes pollers)
 *   poll  -> POLLOUT, plus POLLIN while a response is pending
 *   read  -> a canned 64 + 256 byte GetResp(NodeInfo) if pending, else EAGAIN
 *   open  -> direct_io + nonseekable (as the real daemon must)
 * and a second file, "uverbs0", whose write returns the count and does
 * nothing else: the floor of a uverbs write() command (scripts/bench-verbs).
 *
 * Build: gcc -O2 -Wall -o floor floor.c $(pkg-config fuse --cflags --libs)
 * Run:   ./floor MOUNTPOINT -f -o max_read=131072,big_writes,max_write=131072
 *        (add -s for a single-threaded loop)
 */
#define FUSE_USE_VERSION 29
#include <errno.h>
#include <fuse.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include <rdma/ib_user_mad.h>
#include <rdma/rdma_user_ioctl.h>

static const char *FILE_PATH = "/umad0";
static const char *VERBS_PATH = "/uverbs0";
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int pending;
static struct fuse_pollhandle *waiter;
static unsigned char canned[sizeof(struct ib_user_mad_hdr) + 256];

static void make_canned(void)
{
	struct ib_user_mad_hdr *h = (struct ib_user_mad_hdr *)canned;
	unsigned char *m = canned + sizeof(*h);

	h->length = sizeof(canned);
	h->lid = 0xffff;
	m[0] = 1;          /* base version */
	m[1] = 0x81;       /* directed-route SMP */
	m[2] = 1;
	m[3] = 0x81;       /* GetResp */
	m[4] = 0x80;       /* status: direction bit */
	m[17] = 0x11;      /* NodeInfo */
	m[64 + 2] = 1;     /* NodeType CA */
}

static int fl_getattr(const char *path, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, FILE_PATH) == 0 || strcmp(path, VERBS_PATH) == 0) {
		st->st_mode = S_IFREG | 0666;
		st->st_nlink = 1;
		return 0;
	}
	return -ENOENT;
}

static int fl_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi)
{
	(void)off;
	(void)fi;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0);
	fill(buf, "..", NULL, 0);
	fill(buf, FILE_PATH + 1, NULL, 0);
	fill(buf, VERBS_PATH + 1, NULL, 0);
	return 0;
}

static int fl_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, VERBS_PATH) == 0)
		fi->fh = 1; /* writes only: no pending response */
	else if (strcmp(path, FILE_PATH) != 0)
		return -ENOENT;
	fi->direct_io = 1;
	fi->nonseekable = 1;
	return 0;
}

static int fl_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	int have;
	(void)path;
	(void)off;
	(void)fi;
	pthread_mutex_lock(&lock);
	have = pending;
	if (have && size >= sizeof(canned))
		pending = 0;
	pthread_mutex_unlock(&lock);
	if (!have)
		return -EAGAIN;
	if (size < sizeof(canned))
		return -EINVAL;
	memcpy(buf, canned, sizeof(canned));
	return sizeof(canned);
}

static int fl_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct fuse_pollhandle *ph;
	(void)path;
	(void)buf;
	(void)off;
	if (fi->fh == 1)
		return size;
	pthread_mutex_lock(&lock);
	pending = 1;
	ph = waiter;
	waiter = NULL;
	pthread_mutex_unlock(&lock);
	if (ph) {
		fuse_notify_poll(ph);
		fuse_pollhandle_destroy(ph);
	}
	return size;
}

static int fl_poll(const char *path, struct fuse_file_info *fi, struct fuse_pollhandle *ph,
		   unsigned *reventsp)
{
	struct fuse_pollhandle *old = NULL;
	(void)path;
	(void)fi;
	pthread_mutex_lock(&lock);
	*reventsp = POLLOUT | POLLWRNORM;
	if (pending) {
		*reventsp |= POLLIN | POLLRDNORM;
		old = ph;
	} else if (ph) {
		old = waiter;
		waiter = ph;
	}
	pthread_mutex_unlock(&lock);
	if (old)
		fuse_pollhandle_destroy(old);
	return 0;
}

static int fl_ioctl(const char *path, int cmd, void *arg, struct fuse_file_info *fi,
		    unsigned int flags, void *data)
{
	(void)path;
	(void)arg;
	(void)fi;
	(void)flags;
	switch ((unsigned int)cmd) {
	case IB_USER_MAD_REGISTER_AGENT:
		((struct ib_user_mad_reg_req *)data)->id = 0;
		return 0;
	case IB_USER_MAD_REGISTER_AGENT2:
		((struct ib_user_mad_reg_req2 *)data)->id = 0;
		return 0;
	case IB_USER_MAD_UNREGISTER_AGENT:
	case IB_USER_MAD_ENABLE_PKEY:
		return 0;
	default:
		return -ENOTTY;
	}
}

static struct fuse_operations ops = {
	.getattr = fl_getattr,
	.readdir = fl_readdir,
	.open = fl_open,
	.read = fl_read,
	.write = fl_write,
	.poll = fl_poll,
	.ioctl = fl_ioctl,
	.flag_nopath = 1,
};

int main(int argc, char *argv[])
{
	make_canned();
	return fuse_main(argc, argv, &ops, NULL);
}
