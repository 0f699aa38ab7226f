package io.ibemu.emulator.uverbs;

import io.ibemu.emulator.hca.DeviceAttributes;
import io.ibemu.emulator.hca.PortAttributes;
import io.ibemu.kernel.Errno;

/** GET_CONTEXT, QUERY_DEVICE (both), QUERY_PORT and CREATE_COMP_CHANNEL (uverbs_cmd.c). */
final class ContextCommands {
    /** O_RDONLY | O_CLOEXEC: anon_inode_getfile(..., O_RDONLY) installed with get_unused_fd_flags(O_CLOEXEC). */
    private static final int EVENT_FILE_FLAGS = 02000000;

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
        c.put(resp, "port_cap_flags", a.portCapFlags() & 0xffffffffL);
        c.put(resp, "max_msg_sz", a.maxMsgSz());
        c.put(resp, "bad_pkey_cntr", a.badPkeyCntr());
        c.put(resp, "qkey_viol_cntr", a.qkeyViolCntr());
        c.put(resp, "gid_tbl_len", a.gidTblLen());
        c.put(resp, "pkey_tbl_len", a.pkeyTblLen());
        c.put(resp, "lid", a.lid());
        c.put(resp, "sm_lid", a.smLid());
        c.put(resp, "state", a.state());
        c.put(resp, "max_mtu", a.maxMtu());
        c.put(resp, "active_mtu", a.activeMtu());
        c.put(resp, "lmc", a.lmc());
        c.put(resp, "max_vl_num", a.maxVlNum());
        c.put(resp, "sm_sl", a.smSl());
        c.put(resp, "subnet_timeout", a.subnetTimeout());
        c.put(resp, "init_type_reply", a.initTypeReply());
        c.put(resp, "active_width", a.activeWidth());
        c.put(resp, "active_speed", a.activeSpeed());
        c.put(resp, "phys_state", a.physState());
        c.put(resp, "link_layer", a.linkLayer());
        c.put(resp, "flags", 0);
        c.respond(resp);
    }
}
