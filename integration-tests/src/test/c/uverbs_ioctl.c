/*
 * uverbs_ioctl.c - the ioctl ABI of /dev/infiniband/uverbsN (RDMA_VERBS_IOCTL), rule by rule,
 * with no libibverbs: each call is a struct ib_uverbs_ioctl_hdr and its struct ib_uverbs_attr
 * array built here, as rdma-core's libibverbs/cmd_ioctl.c would build it.
 *
 * Build: gcc -O2 -Wall -o uverbs_ioctl uverbs_ioctl.c
 * Run:   ./uverbs_ioctl               (IBEMU_UVERBS / IBEMU_SYSFS override paths)
 *        ./uverbs_ioctl --write-only  (a device presenting a kernel without the ioctl path:
 *                                      every RDMA_VERBS_IOCTL is ENOTTY)
 *
 * The specification is the kernel: drivers/infiniband/core/uverbs_ioctl.c (ib_uverbs_ioctl,
 * ib_uverbs_cmd_verbs, ib_uverbs_run_method, uverbs_set_attr, uverbs_process_attr,
 * uverbs_copy_to), rdma_core.c (lookups and new objects), uverbs_std_types_device.c
 * (INVOKE_WRITE, GET_CONTEXT, QUERY_PORT, INFO_HANDLES, the GID queries),
 * uverbs_std_types_async_fd.c, uverbs_std_types_{cq,qp,srq,mr}.c, uverbs_uapi.c (what a driver
 * without an op does not get). Each part runs first without a context, then with one.
 */
#include "uverbs_probe.h"
#include <poll.h>
#include <sys/ioctl.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>

#define MAX_ATTRS 16

/* One ioctl: the header and its attributes, contiguous as the kernel reads them. */
struct call {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[MAX_ATTRS];
};

static uint32_t driver_id;
static int async_fd = -1; /* ASYNC_EVENT/ALLOC's, once GET_CONTEXT ran */
static char ibdev[64];

static void call_init(struct call *c, uint16_t object, uint16_t method)
{
	memset(c, 0, sizeof(*c));
	c->hdr.object_id = object;
	c->hdr.method_id = method;
	c->hdr.driver_id = driver_id;
}

static struct ib_uverbs_attr *attr(struct call *c, uint16_t id, uint16_t len, uint64_t data)
{
	struct ib_uverbs_attr *a = &c->attrs[c->hdr.num_attrs++];
	a->attr_id = id;
	a->len = len;
	a->data = data;
	return a;
}

/* A PTR_IN or PTR_OUT at `p` (inline when an input of at most 8 bytes: fill_attr_in). */
static struct ib_uverbs_attr *attr_ptr(struct call *c, uint16_t id, const void *p, uint16_t len)
{
	return attr(c, id, len, (uintptr_t)p);
}

static struct ib_uverbs_attr *attr_const(struct call *c, uint16_t id, uint64_t v)
{
	return attr(c, id, sizeof(uint64_t), v);
}

static int run(int fd, struct call *c)
{
	c->hdr.length = sizeof(c->hdr) + c->hdr.num_attrs * sizeof(struct ib_uverbs_attr);
	return ioctl(fd, RDMA_VERBS_IOCTL, c);
}

static int valid_output(const struct ib_uverbs_attr *a)
{
	return (a->flags & UVERBS_ATTR_F_VALID_OUTPUT) != 0;
}

static int open_uverbs(void)
{
	int fd = open(uverbs_path(), O_RDWR | O_CLOEXEC);
	if (fd < 0)
		t_bail("open %s: %s", uverbs_path(), strerror(errno));
	return fd;
}

/* INVOKE_WRITE of one write command, as libibverbs tunnels it (execute_write_bufs). */
static int invoke_write(int fd, uint32_t cmd, void *in, uint16_t inlen, void *out, uint16_t outlen)
{
	struct call c;
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	attr_const(&c, UVERBS_ATTR_WRITE_CMD, cmd);
	if (inlen)
		attr_ptr(&c, UVERBS_ATTR_CORE_IN, in, inlen);
	if (outlen)
		attr_ptr(&c, UVERBS_ATTR_CORE_OUT, out, outlen);
	return run(fd, &c);
}

/* The driver id: an unknown object is EPROTONOSUPPORT only once the driver id matched (EINVAL before). */
static int find_driver_id(int fd)
{
	struct call c;
	for (driver_id = 0; driver_id < 64; driver_id++) {
		call_init(&c, 0x7ff, 0);
		if (run(fd, &c) < 0 && errno == EPROTONOSUPPORT)
			return 1;
		if (errno == ENOTTY)
			return 0;
	}
	return 0;
}

/* CQ_CREATE: the handle written back into *handle; channel -1 for none, flags ~0 for no FLAGS. */
static int create_cq(int fd, uint32_t cqe, uint32_t vector, int channel, uint64_t flags, uint32_t *handle,
		     uint32_t *resp_cqe, int *flagged)
{
	struct call c;
	struct ib_uverbs_attr *h, *r;
	uint64_t user_handle = 0x1234;
	static uint8_t uhw[64];
	call_init(&c, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
	h = attr(&c, UVERBS_ATTR_CREATE_CQ_HANDLE, 0, 0xdead);
	attr(&c, UVERBS_ATTR_CREATE_CQ_CQE, 4, cqe);
	attr(&c, UVERBS_ATTR_CREATE_CQ_USER_HANDLE, 8, user_handle);
	attr(&c, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, 4, vector);
	if (channel != -1)
		attr(&c, UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, 0, (uint64_t)(int64_t)channel);
	if (flags != ~0ull)
		attr(&c, UVERBS_ATTR_CREATE_CQ_FLAGS, 4, flags);
	r = attr_ptr(&c, UVERBS_ATTR_CREATE_CQ_RESP_CQE, resp_cqe, 4);
	/* room for the driver's answer: rxe's mmap info (struct rxe_create_cq_resp), which it requires */
	attr_ptr(&c, UVERBS_ATTR_UHW_OUT, uhw, sizeof(uhw));
	int ret = run(fd, &c);
	*handle = (uint32_t)h->data;
	if (flagged)
		*flagged = valid_output(r);
	return ret;
}

/* Drops attribute `id` from the call (to check what its absence gives). */
static void drop_attr(struct call *c, uint16_t id)
{
	for (unsigned i = 0; i < c->hdr.num_attrs; i++) {
		if (c->attrs[i].attr_id == id) {
			memmove(&c->attrs[i], &c->attrs[i + 1], (c->hdr.num_attrs - i - 1) * sizeof(c->attrs[0]));
			c->hdr.num_attrs--;
			return;
		}
	}
}

static struct ib_uverbs_attr *find_attr(struct call *c, uint16_t id)
{
	for (unsigned i = 0; i < c->hdr.num_attrs; i++)
		if (c->attrs[i].attr_id == id)
			return &c->attrs[i];
	return NULL;
}

/* Outputs of one QP_CREATE/SRQ_CREATE, each call's own. */
struct queue_out {
	struct ib_uverbs_qp_cap cap;
	uint32_t num, max_wr, max_sge;
	uint8_t uhw[64];
};

/*
 * QP_CREATE as libibverbs builds it (ibv_icmd_create_qp): the new handle first, then the PD and
 * both CQs, user handle, CAP, TYPE, the outputs and room for the driver's answer (rxe's struct
 * rxe_create_qp_resp, which it requires). The handle's 0xdead is replaced by the one given out.
 */
static void qp_call(struct call *c, uint64_t type, uint32_t pd, uint32_t cq, const struct ib_uverbs_qp_cap *cap,
		    struct queue_out *o)
{
	memset(o, 0xaa, sizeof(*o));
	call_init(c, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE);
	attr(c, UVERBS_ATTR_CREATE_QP_HANDLE, 0, 0xdead);
	attr(c, UVERBS_ATTR_CREATE_QP_PD_HANDLE, 0, pd);
	attr(c, UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, 0, cq);
	attr(c, UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, 0, cq);
	attr(c, UVERBS_ATTR_CREATE_QP_USER_HANDLE, 8, 0x5150);
	attr_ptr(c, UVERBS_ATTR_CREATE_QP_CAP, cap, sizeof(*cap));
	attr_const(c, UVERBS_ATTR_CREATE_QP_TYPE, type);
	attr_ptr(c, UVERBS_ATTR_CREATE_QP_RESP_CAP, &o->cap, sizeof(o->cap));
	attr_ptr(c, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, &o->num, sizeof(o->num));
	attr_ptr(c, UVERBS_ATTR_UHW_OUT, o->uhw, sizeof(o->uhw));
}

static void srq_call(struct call *c, uint64_t type, uint32_t pd, uint32_t max_wr, uint32_t max_sge,
		     struct queue_out *o)
{
	memset(o, 0xaa, sizeof(*o));
	call_init(c, UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE);
	attr(c, UVERBS_ATTR_CREATE_SRQ_HANDLE, 0, 0xdead);
	attr(c, UVERBS_ATTR_CREATE_SRQ_PD_HANDLE, 0, pd);
	attr_const(c, UVERBS_ATTR_CREATE_SRQ_TYPE, type);
	attr(c, UVERBS_ATTR_CREATE_SRQ_USER_HANDLE, 8, 0x5151);
	attr(c, UVERBS_ATTR_CREATE_SRQ_MAX_WR, 4, max_wr);
	attr(c, UVERBS_ATTR_CREATE_SRQ_MAX_SGE, 4, max_sge);
	attr(c, UVERBS_ATTR_CREATE_SRQ_LIMIT, 4, 0);
	attr_ptr(c, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR, &o->max_wr, 4);
	attr_ptr(c, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE, &o->max_sge, 4);
	attr_ptr(c, UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM, &o->num, 4);
	attr_ptr(c, UVERBS_ATTR_UHW_OUT, o->uhw, sizeof(o->uhw));
}

/* QP_DESTROY or SRQ_DESTROY by ioctl; *events the RESP's events_reported. */
static int destroy_queue(int fd, uint16_t object, uint64_t handle, uint32_t *events, int *flagged)
{
	struct call c;
	struct ib_uverbs_attr *r;
	static uint32_t resp;
	resp = 0xaaaaaaaa;
	call_init(&c, object, object == UVERBS_OBJECT_QP ? UVERBS_METHOD_QP_DESTROY : UVERBS_METHOD_SRQ_DESTROY);
	attr(&c, 0, 0, handle); /* UVERBS_ATTR_DESTROY_{QP,SRQ}_HANDLE */
	r = attr_ptr(&c, 1, &resp, sizeof(resp)); /* UVERBS_ATTR_DESTROY_{QP,SRQ}_RESP */
	int ret = run(fd, &c);
	if (events)
		*events = resp;
	if (flagged)
		*flagged = valid_output(r);
	return ret;
}

/*
 * An open of /proc/self/fd/N follows the link to the char device and opens it anew
 * (chrdev_open): a file of its own, which answers RDMA_VERBS_IOCTL, and whose close leaves the
 * first one as it was.
 */
static void check_reopen(int fd)
{
	struct call c;
	char path[64];
	int again;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	again = open(path, O_RDWR | O_CLOEXEC);
	t_ok(again >= 0 && again != fd, "open of /proc/self/fd/N of the device: a new descriptor");
	if (again < 0)
		return;
	call_init(&c, 0x7ff, 0);
	t_errno(run(again, &c), errno, EPROTONOSUPPORT, "  ... it answers RDMA_VERBS_IOCTL (unknown object: EPROTONOSUPPORT)");
	close(again);
	call_init(&c, 0x7ff, 0);
	t_errno(run(fd, &c), errno, EPROTONOSUPPORT, "  ... and after its close the first descriptor still does");
	/* proc's name_to_int takes no leading zero and no number past an int */
	snprintf(path, sizeof(path), "/proc/self/fd/0%d", fd);
	t_errno(open(path, O_RDWR | O_CLOEXEC), errno, ENOENT, "  ... /proc/self/fd/0N (a leading zero): ENOENT");
	snprintf(path, sizeof(path), "/proc/99999999999/fd/%d", fd);
	t_errno(open(path, O_RDWR | O_CLOEXEC), errno, ENOENT, "  ... /proc/99999999999/fd/N (no such pid): ENOENT");
}

/* ------------------------------------------------------------ the header (ib_uverbs_ioctl) */
static void check_header(int fd)
{
	struct call c;
	uint8_t *pages;
	long page = sysconf(_SC_PAGESIZE);

	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	t_errno(ioctl(fd, _IOWR(RDMA_IOCTL_MAGIC, 2, struct ib_uverbs_ioctl_hdr), &c), errno, ENOTTY,
		"another ioctl number (_IOWR(0x1b, 2, hdr)): ENOTTY");
	t_errno(ioctl(fd, RDMA_VERBS_IOCTL, (void *)16), errno, EFAULT, "header at an unmapped address: EFAULT");
	memset(&c, 0, sizeof(c));
	t_errno(ioctl(fd, RDMA_VERBS_IOCTL, &c), errno, EINVAL, "an all-zero header (length 0): EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	c.hdr.length = sizeof(c.hdr) + sizeof(struct ib_uverbs_attr);
	t_errno(ioctl(fd, RDMA_VERBS_IOCTL, &c), errno, EINVAL, "length != 24 + 16 * num_attrs: EINVAL");
	c.hdr.num_attrs = 255;
	c.hdr.length = sizeof(c.hdr) + 255 * sizeof(struct ib_uverbs_attr);
	t_errno(ioctl(fd, RDMA_VERBS_IOCTL, &c), errno, EINVAL, "length over a page (255 attributes): EINVAL");

	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	c.hdr.reserved1 = 1;
	t_errno(run(fd, &c), errno, EPROTONOSUPPORT, "reserved1 set: EPROTONOSUPPORT");
	c.hdr.reserved1 = 0;
	c.hdr.reserved2 = 1;
	t_errno(run(fd, &c), errno, EPROTONOSUPPORT, "reserved2 set: EPROTONOSUPPORT");
	c.hdr.driver_id = driver_id + 1;
	t_errno(run(fd, &c), errno, EPROTONOSUPPORT, "reserved2 set and a wrong driver_id: EPROTONOSUPPORT (reserved first)");
	c.hdr.reserved2 = 0;
	t_errno(run(fd, &c), errno, EINVAL, "a driver_id other than the device's: EINVAL");
	call_init(&c, 0x7ff, 0);
	c.hdr.driver_id = driver_id + 1;
	t_errno(run(fd, &c), errno, EINVAL, "a wrong driver_id is checked before the object: EINVAL");

	call_init(&c, 200, 0);
	t_errno(run(fd, &c), errno, EPROTONOSUPPORT, "unknown object 200: EPROTONOSUPPORT");
	call_init(&c, UVERBS_OBJECT_DEVICE, 100);
	t_errno(run(fd, &c), errno, EPROTONOSUPPORT, "DEVICE method 100: EPROTONOSUPPORT");
	call_init(&c, UVERBS_OBJECT_PD, 1);
	t_errno(run(fd, &c), errno, EPROTONOSUPPORT, "PD method 1 (PD has only DESTROY): EPROTONOSUPPORT");
	/* objects whose driver op a software HCA lacks are not in the tree (UAPI_DEF_OBJ_NEEDS_FN) */
	call_init(&c, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC);
	t_errno(run(fd, &c), errno, EPROTONOSUPPORT, "DM/ALLOC (no alloc_dm): EPROTONOSUPPORT");
	call_init(&c, UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE);
	t_errno(run(fd, &c), errno, EPROTONOSUPPORT, "COUNTERS/CREATE (no create_counters): EPROTONOSUPPORT");
	call_init(&c, UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_CREATE);
	t_errno(run(fd, &c), errno, EPROTONOSUPPORT, "FLOW_ACTION/ESP_CREATE: EPROTONOSUPPORT");
	call_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG);
	t_errno(run(fd, &c), errno, EPROTONOSUPPORT, "MR/DM_MR_REG (no reg_dm_mr): EPROTONOSUPPORT");
	call_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR);
	t_errno(run(fd, &c), errno, EINVAL, "MR/REG_DMABUF_MR without its attributes: EINVAL (in the tree, mandatory missing)");
	/* ADVISE_MR stays in the tree whatever the driver: its attributes are checked */
	call_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR);
	t_errno(run(fd, &c), errno, EINVAL, "MR/ADVISE_MR without its attributes: EINVAL (in the tree, mandatory missing)");

	/* the attribute array is read after the method is found: a header whose attributes are unmapped */
	pages = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED)
		t_bail("mmap: %s", strerror(errno));
	munmap(pages + page, page);
	{
		struct ib_uverbs_ioctl_hdr *h = (void *)(pages + page - sizeof(*h));
		memset(h, 0, sizeof(*h));
		h->object_id = UVERBS_OBJECT_DEVICE;
		h->method_id = UVERBS_METHOD_INVOKE_WRITE;
		h->num_attrs = 1;
		h->length = sizeof(*h) + sizeof(struct ib_uverbs_attr);
		h->driver_id = driver_id;
		t_errno(ioctl(fd, RDMA_VERBS_IOCTL, h), errno, EFAULT, "attribute array unmapped: EFAULT");
		h->object_id = 200;
		t_errno(ioctl(fd, RDMA_VERBS_IOCTL, h), errno, EPROTONOSUPPORT,
			"  ... but the method is looked up first: EPROTONOSUPPORT for object 200");
	}
	munmap(pages, page);
}

/* ------------------------------------------------------------ attributes (uverbs_set_attr, uverbs_process_attr) */
static void check_attributes(int fd)
{
	struct call c;
	struct ib_uverbs_attr *a;
	uint8_t buf[64];

	/* libibverbs's probe (has_ioctl_write): INVOKE_WRITE of QUERY_DEVICE with no buffers */
	t_errno(invoke_write(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, NULL, 0, NULL, 0), errno, ENOSPC,
		"INVOKE_WRITE QUERY_DEVICE without CORE_IN/CORE_OUT: ENOSPC (libibverbs's probe)");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	t_errno(run(fd, &c), errno, EINVAL, "INVOKE_WRITE without its mandatory WRITE_CMD: EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	attr_const(&c, UVERBS_ATTR_WRITE_CMD, IB_USER_VERBS_CMD_QUERY_DEVICE);
	attr(&c, 99, 8, 0);
	t_errno(run(fd, &c), errno, ENOSPC, "an unknown attribute without MANDATORY is ignored (ENOSPC as before)");
	a = attr(&c, 98, 8, 0);
	a->flags = UVERBS_ATTR_F_MANDATORY;
	t_errno(run(fd, &c), errno, EPROTONOSUPPORT, "an unknown attribute flagged MANDATORY: EPROTONOSUPPORT");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	a = attr(&c, UVERBS_ATTR_UHW_IN | 0x20, 8, 0);
	a->flags = UVERBS_ATTR_F_MANDATORY;
	attr_const(&c, UVERBS_ATTR_WRITE_CMD, IB_USER_VERBS_CMD_QUERY_DEVICE);
	t_errno(run(fd, &c), errno, EPROTONOSUPPORT, "an unknown driver-namespace attribute flagged MANDATORY: EPROTONOSUPPORT");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	attr_const(&c, UVERBS_ATTR_WRITE_CMD, IB_USER_VERBS_CMD_QUERY_DEVICE);
	attr_const(&c, UVERBS_ATTR_WRITE_CMD, IB_USER_VERBS_CMD_QUERY_DEVICE);
	t_errno(run(fd, &c), errno, EINVAL, "an attribute given twice: EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	attr(&c, UVERBS_ATTR_WRITE_CMD, 4, IB_USER_VERBS_CMD_QUERY_DEVICE);
	t_errno(run(fd, &c), errno, EINVAL, "a CONST_IN of 4 bytes (not 8): EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	a = attr_const(&c, UVERBS_ATTR_WRITE_CMD, IB_USER_VERBS_CMD_QUERY_DEVICE);
	a->attr_data.reserved = 1;
	t_errno(run(fd, &c), errno, EINVAL, "attr_data.reserved set on a PTR_IN: EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	attr_const(&c, UVERBS_ATTR_WRITE_CMD, IB_USER_VERBS_CMD_QUERY_DEVICE);
	attr_ptr(&c, UVERBS_ATTR_CORE_IN, buf, 2);
	t_errno(run(fd, &c), errno, EINVAL, "CORE_IN of 2 bytes (minimum 4): EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	attr_const(&c, UVERBS_ATTR_WRITE_CMD, 1ull << 32);
	t_errno(run(fd, &c), errno, EINVAL, "WRITE_CMD past u32: EINVAL (uverbs_get_const)");
	t_errno(invoke_write(fd, 41, buf, 8, buf, 8), errno, EOPNOTSUPP, "INVOKE_WRITE of command 41: EOPNOTSUPP");
	t_errno(invoke_write(fd, IB_USER_VERBS_CMD_MODIFY_AH, buf, 8, buf, 8), errno, EOPNOTSUPP,
		"INVOKE_WRITE of MODIFY_AH (not declared): EOPNOTSUPP");
	t_errno(invoke_write(fd, IB_USER_VERBS_CMD_ALLOC_PD | 0x100, buf, 8, buf, 8), errno, EINVAL,
		"INVOKE_WRITE of a command with bits 8..23 set: EINVAL");

	/* IDR attributes */
	call_init(&c, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY);
	attr(&c, UVERBS_ATTR_DESTROY_PD_HANDLE, 4, 0);
	t_errno(run(fd, &c), errno, EINVAL, "an IDR attribute with len 4: EINVAL");
	call_init(&c, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY);
	a = attr(&c, UVERBS_ATTR_DESTROY_PD_HANDLE, 0, 0);
	a->attr_data.reserved = 1;
	t_errno(run(fd, &c), errno, EINVAL, "an IDR attribute with attr_data.reserved set: EINVAL");
	call_init(&c, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY);
	attr(&c, UVERBS_ATTR_DESTROY_PD_HANDLE, 0, 12345);
	t_errno(run(fd, &c), errno, ENOENT, "PD_DESTROY of a handle never given out: ENOENT");
	call_init(&c, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY);
	attr(&c, UVERBS_ATTR_DESTROY_PD_HANDLE, 0, (uint64_t)-1);
	t_errno(run(fd, &c), errno, EINVAL, "PD_DESTROY of handle -1: EINVAL (a negative id)");
	call_init(&c, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY);
	attr(&c, UVERBS_ATTR_DESTROY_PD_HANDLE, 0, 1ull << 40);
	t_errno(run(fd, &c), errno, ENOENT, "PD_DESTROY of handle 2^40: ENOENT");
	call_init(&c, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY);
	t_errno(run(fd, &c), errno, EINVAL, "PD_DESTROY without its handle: EINVAL (mandatory)");

	/* a request with bytes past its struct: uverbs_request's tail check, before the context */
	memset(buf, 0, sizeof(buf));
	buf[12] = 1;
	t_errno(invoke_write(fd, IB_USER_VERBS_CMD_ALLOC_PD, buf, 16, buf + 32, 4), errno, EOPNOTSUPP,
		"INVOKE_WRITE ALLOC_PD with a non-zero byte past its request: EOPNOTSUPP");
}

/* ------------------------------------------------------------ before GET_CONTEXT */
static void check_without_context(int fd)
{
	struct call c;
	struct ib_uverbs_attr *list, *total;
	uint32_t handles[4];
	uint32_t n = 0xaaaaaaaa;
	struct ib_uverbs_query_port_resp_ex pr;
	struct ib_uverbs_gid_entry e;
	uint8_t buf[16] = { 0 };

	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	attr_const(&c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1);
	attr_ptr(&c, UVERBS_ATTR_QUERY_PORT_RESP, &pr, sizeof(pr));
	t_errno(run(fd, &c), errno, EINVAL, "QUERY_PORT before GET_CONTEXT: EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY);
	attr_const(&c, UVERBS_ATTR_QUERY_GID_ENTRY_PORT, 1);
	attr_const(&c, UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, 0);
	attr(&c, UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 4, 0);
	attr_ptr(&c, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, &e, sizeof(e));
	t_errno(run(fd, &c), errno, EINVAL, "QUERY_GID_ENTRY before GET_CONTEXT: EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT);
	t_errno(run(fd, &c), errno, EINVAL, "QUERY_CONTEXT before GET_CONTEXT: EINVAL");
	call_init(&c, UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC);
	attr(&c, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, 0, 0);
	t_errno(run(fd, &c), errno, EINVAL, "ASYNC_EVENT/ALLOC before GET_CONTEXT: EINVAL");
	t_errno(invoke_write(fd, IB_USER_VERBS_CMD_ALLOC_PD, buf, 8, buf, 4), errno, EINVAL,
		"INVOKE_WRITE ALLOC_PD before GET_CONTEXT: EINVAL");
	{
		uint32_t h, cqe;
		t_errno(create_cq(fd, 4, 0, -1, ~0ull, &h, &cqe, NULL), errno, EINVAL, "CQ_CREATE before GET_CONTEXT: EINVAL");
	}
	{
		struct queue_out o;
		struct ib_uverbs_qp_cap cap = { 1, 1, 1, 1, 0 };
		qp_call(&c, IB_UVERBS_QPT_RC, 0, 0, &cap, &o);
		t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE before GET_CONTEXT, its HANDLE first: EINVAL");
		srq_call(&c, IB_UVERBS_SRQT_BASIC, 0, 4, 1, &o);
		t_errno(run(fd, &c), errno, EINVAL, "SRQ_CREATE before GET_CONTEXT, its HANDLE first: EINVAL");
		srq_call(&c, IB_UVERBS_SRQT_BASIC, 0, 4, 1, &o);
		drop_attr(&c, UVERBS_ATTR_CREATE_SRQ_HANDLE);
		attr(&c, UVERBS_ATTR_CREATE_SRQ_HANDLE, 0, 0);
		t_errno(run(fd, &c), errno, ENOENT, "SRQ_CREATE before GET_CONTEXT, its PD_HANDLE first: ENOENT (the lookup)");
	}

	/* INFO_HANDLES needs no context */
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	attr_const(&c, UVERBS_ATTR_INFO_OBJECT_ID, UVERBS_OBJECT_PD);
	total = attr_ptr(&c, UVERBS_ATTR_INFO_TOTAL_HANDLES, &n, sizeof(n));
	list = attr_ptr(&c, UVERBS_ATTR_INFO_HANDLES_LIST, handles, sizeof(handles));
	t_success(run(fd, &c), errno, "INFO_HANDLES of PD before GET_CONTEXT: succeeds");
	t_eq(n, 0, "  ... TOTAL_HANDLES 0");
	t_ok(valid_output(total) && valid_output(list), "  ... both outputs flagged UVERBS_ATTR_F_VALID_OUTPUT");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	attr_const(&c, UVERBS_ATTR_INFO_OBJECT_ID, 200);
	attr_ptr(&c, UVERBS_ATTR_INFO_TOTAL_HANDLES, &n, sizeof(n));
	attr_ptr(&c, UVERBS_ATTR_INFO_HANDLES_LIST, handles, sizeof(handles));
	t_errno(run(fd, &c), errno, ENOENT, "INFO_HANDLES of object 200: ENOENT");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	attr_const(&c, UVERBS_ATTR_INFO_OBJECT_ID, UVERBS_OBJECT_PD);
	attr_ptr(&c, UVERBS_ATTR_INFO_TOTAL_HANDLES, &n, sizeof(n));
	attr_ptr(&c, UVERBS_ATTR_INFO_HANDLES_LIST, handles, 6);
	t_errno(run(fd, &c), errno, EINVAL, "INFO_HANDLES with a 6-byte list (not whole u32s): EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	attr_const(&c, UVERBS_ATTR_INFO_OBJECT_ID, UVERBS_OBJECT_PD);
	attr_ptr(&c, UVERBS_ATTR_INFO_TOTAL_HANDLES, &n, sizeof(n));
	t_errno(run(fd, &c), errno, EINVAL, "INFO_HANDLES without a list: EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	attr_const(&c, UVERBS_ATTR_INFO_OBJECT_ID, UVERBS_OBJECT_PD);
	attr_ptr(&c, UVERBS_ATTR_INFO_TOTAL_HANDLES, &n, 8);
	attr_ptr(&c, UVERBS_ATTR_INFO_HANDLES_LIST, handles, sizeof(handles));
	t_errno(run(fd, &c), errno, EINVAL, "INFO_HANDLES with an 8-byte TOTAL_HANDLES (a u32): EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	attr_const(&c, UVERBS_ATTR_INFO_OBJECT_ID, UVERBS_OBJECT_PD);
	attr_ptr(&c, UVERBS_ATTR_INFO_HANDLES_LIST, handles, sizeof(handles));
	t_errno(run(fd, &c), errno, ENOENT, "INFO_HANDLES without TOTAL_HANDLES: ENOENT (uverbs_copy_to of an absent output)");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	attr_const(&c, UVERBS_ATTR_INFO_OBJECT_ID, UVERBS_OBJECT_PD);
	attr(&c, UVERBS_ATTR_INFO_TOTAL_HANDLES, 4, 16);
	attr_ptr(&c, UVERBS_ATTR_INFO_HANDLES_LIST, handles, sizeof(handles));
	t_errno(run(fd, &c), errno, EFAULT, "INFO_HANDLES with TOTAL_HANDLES unmapped: EFAULT");
}

/* ------------------------------------------------------------ GET_CONTEXT, ASYNC_EVENT */
static void check_get_context(int fd)
{
	struct call c;
	struct ib_uverbs_attr *ncv, *cs, *h;
	uint32_t n = 0;
	uint64_t core = 0xaa;
	int flags;
	struct pollfd p;

	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT);
	attr_ptr(&c, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, &n, 8);
	t_errno(run(fd, &c), errno, EINVAL, "GET_CONTEXT with an 8-byte NUM_COMP_VECTORS (a u32): EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT);
	ncv = attr_ptr(&c, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, &n, sizeof(n));
	cs = attr_ptr(&c, UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, &core, sizeof(core));
	if (run(fd, &c)) {
		t_line(0, "GET_CONTEXT by ioctl succeeds", "errno %s", ename(errno));
		t_bail("no context: nothing else can be probed");
	}
	t_line(1, "GET_CONTEXT by ioctl succeeds", NULL);
	t_ok(n >= 1, "  ... NUM_COMP_VECTORS >= 1");
	t_eq(core, IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS, "  ... CORE_SUPPORT is OPTIONAL_MR_ACCESS");
	t_ok(valid_output(ncv) && valid_output(cs), "  ... both outputs flagged VALID_OUTPUT");

	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT);
	n = 0;
	ncv = attr_ptr(&c, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, &n, sizeof(n));
	t_errno(run(fd, &c), errno, EINVAL, "a second GET_CONTEXT: EINVAL (ib_init_ucontext)");
	t_ok(n >= 1 && valid_output(ncv), "  ... after NUM_COMP_VECTORS was written and flagged");

	call_init(&c, UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC);
	attr(&c, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, 4, 0);
	t_errno(run(fd, &c), errno, EINVAL, "ASYNC_EVENT/ALLOC with an FD attribute of len 4: EINVAL");
	call_init(&c, UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC);
	h = attr(&c, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, 0, (uint64_t)-7);
	t_success(run(fd, &c), errno, "ASYNC_EVENT/ALLOC: succeeds");
	async_fd = (int)h->data;
	t_ok(async_fd >= 0 && fcntl(async_fd, F_GETFD) >= 0, "  ... the new descriptor is written back into the attribute");
	flags = fcntl(async_fd, F_GETFD);
	t_ok(flags >= 0 && (flags & FD_CLOEXEC), "  ... with FD_CLOEXEC");
	flags = fcntl(async_fd, F_GETFL);
	t_ok(flags >= 0 && (flags & O_ACCMODE) == O_RDONLY, "  ... O_RDONLY");
	p.fd = async_fd;
	p.events = POLLIN;
	p.revents = 0;
	t_ret(poll(&p, 1, 0), errno, 0, "  ... and not readable with no event");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT);
	t_errno(run(fd, &c), errno, EOPNOTSUPP, "QUERY_CONTEXT: EOPNOTSUPP (neither rxe nor rdmavt has query_ucontext)");
}

/* ------------------------------------------------------------ QUERY_PORT, the GID queries */
static int sysfs_gid(int port, int index, uint8_t gid[16])
{
	char path[512], v[64];
	unsigned w[8];
	int i;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%d/gids/%d", sysfs_root(), ibdev,
		 port, index);
	if (read_text(path, v, sizeof(v)))
		return -1;
	if (sscanf(v, "%x:%x:%x:%x:%x:%x:%x:%x", &w[0], &w[1], &w[2], &w[3], &w[4], &w[5], &w[6], &w[7]) != 8)
		return -1;
	for (i = 0; i < 8; i++) {
		gid[2 * i] = w[i] >> 8;
		gid[2 * i + 1] = w[i] & 0xff;
	}
	return 0;
}

static int zero_gid(const uint8_t *g)
{
	int i;
	for (i = 0; i < 16; i++)
		if (g[i])
			return 0;
	return 1;
}

static void check_query_port(int fd)
{
	struct call c;
	struct ib_uverbs_attr *r;
	struct ib_uverbs_query_port_resp legacy;
	struct {
		struct ib_uverbs_query_port_resp_ex ex;
		uint8_t tail[16];
	} big;
	struct ib_uverbs_query_port_resp_ex pr;
	int ok;

	if (uv_query_port(fd, 1, &legacy))
		t_bail("write() QUERY_PORT: %s", strerror(errno));
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	attr_const(&c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1);
	r = attr_ptr(&c, UVERBS_ATTR_QUERY_PORT_RESP, &pr, sizeof(pr));
	memset(&pr, 0xaa, sizeof(pr));
	t_success(run(fd, &c), errno, "QUERY_PORT 1: succeeds");
	t_ok(valid_output(r), "  ... RESP flagged VALID_OUTPUT");
	ok = pr.legacy_resp.lid == legacy.lid && pr.legacy_resp.state == legacy.state &&
	     pr.legacy_resp.gid_tbl_len == legacy.gid_tbl_len && pr.legacy_resp.link_layer == legacy.link_layer &&
	     pr.legacy_resp.port_cap_flags == legacy.port_cap_flags && pr.legacy_resp.active_mtu == legacy.active_mtu;
	t_ok(ok, "  ... the legacy part equals write()'s QUERY_PORT");
	t_ok(pr.reserved[0] == 0 && pr.reserved[5] == 0, "  ... reserved bytes zero");

	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	attr_const(&c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1);
	memset(&big, 0xaa, sizeof(big));
	attr_ptr(&c, UVERBS_ATTR_QUERY_PORT_RESP, &big, sizeof(big));
	t_success(run(fd, &c), errno, "QUERY_PORT with a longer RESP (a newer struct): succeeds");
	t_ok(big.tail[0] == 0 && big.tail[15] == 0, "  ... the bytes past the struct are cleared");

	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	attr_const(&c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1);
	attr_ptr(&c, UVERBS_ATTR_QUERY_PORT_RESP, &pr, sizeof(struct ib_uverbs_query_port_resp));
	t_errno(run(fd, &c), errno, EINVAL, "QUERY_PORT with a RESP of the legacy size (40): EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	attr_const(&c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, 0);
	r = attr_ptr(&c, UVERBS_ATTR_QUERY_PORT_RESP, &pr, sizeof(pr));
	memset(&pr, 0xaa, sizeof(pr));
	t_errno(run(fd, &c), errno, EINVAL, "QUERY_PORT 0: EINVAL");
	t_ok(pr.legacy_resp.lid == 0xaaaa && !valid_output(r), "  ... RESP untouched and not flagged");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	attr_const(&c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, 257);
	attr_ptr(&c, UVERBS_ATTR_QUERY_PORT_RESP, &pr, sizeof(pr));
	t_errno(run(fd, &c), errno, EINVAL, "QUERY_PORT 257 (past a u8): EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	attr_const(&c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1);
	attr(&c, UVERBS_ATTR_QUERY_PORT_RESP, sizeof(pr), 16);
	t_errno(run(fd, &c), errno, EFAULT, "QUERY_PORT with RESP unmapped: EFAULT");
	{
		/* uverbs_copy_to: the flag's put_user comes only after the copy succeeded */
		void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ro == MAP_FAILED)
			t_bail("mmap: %s", strerror(errno));
		call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
		attr_const(&c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1);
		r = attr_ptr(&c, UVERBS_ATTR_QUERY_PORT_RESP, ro, sizeof(pr));
		t_errno(run(fd, &c), errno, EFAULT, "QUERY_PORT with RESP read-only: EFAULT");
		t_ok(!valid_output(r), "  ... RESP not flagged");
		munmap(ro, 4096);
	}
}

static int gid_entry(int fd, uint32_t port, uint32_t index, uint64_t flags, struct ib_uverbs_gid_entry *e,
		     int *flagged)
{
	struct call c;
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY);
	attr_const(&c, UVERBS_ATTR_QUERY_GID_ENTRY_PORT, port);
	attr_const(&c, UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, index);
	attr(&c, UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 4, flags);
	attr_ptr(&c, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, e, sizeof(*e));
	memset(e, 0xaa, sizeof(*e));
	int ret = run(fd, &c);
	if (flagged)
		*flagged = valid_output(&c.attrs[3]);
	return ret;
}

static void check_gids(int fd, int ports)
{
	struct ib_uverbs_query_port_resp pa;
	struct ib_uverbs_gid_entry e, table[64];
	struct ib_uverbs_attr *ra, *rn;
	int flagged = 0;
	struct call c;
	uint8_t g[16];
	uint64_t num = 0;
	int empty = -1, valid = 0, port, i, ok;
	uint8_t wide[64 * 40];

	if (uv_query_port(fd, 1, &pa))
		t_bail("write() QUERY_PORT: %s", strerror(errno));
	if (sysfs_gid(1, 0, g))
		t_bail("ports/1/gids/0 unreadable");
	t_success(gid_entry(fd, 1, 0, 0, &e, &flagged), errno, "QUERY_GID_ENTRY port 1 index 0: succeeds");
	t_ok(flagged, "  ... RESP_ENTRY flagged VALID_OUTPUT");
	t_ok(memcmp(e.gid, g, 16) == 0 && e.gid_index == 0 && e.port_num == 1, "  ... the GID of sysfs gids/0, index 0, port 1");
	t_needs(NEED_IB);
	t_eq(e.gid_type, IB_UVERBS_GID_TYPE_IB, "  ... gid_type IB, netdev none");
	t_needs(0);
	t_errno(gid_entry(fd, 1, pa.gid_tbl_len, 0, &e, NULL), errno, EINVAL, "QUERY_GID_ENTRY index gid_tbl_len: EINVAL");
	t_errno(gid_entry(fd, 0, 0, 0, &e, NULL), errno, EINVAL, "QUERY_GID_ENTRY port 0: EINVAL");
	t_errno(gid_entry(fd, ports + 1, 0, 0, &e, NULL), errno, EINVAL, "QUERY_GID_ENTRY past the last port: EINVAL");
	t_errno(gid_entry(fd, 1, 0, 1, &e, NULL), errno, EINVAL, "QUERY_GID_ENTRY with flags 1: EINVAL");
	t_ok(e.gid_index == 0xaaaaaaaa, "  ... RESP_ENTRY untouched on error");
	for (port = 1; port <= ports; port++) {
		struct ib_uverbs_query_port_resp pp;
		if (uv_query_port(fd, port, &pp))
			continue;
		for (i = 0; i < pp.gid_tbl_len; i++) {
			if (sysfs_gid(port, i, g))
				continue;
			if (zero_gid(g)) {
				if (empty < 0 && port == 1)
					empty = i;
			} else {
				valid++;
			}
		}
	}
	if (empty >= 0)
		t_errno(gid_entry(fd, 1, empty, 0, &e, NULL), errno, ENODATA, "QUERY_GID_ENTRY of an empty slot: ENODATA");
	else
		t_skip("QUERY_GID_ENTRY of an empty slot: ENODATA", "no empty slot on port 1");

	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE);
	attr_const(&c, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, sizeof(e));
	ra = attr_ptr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, table, sizeof(table));
	rn = attr_ptr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &num, sizeof(num));
	t_success(run(fd, &c), errno, "QUERY_GID_TABLE: succeeds");
	t_eq((long long)num, valid, "  ... one entry per non-zero GID of sysfs, every port");
	t_ok(valid_output(ra) && valid_output(rn), "  ... both outputs flagged");
	ok = num > 0 && table[0].port_num == 1 && sysfs_gid(table[0].port_num, table[0].gid_index, g) == 0 &&
	     memcmp(g, table[0].gid, 16) == 0;
	t_ok(ok, "  ... the first entry is port 1's, as sysfs has it");

	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE);
	attr_const(&c, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, 40);
	memset(wide, 0xaa, sizeof(wide));
	attr_ptr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, wide, sizeof(wide));
	attr_ptr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &num, sizeof(num));
	t_success(run(fd, &c), errno, "QUERY_GID_TABLE with 40-byte entries: succeeds");
	t_ok(memcmp(wide, table, 32) == 0 && wide[32] == 0 && wide[39] == 0, "  ... each entry then 8 cleared bytes");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE);
	attr_const(&c, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, 0);
	attr_ptr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, table, sizeof(table));
	attr_ptr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &num, sizeof(num));
	t_errno(run(fd, &c), errno, EINVAL, "QUERY_GID_TABLE with entry size 0: EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE);
	attr_const(&c, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, sizeof(e));
	attr_ptr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, table, sizeof(e) + 8);
	attr_ptr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &num, sizeof(num));
	t_errno(run(fd, &c), errno, EINVAL, "QUERY_GID_TABLE with a buffer not whole entries: EINVAL");
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE);
	attr_const(&c, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, sizeof(e));
	attr_ptr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, table, sizeof(table));
	attr_ptr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &num, sizeof(num));
	attr(&c, UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, 4, 2);
	t_errno(run(fd, &c), errno, EINVAL, "QUERY_GID_TABLE with flags 2: EINVAL");
	if (valid > 1) {
		call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE);
		attr_const(&c, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, sizeof(e));
		attr_ptr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, table, sizeof(e));
		attr_ptr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &num, sizeof(num));
		t_errno(run(fd, &c), errno, EINVAL, "QUERY_GID_TABLE with room for one of several entries: EINVAL");
	} else {
		t_skip("QUERY_GID_TABLE with room for one of several entries: EINVAL", "one GID only");
	}
}

/* ------------------------------------------------------------ QP_CREATE, SRQ_CREATE (uverbs_std_types_{qp,srq}.c) */
/* XRC SRQs and QPs by ioctl, where the device has XRC domains (not rxe on 6.1) */
static void check_xrc_queues(int fd, uint32_t pd, uint32_t cq, uint64_t basic_srq, const struct ib_uverbs_qp_cap *cap)
{
	struct call c;
	struct queue_out o;
	struct ib_uverbs_open_xrcd req = { .fd = (uint32_t)-1 };
	struct ib_uverbs_open_xrcd_resp resp = { .xrcd_handle = 0xdead };
	uint64_t srq, qp;

	/* where XRC is missing every check still runs and reports a skip, so both sides list it */
	t_needs(NEED_XRC);
	if (invoke_write(fd, IB_USER_VERBS_CMD_OPEN_XRCD, &req, sizeof(req), &resp, sizeof(resp)) && (t_have & NEED_XRC))
		t_bail("OPEN_XRCD: %s", strerror(errno));
	srq_call(&c, IB_UVERBS_SRQT_XRC, pd, 16, 1, &o);
	attr(&c, UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE, 0, resp.xrcd_handle);
	attr(&c, UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE, 0, cq);
	t_success(run(fd, &c), errno, "SRQ_CREATE of an XRC SRQ: succeeds");
	srq = find_attr(&c, UVERBS_ATTR_CREATE_SRQ_HANDLE)->data;
	t_ok(valid_output(find_attr(&c, UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM)) && o.num != 0xaaaaaaaa,
	     "  ... RESP_SRQ_NUM written and flagged");
	srq_call(&c, IB_UVERBS_SRQT_XRC, pd, 16, 1, &o);
	attr(&c, UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE, 0, resp.xrcd_handle);
	attr(&c, UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE, 0, cq);
	drop_attr(&c, UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM);
	t_errno(run(fd, &c), errno, ENOENT, "SRQ_CREATE of an XRC SRQ without RESP_SRQ_NUM: ENOENT (after the create)");
	t_errno(destroy_queue(fd, UVERBS_OBJECT_SRQ, find_attr(&c, UVERBS_ATTR_CREATE_SRQ_HANDLE)->data, NULL, NULL),
		errno, ENOENT, "  ... and its handle names nothing (aborted)");

	qp_call(&c, IB_UVERBS_QPT_XRC_TGT, pd, cq, cap, &o);
	drop_attr(&c, UVERBS_ATTR_CREATE_QP_PD_HANDLE);
	drop_attr(&c, UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE);
	drop_attr(&c, UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE);
	attr(&c, UVERBS_ATTR_CREATE_QP_XRCD_HANDLE, 0, resp.xrcd_handle);
	t_success(run(fd, &c), errno, "QP_CREATE of an XRC target: succeeds");
	qp = find_attr(&c, UVERBS_ATTR_CREATE_QP_HANDLE)->data;
	t_ok(valid_output(find_attr(&c, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM)) && o.num > 1, "  ... its QPN written");
	t_success(destroy_queue(fd, UVERBS_OBJECT_QP, qp, NULL, NULL), errno, "  ... and QP_DESTROY of it");
	attr(&c, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, 0, basic_srq);
	t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE of an XRC target on a basic SRQ: EINVAL");
	qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, cap, &o);
	attr(&c, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, 0, srq);
	t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE of an RC QP on an XRC SRQ: EINVAL");
	qp_call(&c, IB_UVERBS_QPT_XRC_INI, pd, cq, cap, &o);
	drop_attr(&c, UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE);
	t_success(run(fd, &c), errno, "QP_CREATE of an XRC initiator (no RECV_CQ): succeeds");
	t_ok(o.cap.max_recv_wr == 0, "  ... no receive queue");
	t_success(destroy_queue(fd, UVERBS_OBJECT_QP, find_attr(&c, UVERBS_ATTR_CREATE_QP_HANDLE)->data, NULL, NULL),
		  errno, "  ... and QP_DESTROY of it");
	t_success(destroy_queue(fd, UVERBS_OBJECT_SRQ, srq, NULL, NULL), errno, "SRQ_DESTROY of the XRC SRQ");
	call_init(&c, UVERBS_OBJECT_XRCD, UVERBS_METHOD_XRCD_DESTROY);
	attr(&c, UVERBS_ATTR_DESTROY_XRCD_HANDLE, 0, resp.xrcd_handle);
	t_success(run(fd, &c), errno, "XRCD_DESTROY");
	t_needs(0);
}

/*
 * EVENT_FD: a QP's async events go to the async event file it was created with
 * (ib_uverbs_get_async_event), not to the default one. A QP on an SRQ moved to ERR reports
 * QP_LAST_WQE_REACHED, as rdmavt does (rxe refuses the RESET->ERR MODIFY_QP here: qib only).
 */
static void check_event_fd(int fd, uint32_t pd, uint32_t cq, uint64_t srq, const struct ib_uverbs_qp_cap *cap)
{
	struct call c;
	struct queue_out o;
	struct ib_uverbs_modify_qp m;
	struct ib_uverbs_async_event_desc ev = { 0 };
	struct ib_uverbs_attr *h;
	uint32_t events = 0;
	uint64_t qp;
	int second;

	call_init(&c, UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC);
	h = attr(&c, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, 0, 0);
	t_success(run(fd, &c), errno, "ASYNC_EVENT/ALLOC of a second async event file");
	second = (int)h->data;
	qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, cap, &o);
	attr(&c, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, 0, srq);
	attr(&c, UVERBS_ATTR_CREATE_QP_EVENT_FD, 0, second);
	t_success(run(fd, &c), errno, "QP_CREATE on the SRQ with the second file as EVENT_FD: succeeds");
	qp = find_attr(&c, UVERBS_ATTR_CREATE_QP_HANDLE)->data;
	memset(&m, 0, sizeof(m));
	m.qp_handle = (uint32_t)qp;
	m.attr_mask = 1; /* IB_QP_STATE */
	m.qp_state = 6;  /* IB_QPS_ERR */
	t_needs(NEED_QIB); /* rxe refuses this MODIFY_QP (EINVAL): its own rules */
	t_success(uv_modify_qp(fd, &m), errno, "  ... MODIFY_QP to ERR");
	t_ok(wait_readable(second, 2000) == 1 && read(second, &ev, sizeof(ev)) == (ssize_t)sizeof(ev) &&
	     ev.element == 0x5150 && ev.event_type == 16,
	     "  ... QP_LAST_WQE_REACHED with the QP's user handle, on the EVENT_FD file");
	t_ok(async_fd < 0 || wait_readable(async_fd, 200) == 0, "  ... and nothing on the default async file");
	t_success(destroy_queue(fd, UVERBS_OBJECT_QP, qp, &events, NULL), errno, "  ... QP_DESTROY");
	t_eq(events, 1, "  ... RESP events_reported 1 (the event read from the EVENT_FD file)");
	t_needs(0);
	close(second);
}

static void check_queues(int fd, uint32_t pd)
{
	struct call c;
	struct queue_out o;
	struct ib_uverbs_qp_cap cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 };
	uint32_t cq = 0, cqe, events = 1;
	uint64_t qp, srq;
	int flagged = 0;

	if (create_cq(fd, 16, 0, -1, ~0ull, &cq, &cqe, NULL))
		t_bail("CQ_CREATE: %s", strerror(errno));

	qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
	t_success(run(fd, &c), errno, "QP_CREATE of an RC QP: succeeds");
	qp = find_attr(&c, UVERBS_ATTR_CREATE_QP_HANDLE)->data;
	t_ok(qp != 0xdead, "  ... its handle written back");
	t_ok(valid_output(find_attr(&c, UVERBS_ATTR_CREATE_QP_RESP_CAP)) &&
	     valid_output(find_attr(&c, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM)) &&
	     valid_output(find_attr(&c, UVERBS_ATTR_UHW_OUT)), "  ... RESP_CAP, RESP_QP_NUM and UHW_OUT flagged");
	t_ok(o.cap.max_send_wr >= 8 && o.cap.max_recv_wr >= 8 && o.cap.max_send_sge >= 1 && o.cap.max_recv_sge >= 1,
	     "  ... RESP_CAP at least what was asked");
	t_ok(o.num > 1 && o.num < (1u << 24), "  ... RESP_QP_NUM a QPN above QP1");
	t_success(destroy_queue(fd, UVERBS_OBJECT_QP, qp, &events, &flagged), errno, "QP_DESTROY: succeeds");
	t_ok(events == 0 && flagged, "  ... RESP flagged, no events reported");
	t_errno(destroy_queue(fd, UVERBS_OBJECT_QP, qp, NULL, NULL), errno, ENOENT, "QP_DESTROY again: ENOENT");

	qp_call(&c, IB_UVERBS_QPT_UD, pd, cq, &cap, &o);
	attr(&c, UVERBS_ATTR_CREATE_QP_FLAGS, 4, IB_UVERBS_QP_CREATE_SQ_SIG_ALL);
	if (async_fd >= 0)
		attr(&c, UVERBS_ATTR_CREATE_QP_EVENT_FD, 0, async_fd);
	t_success(run(fd, &c), errno, "QP_CREATE of a UD QP with SQ_SIG_ALL and the async EVENT_FD: succeeds");
	qp = find_attr(&c, UVERBS_ATTR_CREATE_QP_HANDLE)->data;
	t_success(destroy_queue(fd, UVERBS_OBJECT_QP, qp, NULL, NULL), errno, "  ... and QP_DESTROY of it");

	qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
	drop_attr(&c, UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE);
	t_errno(run(fd, &c), errno, ENOENT, "QP_CREATE of an RC QP without RECV_CQ_HANDLE: ENOENT (uverbs_attr_get_obj)");
	qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
	drop_attr(&c, UVERBS_ATTR_CREATE_QP_PD_HANDLE);
	t_errno(run(fd, &c), errno, ENOENT, "QP_CREATE of an RC QP without PD_HANDLE: ENOENT");
	qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
	drop_attr(&c, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM);
	t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE without RESP_QP_NUM: EINVAL (mandatory)");
	qp_call(&c, 1, pd, cq, &cap, &o);
	t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE of type 1 (GSI): EINVAL");
	qp_call(&c, 7, pd, cq, &cap, &o);
	t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE of type 7: EINVAL");
	qp_call(&c, 1ull << 32 | IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
	t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE with TYPE 2^32+2 (past the enum's u32): EINVAL");
	qp_call(&c, IB_UVERBS_QPT_XRC_TGT, pd, cq, &cap, &o);
	t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE of an XRC target with PD and CQs: EINVAL");
	qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
	attr(&c, UVERBS_ATTR_CREATE_QP_XRCD_HANDLE, 0, pd);
	t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE with the PD's handle as XRCD_HANDLE: EINVAL (another type)");
	qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
	attr(&c, UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE, 0, pd);
	t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE with the PD's handle as IND_TABLE_HANDLE: EINVAL");
	qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
	attr(&c, UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE, 0, 1000);
	t_errno(run(fd, &c), errno, EINVAL,
		"QP_CREATE with an IND_TABLE_HANDLE never given out: EINVAL (no RWQ_IND_TBL object to look it up in)");
	call_init(&c, UVERBS_OBJECT_RWQ_IND_TBL, UVERBS_METHOD_RWQ_IND_TBL_DESTROY);
	attr(&c, UVERBS_ATTR_DESTROY_RWQ_IND_TBL_HANDLE, 0, pd);
	t_errno(run(fd, &c), errno, EPROTONOSUPPORT, "RWQ_IND_TBL_DESTROY of the PD's handle: EPROTONOSUPPORT");
	qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
	attr(&c, UVERBS_ATTR_CREATE_QP_FLAGS, 4, 1);
	t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE with unknown flag 1: EINVAL");
	qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
	attr(&c, UVERBS_ATTR_CREATE_QP_FLAGS, 4, IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK);
	t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE of an RC QP with BLOCK_MULTICAST_LOOPBACK: EINVAL (UD and raw only)");
	qp_call(&c, IB_UVERBS_QPT_UD, pd, cq, &cap, &o);
	attr(&c, UVERBS_ATTR_CREATE_QP_FLAGS, 4, IB_UVERBS_QP_CREATE_SCATTER_FCS);
	t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE of a UD QP with SCATTER_FCS: EINVAL (raw only)");
	qp_call(&c, IB_UVERBS_QPT_UD, pd, cq, &cap, &o);
	attr(&c, UVERBS_ATTR_CREATE_QP_FLAGS, 4, IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK);
	t_errno(run(fd, &c), errno, EOPNOTSUPP,
		"QP_CREATE of a UD QP with BLOCK_MULTICAST_LOOPBACK: EOPNOTSUPP (the driver's)");
	qp_call(&c, IB_UVERBS_QPT_UD, pd, cq, &cap, &o);
	attr(&c, UVERBS_ATTR_CREATE_QP_SOURCE_QPN, 4, 0x99);
	t_errno(run(fd, &c), errno, EOPNOTSUPP, "QP_CREATE with SOURCE_QPN: EOPNOTSUPP (the driver's)");
	qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
	attr(&c, UVERBS_ATTR_CREATE_QP_EVENT_FD, 0, 0);
	t_errno(run(fd, &c), errno, EBADF, "QP_CREATE with stdin as EVENT_FD: EBADF");
	{
		struct { struct ib_uverbs_qp_cap cap; uint32_t tail; } longer = { cap, 0 };
		qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
		find_attr(&c, UVERBS_ATTR_CREATE_QP_CAP)->len = 16;
		t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE with a 16-byte CAP: EINVAL");
		qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
		find_attr(&c, UVERBS_ATTR_CREATE_QP_CAP)->data = (uintptr_t)&longer;
		find_attr(&c, UVERBS_ATTR_CREATE_QP_CAP)->len = sizeof(longer);
		longer.tail = 1;
		t_errno(run(fd, &c), errno, EOPNOTSUPP, "QP_CREATE with a longer CAP, its tail non-zero: EOPNOTSUPP");
		longer.tail = 0;
		t_success(run(fd, &c), errno, "QP_CREATE with a longer CAP, its tail zero: succeeds");
		qp = find_attr(&c, UVERBS_ATTR_CREATE_QP_HANDLE)->data;
		t_success(destroy_queue(fd, UVERBS_OBJECT_QP, qp, NULL, NULL), errno, "  ... and QP_DESTROY of it");
		qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
		find_attr(&c, UVERBS_ATTR_CREATE_QP_CAP)->data = 16;
		t_errno(run(fd, &c), errno, EFAULT, "QP_CREATE with CAP unmapped: EFAULT");
	}
	{
		struct ib_uverbs_qp_cap huge = cap;
		huge.max_send_wr = 0x7fffffff;
		qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &huge, &o);
		t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE of 2^31-1 send WRs: EINVAL (the driver's)");
		qp = find_attr(&c, UVERBS_ATTR_CREATE_QP_HANDLE)->data;
		t_errno(destroy_queue(fd, UVERBS_OBJECT_QP, qp, NULL, NULL), errno, ENOENT,
			"  ... and the handle written back names nothing");
	}

	srq_call(&c, IB_UVERBS_SRQT_BASIC, pd, 16, 1, &o);
	t_success(run(fd, &c), errno, "SRQ_CREATE of a basic SRQ: succeeds");
	srq = find_attr(&c, UVERBS_ATTR_CREATE_SRQ_HANDLE)->data;
	t_ok(srq != 0xdead, "  ... its handle written back");
	t_ok(valid_output(find_attr(&c, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR)) &&
	     valid_output(find_attr(&c, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE)) && o.max_wr >= 16 && o.max_sge >= 1,
	     "  ... RESP_MAX_WR and RESP_MAX_SGE flagged, at least what was asked");
	t_ok(!valid_output(find_attr(&c, UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM)) && o.num == 0xaaaaaaaa,
	     "  ... RESP_SRQ_NUM untouched and not flagged (XRC only)");
	t_ok(valid_output(find_attr(&c, UVERBS_ATTR_UHW_OUT)), "  ... UHW_OUT flagged");

	qp_call(&c, IB_UVERBS_QPT_RC, pd, cq, &cap, &o);
	attr(&c, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, 0, srq);
	t_success(run(fd, &c), errno, "QP_CREATE of an RC QP on the SRQ: succeeds");
	qp = find_attr(&c, UVERBS_ATTR_CREATE_QP_HANDLE)->data;
	t_errno(destroy_queue(fd, UVERBS_OBJECT_SRQ, srq, NULL, NULL), errno, EBUSY, "SRQ_DESTROY while a QP uses it: EBUSY");
	t_success(destroy_queue(fd, UVERBS_OBJECT_QP, qp, NULL, NULL), errno, "  ... QP_DESTROY of that QP");
	qp_call(&c, IB_UVERBS_QPT_XRC_INI, pd, cq, &cap, &o);
	drop_attr(&c, UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE);
	attr(&c, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, 0, srq);
	t_errno(run(fd, &c), errno, EINVAL, "QP_CREATE of an XRC initiator with an SRQ: EINVAL");

	srq_call(&c, 3, pd, 16, 1, &o);
	t_errno(run(fd, &c), errno, EINVAL, "SRQ_CREATE of type 3: EINVAL");
	srq_call(&c, IB_UVERBS_SRQT_XRC, pd, 16, 1, &o);
	t_errno(run(fd, &c), errno, ENOENT, "SRQ_CREATE of an XRC SRQ without CQ_HANDLE: ENOENT");
	srq_call(&c, IB_UVERBS_SRQT_TM, pd, 16, 1, &o);
	attr(&c, UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE, 0, cq);
	t_errno(run(fd, &c), errno, ENOENT, "SRQ_CREATE of a tag-matching SRQ without MAX_NUM_TAGS: ENOENT");
	attr(&c, UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS, 4, 4);
	t_errno(run(fd, &c), errno, EOPNOTSUPP, "SRQ_CREATE of a tag-matching SRQ: EOPNOTSUPP (the driver's)");
	srq_call(&c, IB_UVERBS_SRQT_BASIC, pd, 0, 1, &o);
	t_errno(run(fd, &c), errno, EINVAL, "SRQ_CREATE of 0 WRs: EINVAL (the driver's)");
	srq_call(&c, IB_UVERBS_SRQT_BASIC, pd, 16, 1, &o);
	drop_attr(&c, UVERBS_ATTR_CREATE_SRQ_LIMIT);
	t_errno(run(fd, &c), errno, EINVAL, "SRQ_CREATE without LIMIT: EINVAL (mandatory)");
	srq_call(&c, IB_UVERBS_SRQT_BASIC, pd, 16, 1, &o);
	find_attr(&c, UVERBS_ATTR_CREATE_SRQ_MAX_WR)->len = 8;
	t_errno(run(fd, &c), errno, EINVAL, "SRQ_CREATE with an 8-byte MAX_WR (a u32): EINVAL");
	srq_call(&c, IB_UVERBS_SRQT_BASIC, cq, 16, 1, &o);
	t_errno(run(fd, &c), errno, EINVAL, "SRQ_CREATE with the CQ's handle as PD_HANDLE: EINVAL");

	check_event_fd(fd, pd, cq, srq, &cap);
	check_xrc_queues(fd, pd, cq, srq, &cap);
	t_success(destroy_queue(fd, UVERBS_OBJECT_SRQ, srq, &events, &flagged), errno, "SRQ_DESTROY: succeeds");
	t_ok(events == 0 && flagged, "  ... RESP flagged, no events reported");
	t_errno(destroy_queue(fd, UVERBS_OBJECT_SRQ, srq, NULL, NULL), errno, ENOENT, "SRQ_DESTROY again: ENOENT");
	{
		struct ib_uverbs_destroy_cq_resp dr;
		call_init(&c, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY);
		attr(&c, UVERBS_ATTR_DESTROY_CQ_HANDLE, 0, cq);
		attr_ptr(&c, UVERBS_ATTR_DESTROY_CQ_RESP, &dr, sizeof(dr));
		t_success(run(fd, &c), errno, "CQ_DESTROY of the QPs' CQ");
	}
}

/* ------------------------------------------------------------ objects: INVOKE_WRITE creates, ioctl destroys */
static void check_objects(int fd)
{
	struct call c;
	struct ib_uverbs_attr *out, *uhw, *list, *total, *lk, *rk, *ln, *iova;
	struct ib_uverbs_alloc_pd pd_req;
	struct ib_uverbs_alloc_pd_resp pd_resp;
	struct ib_uverbs_query_device qd;
	struct ib_uverbs_query_device_resp qdr;
	struct ib_uverbs_destroy_cq_resp cqr;
	uint32_t handles[8], n = 0, lkey = 0, rkey = 0;
	uint64_t len = 0, va = 0;
	uint8_t uhwbuf[8];
	long cq, mr;
	static char region[8192];

	memset(&qd, 0, sizeof(qd));
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	attr_const(&c, UVERBS_ATTR_WRITE_CMD, IB_USER_VERBS_CMD_QUERY_DEVICE);
	attr_ptr(&c, UVERBS_ATTR_CORE_IN, &qd, sizeof(qd));
	out = attr_ptr(&c, UVERBS_ATTR_CORE_OUT, &qdr, sizeof(qdr));
	uhw = attr_ptr(&c, UVERBS_ATTR_UHW_OUT, uhwbuf, sizeof(uhwbuf));
	t_success(run(fd, &c), errno, "INVOKE_WRITE QUERY_DEVICE: succeeds");
	t_ok(valid_output(out), "  ... CORE_OUT flagged VALID_OUTPUT");
	t_ok(valid_output(uhw), "  ... UHW_OUT flagged on success (ib_uverbs_run_method)");
	t_ok(qdr.phys_port_cnt >= 1, "  ... phys_port_cnt >= 1");

	memset(&pd_req, 0, sizeof(pd_req));
	t_errno(invoke_write(fd, IB_USER_VERBS_CMD_ALLOC_PD, &pd_req, sizeof(pd_req), &pd_resp, 2), errno, ENOSPC,
		"INVOKE_WRITE ALLOC_PD with a 2-byte CORE_OUT: ENOSPC");
	t_errno(invoke_write(fd, IB_USER_VERBS_CMD_ALLOC_PD, &pd_req, 4, &pd_resp, sizeof(pd_resp)), errno, ENOSPC,
		"INVOKE_WRITE ALLOC_PD with a 4-byte CORE_IN: ENOSPC");
	{
		/* a CORE_IN longer than the command: uverbs_request copies the struct, then
		 * ib_is_buffer_cleared reads the rest, and an unreadable rest is "not cleared" */
		long page = sysconf(_SC_PAGESIZE);
		char *two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct ib_uverbs_alloc_pd_resp r2;
		if (two == MAP_FAILED)
			t_bail("mmap: %s", strerror(errno));
		munmap(two + page, page);
		char *req = two + page - sizeof(pd_req);
		memcpy(req, &pd_req, sizeof(pd_req));
		t_errno(invoke_write(fd, IB_USER_VERBS_CMD_ALLOC_PD, req, sizeof(pd_req) + 8, &r2, sizeof(r2)), errno,
			EOPNOTSUPP, "INVOKE_WRITE ALLOC_PD with a CORE_IN past the struct, the rest unmapped: EOPNOTSUPP");
		t_errno(invoke_write(fd, IB_USER_VERBS_CMD_ALLOC_PD, two + page, sizeof(pd_req) + 8, &r2, sizeof(r2)),
			errno, EFAULT, "INVOKE_WRITE ALLOC_PD with its CORE_IN unmapped: EFAULT");
		t_errno(invoke_write(fd, IB_USER_VERBS_CMD_ALLOC_PD, two + page - 4, sizeof(pd_req) + 8, &r2, sizeof(r2)),
			errno, EFAULT, "INVOKE_WRITE ALLOC_PD with its CORE_IN's struct half unmapped: EFAULT");
		munmap(two, page);
	}
	t_success(invoke_write(fd, IB_USER_VERBS_CMD_ALLOC_PD, &pd_req, sizeof(pd_req), &pd_resp, sizeof(pd_resp)),
		  errno, "INVOKE_WRITE ALLOC_PD: succeeds");

	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	attr_const(&c, UVERBS_ATTR_INFO_OBJECT_ID, UVERBS_OBJECT_PD);
	total = attr_ptr(&c, UVERBS_ATTR_INFO_TOTAL_HANDLES, &n, sizeof(n));
	list = attr_ptr(&c, UVERBS_ATTR_INFO_HANDLES_LIST, handles, sizeof(handles));
	t_success(run(fd, &c), errno, "INFO_HANDLES of PD: succeeds");
	t_ok(n == 1 && handles[0] == pd_resp.pd_handle, "  ... the PD's handle, once");
	(void)total;
	(void)list;

	cq = uv_create_cq(fd, 4, -1, 0, 7, NULL);
	if (cq < 0)
		t_bail("CREATE_CQ: %s", strerror(errno));
	call_init(&c, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY);
	attr(&c, UVERBS_ATTR_DESTROY_PD_HANDLE, 0, cq);
	t_errno(run(fd, &c), errno, EINVAL, "PD_DESTROY of a CQ's handle: EINVAL");
	call_init(&c, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY);
	attr(&c, UVERBS_ATTR_DESTROY_CQ_HANDLE, 0, cq);
	attr_ptr(&c, UVERBS_ATTR_DESTROY_CQ_RESP, &cqr, 4);
	t_errno(run(fd, &c), errno, EINVAL, "CQ_DESTROY with a 4-byte RESP: EINVAL");
	call_init(&c, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY);
	attr(&c, UVERBS_ATTR_DESTROY_CQ_HANDLE, 0, cq);
	memset(&cqr, 0xaa, sizeof(cqr));
	out = attr_ptr(&c, UVERBS_ATTR_DESTROY_CQ_RESP, &cqr, sizeof(cqr));
	t_success(run(fd, &c), errno, "CQ_DESTROY: succeeds");
	t_ok(valid_output(out) && cqr.comp_events_reported == 0 && cqr.async_events_reported == 0,
	     "  ... RESP flagged, no events reported");
	t_errno(run(fd, &c), errno, ENOENT, "CQ_DESTROY again: ENOENT");

	{
		uint32_t h = 0, h2, rcqe = 0;
		int flagged = 0;
		long ch;
		struct ib_uverbs_destroy_cq_resp dr;
		t_success(create_cq(fd, 16, 0, -1, ~0ull, &h, &rcqe, &flagged), errno, "CQ_CREATE: succeeds");
		t_ok(h != 0xdead && rcqe >= 16 && flagged, "  ... its handle written back, RESP_CQE >= 16 and flagged");
		t_errno(create_cq(fd, 16, 1000, -1, ~0ull, &h2, &rcqe, NULL), errno, EINVAL, "CQ_CREATE with comp vector 1000: EINVAL");
		t_errno(create_cq(fd, 16, 0, -1, 4, &h2, &rcqe, NULL), errno, EINVAL, "CQ_CREATE with unknown flag 4: EINVAL");
		t_errno(create_cq(fd, 16, 0, -1, 1, &h2, &rcqe, NULL), errno, EOPNOTSUPP,
			"CQ_CREATE with TIMESTAMP_COMPLETION: EOPNOTSUPP (the driver's)");
		t_errno(create_cq(fd, 0x7fffffff, 0, -1, ~0ull, &h2, &rcqe, NULL), errno, EINVAL, "CQ_CREATE of 2^31-1 entries: EINVAL");
		t_errno(create_cq(fd, 16, 0, 0, ~0ull, &h2, &rcqe, NULL), errno, EBADF,
			"CQ_CREATE with stdin as its completion channel: EBADF");
		ch = uv_create_comp_channel(fd);
		if (ch < 0)
			t_bail("CREATE_COMP_CHANNEL: %s", strerror(errno));
		t_success(create_cq(fd, 16, 0, (int)ch, 0, &h2, &rcqe, NULL), errno, "CQ_CREATE with a completion channel: succeeds");
		call_init(&c, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY);
		attr(&c, UVERBS_ATTR_DESTROY_CQ_HANDLE, 0, h2);
		attr_ptr(&c, UVERBS_ATTR_DESTROY_CQ_RESP, &dr, sizeof(dr));
		t_success(run(fd, &c), errno, "  ... and CQ_DESTROY of it");
		call_init(&c, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY);
		attr(&c, UVERBS_ATTR_DESTROY_CQ_HANDLE, 0, h);
		attr_ptr(&c, UVERBS_ATTR_DESTROY_CQ_RESP, &dr, sizeof(dr));
		t_success(run(fd, &c), errno, "CQ_DESTROY of the first CQ_CREATE's");
		close((int)ch);
	}

	if (qdr.device_cap_flags & IB_UVERBS_DEVICE_XRC)
		t_have |= NEED_XRC;
	check_queues(fd, pd_resp.pd_handle);

	mr = uv_reg_mr(fd, pd_resp.pd_handle, region, sizeof(region), (uintptr_t)region, ACC_LOCAL_WRITE, NULL, NULL);
	if (mr < 0)
		t_bail("REG_MR: %s", strerror(errno));
	call_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR);
	attr(&c, UVERBS_ATTR_QUERY_MR_HANDLE, 0, mr);
	lk = attr_ptr(&c, UVERBS_ATTR_QUERY_MR_RESP_LKEY, &lkey, sizeof(lkey));
	rk = attr_ptr(&c, UVERBS_ATTR_QUERY_MR_RESP_RKEY, &rkey, sizeof(rkey));
	ln = attr_ptr(&c, UVERBS_ATTR_QUERY_MR_RESP_LENGTH, &len, sizeof(len));
	iova = attr_ptr(&c, UVERBS_ATTR_QUERY_MR_RESP_IOVA, &va, sizeof(va));
	t_success(run(fd, &c), errno, "QUERY_MR: succeeds");
	t_ok(len == sizeof(region) && va == (uintptr_t)region && lkey != 0, "  ... length, iova and an lkey");
	t_ok(valid_output(lk) && valid_output(rk) && valid_output(ln) && valid_output(iova), "  ... every output flagged");
	call_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR);
	attr(&c, UVERBS_ATTR_QUERY_MR_HANDLE, 0, mr);
	attr_ptr(&c, UVERBS_ATTR_QUERY_MR_RESP_RKEY, &rkey, sizeof(rkey));
	t_errno(run(fd, &c), errno, EINVAL, "QUERY_MR without RESP_LKEY: EINVAL (mandatory)");
	{
		struct ib_uverbs_sge sge[2] = { { (uintptr_t)region, 64, lkey }, { 0, 0, 0 } };
		call_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR);
		attr(&c, UVERBS_ATTR_ADVISE_MR_PD_HANDLE, 0, pd_resp.pd_handle);
		attr_const(&c, UVERBS_ATTR_ADVISE_MR_ADVICE, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH);
		attr(&c, UVERBS_ATTR_ADVISE_MR_FLAGS, 4, 0);
		attr_ptr(&c, UVERBS_ATTR_ADVISE_MR_SGE_LIST, sge, sizeof(sge[0]));
		t_errno(run(fd, &c), errno, EOPNOTSUPP, "ADVISE_MR: EOPNOTSUPP (no advise_mr)");
		c.attrs[3].data = 16;
		t_errno(run(fd, &c), errno, EFAULT, "ADVISE_MR with SGE_LIST unmapped: EFAULT (copied before the handler)");
		c.attrs[3].data = (uintptr_t)sge;
		c.attrs[0].data = 12345;
		t_errno(run(fd, &c), errno, ENOENT, "ADVISE_MR with an unknown PD: ENOENT");
	}
	{
		uint64_t zero = 0;
		struct ib_uverbs_attr *h;
		call_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR);
		h = attr(&c, UVERBS_ATTR_REG_DMABUF_MR_HANDLE, 0, 0xdead);
		attr(&c, UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, 0, pd_resp.pd_handle);
		attr_ptr(&c, UVERBS_ATTR_REG_DMABUF_MR_OFFSET, &zero, 8)->data = 0;
		attr(&c, UVERBS_ATTR_REG_DMABUF_MR_LENGTH, 8, 4096);
		attr(&c, UVERBS_ATTR_REG_DMABUF_MR_IOVA, 8, 0);
		attr(&c, UVERBS_ATTR_REG_DMABUF_MR_FD, 4, 0); /* 6.1: a PTR_IN u32 (UVERBS_ATTR_RAW_FD is 6.2's) */
		attr_ptr(&c, UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, &lkey, 4);
		attr_ptr(&c, UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, &rkey, 4);
		t_errno(run(fd, &c), errno, EOPNOTSUPP, "REG_DMABUF_MR: EOPNOTSUPP (no reg_user_mr_dmabuf)");
		t_ok(h->data != 0xdead, "  ... the new handle was written back before the handler ran");
		{
			struct call d;
			call_init(&d, UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY);
			attr(&d, UVERBS_ATTR_DESTROY_MR_HANDLE, 0, h->data);
			t_errno(run(fd, &d), errno, ENOENT, "  ... and it names nothing after the failure (aborted)");
		}
		c.attrs[5].len = 0;
		c.attrs[0].data = 0xdead;
		t_errno(run(fd, &c), errno, EINVAL, "REG_DMABUF_MR with its FD of len 0: EINVAL (a u32 PTR_IN on 6.1)");
	}
	call_init(&c, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY);
	attr(&c, UVERBS_ATTR_DESTROY_PD_HANDLE, 0, pd_resp.pd_handle);
	t_errno(run(fd, &c), errno, EBUSY, "PD_DESTROY while an MR uses it: EBUSY");
	call_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY);
	attr(&c, UVERBS_ATTR_DESTROY_MR_HANDLE, 0, mr);
	t_success(run(fd, &c), errno, "MR_DESTROY: succeeds");
	call_init(&c, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY);
	attr(&c, UVERBS_ATTR_DESTROY_PD_HANDLE, 0, pd_resp.pd_handle);
	t_success(run(fd, &c), errno, "PD_DESTROY: succeeds");
	t_errno(run(fd, &c), errno, ENOENT, "PD_DESTROY again: ENOENT");
}

static void write_only(void)
{
	int fd = open_uverbs();
	struct call c;
	struct ib_uverbs_get_context_resp r;
	driver_id = 0;
	call_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	attr_const(&c, UVERBS_ATTR_WRITE_CMD, IB_USER_VERBS_CMD_QUERY_DEVICE);
	t_errno(run(fd, &c), errno, ENOTTY, "write-only kernel: INVOKE_WRITE (libibverbs's probe): ENOTTY");
	memset(&c, 0, sizeof(c));
	t_errno(ioctl(fd, RDMA_VERBS_IOCTL, &c), errno, ENOTTY, "write-only kernel: an all-zero header: ENOTTY");
	t_success(uv_get_context(fd, &r), errno, "write-only kernel: write() GET_CONTEXT still succeeds");
	close(fd);
}

int main(int argc, char **argv)
{
	int fd, ports;
	struct ib_uverbs_query_device_resp dev;

	watchdog(120);
	if (uverbs_ibdev(uverbs_path(), ibdev, sizeof(ibdev)) == 0)
		t_detect(ibdev);
	if (argc > 1 && strcmp(argv[1], "--write-only") == 0) {
		write_only();
		return t_done();
	}
	fd = open_uverbs();
	if (!find_driver_id(fd))
		t_bail("no driver id makes an unknown object EPROTONOSUPPORT: no ioctl path (%s)", strerror(errno));
	t_diag("driver id %u", driver_id);
	check_header(fd);
	check_reopen(fd);
	check_attributes(fd);
	check_without_context(fd);
	check_get_context(fd);
	if (uv_query_device(fd, &dev))
		t_bail("write() QUERY_DEVICE: %s", strerror(errno));
	ports = dev.phys_port_cnt;
	check_query_port(fd);
	check_gids(fd, ports);
	check_objects(fd);
	if (async_fd >= 0)
		close(async_fd);
	close(fd);
	return t_done();
}
