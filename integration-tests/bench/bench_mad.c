/*
 * bench_mad.c - per-MAD cost of a umad device under two client patterns, through
 * libibumad (umad_send/umad_recv) with MADs built by libibmad's field accessors:
 *
 *   pipeline: N directed-route SubnGet(NodeInfo) along one path, all sent before
 *             any answer is read (the load of ibsim's tests/query_many), then
 *             every answer read and checked.
 *   discover: a breadth-first directed-route sweep of the whole subnet with a
 *             window of W SMPs in flight (the load of ibsim's
 *             tests/subnet_discover): NodeInfo of each node reached, then its
 *             NodeDescription, SwitchInfo (switches) and PortInfo of each port;
 *             every LinkUp switch port (and the local CA's own port) leads on.
 *
 * Build: gcc -O2 -Wall -o bench_mad bench_mad.c -libmad -libumad
 * Run:   ./bench_mad pipeline [-n N] [-d PATH] [-t TIMEOUT_MS]
 *        ./bench_mad discover [-w WINDOW] [-t TIMEOUT_MS]
 *        PATH: out-ports from the local port, e.g. 0,1 (one hop: the first switch)
 * Prints one line: "MODE mads=M nodes=K wall_ms=T per_mad_us=U cpu_ms=C errors=E"
 * where cpu_ms is this process's user+system time. Exit status 1 on any error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "bench_time.h"

#define MAX_PATH 64
#define PHYS_LINK_UP 5

static int timeout_ms = 1000;
static int retries = 3;
static int fd, agent;
static size_t umad_len;
static unsigned errors;

static double cpu_ms(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3
	    + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* A SubnGet along a directed route from the local port (both LIDs permissive). */
static void build_get(void *umad, const uint8_t *path, int hops, uint32_t tid,
		      int attr, uint32_t mod)
{
	void *mad = umad_get_mad(umad);

	memset(umad, 0, umad_len);
	umad_set_addr(umad, 0xffff, 0, 0, 0);
	mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, IB_SMI_DIRECT_CLASS);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
	mad_set_field(mad, 0, IB_DRSMP_HOPCNT_F, hops);
	mad_set_field(mad, 0, IB_DRSMP_HOPPTR_F, 0);
	mad_set_field(mad, 0, IB_DRSMP_DRSLID_F, 0xffff);
	mad_set_field(mad, 0, IB_DRSMP_DRDLID_F, 0xffff);
	mad_set_array(mad, 0, IB_DRSMP_PATH_F, (void *)path);
	mad_set_field64(mad, 0, IB_MAD_TRID_F, tid);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, attr);
	mad_set_field(mad, 0, IB_MAD_ATTRMOD_F, mod);
}

static void send_get(void *umad)
{
	if (umad_send(fd, agent, umad, IB_MAD_SIZE, timeout_ms, retries) < 0) {
		fprintf(stderr, "bench_mad: umad_send: %s\n", strerror(errno));
		exit(1);
	}
}

/* The next answer to our agent: its MAD, or NULL after a timeout or an error status. */
static void *receive(void *umad)
{
	int len, ret;
	do {
		len = IB_MAD_SIZE;
		ret = umad_recv(fd, umad, &len, timeout_ms * (retries + 2));
	} while (ret >= 0 && ret != agent);
	if (ret < 0) {
		fprintf(stderr, "bench_mad: umad_recv: %s\n", strerror(errno));
		exit(1);
	}
	void *mad = umad_get_mad(umad);
	if (umad_status(umad) || mad_get_field(mad, 0, IB_DRSMP_STATUS_F)) {
		errors++;
		return NULL;
	}
	return mad;
}

/* ---- pipeline ---- */

static int parse_path(const char *s, uint8_t *path)
{
	int n = 0;
	while (n < MAX_PATH - 1) {
		path[n] = strtoul(s, NULL, 0);
		s = strchr(s, ',');
		if (!s)
			break;
		s++;
		n++;
	}
	return n; /* path[0] is the local port's slot; hops = entries after it */
}

static void pipeline(unsigned n, const uint8_t *path, int hops)
{
	void *umad = malloc(umad_len);
	unsigned i;
	double t0 = now_us(), c0 = cpu_ms(), t1;

	for (i = 0; i < n; i++) {
		build_get(umad, path, hops, 0x10000 + i, IB_ATTR_NODE_INFO, 0);
		send_get(umad);
	}
	t1 = now_us();
	for (i = 0; i < n; i++) {
		void *mad = receive(umad);
		if (mad && mad_get_field(mad, 0, IB_MAD_ATTRID_F) != IB_ATTR_NODE_INFO)
			errors++;
	}
	double wall = now_us() - t0;
	printf("pipeline mads=%u nodes=1 wall_ms=%.1f per_mad_us=%.2f send_ms=%.1f cpu_ms=%.1f errors=%u\n",
	       n, wall / 1e3, wall / n, (t1 - t0) / 1e3, cpu_ms() - c0, errors);
	free(umad);
}

/* ---- discover ---- */

struct node {
	uint64_t guid;
	int is_switch, nports, hops;
	uint8_t path[MAX_PATH];
	int arrival; /* the port the sweep came in by */
};

struct request {
	int node; /* the node asked (NodeInfo: the node the path leaves from) */
	int attr, hops;
	uint32_t mod;
	uint8_t path[MAX_PATH];
};

static struct node *nodes;
static int n_nodes, cap_nodes;
static int64_t *guid_slots; /* open addressing: node index + 1, 0 = free */
static unsigned guid_cap;
static struct request *reqs;
static unsigned n_reqs, cap_reqs, next_to_send, in_flight, window = 8;

static unsigned guid_hash(uint64_t g)
{
	g ^= g >> 33;
	g *= 0xff51afd7ed558ccdULL;
	g ^= g >> 33;
	return (unsigned)g & (guid_cap - 1);
}

static int find_node(uint64_t guid)
{
	for (unsigned h = guid_hash(guid);; h = (h + 1) & (guid_cap - 1)) {
		if (!guid_slots[h])
			return -1;
		if (nodes[guid_slots[h] - 1].guid == guid)
			return guid_slots[h] - 1;
	}
}

static void grow_guids(void)
{
	unsigned old_cap = guid_cap;
	int64_t *old = guid_slots;
	guid_cap = old_cap ? old_cap * 2 : 1024;
	guid_slots = calloc(guid_cap, sizeof(*guid_slots));
	for (unsigned i = 0; i < old_cap; i++) {
		if (!old[i])
			continue;
		unsigned h = guid_hash(nodes[old[i] - 1].guid);
		while (guid_slots[h])
			h = (h + 1) & (guid_cap - 1);
		guid_slots[h] = old[i];
	}
	free(old);
}

static int add_node(uint64_t guid, int is_switch, int nports, const uint8_t *path, int hops, int arrival)
{
	if (n_nodes == cap_nodes) {
		cap_nodes = cap_nodes ? cap_nodes * 2 : 1024;
		nodes = realloc(nodes, cap_nodes * sizeof(*nodes));
	}
	if ((unsigned)(n_nodes + 1) * 2 > guid_cap)
		grow_guids();
	struct node *nd = &nodes[n_nodes];
	nd->guid = guid;
	nd->is_switch = is_switch;
	nd->nports = nports;
	nd->hops = hops;
	nd->arrival = arrival;
	memcpy(nd->path, path, MAX_PATH);
	unsigned h = guid_hash(guid);
	while (guid_slots[h])
		h = (h + 1) & (guid_cap - 1);
	guid_slots[h] = n_nodes + 1;
	return n_nodes++;
}

static void queue_get(int node, const uint8_t *path, int hops, int attr, uint32_t mod)
{
	if (n_reqs == cap_reqs) {
		cap_reqs = cap_reqs ? cap_reqs * 2 : 4096;
		reqs = realloc(reqs, cap_reqs * sizeof(*reqs));
	}
	struct request *r = &reqs[n_reqs++];
	r->node = node;
	r->attr = attr;
	r->mod = mod;
	r->hops = hops;
	memcpy(r->path, path, MAX_PATH);
}

/* Sends queued requests while the window has room; the TID is the request's index. */
static void send_window(void *umad)
{
	while (in_flight < window && next_to_send < n_reqs) {
		struct request *r = &reqs[next_to_send];
		build_get(umad, r->path, r->hops, next_to_send, r->attr, r->mod);
		send_get(umad);
		next_to_send++;
		in_flight++;
	}
}

static void node_answered(struct request *r, void *data)
{
	uint64_t guid = mad_get_field64(data, 0, IB_NODE_GUID_F);
	if (find_node(guid) >= 0)
		return; /* a second way to a node already found */
	int is_switch = mad_get_field(data, 0, IB_NODE_TYPE_F) == IB_NODE_SWITCH;
	int nports = mad_get_field(data, 0, IB_NODE_NPORTS_F);
	int arrival = mad_get_field(data, 0, IB_NODE_LOCAL_PORT_F);
	int id = add_node(guid, is_switch, nports, r->path, r->hops, arrival);
	queue_get(id, r->path, r->hops, IB_ATTR_NODE_DESC, 0);
	if (is_switch)
		queue_get(id, r->path, r->hops, IB_ATTR_SWITCH_INFO, 0);
	for (int p = is_switch ? 0 : 1; p <= nports; p++)
		queue_get(id, r->path, r->hops, IB_ATTR_PORT_INFO, p);
}

static void port_answered(struct request *r, void *data)
{
	struct node *nd = &nodes[r->node];
	int p = r->mod;
	if (p == 0 || mad_get_field(data, 0, IB_PORT_PHYS_STATE_F) != PHYS_LINK_UP)
		return;
	int leads_on = nd->is_switch ? p != nd->arrival : (r->node == 0 && p == nd->arrival);
	if (!leads_on || nd->hops + 1 >= MAX_PATH)
		return;
	uint8_t path[MAX_PATH];
	memcpy(path, nd->path, MAX_PATH);
	path[nd->hops + 1] = p;
	queue_get(r->node, path, nd->hops + 1, IB_ATTR_NODE_INFO, 0);
}

static void discover(void)
{
	void *umad = malloc(umad_len);
	uint8_t path[MAX_PATH] = {0};
	unsigned answers = 0;
	double t0 = now_us(), c0 = cpu_ms();

	guid_cap = 0;
	grow_guids();
	queue_get(-1, path, 0, IB_ATTR_NODE_INFO, 0);
	send_window(umad);
	while (in_flight) {
		void *mad = receive(umad);
		in_flight--;
		answers++;
		if (mad) {
			uint32_t tid = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F);
			if (tid >= n_reqs) {
				errors++;
			} else {
				/* a copy: answering queues requests, which may move reqs */
				struct request r = reqs[tid];
				void *data = (uint8_t *)mad + IB_SMP_DATA_OFFS;
				if (r.attr == IB_ATTR_NODE_INFO)
					node_answered(&r, data);
				else if (r.attr == IB_ATTR_PORT_INFO)
					port_answered(&r, data);
			}
		}
		send_window(umad);
	}
	double wall = now_us() - t0;
	printf("discover mads=%u nodes=%d wall_ms=%.1f per_mad_us=%.2f window=%u cpu_ms=%.1f errors=%u\n",
	       answers, n_nodes, wall / 1e3, wall / answers, window, cpu_ms() - c0, errors);
	free(umad);
}

int main(int argc, char **argv)
{
	unsigned n = 20000;
	uint8_t path[MAX_PATH] = {0};
	int hops = 0, opt;
	const char *mode = argc > 1 ? argv[1] : "";

	optind = 2;
	while ((opt = getopt(argc, argv, "n:d:w:t:r:")) != -1) {
		switch (opt) {
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'd': hops = parse_path(optarg, path); break;
		case 'w': window = strtoul(optarg, NULL, 0); break;
		case 't': timeout_ms = strtoul(optarg, NULL, 0); break;
		case 'r': retries = strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (strcmp(mode, "pipeline") && strcmp(mode, "discover"))
		goto usage;
	if (umad_init() < 0 || (fd = umad_open_port(NULL, 0)) < 0) {
		fprintf(stderr, "bench_mad: cannot open a umad port: %s\n", strerror(errno));
		return 1;
	}
	agent = umad_register(fd, IB_SMI_DIRECT_CLASS, 1, 0, NULL);
	if (agent < 0) {
		fprintf(stderr, "bench_mad: cannot register the DR SMP class: %s\n", strerror(errno));
		return 1;
	}
	umad_len = umad_size() + IB_MAD_SIZE;
	if (!strcmp(mode, "pipeline"))
		pipeline(n, path, hops);
	else
		discover();
	umad_unregister(fd, agent);
	umad_close_port(fd);
	return errors ? 1 : 0;
usage:
	fprintf(stderr, "usage: bench_mad pipeline [-n N] [-d PATH] [-t MS] | discover [-w WINDOW] [-t MS]\n");
	return 2;
}
