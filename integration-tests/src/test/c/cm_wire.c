/*
 * cm_wire.c - the Communication Manager as a umad client meets it: ib_cm holds the CM class.
 *
 * Build: gcc -O2 -Wall -o cm_wire cm_wire.c
 * Run:   ./cm_wire [PEER_LID]    (IBEMU_UMAD / IBEMU_SYSFS override paths)
 *
 * Rules from drivers/infiniband/core/cm.c (cm_add_one registers class 0x07 version 2, method
 * Send, on every port; cm_req_handler answers a REQ for a service nobody listens on with
 * cm_issue_rej(IB_CM_REJ_INVALID_SERVICE_ID)) and mad.c (ib_register_mad_agent: a method
 * another agent holds is EINVAL; an agent without a registration may send anything).
 *
 * With PEER_LID it writes one REQ (service 0x0106000000004321, local communication ID
 * 0x12345678) to QP1 at PEER_LID; the peer's CM rejects it to this port's CM, not to us, so
 * what crossed the wire is for a capture to see (integration-tests CmWireTest). Without, only
 * the registration checks run (a kernel with ib_cm loaded gives the same answers).
 */
#include "probe.h"

#define MASK(m) (1ULL << (m))
#define CLS_CM 0x07
#define CM_VERSION 2
#define M_SEND 0x03
#define CM_REQ 0x0010
#define REQ_LOCAL_COMM_ID 0x12345678u
#define REQ_SERVICE_ID 0x0106000000004321ull

static struct port_id P;

int main(int argc, char **argv)
{
	struct uf u;
	struct uaddr a;
	uint8_t m[MAD_SIZE];
	uint8_t *d = m + MGMT_MAD_HDR;
	uint64_t guid = 0;
	uint32_t id;
	long lid, peer;

	watchdog(60);
	if (argc > 2)
		t_bail("usage: cm_wire [PEER_LID]");
	if (port_lookup(&P))
		t_bail("cannot resolve %s in %s/class/infiniband_mad", umad_path(), sysfs_root());
	t_detect(P.ibdev);
	if (uf_open(&u, 0) < 0)
		t_bail("open %s: %s", umad_path(), strerror(errno));

	t_errno(reg1(u.fd, 1, CLS_CM, CM_VERSION, 0, MASK(M_SEND), 0, 0, &id), errno, EINVAL,
		"REGISTER_AGENT for CM Send: ib_cm holds it (EINVAL)");
	t_success(reg1(u.fd, 1, CLS_CM, CM_VERSION, 0, MASK(M_GET), 0, 0, &id), errno,
		  "REGISTER_AGENT for CM Get: ib_cm holds Send only");
	t_success(reg1(u.fd, 1, 0, 0, 0, 0, 0, 0, &id), errno, "an agent with no registration, to send");
	if (argc < 2 || t_lacks(NEED_IB)) {
		t_skip("a REQ to a peer", argc < 2 ? "no PEER_LID given" : "no InfiniBand port");
		uf_close(&u);
		return t_done();
	}
	peer = strtol(argv[1], NULL, 0);
	lid = sysfs_hex(&P, "lid");
	sysfs_node_guid(&P, &guid);

	memset(m, 0, sizeof(m));
	mad_hdr(m, CLS_CM, CM_VERSION, M_SEND, 0x00000000abcd0001ull, CM_REQ, 0);
	put32(d + 0, REQ_LOCAL_COMM_ID);
	put64(d + 8, REQ_SERVICE_ID);
	put64(d + 16, guid);
	put32(d + 32, 0x000123u << 8);      /* local QPN 0x123, responder resources 0 */
	put32(d + 44, (0x000777u << 8) | (20u << 3) | 7); /* starting PSN, local CM timeout 20, retries 7 */
	d[43] = 20u << 3;                   /* remote CM response timeout 20, RC, no flow control */
	put16(d + 48, 0xffff);              /* P_Key */
	d[50] = 4u << 4 | 7;                /* MTU 2048, RNR retry 7 */
	d[51] = 15u << 4;                   /* max CM retries */
	put16(d + 52, (uint16_t)lid);
	put16(d + 54, (uint16_t)peer);
	d[94] = 1u << 3;                    /* SL 0, subnet local */
	d[95] = 19u << 3;                   /* local ACK timeout */

	uaddr_gsi(&a, id, (uint16_t)peer);
	a.timeout_ms = 0; /* a CM message waits for no MAD-level response */
	t_ret(uf_send(&u, &a, m, MAD_SIZE), errno, u.hsz + MAD_SIZE, "write a CM REQ to the peer's QP1");
	t_diag("REQ sent from LID 0x%lx to LID 0x%lx", lid, peer);
	uf_close(&u);
	return t_done();
}
