/*
 * Preloaded into the ibemu daemon: makes libfuse2 answer the open of a nonseekable file
 * with FOPEN_STREAM, as the kernel's umad and uverbs use stream_open().
 *
 * Without it the kernel treats our files as regular files with FMODE_ATOMIC_POS, and a
 * blocked read() holds the file position lock, so a write() from another thread of the
 * same process (OpenSM's sender while its receiver waits) waits for the read to end.
 * libfuse 2.9 has no way to set FOPEN_STREAM (it arrived with libfuse 3.?), so this
 * replaces fuse_reply_open with the same reply plus that bit.
 */
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

typedef struct fuse_req *fuse_req_t;

/* libfuse2's struct fuse_file_info (x86_64 and aarch64 LP64 layout). */
struct fuse_file_info2 {
	int flags;
	unsigned long fh_old;
	int writepage;
	unsigned int direct_io : 1;
	unsigned int keep_cache : 1;
	unsigned int flush : 1;
	unsigned int nonseekable : 1;
	unsigned int flock_release : 1;
	unsigned int padding : 27;
	uint64_t fh;
	uint64_t lock_owner;
};

/* <linux/fuse.h> */
struct fuse_open_out {
	uint64_t fh;
	uint32_t open_flags;
	uint32_t padding;
};
#define FOPEN_DIRECT_IO (1 << 0)
#define FOPEN_KEEP_CACHE (1 << 1)
#define FOPEN_NONSEEKABLE (1 << 2)
#define FOPEN_STREAM (1 << 4)

int fuse_reply_iov(fuse_req_t req, const struct iovec *iov, int count);

int fuse_reply_open(fuse_req_t req, const struct fuse_file_info2 *f)
{
	struct fuse_open_out arg;
	struct iovec iov = { &arg, sizeof(arg) };

	memset(&arg, 0, sizeof(arg));
	arg.fh = f->fh;
	if (f->direct_io)
		arg.open_flags |= FOPEN_DIRECT_IO;
	if (f->keep_cache)
		arg.open_flags |= FOPEN_KEEP_CACHE;
	if (f->nonseekable)
		arg.open_flags |= FOPEN_NONSEEKABLE | FOPEN_STREAM;
	return fuse_reply_iov(req, &iov, 1);
}
