package io.ibemu.emulator.uverbs;

import io.ibemu.kernel.CStruct;

/**
 * The structs of {@code include/uapi/rdma/ib_user_verbs.h} that the write() commands carry,
 * declared once in the header's member order; {@link CStruct} computes the offsets. Each command's
 * request struct follows the 8-byte {@code ib_uverbs_cmd_hdr} (or, for extended commands, the
 * 16-byte {@code ib_uverbs_ex_cmd_hdr} after it).
 */
final class Abi {

    private Abi() {
    }

    static final CStruct CMD_HDR = CStruct.named("ib_uverbs_cmd_hdr")
            .u32("command").u16("in_words").u16("out_words").build();
    static final CStruct EX_CMD_HDR = CStruct.named("ib_uverbs_ex_cmd_hdr")
            .u64("response").u16("provider_in_words").u16("provider_out_words").u32("cmd_hdr_reserved").build();

    /** Every non-extended request that has a response starts with its address. */
    static final CStruct RESPONSE_ONLY = CStruct.named("response").u64("response").build();

    static final CStruct ASYNC_EVENT_DESC = CStruct.named("ib_uverbs_async_event_desc")
            .u64("element").u32("event_type").u32("reserved").build();
    static final CStruct COMP_EVENT_DESC = CStruct.named("ib_uverbs_comp_event_desc").u64("cq_handle").build();

    static final CStruct GET_CONTEXT_RESP = CStruct.named("ib_uverbs_get_context_resp")
            .u32("async_fd").u32("num_comp_vectors").build();

    static final CStruct QUERY_DEVICE_RESP = CStruct.named("ib_uverbs_query_device_resp")
            .u64("fw_ver").be64("node_guid").be64("sys_image_guid").u64("max_mr_size").u64("page_size_cap")
            .u32("vendor_id").u32("vendor_part_id").u32("hw_ver").u32("max_qp").u32("max_qp_wr")
            .u32("device_cap_flags").u32("max_sge").u32("max_sge_rd").u32("max_cq").u32("max_cqe").u32("max_mr")
            .u32("max_pd").u32("max_qp_rd_atom").u32("max_ee_rd_atom").u32("max_res_rd_atom")
            .u32("max_qp_init_rd_atom").u32("max_ee_init_rd_atom").u32("atomic_cap").u32("max_ee").u32("max_rdd")
            .u32("max_mw").u32("max_raw_ipv6_qp").u32("max_raw_ethy_qp").u32("max_mcast_grp")
            .u32("max_mcast_qp_attach").u32("max_total_mcast_qp_attach").u32("max_ah").u32("max_fmr")
            .u32("max_map_per_fmr").u32("max_srq").u32("max_srq_wr").u32("max_srq_sge").u16("max_pkeys")
            .u8("local_ca_ack_delay").u8("phys_port_cnt").pad(1, 4).build();
    static final CStruct EX_QUERY_DEVICE = CStruct.named("ib_uverbs_ex_query_device")
            .u32("comp_mask").u32("reserved").build();
    static final CStruct EX_QUERY_DEVICE_RESP = CStruct.named("ib_uverbs_ex_query_device_resp")
            .struct("base", QUERY_DEVICE_RESP).u32("comp_mask").u32("response_length")
            .u64("odp_caps.general_caps").u32("odp_caps.rc_odp_caps").u32("odp_caps.uc_odp_caps")
            .u32("odp_caps.ud_odp_caps").u32("odp_caps.reserved")
            .u64("timestamp_mask").u64("hca_core_clock").u64("device_cap_flags_ex")
            .u32("rss_caps.supported_qpts").u32("rss_caps.max_rwq_indirection_tables")
            .u32("rss_caps.max_rwq_indirection_table_size").u32("rss_caps.reserved")
            .u32("max_wq_type_rq").u32("raw_packet_caps")
            .u32("tm_caps.max_rndv_hdr_size").u32("tm_caps.max_num_tags").u32("tm_caps.flags")
            .u32("tm_caps.max_ops").u32("tm_caps.max_sge").u32("tm_caps.reserved")
            .u16("cq_moderation_caps.max_cq_moderation_count").u16("cq_moderation_caps.max_cq_moderation_period")
            .u32("cq_moderation_caps.reserved").u64("max_dm_size").u32("xrc_odp_caps").u32("reserved").build();

    static final CStruct QUERY_PORT = CStruct.named("ib_uverbs_query_port")
            .u64("response").u8("port_num").pad(1, 7).build();
    static final CStruct QUERY_PORT_RESP = CStruct.named("ib_uverbs_query_port_resp")
            .u32("port_cap_flags").u32("max_msg_sz").u32("bad_pkey_cntr").u32("qkey_viol_cntr").u32("gid_tbl_len")
            .u16("pkey_tbl_len").u16("lid").u16("sm_lid").u8("state").u8("max_mtu").u8("active_mtu").u8("lmc")
            .u8("max_vl_num").u8("sm_sl").u8("subnet_timeout").u8("init_type_reply").u8("active_width")
            .u8("active_speed").u8("phys_state").u8("link_layer").u8("flags").u8("reserved").build();

    static final CStruct ALLOC_PD_RESP = CStruct.named("ib_uverbs_alloc_pd_resp").u32("pd_handle").build();
    static final CStruct DEALLOC_PD = CStruct.named("ib_uverbs_dealloc_pd").u32("pd_handle").build();

    static final CStruct OPEN_XRCD = CStruct.named("ib_uverbs_open_xrcd")
            .u64("response").u32("fd").u32("oflags").build();
    static final CStruct OPEN_XRCD_RESP = CStruct.named("ib_uverbs_open_xrcd_resp").u32("xrcd_handle").build();
    static final CStruct CLOSE_XRCD = CStruct.named("ib_uverbs_close_xrcd").u32("xrcd_handle").build();

    static final CStruct REG_MR = CStruct.named("ib_uverbs_reg_mr")
            .u64("response").u64("start").u64("length").u64("hca_va").u32("pd_handle").u32("access_flags").build();
    static final CStruct REG_MR_RESP = CStruct.named("ib_uverbs_reg_mr_resp")
            .u32("mr_handle").u32("lkey").u32("rkey").build();
    static final CStruct REREG_MR = CStruct.named("ib_uverbs_rereg_mr")
            .u64("response").u32("mr_handle").u32("flags").u64("start").u64("length").u64("hca_va")
            .u32("pd_handle").u32("access_flags").build();
    static final CStruct REREG_MR_RESP = CStruct.named("ib_uverbs_rereg_mr_resp").u32("lkey").u32("rkey").build();
    static final CStruct DEREG_MR = CStruct.named("ib_uverbs_dereg_mr").u32("mr_handle").build();

    static final CStruct ALLOC_MW = CStruct.named("ib_uverbs_alloc_mw")
            .u64("response").u32("pd_handle").u8("mw_type").pad(1, 3).build();
    static final CStruct ALLOC_MW_RESP = CStruct.named("ib_uverbs_alloc_mw_resp").u32("mw_handle").u32("rkey").build();
    static final CStruct DEALLOC_MW = CStruct.named("ib_uverbs_dealloc_mw").u32("mw_handle").build();

    static final CStruct CREATE_COMP_CHANNEL_RESP = CStruct.named("ib_uverbs_create_comp_channel_resp")
            .u32("fd").build();

    static final CStruct CREATE_CQ = CStruct.named("ib_uverbs_create_cq")
            .u64("response").u64("user_handle").u32("cqe").u32("comp_vector").u32("comp_channel").u32("reserved")
            .build();
    static final CStruct EX_CREATE_CQ = CStruct.named("ib_uverbs_ex_create_cq")
            .u64("user_handle").u32("cqe").u32("comp_vector").u32("comp_channel").u32("comp_mask").u32("flags")
            .u32("reserved").build();
    static final CStruct CREATE_CQ_RESP = CStruct.named("ib_uverbs_create_cq_resp").u32("cq_handle").u32("cqe").build();
    static final CStruct EX_CREATE_CQ_RESP = CStruct.named("ib_uverbs_ex_create_cq_resp")
            .struct("base", CREATE_CQ_RESP).u32("comp_mask").u32("response_length").build();
    static final CStruct RESIZE_CQ = CStruct.named("ib_uverbs_resize_cq")
            .u64("response").u32("cq_handle").u32("cqe").build();
    static final CStruct RESIZE_CQ_RESP = CStruct.named("ib_uverbs_resize_cq_resp").u32("cqe").u32("reserved").build();
    static final CStruct POLL_CQ = CStruct.named("ib_uverbs_poll_cq").u64("response").u32("cq_handle").u32("ne").build();
    static final CStruct POLL_CQ_RESP = CStruct.named("ib_uverbs_poll_cq_resp").u32("count").u32("reserved").build();
    static final CStruct WC = CStruct.named("ib_uverbs_wc")
            .u64("wr_id").u32("status").u32("opcode").u32("vendor_err").u32("byte_len").u32("ex")
            .u32("qp_num").u32("src_qp").u32("wc_flags").u16("pkey_index").u16("slid").u8("sl")
            .u8("dlid_path_bits").u8("port_num").u8("reserved").build();
    static final CStruct REQ_NOTIFY_CQ = CStruct.named("ib_uverbs_req_notify_cq")
            .u32("cq_handle").u32("solicited_only").build();
    static final CStruct DESTROY_CQ = CStruct.named("ib_uverbs_destroy_cq")
            .u64("response").u32("cq_handle").u32("reserved").build();
    static final CStruct DESTROY_CQ_RESP = CStruct.named("ib_uverbs_destroy_cq_resp")
            .u32("comp_events_reported").u32("async_events_reported").build();

    static final CStruct GLOBAL_ROUTE = CStruct.named("ib_uverbs_global_route")
            .bytes("dgid", 16).u32("flow_label").u8("sgid_index").u8("hop_limit").u8("traffic_class").u8("reserved")
            .build();
    static final CStruct AH_ATTR = CStruct.named("ib_uverbs_ah_attr")
            .struct("grh", GLOBAL_ROUTE).u16("dlid").u8("sl").u8("src_path_bits").u8("static_rate")
            .u8("is_global").u8("port_num").u8("reserved").build();
    static final CStruct QP_DEST = CStruct.named("ib_uverbs_qp_dest")
            .bytes("dgid", 16).u32("flow_label").u16("dlid").u16("reserved").u8("sgid_index").u8("hop_limit")
            .u8("traffic_class").u8("sl").u8("src_path_bits").u8("static_rate").u8("is_global").u8("port_num")
            .build();

    static final CStruct CREATE_QP = CStruct.named("ib_uverbs_create_qp")
            .u64("response").u64("user_handle").u32("pd_handle").u32("send_cq_handle").u32("recv_cq_handle")
            .u32("srq_handle").u32("max_send_wr").u32("max_recv_wr").u32("max_send_sge").u32("max_recv_sge")
            .u32("max_inline_data").u8("sq_sig_all").u8("qp_type").u8("is_srq").u8("reserved").build();
    static final CStruct EX_CREATE_QP = CStruct.named("ib_uverbs_ex_create_qp")
            .u64("user_handle").u32("pd_handle").u32("send_cq_handle").u32("recv_cq_handle")
            .u32("srq_handle").u32("max_send_wr").u32("max_recv_wr").u32("max_send_sge").u32("max_recv_sge")
            .u32("max_inline_data").u8("sq_sig_all").u8("qp_type").u8("is_srq").u8("reserved")
            .u32("comp_mask").u32("create_flags").u32("rwq_ind_tbl_handle").u32("source_qpn").build();
    static final CStruct OPEN_QP = CStruct.named("ib_uverbs_open_qp")
            .u64("response").u64("user_handle").u32("pd_handle").u32("qpn").u8("qp_type").pad(1, 7).build();
    static final CStruct CREATE_QP_RESP = CStruct.named("ib_uverbs_create_qp_resp")
            .u32("qp_handle").u32("qpn").u32("max_send_wr").u32("max_recv_wr").u32("max_send_sge")
            .u32("max_recv_sge").u32("max_inline_data").u32("reserved").build();
    static final CStruct EX_CREATE_QP_RESP = CStruct.named("ib_uverbs_ex_create_qp_resp")
            .struct("base", CREATE_QP_RESP).u32("comp_mask").u32("response_length").build();
    static final CStruct QUERY_QP = CStruct.named("ib_uverbs_query_qp")
            .u64("response").u32("qp_handle").u32("attr_mask").build();
    static final CStruct QUERY_QP_RESP = CStruct.named("ib_uverbs_query_qp_resp")
            .struct("dest", QP_DEST).struct("alt_dest", QP_DEST).u32("max_send_wr").u32("max_recv_wr")
            .u32("max_send_sge").u32("max_recv_sge").u32("max_inline_data").u32("qkey").u32("rq_psn")
            .u32("sq_psn").u32("dest_qp_num").u32("qp_access_flags").u16("pkey_index").u16("alt_pkey_index")
            .u8("qp_state").u8("cur_qp_state").u8("path_mtu").u8("path_mig_state").u8("sq_draining")
            .u8("max_rd_atomic").u8("max_dest_rd_atomic").u8("min_rnr_timer").u8("port_num").u8("timeout")
            .u8("retry_cnt").u8("rnr_retry").u8("alt_port_num").u8("alt_timeout").u8("sq_sig_all").pad(1, 5)
            .build();
    static final CStruct MODIFY_QP = CStruct.named("ib_uverbs_modify_qp")
            .struct("dest", QP_DEST).struct("alt_dest", QP_DEST).u32("qp_handle").u32("attr_mask").u32("qkey")
            .u32("rq_psn").u32("sq_psn").u32("dest_qp_num").u32("qp_access_flags").u16("pkey_index")
            .u16("alt_pkey_index").u8("qp_state").u8("cur_qp_state").u8("path_mtu").u8("path_mig_state")
            .u8("en_sqd_async_notify").u8("max_rd_atomic").u8("max_dest_rd_atomic").u8("min_rnr_timer")
            .u8("port_num").u8("timeout").u8("retry_cnt").u8("rnr_retry").u8("alt_port_num").u8("alt_timeout")
            .pad(1, 2).build();
    static final CStruct EX_MODIFY_QP = CStruct.named("ib_uverbs_ex_modify_qp")
            .struct("base", MODIFY_QP).u32("rate_limit").u32("reserved").build();
    static final CStruct EX_MODIFY_QP_RESP = CStruct.named("ib_uverbs_ex_modify_qp_resp")
            .u32("comp_mask").u32("response_length").build();
    static final CStruct DESTROY_QP = CStruct.named("ib_uverbs_destroy_qp")
            .u64("response").u32("qp_handle").u32("reserved").build();
    /** The QP_CREATE ioctl's CAP and RESP_CAP. */
    static final CStruct QP_CAP = CStruct.named("ib_uverbs_qp_cap").u32("max_send_wr").u32("max_recv_wr")
            .u32("max_send_sge").u32("max_recv_sge").u32("max_inline_data").build();
    static final CStruct DESTROY_QP_RESP = CStruct.named("ib_uverbs_destroy_qp_resp").u32("events_reported").build();

    static final CStruct SGE = CStruct.named("ib_uverbs_sge").u64("addr").u32("length").u32("lkey").build();
    static final CStruct SEND_WR = CStruct.named("ib_uverbs_send_wr")
            .u64("wr_id").u32("num_sge").u32("opcode").u32("send_flags").u32("ex")
            // the union wr: rdma {remote_addr, rkey}, atomic {remote_addr, compare_add, swap, rkey}, ud {ah, remote_qpn, remote_qkey}
            .u64("remote_addr").u64("compare_add").u64("swap").u32("atomic_rkey").u32("reserved").build();
    /** The rdma and ud views of send_wr's union, at the union's offset. */
    static final CStruct SEND_WR_RDMA = CStruct.named("ib_uverbs_send_wr.wr.rdma")
            .pad(8, 3).u64("remote_addr").u32("rkey").u32("reserved").build();
    static final CStruct SEND_WR_UD = CStruct.named("ib_uverbs_send_wr.wr.ud")
            .pad(8, 3).u32("ah").u32("remote_qpn").u32("remote_qkey").u32("reserved").build();
    static final CStruct POST_SEND = CStruct.named("ib_uverbs_post_send")
            .u64("response").u32("qp_handle").u32("wr_count").u32("sge_count").u32("wqe_size").build();
    static final CStruct POST_RESP = CStruct.named("ib_uverbs_post_send_resp").u32("bad_wr").build();
    static final CStruct RECV_WR = CStruct.named("ib_uverbs_recv_wr").u64("wr_id").u32("num_sge").u32("reserved")
            .build();
    static final CStruct POST_RECV = CStruct.named("ib_uverbs_post_recv")
            .u64("response").u32("qp_handle").u32("wr_count").u32("sge_count").u32("wqe_size").build();

    static final CStruct CREATE_AH = CStruct.named("ib_uverbs_create_ah")
            .u64("response").u64("user_handle").u32("pd_handle").u32("reserved").struct("attr", AH_ATTR).build();
    static final CStruct CREATE_AH_RESP = CStruct.named("ib_uverbs_create_ah_resp").u32("ah_handle").build();
    static final CStruct DESTROY_AH = CStruct.named("ib_uverbs_destroy_ah").u32("ah_handle").build();

    static final CStruct MCAST = CStruct.named("ib_uverbs_attach_mcast")
            .bytes("gid", 16).u32("qp_handle").u16("mlid").u16("reserved").build();

    static final CStruct CREATE_SRQ = CStruct.named("ib_uverbs_create_srq")
            .u64("response").u64("user_handle").u32("pd_handle").u32("max_wr").u32("max_sge").u32("srq_limit")
            .build();
    static final CStruct CREATE_XSRQ = CStruct.named("ib_uverbs_create_xsrq")
            .u64("response").u64("user_handle").u32("srq_type").u32("pd_handle").u32("max_wr").u32("max_sge")
            .u32("srq_limit").u32("max_num_tags").u32("xrcd_handle").u32("cq_handle").build();
    static final CStruct CREATE_SRQ_RESP = CStruct.named("ib_uverbs_create_srq_resp")
            .u32("srq_handle").u32("max_wr").u32("max_sge").u32("srqn").build();
    static final CStruct MODIFY_SRQ = CStruct.named("ib_uverbs_modify_srq")
            .u32("srq_handle").u32("attr_mask").u32("max_wr").u32("srq_limit").build();
    static final CStruct QUERY_SRQ = CStruct.named("ib_uverbs_query_srq")
            .u64("response").u32("srq_handle").u32("reserved").build();
    static final CStruct QUERY_SRQ_RESP = CStruct.named("ib_uverbs_query_srq_resp")
            .u32("max_wr").u32("max_sge").u32("srq_limit").u32("reserved").build();
    static final CStruct DESTROY_SRQ = CStruct.named("ib_uverbs_destroy_srq")
            .u64("response").u32("srq_handle").u32("reserved").build();
    static final CStruct DESTROY_SRQ_RESP = CStruct.named("ib_uverbs_destroy_srq_resp").u32("events_reported").build();
    static final CStruct POST_SRQ_RECV = CStruct.named("ib_uverbs_post_srq_recv")
            .u64("response").u32("srq_handle").u32("wr_count").u32("sge_count").u32("wqe_size").build();
}
