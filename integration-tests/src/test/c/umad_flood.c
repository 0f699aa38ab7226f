/*
 * umad_flood.c - a client that sends SubnGet(NodeInfo) and never reads the replies.
 *
 * Build: gcc -O2 -Wall -o umad_flood umad_flood.c
 * Run:   ./umad_flood COUNT   (IBEMU_UMAD overrides the path)
 *
 * Each reply waits in the file's receive list; with a small daemon heap they exhaust it
 * (HeapExhaustionTest). Prints "sent N" and, if a write fails, "error ERRNO-NAME after N".
 * Exit 0 when all COUNT were written, 1 when a write failed.
 */
#include "probe.h"

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 100000, i;
	uint8_t mad[MAD_SIZE];
	struct uaddr a;
	struct uf u;
	uint32_t id;

	if (uf_open(&u, 0) < 0) {
		printf("error %s at open\n", ename(errno));
		return 1;
	}
	if (reg1(u.fd, 0, CLS_SUBN_DR, 1, 0, 0, 0, 0, &id)) {
		printf("error %s at register\n", ename(errno));
		return 1;
	}
	uaddr_dr(&a, id);
	for (i = 0; i < count; i++) {
		dr_smp(mad, M_GET, ATTR_NODE_INFO, 0, (uint64_t)i + 1);
		if (uf_send(&u, &a, mad, MAD_SIZE) < 0) {
			printf("error %s after %ld\n", ename(errno), i);
			fflush(stdout);
			return 1;
		}
	}
	printf("sent %ld\n", i);
	return 0;
}
