/*
 * umad_libibumad.c - Debian's unmodified libibumad against the emulated port:
 * hop-0 SubnGet(NodeInfo), GUID checked against umad_get_ca() and sysfs.
 *
 * Build: gcc -O2 -Wall -o umad_libibumad umad_libibumad.c -libumad
 * Run:   ./umad_libibumad        (IBEMU_UMAD / IBEMU_SYSFS select the port)
 */
#define PROBE_LIBIBUMAD
#include "probe.h"
#include <endian.h>

int main(void)
{
	struct port_id P;
	umad_ca_t ca;
	umad_port_t port;
	uint64_t sys_guid;
	void *umad;
	uint8_t *mad;
	int portid, agent, r, len;

	watchdog(60);
	if (port_lookup(&P))
		t_bail("cannot resolve %s in %s/class/infiniband_mad", umad_path(), sysfs_root());
	t_detect(P.ibdev);
	if (sysfs_node_guid(&P, &sys_guid))
		t_bail("cannot read node_guid of %s", P.ibdev);

	t_ret(umad_init(), 0, 0, "umad_init");
	r = umad_get_ca(P.ibdev, &ca);
	t_ret(r, -r, 0, "umad_get_ca");
	if (r)
		return t_done();
	t_line(strcmp(ca.ca_name, P.ibdev) == 0, "umad_get_ca: ca_name", "got '%s', want '%s'",
	       ca.ca_name, P.ibdev);
	t_eq((long long)be64toh(ca.node_guid), (long long)sys_guid,
	     "umad_get_ca: node_guid = sysfs node_guid");
	t_eq(ca.node_type, 1, "umad_get_ca: node_type 1 (CA)");
	t_line(ca.numports >= P.port, "umad_get_ca: numports covers the umad port", "numports %d",
	       ca.numports);
	r = umad_get_port(P.ibdev, P.port, &port);
	t_ret(r, -r, 0, "umad_get_port");
	if (r == 0) {
		t_eq(port.portnum, P.port, "umad_get_port: portnum");
		umad_release_port(&port);
	}

	portid = umad_open_port(P.ibdev, P.port);
	t_success(portid, -portid, "umad_open_port");
	if (portid < 0)
		return t_done();
	t_needs(NEED_IB); /* the rest talks to the SMA over QP0 */
	agent = umad_register(portid, CLS_SUBN_DR, 1, 0, NULL);
	t_success(agent, -agent, "umad_register(class 0x81)");
	if (agent < 0)
		return t_done();

	umad = umad_alloc(1, umad_size() + MAD_SIZE);
	if (!umad)
		t_bail("out of memory");

	/* nothing queued: umad_recv with a timeout returns -ETIMEDOUT */
	len = MAD_SIZE;
	{
		double t0 = now_ms();
		r = umad_recv(portid, umad, &len, 200);
		t_line(r == -ETIMEDOUT && now_ms() - t0 >= 180, "umad_recv(200 ms) on empty queue: -ETIMEDOUT",
		       "got %d after %.0f ms", r, now_ms() - t0);
	}

	mad = umad_get_mad(umad);
	dr_smp(mad, M_GET, ATTR_NODE_INFO, 0, 0x12345678);
	umad_set_addr(umad, 0xffff, 0, 0, 0);
	r = umad_send(portid, agent, umad, MAD_SIZE, 1000, 0);
	t_ret(r, -r, 0, "umad_send SubnGet(NodeInfo), hop 0");
	memset(umad, 0, umad_size() + MAD_SIZE);
	len = MAD_SIZE;
	r = umad_recv(portid, umad, &len, 3000);
	t_ret(r, -r, agent, "umad_recv returns the agent id");
	if (r == agent) {
		t_eq(len, MAD_SIZE, "umad_recv: length 256");
		t_eq(umad_status(umad), 0, "umad_status 0");
		mad = umad_get_mad(umad);
		t_eq(mad[3], M_GET_RESP, "response method GetResp");
		t_eq(get16(mad + MAD_STATUS), SMP_DIRECTION, "response status 0x8000 (direction only)");
		t_eq((uint32_t)get64(mad + MAD_TID), 0x12345678, "response TID low 32 bits");
		t_eq(mad[SMP_DATA + 2], 1, "NodeInfo NodeType 1 (CA)");
		t_eq((long long)get64(mad + SMP_DATA + 12), (long long)be64toh(ca.node_guid),
		     "NodeInfo NodeGUID = umad_get_ca node_guid");
	}
	t_ret(umad_unregister(portid, agent), 0, 0, "umad_unregister");
	t_ret(umad_close_port(portid), 0, 0, "umad_close_port");
	umad_release_ca(&ca);
	umad_free(umad);
	umad_done();
	return t_done();
}
