package io.ibemu.emulator.uverbs;

import io.ibemu.emulator.hca.DeviceAttributes;
import io.ibemu.emulator.hca.PortAttributes;
import io.ibemu.kernel.Errno;

/** GET_CONTEXT, QUERY_DEVICE (both), QUERY_PORT and CREATE_COMP_CHANNEL (uverbs_cmd.c). */
final class ContextCommands {
    /** O_RDONLY | O_CLOEXEC: anon_inode_getfile(..., O_RDONLY) installed with get_unused_fd_flags(O_CLOEXEC). */
    static final int EVENT_FILE_FLAGS = 02000000;

    private ContextCommands() {
    }

    /**
     * ib_uverbs_get_context: the context and its async event file, whose new descriptor the
     * response names. The response must be writable before the descriptor is installed, so a bad
     * response address leaves no descriptor behind (and a failed command no changed response).
     * A second context is refused after that (ib_init_ucontext comes after uverbs_response): a
     * bad address is EFAULT there too. The kernel has written its response by then; ibemu leaves
     * it as it was.
     */
    static void getContext(Command c) throws Errno {
        c.checkResponseWritable();
        if (c.file.context() != null) {
            throw Errno.of(Errno.EINVAL);
        }
        byte[] resp = c.newResponse();
        EventFile async = EventFile.asyncEvents();
        int fd = c.caller.installFile(async, EVENT_FILE_FLAGS);
        c.file.setContext(new UverbsFile.Context(async, Owners.of(c.caller).pid()));
        c.file.asyncFiles.put(fd, async);
        c.put(resp, "async_fd", fd);
        c.put(resp, "num_comp_vectors", c.file.device.hca().numCompVectors());
        c.respond(resp);
    }

    /** ib_uverbs_create_comp_channel: a new completion channel file in the caller. */
    static void createCompChannel(Command c) throws Errno {
        c.checkResponseWritable();
        byte[] resp = c.newResponse();
        EventFile channel = EventFile.completionChannel();
        int fd = c.caller.installFile(channel, EVENT_FILE_FLAGS);
        c.file.channels.put(fd, channel);
        c.put(resp, "fd", fd);
        c.respond(resp);
    }

    static void queryDevice(Command c) throws Errno {
        byte[] resp = c.newResponse();
        fillDevice(c.file.device.hca().attributes(), resp, "");
        c.respond(resp);
    }

    /** ib_uverbs_ex_query_device: the base attributes, then what fits of the extended ones. */
    static void exQueryDevice(Command c) throws Errno {
        if (c.u("comp_mask") != 0 || c.u("reserved") != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        DeviceAttributes a = c.file.device.hca().attributes();
        byte[] resp = c.newResponse();
        fillDevice(a, resp, "base.");
        c.put(resp, "device_cap_flags_ex", a.deviceCapFlags() & 0xffffffffL);
        c.put(resp, "max_wq_type_rq", 0);
        c.put(resp, "response_length", Math.min(c.outLength, resp.length));
        c.respond(resp);
    }

    /** copy_query_dev_fields. */
    private static void fillDevice(DeviceAttributes a, byte[] resp, String p) {
        var r = p.isEmpty() ? Abi.QUERY_DEVICE_RESP : Abi.EX_QUERY_DEVICE_RESP;
        r.field(p + "fw_ver").put(resp, a.fwVer());
        r.field(p + "node_guid").put(resp, a.nodeGuid());
        r.field(p + "sys_image_guid").put(resp, a.sysImageGuid());
        r.field(p + "max_mr_size").put(resp, a.maxMrSize());
        r.field(p + "page_size_cap").put(resp, a.pageSizeCap());
        r.field(p + "vendor_id").put(resp, a.vendorId());
        r.field(p + "vendor_part_id").put(resp, a.vendorPartId());
        r.field(p + "hw_ver").put(resp, a.hwVer());
        r.field(p + "max_qp").put(resp, a.maxQp());
        r.field(p + "max_qp_wr").put(resp, a.maxQpWr());
        r.field(p + "device_cap_flags").put(resp, a.deviceCapFlags() & 0xffffffffL);
        r.field(p + "max_sge").put(resp, a.maxSge());
        r.field(p + "max_sge_rd").put(resp, a.maxSgeRd());
        r.field(p + "max_cq").put(resp, a.maxCq());
        r.field(p + "max_cqe").put(resp, a.maxCqe());
        r.field(p + "max_mr").put(resp, a.maxMr());
        r.field(p + "max_pd").put(resp, a.maxPd());
        r.field(p + "max_qp_rd_atom").put(resp, a.maxQpRdAtom());
        r.field(p + "max_ee_rd_atom").put(resp, a.maxEeRdAtom());
        r.field(p + "max_res_rd_atom").put(resp, a.maxResRdAtom());
        r.field(p + "max_qp_init_rd_atom").put(resp, a.maxQpInitRdAtom());
        r.field(p + "max_ee_init_rd_atom").put(resp, a.maxEeInitRdAtom());
        r.field(p + "atomic_cap").put(resp, a.atomicCap());
        r.field(p + "max_ee").put(resp, a.maxEe());
        r.field(p + "max_rdd").put(resp, a.maxRdd());
        r.field(p + "max_mw").put(resp, a.maxMw());
        r.field(p + "max_raw_ipv6_qp").put(resp, a.maxRawIpv6Qp());
        r.field(p + "max_raw_ethy_qp").put(resp, a.maxRawEthyQp());
        r.field(p + "max_mcast_grp").put(resp, a.maxMcastGrp());
        r.field(p + "max_mcast_qp_attach").put(resp, a.maxMcastQpAttach());
        r.field(p + "max_total_mcast_qp_attach").put(resp, a.maxTotalMcastQpAttach());
        r.field(p + "max_ah").put(resp, a.maxAh());
        r.field(p + "max_fmr").put(resp, a.maxFmr());
        r.field(p + "max_map_per_fmr").put(resp, a.maxMapPerFmr());
        r.field(p + "max_srq").put(resp, a.maxSrq());
        r.field(p + "max_srq_wr").put(resp, a.maxSrqWr());
        r.field(p + "max_srq_sge").put(resp, a.maxSrqSge());
        r.field(p + "max_pkeys").put(resp, a.maxPkeys());
        r.field(p + "local_ca_ack_delay").put(resp, a.localCaAckDelay());
        r.field(p + "phys_port_cnt").put(resp, a.physPortCnt());
    }

    /** ib_uverbs_query_port: live values from the fabric's port. */
    static void queryPort(Command c) throws Errno {
        PortAttributes a = c.file.device.hca().port((int) c.u("port_num"));
        byte[] resp = c.newResponse();
        fillPort(a, resp);
        c.respond(resp);
    }

    /** copy_port_attr_to_resp: struct ib_uverbs_query_port_resp, at the start of {@code resp}. */
    static void fillPort(PortAttributes a, byte[] resp) {
        var r = Abi.QUERY_PORT_RESP;
        r.field("port_cap_flags").put(resp, a.portCapFlags() & 0xffffffffL);
        r.field("max_msg_sz").put(resp, a.maxMsgSz());
        r.field("bad_pkey_cntr").put(resp, a.badPkeyCntr());
        r.field("qkey_viol_cntr").put(resp, a.qkeyViolCntr());
        r.field("gid_tbl_len").put(resp, a.gidTblLen());
        r.field("pkey_tbl_len").put(resp, a.pkeyTblLen());
        r.field("lid").put(resp, a.lid());
        r.field("sm_lid").put(resp, a.smLid());
        r.field("state").put(resp, a.state());
        r.field("max_mtu").put(resp, a.maxMtu());
        r.field("active_mtu").put(resp, a.activeMtu());
        r.field("lmc").put(resp, a.lmc());
        r.field("max_vl_num").put(resp, a.maxVlNum());
        r.field("sm_sl").put(resp, a.smSl());
        r.field("subnet_timeout").put(resp, a.subnetTimeout());
        r.field("init_type_reply").put(resp, a.initTypeReply());
        r.field("active_width").put(resp, a.activeWidth());
        r.field("active_speed").put(resp, a.activeSpeed());
        r.field("phys_state").put(resp, a.physState());
        r.field("link_layer").put(resp, a.linkLayer());
        r.field("flags").put(resp, 0);
    }
}
