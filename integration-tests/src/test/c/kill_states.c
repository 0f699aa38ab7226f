/*
 * kill_states.c - gets into one blocking state of an emulated device and stays there,
 * for KillMatrixTest to kill -9 it.
 *
 * Build: gcc -O2 -Wall -o kill_states kill_states.c
 * Run:   ./kill_states STATE   inside an instance; prints "ready PID" just before it blocks.
 * STATE: umad-read   a blocking read of a umad file with an agent registered (GET of class 0x0d)
 *        umad-poll   poll(2) for input on another (an agent without methods: no clash)
 *        issm-hold   holds issm (IsSM set) and sleeps
 *        issm-open   a blocking open of issm (held by another process)
 *        verbs-loop  create/destroy CQs, register/deregister memory, until a command fails
 *        comp-read   a blocking read of a completion channel (CQ armed, nothing completes)
 * Exit 0 only if the blocking call returned (it should not: it waits to be killed).
 */
#include "probe.h"
#include "uverbs_probe.h"

static void ready(void)
{
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
}

static int umad_blocked(int poll_it)
{
	uint8_t buf[4096];
	uint32_t id;
	struct uf u;
	if (uf_open(&u, 0) < 0 || reg1(u.fd, 1, 0x0d, 1, 0, poll_it ? 0 : 1ULL << M_GET, 0, 0, &id))
		t_bail("umad: %s", strerror(errno));
	ready();
	if (poll_it) {
		struct pollfd p = { u.fd, POLLIN, 0 };
		return poll(&p, 1, -1) == 1 ? 0 : 1;
	}
	return read(u.fd, buf, sizeof(buf)) >= 0 ? 0 : 1;
}

static int verbs(int comp_read)
{
	struct ib_uverbs_get_context_resp ctx;
	static uint8_t mem[1 << 16];
	int fd = open(uverbs_path(), O_RDWR | O_CLOEXEC), ch;
	long pd, cq, mr;
	uint32_t lkey, rkey;
	uint64_t i;

	if (fd < 0 || uv_get_context(fd, &ctx) || (pd = uv_alloc_pd(fd)) < 0)
		t_bail("uverbs: %s", strerror(errno));
	if (comp_read) {
		struct ib_uverbs_comp_event_desc ev;
		if ((ch = uv_create_comp_channel(fd)) < 0 || (cq = uv_create_cq(fd, 16, ch, 0, 1, NULL)) < 0
		    || uv_req_notify(fd, (uint32_t)cq, 0))
			t_bail("comp channel: %s", strerror(errno));
		ready();
		return read(ch, &ev, sizeof(ev)) >= 0 ? 0 : 1;
	}
	ready();
	for (i = 0;; i++) {
		cq = uv_create_cq(fd, 16 + (uint32_t)(i % 64), -1, 0, i, NULL);
		mr = uv_reg_mr(fd, (uint32_t)pd, mem, sizeof(mem), (uintptr_t)mem, ACC_LOCAL_WRITE, &lkey, &rkey);
		if (cq < 0 || mr < 0)
			return 3; /* the device is gone (the daemon was killed): stop, do not spin */
		uv_destroy_cq(fd, (uint32_t)cq, NULL);
		uv_dereg_mr(fd, (uint32_t)mr);
	}
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "";
	int fd;

	if (!strcmp(s, "umad-read"))
		return umad_blocked(0);
	if (!strcmp(s, "umad-poll"))
		return umad_blocked(1);
	if (!strcmp(s, "issm-hold") || !strcmp(s, "issm-open")) {
		int hold = !strcmp(s, "issm-hold");
		if (hold) {
			if ((fd = open(issm_path(), O_RDWR | O_NONBLOCK)) < 0)
				t_bail("issm: %s", strerror(errno));
			ready();
			for (;;)
				pause();
		}
		ready();
		return open(issm_path(), O_RDWR) >= 0 ? 0 : 1;
	}
	if (!strcmp(s, "verbs-loop"))
		return verbs(0);
	if (!strcmp(s, "comp-read"))
		return verbs(1);
	fprintf(stderr, "unknown state '%s'\n", s);
	return 2;
}
