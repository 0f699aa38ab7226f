/*
 * umad_ioctl.c - ioctl ABI of /dev/infiniband/umadN.
 *
 * Build: gcc -O2 -Wall -o umad_ioctl umad_ioctl.c
 * Run:   ./umad_ioctl            (IBEMU_UMAD / IBEMU_SYSFS override paths)
 *
 * Rules from drivers/infiniband/core/user_mad.c (ib_umad_reg_agent,
 * ib_umad_reg_agent2, ib_umad_unreg_agent, ib_umad_enable_pkey,
 * ib_umad_ioctl) and mad.c (ib_register_mad_agent, method_in_use,
 * add_nonoui_reg_req, add_oui_reg_req).
 */
#include "probe.h"

#define MASK(m) (1ULL << (m))

static int open_umad(void)
{
	int fd = open(umad_path(), O_RDWR);
	if (fd < 0)
		t_bail("open %s: %s", umad_path(), strerror(errno));
	return fd;
}

int main(void)
{
	char v[64], path[512];
	uint32_t id, flags;
	int A, B, C, D, E, r, i, ok;
	/* file A's next agent id: QP0 agents exist only on an InfiniBand port */
	long long nextA = 0;

	watchdog(60);
	{
		struct port_id P;
		if (port_lookup(&P) == 0)
			t_detect(P.ibdev);
	}

	/* ---- sysfs ABI version (user_mad.c abi_version_show) */
	snprintf(path, sizeof(path), "%s/class/infiniband_mad/abi_version", sysfs_root());
	if (read_text(path, v, sizeof(v)))
		t_line(0, "infiniband_mad/abi_version readable", "%s: %s", path, strerror(errno));
	else
		t_line(strcmp(v, "5") == 0, "infiniband_mad/abi_version is 5", "got '%s', want '5'", v);

	A = open_umad();
	B = open_umad();

	/* ---- REGISTER_AGENT: qpn first (ib_umad_reg_agent) */
	r = reg1(A, 2, 0, 0, 0, 0, 0, 0, &id);
	t_errno(r, errno, EINVAL, "REGISTER_AGENT qpn 2: EINVAL");
	t_eq(id, 0xdeadbeef, "REGISTER_AGENT failure leaves id field untouched");

	/* QP0 needs an InfiniBand port: on RoCE ib_register_mad_agent answers
	 * EPROTONOSUPPORT (!rdma_cap_ib_smi) before anything else */
	t_needs(NEED_IB);
	r = reg1(A, 0, CLS_SUBN_DR, 1, 0, 0, 0, 0, &id);
	t_ret(r, errno, 0, "REGISTER_AGENT qpn 0 class 0x81: succeeds");
	t_eq(id, 0, "first agent of a file gets id 0");
	nextA += r == 0;
	r = reg1(A, 0, CLS_SUBN_LID, 1, 0, 0, 0, 0, &id);
	t_ret(r, errno, 0, "REGISTER_AGENT qpn 0 class 0x01: succeeds");
	t_eq(id, 1, "second agent gets id 1");
	nextA += r == 0;
	t_needs(0);

	/* SMI classes only on QP0, GSI classes only on QP1 (mad.c) */
	r = reg1(A, 1, CLS_SUBN_DR, 1, 0, 0, 0, 0, &id);
	t_errno(r, errno, EINVAL, "class 0x81 on qpn 1: EINVAL");
	r = reg1(A, 1, CLS_SUBN_LID, 1, 0, 0, 0, 0, &id);
	t_errno(r, errno, EINVAL, "class 0x01 on qpn 1: EINVAL");
	t_needs(NEED_IB);
	r = reg1(A, 0, 0x0a, 1, 0, 0, 0, 0, &id);
	t_errno(r, errno, EINVAL, "GSI class 0x0a on qpn 0: EINVAL");
	t_needs(0);

	r = reg1(A, 1, 0, 0, 0, 0, 0, 0, &id);
	t_ret(r, errno, 0, "REGISTER_AGENT class 0 (send-only agent) on qpn 1: succeeds");
	t_eq(id, nextA, "next agent gets the next id");
	nextA += r == 0;

	/* class / version validation (mad.c ib_register_mad_agent). MAX_MGMT_VERSION
	 * is 0x83 since OPA (mad_priv.h): version 8 is accepted, found on Debian's
	 * 6.1 kernel in scripts/kernel-vm */
	r = reg1(A, 1, 0x0a, 0x83, 0, 0, 0, 0, &id);
	t_errno(r, errno, EINVAL, "class version 0x83 (>= MAX_MGMT_VERSION): EINVAL");
	r = reg1(A, 1, 0x0a, 8, 0, 0, 0, 0, &id);
	t_ret(r, errno, 0, "class version 8 (< MAX_MGMT_VERSION 0x83): succeeds");
	t_eq(id, nextA, "  ... with the next id");
	nextA += r == 0;
	r = reg1(A, 1, 0x50, 1, 0, 0, 0, 0, &id);
	t_errno(r, errno, EINVAL, "class 0x50 (>= MAX_MGMT_CLASS, not 0x81): EINVAL");
	r = reg1(A, 1, 0x80, 1, 0, 0, 0, 0, &id);
	t_errno(r, errno, EINVAL, "class 0x80: EINVAL");
	r = reg1(A, 1, CLS_SUBN_ADM, 2, 0, 0, 0, 2, &id);
	t_errno(r, errno, EINVAL, "rmpp_version 2: EINVAL");
	r = reg1(A, 1, 0x0a, 1, 0, 0, 0, 1, &id);
	t_errno(r, errno, EINVAL, "rmpp_version 1 on non-RMPP class 0x0a: EINVAL");
	r = reg1(A, 1, 0x30, 1, 0, MASK(M_GET), 0, 0, &id);
	t_errno(r, errno, EINVAL, "vendor range-2 class 0x30 with zero OUI: EINVAL");
	r = reg1(A, 1, CLS_SUBN_ADM, 2, 0, 0, 0, 1, &id);
	t_ret(r, errno, 0, "rmpp_version 1 on class 0x03 (no methods): succeeds");
	t_eq(id, nextA, "  ... with the next id");
	nextA += r == 0;

	/* ---- method ownership is per port, across files (method_in_use) */
	r = reg1(A, 1, 0x09, 1, 0, MASK(M_GET), 0, 0, &id);
	t_ret(r, errno, 0, "class 0x09 v1 method Get on file A: succeeds");
	t_eq(id, nextA, "  ... with the next id");
	uint32_t getA = id;
	nextA += r == 0;
	r = reg1(B, 1, 0x09, 1, 0, MASK(M_GET), 0, 0, &id);
	t_errno(r, errno, EINVAL, "same class/version/method from file B: EINVAL");
	r = reg1(A, 1, 0x09, 1, 0, MASK(M_GET), 0, 0, &id);
	t_errno(r, errno, EINVAL, "same class/version/method again from file A: EINVAL");
	r = reg1(B, 1, 0x09, 1, 0, MASK(M_SET), 0, 0, &id);
	t_ret(r, errno, 0, "class 0x09 v1 method Set from file B: succeeds");
	t_eq(id, 0, "agent ids are per file: file B's first agent is 0");
	r = reg1(B, 1, 0x09, 2, 0, MASK(M_GET), 0, 0, &id);
	t_ret(r, errno, 0, "class 0x09 v2 method Get (other version) from file B: succeeds");
	r = reg1(A, 1, 0x09, 1, 0, MASK(M_GET) | MASK(0x05), 0, 0, &id);
	t_errno(r, errno, EINVAL, "mask overlapping one owned method: EINVAL");
	r = reg1(A, 1, 0x09, 1, 0, 0, MASK(0x7e - 64), 0, &id);
	t_ret(r, errno, 0, "class 0x09 v1 method 0x7e (upper mask word): succeeds");
	t_eq(id, nextA, "  ... with the next id");
	nextA += r == 0;
	r = reg1(B, 1, 0x09, 1, 0, 0, MASK(0x7e - 64), 0, &id);
	t_errno(r, errno, EINVAL, "method 0x7e again from file B: EINVAL");
	t_needs(NEED_IB);
	r = reg1(B, 0, CLS_SUBN_DR, 1, 0, 0, 0, 0, &id);
	t_ret(r, errno, 0, "class 0x81 with empty method mask again (file B): succeeds");
	t_needs(0);

	/* vendor range 2: OUI is part of the key (add_oui_reg_req) */
	r = reg1(A, 1, 0x31, 1, 0x001405, MASK(M_GET), 0, 0, &id);
	t_ret(r, errno, 0, "vendor class 0x31 OUI 00:14:05 Get on file A: succeeds");
	nextA += r == 0;
	r = reg1(B, 1, 0x31, 1, 0x001405, MASK(M_GET), 0, 0, &id);
	t_errno(r, errno, EINVAL, "same vendor class/OUI/method from file B: EINVAL");
	r = reg1(B, 1, 0x31, 1, 0x001406, MASK(M_GET), 0, 0, &id);
	t_ret(r, errno, 0, "same vendor class, other OUI, from file B: succeeds");
	r = reg1(B, 1, 0x31, 1, 0x001405, MASK(M_SET), 0, 0, &id);
	t_ret(r, errno, 0, "same vendor class/OUI, other method, from file B: succeeds");

	/* ---- UNREGISTER_AGENT (ib_umad_unreg_agent) */
	t_errno(unreg(A, 32), errno, EINVAL, "UNREGISTER id 32: EINVAL");
	t_errno(unreg(A, 0xffffffffu), errno, EINVAL, "UNREGISTER id 0xffffffff: EINVAL");
	t_errno(unreg(A, 31), errno, EINVAL, "UNREGISTER unused id 31: EINVAL");
	t_ret(unreg(A, 1), errno, 0, "UNREGISTER id 1: succeeds");
	t_errno(unreg(A, 1), errno, EINVAL, "UNREGISTER id 1 twice: EINVAL");
	r = reg1(A, 1, 0, 0, 0, 0, 0, 0, &id);
	t_ret(r, errno, 0, "register after unregister: succeeds");
	t_eq(id, 1, "freed slot 1 is reused (lowest free)");
	r = reg1(A, 1, 0, 0, 0, 0, 0, 0, &id);
	t_eq(r == 0 ? (long long)id : -1, nextA, "next registration takes the lowest free slot");

	/* unregistering releases the methods for everyone */
	t_ret(unreg(A, getA), errno, 0, "UNREGISTER file A's class 0x09 Get agent");
	r = reg1(B, 1, 0x09, 1, 0, MASK(M_GET), 0, 0, &id);
	t_ret(r, errno, 0, "file B can now take class 0x09 v1 Get");

	/* ---- 32 agents per file, then ENOMEM; order of checks */
	C = open_umad();
	ok = 1;
	for (i = 0; i < MAX_AGENTS; i++) {
		r = reg1(C, 1, 0, 0, 0, 0, 0, 0, &id);
		if (r != 0 || id != (uint32_t)i) {
			t_line(0, "32 agents get ids 0..31 in order", "agent %d: ret %d errno %s id %u",
			       i, r, ename(r ? errno : 0), id);
			ok = 0;
			break;
		}
	}
	if (ok)
		t_line(1, "32 agents get ids 0..31 in order", NULL);
	r = reg1(C, 1, 0, 0, 0, 0, 0, 0, &id);
	t_errno(r, errno, ENOMEM, "33rd REGISTER_AGENT: ENOMEM");
	r = reg2(C, 1, 0, 0, 0, 0, 0, 0, 0, &id, NULL);
	t_errno(r, errno, ENOMEM, "33rd REGISTER_AGENT2: ENOMEM");
	r = reg1(C, 2, 0, 0, 0, 0, 0, 0, &id);
	t_errno(r, errno, EINVAL, "full file, qpn 2: EINVAL (qpn checked before slots)");
	r = reg2(C, 1, 0, 0, 0, 0, 0, 0, 0x2, &id, &flags);
	t_errno(r, errno, EINVAL, "full file, REGISTER_AGENT2 bad flags: EINVAL (flags before slots)");
	t_eq(flags, IB_USER_MAD_REG_FLAGS_CAP, "  ... and flags field rewritten to the supported set");
	r = reg2(C, 1, 0x30, 1, 0x01001405, MASK(M_GET), 0, 0, 0, &id, NULL);
	t_errno(r, errno, ENOMEM, "full file, OUI with top byte set: ENOMEM (slots before OUI)");
	t_ret(unreg(C, 7), errno, 0, "UNREGISTER id 7 of the full file");
	r = reg1(C, 1, 0, 0, 0, 0, 0, 0, &id);
	t_eq(r == 0 ? (long long)id : -1, 7, "freed slot 7 is reused");

	/* ---- REGISTER_AGENT2 (ib_umad_reg_agent2): qpn, flags, slot, OUI */
	D = open_umad();
	r = reg2(D, 2, 0, 0, 0, 0, 0, 0, 0x2, &id, &flags);
	t_errno(r, errno, EINVAL, "REGISTER_AGENT2 qpn 2 + bad flags: EINVAL");
	t_eq(flags, 0x2, "  ... flags not rewritten (qpn checked first)");
	r = reg2(D, 0x100, 0, 0, 0, 0, 0, 0, 0, &id, NULL);
	t_errno(r, errno, EINVAL, "REGISTER_AGENT2 qpn 0x100 (32-bit field, not truncated): EINVAL");
	r = reg2(D, 1, 0, 0, 0, 0, 0, 0, 0x2, &id, &flags);
	t_errno(r, errno, EINVAL, "REGISTER_AGENT2 flags 0x2: EINVAL");
	t_eq(flags, IB_USER_MAD_REG_FLAGS_CAP, "  ... flags field = IB_USER_MAD_REG_FLAGS_CAP");
	r = reg2(D, 1, 0, 0, 0, 0, 0, 0, 0x80000001u, &id, &flags);
	t_errno(r, errno, EINVAL, "REGISTER_AGENT2 flags 0x80000001: EINVAL");
	t_eq(flags, IB_USER_MAD_REG_FLAGS_CAP, "  ... flags field = IB_USER_MAD_REG_FLAGS_CAP");
	r = reg2(D, 1, 0x30, 1, 0x01001405, MASK(M_GET), 0, 0, 0, &id, NULL);
	t_errno(r, errno, EINVAL, "REGISTER_AGENT2 OUI 0x01001405 (top byte set): EINVAL");
	r = reg2(D, 1, 0x30, 1, 0, MASK(M_GET), 0, 0, 0, &id, NULL);
	t_errno(r, errno, EINVAL, "REGISTER_AGENT2 vendor class 0x30 with OUI 0: EINVAL");
	r = reg2(D, 1, 0, 0, 0, 0, 0, 0, IB_USER_MAD_USER_RMPP, &id, NULL);
	t_errno(r, errno, EINVAL, "REGISTER_AGENT2 USER_RMPP without a class: EINVAL");
	r = reg2(D, 1, CLS_SUBN_ADM, 2, 0, 0, 0, 1, IB_USER_MAD_USER_RMPP, &id, &flags);
	t_ret(r, errno, 0, "REGISTER_AGENT2 class 0x03 rmpp 1 USER_RMPP: succeeds");
	t_eq(id, 0, "  ... id 0");
	r = reg2(D, 1, 0x30, 1, 0x001405, MASK(M_GET), 0, 0, 0, &id, NULL);
	t_ret(r, errno, 0, "REGISTER_AGENT2 vendor class 0x30 OUI 00:14:05: succeeds");
	t_eq(id, 1, "  ... id 1");
	r = reg1(A, 1, 0x30, 1, 0x001405, MASK(M_GET), 0, 0, &id);
	t_errno(r, errno, EINVAL, "same class/OUI/method via REGISTER_AGENT on file A: EINVAL");
	t_errno(ioctl(D, IB_USER_MAD_ENABLE_PKEY), errno, EINVAL,
		"ENABLE_PKEY after REGISTER_AGENT2: EINVAL");

	/* ---- ENABLE_PKEY (ib_umad_enable_pkey) */
	E = open_umad();
	t_ret(ioctl(E, IB_USER_MAD_ENABLE_PKEY), errno, 0, "ENABLE_PKEY on a fresh file: 0");
	t_ret(ioctl(E, IB_USER_MAD_ENABLE_PKEY), errno, 0, "ENABLE_PKEY twice: 0");
	r = reg1(E, 2, 0, 0, 0, 0, 0, 0, &id);
	t_ret(ioctl(E, IB_USER_MAD_ENABLE_PKEY), errno, 0,
	      "ENABLE_PKEY after a failed registration: 0");
	r = reg1(E, 1, 0, 0, 0, 0, 0, 0, &id);
	t_ret(r, errno, 0, "register on the ENABLE_PKEY file");
	t_errno(ioctl(E, IB_USER_MAD_ENABLE_PKEY), errno, EINVAL,
		"ENABLE_PKEY after a successful registration: EINVAL");
	unreg(E, id);
	t_errno(ioctl(E, IB_USER_MAD_ENABLE_PKEY), errno, EINVAL,
		"ENABLE_PKEY after the agent was unregistered again: still EINVAL");
	t_errno(ioctl(A, IB_USER_MAD_ENABLE_PKEY), errno, EINVAL,
		"ENABLE_PKEY on file A (REGISTER_AGENT used): EINVAL");

	/* ---- any other request: ENOTTY (ib_umad_ioctl -> -ENOIOCTLCMD) */
	{
		uint64_t big[8] = { 0 };
		int tio[16];
		t_errno(ioctl(E, _IO(RDMA_IOCTL_MAGIC, 0x00)), errno, ENOTTY,
			"ioctl _IO(0x1b,0): ENOTTY");
		t_errno(ioctl(E, _IOWR(RDMA_IOCTL_MAGIC, 0x05, uint32_t), big), errno, ENOTTY,
			"ioctl _IOWR(0x1b,5,u32): ENOTTY");
		t_errno(ioctl(E, _IOWR(RDMA_IOCTL_MAGIC, 0x01, uint32_t), big), errno, ENOTTY,
			"REGISTER_AGENT number with the wrong size: ENOTTY");
		t_errno(ioctl(E, _IOW(RDMA_IOCTL_MAGIC, 0x02, uint64_t), big), errno, ENOTTY,
			"UNREGISTER_AGENT number with the wrong size: ENOTTY");
		t_errno(ioctl(E, _IOR('x', 0x42, int), big), errno, ENOTTY,
			"ioctl _IOR('x',0x42,int): ENOTTY");
		t_errno(ioctl(E, TCGETS, tio), errno, ENOTTY, "TCGETS (isatty): ENOTTY");
	}

	close(A);
	close(B);
	close(C);
	close(D);
	close(E);
	return t_done();
}
