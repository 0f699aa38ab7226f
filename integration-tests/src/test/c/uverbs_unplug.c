/*
 * uverbs_unplug.c - a verbs context while its HCA is hot-removed (ib_unregister_device).
 *
 * Build: gcc -O2 -Wall -o uverbs_unplug uverbs_unplug.c -libverbs -lpthread
 * Run:   ./uverbs_unplug DEVICE GOFILE
 *
 * Opens DEVICE, makes a PD, an MR, a completion channel, a CQ on it (armed) and
 * an RC QP, and blocks one thread in ibv_get_async_event and one in
 * ibv_get_cq_event; prints "ready". Whoever runs it then removes the HCA. The
 * kernel's ib_uverbs_free_hw_resources destroys the objects at once
 * (uverbs_destroy_ufile_hw, RDMA_REMOVE_DRIVER_REMOVE), queues
 * IB_EVENT_DEVICE_FATAL on the async file (uverbs_async_event_destroy_uobj)
 * and closes the completion channel's queue (ib_uverbs_free_event_queue: a
 * blocked reader wakes with EIO). Both threads print what they got. Then the
 * probe waits for GOFILE to exist (the caller looks at the daemon's tables
 * meanwhile), tries commands (each fails with EIO: the uapi is disassociated),
 * destroys everything and closes, printing each return value. It sets
 * RDMAV_ALLOW_DISASSOC_DESTROY, as a program written for hot-unplug does, so
 * that libibverbs takes a destroy's EIO as done (verbs_is_destroy_err).
 *
 * Output lines: "ready", "async EVENT", "comp errno N", "NAME errno N" for
 * each later command, "NAME rc N" for each destroy, "closed".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct ibv_context *ctx;
static struct ibv_comp_channel *channel;

static void *async_reader(void *arg)
{
	struct ibv_async_event ev;

	(void)arg;
	if (ibv_get_async_event(ctx, &ev)) {
		printf("async errno %d\n", errno);
	} else {
		printf("async %s\n", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	fflush(stdout);
	return NULL;
}

static void *comp_reader(void *arg)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	(void)arg;
	if (ibv_get_cq_event(channel, &cq, &cq_ctx)) {
		printf("comp errno %d\n", errno);
	} else {
		printf("comp event\n");
		ibv_ack_cq_events(cq, 1);
	}
	fflush(stdout);
	return NULL;
}

static void fail(const char *what)
{
	printf("setup %s failed: errno %d\n", what, errno);
	exit(1);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_device *dev = NULL;
	pthread_t async_thread, comp_thread;
	struct ibv_port_attr port;
	int i, rc;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEVICE GOFILE\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	setenv("RDMAV_ALLOW_DISASSOC_DESTROY", "1", 1);
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			dev = list[i];
	if (!dev)
		fail("find device");
	ctx = ibv_open_device(dev);
	if (!ctx)
		fail("open");
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	if (!pd)
		fail("alloc_pd");
	void *buf = calloc(1, 4096);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		fail("reg_mr");
	channel = ibv_create_comp_channel(ctx);
	if (!channel)
		fail("create_comp_channel");
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, channel, 0);
	if (!cq)
		fail("create_cq");
	if (ibv_req_notify_cq(cq, 0))
		fail("req_notify_cq");
	struct ibv_qp_init_attr qpa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &qpa);
	if (!qp)
		fail("create_qp");
	pthread_create(&async_thread, NULL, async_reader, NULL);
	pthread_create(&comp_thread, NULL, comp_reader, NULL);
	printf("ready\n");

	pthread_join(async_thread, NULL);
	pthread_join(comp_thread, NULL);
	{
		/* the async queue stays open after DEVICE_FATAL (freed at release since 5.7): empty, not EIO */
		struct ibv_async_event ev;
		fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
		errno = 0;
		printf("async again errno %d\n", ibv_get_async_event(ctx, &ev) ? errno : 0);
	}
	for (i = 0; i < 1200 && access(argv[2], F_OK); i++)
		usleep(50000);

	errno = 0;
	printf("alloc_pd errno %d\n", ibv_alloc_pd(ctx) ? 0 : errno);
	errno = 0;
	printf("reg_mr errno %d\n", ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE) ? 0 : errno);
	errno = 0;
	printf("create_cq errno %d\n", ibv_create_cq(ctx, 16, NULL, NULL, 0) ? 0 : errno);
	rc = ibv_query_port(ctx, 1, &port);
	printf("query_port errno %d\n", rc);
	rc = ibv_req_notify_cq(cq, 0);
	printf("req_notify_cq errno %d\n", rc);

	printf("destroy_qp rc %d\n", ibv_destroy_qp(qp));
	printf("dereg_mr rc %d\n", ibv_dereg_mr(mr));
	printf("destroy_cq rc %d\n", ibv_destroy_cq(cq));
	printf("destroy_comp_channel rc %d\n", ibv_destroy_comp_channel(channel));
	printf("dealloc_pd rc %d\n", ibv_dealloc_pd(pd));
	printf("close_device rc %d\n", ibv_close_device(ctx));
	ibv_free_device_list(list);
	printf("closed\n");
	return 0;
}
