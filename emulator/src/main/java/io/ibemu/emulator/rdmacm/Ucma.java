package io.ibemu.emulator.rdmacm;

import io.ibemu.kernel.CStruct;

/**
 * The structs of {@code include/uapi/rdma/rdma_user_cm.h} (ABI 4), declared once in the header's
 * member order; {@link CStruct} computes the offsets. Every command is the 8-byte
 * {@code rdma_ucm_cmd_hdr} followed by its request; {@code sockaddr_storage} members are 128
 * bytes aligned to 8, and the event's {@code param} union is 304 bytes (the larger, ud) coded by
 * {@link #CONN_PARAM} or {@link #UD_PARAM}.
 */
final class Ucma {

    private Ucma() {
    }

    static final int ABI_VERSION = 4;
    static final int MAX_PRIVATE_DATA = 256;
    static final int SOCKADDR_STORAGE = 128;

    // enum rdma_ucm_port_space
    static final int PS_IPOIB = 0x0002;
    static final int PS_IB = 0x013F;
    static final int PS_TCP = 0x0106;
    static final int PS_UDP = 0x0111;

    static final CStruct CMD_HDR = CStruct.named("rdma_ucm_cmd_hdr").u32("cmd").u16("in").u16("out").build();

    static final CStruct SOCKADDR_IN6 = CStruct.named("sockaddr_in6")
            .u16("sin6_family").be16("sin6_port").be32("sin6_flowinfo").bytes("sin6_addr", 16).u32("sin6_scope_id").build();

    static final CStruct CREATE_ID = CStruct.named("rdma_ucm_create_id")
            .u64("uid").u64("response").u16("ps").u8("qp_type").pad(1, 5).build();
    static final CStruct CREATE_ID_RESP = CStruct.named("rdma_ucm_create_id_resp").u32("id").build();
    static final CStruct DESTROY_ID = CStruct.named("rdma_ucm_destroy_id").u64("response").u32("id").u32("reserved").build();
    static final CStruct DESTROY_ID_RESP = CStruct.named("rdma_ucm_destroy_id_resp").u32("events_reported").build();
    static final CStruct BIND_IP = CStruct.named("rdma_ucm_bind_ip")
            .u64("response").struct("addr", SOCKADDR_IN6).u32("id").build();
    static final CStruct BIND = CStruct.named("rdma_ucm_bind")
            .u32("id").u16("addr_size").u16("reserved").pad(8, 0).bytes("addr", SOCKADDR_STORAGE).build();
    static final CStruct RESOLVE_IP = CStruct.named("rdma_ucm_resolve_ip")
            .struct("src_addr", SOCKADDR_IN6).struct("dst_addr", SOCKADDR_IN6).u32("id").u32("timeout_ms").build();
    static final CStruct RESOLVE_ADDR = CStruct.named("rdma_ucm_resolve_addr")
            .u32("id").u32("timeout_ms").u16("src_size").u16("dst_size").u32("reserved").pad(8, 0)
            .bytes("src_addr", SOCKADDR_STORAGE).bytes("dst_addr", SOCKADDR_STORAGE).build();
    static final CStruct RESOLVE_ROUTE = CStruct.named("rdma_ucm_resolve_route").u32("id").u32("timeout_ms").build();
    static final CStruct QUERY = CStruct.named("rdma_ucm_query").u64("response").u32("id").u32("option").build();

    /** struct ib_user_path_rec (ib_user_sa.h). */
    static final CStruct USER_PATH_REC = CStruct.named("ib_user_path_rec")
            .bytes("dgid", 16).bytes("sgid", 16).be16("dlid").be16("slid").u32("raw_traffic").be32("flow_label")
            .u32("reversible").u32("mtu").be16("pkey").u8("hop_limit").u8("traffic_class").u8("numb_path").u8("sl")
            .u8("mtu_selector").u8("rate_selector").u8("rate").u8("packet_life_time_selector")
            .u8("packet_life_time").u8("preference").build();
    /** struct ib_path_rec_data: a PathRecord as the SA's wire carries it (64 bytes, big endian). */
    static final CStruct PATH_REC_DATA = CStruct.named("ib_path_rec_data")
            .u32("flags").u32("reserved").bytes("path_rec", 64).build();

    static final CStruct QUERY_ROUTE_RESP = CStruct.named("rdma_ucm_query_route_resp")
            .be64("node_guid").struct("ib_route[0]", USER_PATH_REC).struct("ib_route[1]", USER_PATH_REC)
            .struct("src_addr", SOCKADDR_IN6).struct("dst_addr", SOCKADDR_IN6).u32("num_paths").u8("port_num")
            .pad(1, 3).u32("ibdev_index").u32("reserved1").build();
    static final CStruct QUERY_ADDR_RESP = CStruct.named("rdma_ucm_query_addr_resp")
            .be64("node_guid").u8("port_num").u8("reserved").u16("pkey").u16("src_size").u16("dst_size")
            .pad(8, 0).bytes("src_addr", SOCKADDR_STORAGE).bytes("dst_addr", SOCKADDR_STORAGE)
            .u32("ibdev_index").u32("reserved1").build();
    static final CStruct QUERY_PATH_RESP = CStruct.named("rdma_ucm_query_path_resp")
            .u32("num_paths").u32("reserved").build();

    static final CStruct CONN_PARAM = CStruct.named("rdma_ucm_conn_param")
            .u32("qp_num").u32("qkey").bytes("private_data", MAX_PRIVATE_DATA).u8("private_data_len").u8("srq")
            .u8("responder_resources").u8("initiator_depth").u8("flow_control").u8("retry_count")
            .u8("rnr_retry_count").u8("valid").build();
    /** struct ib_uverbs_ah_attr with its ib_uverbs_global_route. */
    static final CStruct AH_ATTR = CStruct.named("ib_uverbs_ah_attr")
            .bytes("grh.dgid", 16).u32("grh.flow_label").u8("grh.sgid_index").u8("grh.hop_limit")
            .u8("grh.traffic_class").u8("grh.reserved").u16("dlid").u8("sl").u8("src_path_bits").u8("static_rate")
            .u8("is_global").u8("port_num").u8("reserved").build();
    static final CStruct UD_PARAM = CStruct.named("rdma_ucm_ud_param")
            .u32("qp_num").u32("qkey").struct("ah_attr", AH_ATTR).bytes("private_data", MAX_PRIVATE_DATA)
            .u8("private_data_len").pad(1, 7).build();
    static final CStruct ECE = CStruct.named("rdma_ucm_ece").u32("vendor_id").u32("attr_mod").build();

    /** struct ib_uverbs_qp_attr (ib_user_verbs.h), INIT_QP_ATTR's response. */
    static final CStruct QP_ATTR = CStruct.named("ib_uverbs_qp_attr")
            .u32("qp_attr_mask").u32("qp_state").u32("cur_qp_state").u32("path_mtu").u32("path_mig_state")
            .u32("qkey").u32("rq_psn").u32("sq_psn").u32("dest_qp_num").u32("qp_access_flags")
            .struct("ah_attr", AH_ATTR).struct("alt_ah_attr", AH_ATTR).u32("max_send_wr").u32("max_recv_wr")
            .u32("max_send_sge").u32("max_recv_sge").u32("max_inline_data").u16("pkey_index").u16("alt_pkey_index")
            .u8("en_sqd_async_notify").u8("sq_draining").u8("max_rd_atomic").u8("max_dest_rd_atomic")
            .u8("min_rnr_timer").u8("port_num").u8("timeout").u8("retry_cnt").u8("rnr_retry").u8("alt_port_num")
            .u8("alt_timeout").pad(1, 5).build();

    static final CStruct CONNECT = CStruct.named("rdma_ucm_connect")
            .struct("conn_param", CONN_PARAM).u32("id").u32("reserved").struct("ece", ECE).build();
    static final CStruct LISTEN = CStruct.named("rdma_ucm_listen").u32("id").u32("backlog").build();
    static final CStruct ACCEPT = CStruct.named("rdma_ucm_accept")
            .u64("uid").struct("conn_param", CONN_PARAM).u32("id").u32("reserved").struct("ece", ECE).build();
    static final CStruct REJECT = CStruct.named("rdma_ucm_reject")
            .u32("id").u8("private_data_len").u8("reason").pad(1, 2).bytes("private_data", MAX_PRIVATE_DATA).build();
    static final CStruct DISCONNECT = CStruct.named("rdma_ucm_disconnect").u32("id").build();
    static final CStruct INIT_QP_ATTR = CStruct.named("rdma_ucm_init_qp_attr")
            .u64("response").u32("id").u32("qp_state").build();
    static final CStruct NOTIFY = CStruct.named("rdma_ucm_notify").u32("id").u32("event").build();
    static final CStruct JOIN_IP_MCAST = CStruct.named("rdma_ucm_join_ip_mcast")
            .u64("response").u64("uid").struct("addr", SOCKADDR_IN6).u32("id").build();
    static final CStruct JOIN_MCAST = CStruct.named("rdma_ucm_join_mcast")
            .u64("response").u64("uid").u32("id").u16("addr_size").u16("join_flags")
            .bytes("addr", SOCKADDR_STORAGE).build();
    static final CStruct GET_EVENT = CStruct.named("rdma_ucm_get_event").u64("response").build();
    static final CStruct EVENT_RESP = CStruct.named("rdma_ucm_event_resp")
            .u64("uid").u32("id").u32("event").u32("status").bytes("param", UD_PARAM.size()).u32("reserved")
            .struct("ece", ECE).build();
    static final CStruct SET_OPTION = CStruct.named("rdma_ucm_set_option")
            .u64("optval").u32("id").u32("level").u32("optname").u32("optlen").build();
    static final CStruct MIGRATE_ID = CStruct.named("rdma_ucm_migrate_id").u64("response").u32("id").u32("fd").build();
    static final CStruct MIGRATE_RESP = CStruct.named("rdma_ucm_migrate_resp").u32("events_reported").build();
}
