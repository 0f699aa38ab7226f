/*
 * umad_rmpp.c - kernel-RMPP agents: a multi-segment message is delivered
 * whole, and a short read gets ENOSPC with the header and first segment.
 *
 * Build: gcc -O2 -Wall -o umad_rmpp umad_rmpp.c
 * Run:   ./umad_rmpp             (IBEMU_UMAD / IBEMU_SYSFS override paths)
 *
 * Two files on the same port: a "server" agent owning SubnAdm (0x03, v2)
 * GetTable, and a "client" agent; both rmpp_version 1 (kernel RMPP). The
 * client sends GetTable to the port's own LID; the server answers with an
 * RMPP-active GetTableResp of 56 + 500 bytes (3 segments); the client reads it.
 * Needs a LID route to the local port: without one the request times out and
 * the checks are skipped ("needs fabric").
 *
 * Rules: user_mad.c copy_recv_mad (EINVAL when the first segment does not
 * fit, ENOSPC with header + first segment when the whole message does not,
 * packet requeued), ib_umad_write (RMPP active: data segmented by the
 * kernel), mad_rmpp.c (reassembly, get_mad_len).
 */
#include "probe.h"

#define DATA_LEN 500
#define SA_ATTR_NODE_RECORD 0x0011
#define RMPP_FLAG_ACTIVE 0x01
#define RMPP_FLAG_FIRST 0x02
#define RMPP_TYPE_DATA 1

static struct port_id P;

int main(void)
{
	struct uf S, Cl;
	struct uaddr a;
	struct ib_user_mad_hdr h;
	uint8_t req[MAD_SIZE], resp[MGMT_SA_HDR + DATA_LEN], buf[8192], first[HDR_NEW + MAD_SIZE];
	uint32_t sag, cag, tid_lo = 0x00c0ffee;
	long lid;
	ssize_t n;
	int i, r;
	const char *skip_why = NULL;

	watchdog(60);
	if (port_lookup(&P))
		t_bail("cannot resolve %s in %s/class/infiniband_mad", umad_path(), sysfs_root());
	t_detect(P.ibdev);
	lid = sysfs_hex(&P, "lid");
	t_diag("%s = %s port %d, lid 0x%lx", P.umad, P.ibdev, P.port, lid);

	if (uf_open(&S, 0) < 0 || uf_open(&Cl, O_NONBLOCK) < 0)
		t_bail("open %s: %s", umad_path(), strerror(errno));
	/* server: old layout (REGISTER_AGENT), client: new layout (REGISTER_AGENT2) */
	r = reg1(S.fd, 1, CLS_SUBN_ADM, 2, 0, 1ULL << M_GETTABLE, 0, 1, &sag);
	t_ret(r, errno, 0, "server registers SubnAdm v2 GetTable with rmpp_version 1");
	r = reg2(Cl.fd, 1, CLS_SUBN_ADM, 2, 0, 0, 0, 1, 0, &cag, NULL);
	t_ret(r, errno, 0, "client registers SubnAdm v2 (no methods) with rmpp_version 1");
	Cl.hsz = HDR_NEW;
	if (t_failed)
		return t_done();

	/* client: SA GetTable(NodeRecord) to our own LID */
	memset(req, 0, sizeof(req));
	mad_hdr(req, CLS_SUBN_ADM, 2, M_GETTABLE, tid_lo, SA_ATTR_NODE_RECORD, 0);
	req[24] = 1; /* rmpp_version; flags 0: not an active RMPP transfer */
	/* LID addressing: on RoCE an address without a GRH is EINVAL (ib_umad_write's AH) */
	t_needs(NEED_IB);
	uaddr_gsi(&a, cag, (uint16_t)lid);
	a.timeout_ms = 500;
	a.retries = 1;
	n = uf_send(&Cl, &a, req, sizeof(req));
	t_ret(n, errno, HDR_NEW + MAD_SIZE, "client GetTable write returns the count");

	/* server gets the request */
	if (wait_readable(S.fd, 2000) != 1) {
		n = uf_recv(&Cl, buf, sizeof(buf), 2000);
		if (n >= HDR_NEW && ((struct ib_user_mad_hdr *)buf)->status == 110)
			skip_why = "needs fabric (GetTable to own LID timed out)";
		else
			skip_why = "needs fabric (request never reached the server)";
		if (lid == 0)
			skip_why = "needs fabric (port LID is 0: no SM)";
	}
	if (skip_why) {
		const char *names[] = {
			"server receives the GetTable request",
			"client read too small for the message: ENOSPC",
			"ENOSPC read carries header.length = needed size",
			"ENOSPC read carries the first segment",
			"message stays queued after ENOSPC",
			"read smaller than one segment: EINVAL",
			"read with a big enough buffer gets the whole message",
			"reassembled payload equals what the server wrote",
		};
		for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
			t_skip(names[i], skip_why);
		uf_close(&S);
		uf_close(&Cl);
		return t_done();
	}
	n = read(S.fd, buf, sizeof(buf));
	t_ret(n, errno, HDR_OLD + MAD_SIZE, "server receives the GetTable request");
	if (n < HDR_OLD + MAD_SIZE)
		return t_done();
	uf_hdr(&S, buf, &h);
	t_eq(h.length, HDR_OLD + MAD_SIZE, "server: request hdr.length = 56 + 256 (old layout)");
	t_eq(h.id, sag, "server: request delivered to the GetTable owner");
	t_eq(ntohl(h.qpn), 1, "server: request came from QP1");
	t_eq(buf[HDR_OLD + 3], M_GETTABLE, "server: method GetTable");
	t_eq((uint32_t)get64(buf + HDR_OLD + MAD_TID), tid_lo, "server: TID low 32 bits");

	/* server: RMPP-active GetTableResp, 56-byte SA header + 500 bytes of data */
	memset(resp, 0, sizeof(resp));
	memcpy(resp, buf + HDR_OLD, MGMT_SA_HDR);  /* same TID (hi_tid of the client) */
	resp[3] = M_GETTABLE_RESP;
	put16(resp + MAD_STATUS, 0);
	resp[24] = 1;                              /* rmpp_version */
	resp[25] = RMPP_TYPE_DATA;
	resp[26] = RMPP_FLAG_ACTIVE;               /* kernel fills first/last, seg_num, paylen */
	put16(resp + 44, 8);                       /* attr_offset (8-byte words) */
	for (i = 0; i < DATA_LEN; i++)
		resp[MGMT_SA_HDR + i] = (uint8_t)(i * 7 + 3);
	{
		struct uaddr ra;
		memset(&ra, 0, sizeof(ra));
		ra.id = sag;
		ra.qpn = ntohl(h.qpn);
		ra.qkey = GSI_QKEY;
		ra.lid = ntohs(h.lid);
		n = uf_send(&S, &ra, resp, sizeof(resp));
		t_ret(n, errno, HDR_OLD + (long)sizeof(resp), "server RMPP response write returns the count");
	}

	/* client: a read too small for the whole message */
	if (wait_readable(Cl.fd, 5000) != 1) {
		t_line(0, "client receives the response", "nothing in 5 s");
		return t_done();
	}
	memset(first, 0, sizeof(first));
	n = read(Cl.fd, first, sizeof(first));
	t_errno(n, errno, ENOSPC, "client read too small for the message: ENOSPC");
	uf_hdr(&Cl, first, &h);
	t_eq(h.length, HDR_NEW + MGMT_SA_HDR + DATA_LEN,
	     "ENOSPC read carries header.length = needed size (64 + 556)");
	t_eq(h.id, cag, "ENOSPC read: hdr.id = client agent");
	t_line(first[HDR_NEW + 1] == CLS_SUBN_ADM && first[HDR_NEW + 3] == M_GETTABLE_RESP &&
	       (uint32_t)get64(first + HDR_NEW + MAD_TID) == tid_lo &&
	       (first[HDR_NEW + 26] & (RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST)) ==
	       (RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST) &&
	       memcmp(first + HDR_NEW + MGMT_SA_HDR, resp + MGMT_SA_HDR, MAD_SIZE - MGMT_SA_HDR) == 0,
	       "ENOSPC read carries the first segment",
	       "class 0x%02x method 0x%02x tid 0x%08x rmpp flags 0x%02x", first[HDR_NEW + 1],
	       first[HDR_NEW + 3], (uint32_t)get64(first + HDR_NEW + MAD_TID), first[HDR_NEW + 26]);
	t_eq(wait_readable(Cl.fd, 0), 1, "message stays queued after ENOSPC (POLLIN)");
	t_errno(read(Cl.fd, buf, HDR_NEW + MAD_SIZE - 1), errno, EINVAL,
		"read smaller than one segment: EINVAL");
	n = read(Cl.fd, buf, HDR_NEW + MGMT_SA_HDR + DATA_LEN);
	t_ret(n, errno, HDR_NEW + MGMT_SA_HDR + DATA_LEN,
	      "read with a big enough buffer gets the whole message");
	if (n == HDR_NEW + MGMT_SA_HDR + DATA_LEN) {
		uf_hdr(&Cl, buf, &h);
		t_eq(h.length, n, "whole message: hdr.length = bytes read");
		t_eq(h.status, 0, "whole message: hdr.status = 0");
		t_line(memcmp(buf + HDR_NEW + MGMT_SA_HDR, resp + MGMT_SA_HDR, DATA_LEN) == 0,
		       "reassembled payload equals what the server wrote", "payload differs");
		t_line(memcmp(buf, first, HDR_NEW + MAD_SIZE) == 0,
		       "whole message starts with the header + segment the ENOSPC read gave",
		       "differs");
	}
	t_errno(read(Cl.fd, buf, sizeof(buf)), errno, EAGAIN, "client queue empty afterwards");
	t_eq(wait_readable(S.fd, 500), 0, "server gets nothing back for its RMPP response");

	uf_close(&S);
	uf_close(&Cl);
	return t_done();
}
