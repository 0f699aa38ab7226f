package io.ibemu.emulator.uverbs.ioctl;

/**
 * The ids of include/uapi/rdma/ib_user_ioctl_cmds.h: objects (enum uverbs_default_objects),
 * then each object's methods and each method's attributes, grouped as there.
 */
public final class UapiIds {

    private UapiIds() {
    }

    public static final int OBJECT_DEVICE = 0;
    public static final int OBJECT_PD = 1;
    public static final int OBJECT_COMP_CHANNEL = 2;
    public static final int OBJECT_CQ = 3;
    public static final int OBJECT_QP = 4;
    public static final int OBJECT_SRQ = 5;
    public static final int OBJECT_AH = 6;
    public static final int OBJECT_MR = 7;
    public static final int OBJECT_MW = 8;
    public static final int OBJECT_FLOW = 9;
    public static final int OBJECT_XRCD = 10;
    public static final int OBJECT_RWQ_IND_TBL = 11;
    public static final int OBJECT_WQ = 12;
    public static final int OBJECT_FLOW_ACTION = 13;
    public static final int OBJECT_DM = 14;
    public static final int OBJECT_COUNTERS = 15;
    public static final int OBJECT_ASYNC_EVENT = 16;

    // enum uverbs_methods_device
    public static final int METHOD_INVOKE_WRITE = 0;
    public static final int METHOD_INFO_HANDLES = 1;
    public static final int METHOD_QUERY_PORT = 2;
    public static final int METHOD_GET_CONTEXT = 3;
    public static final int METHOD_QUERY_CONTEXT = 4;
    public static final int METHOD_QUERY_GID_TABLE = 5;
    public static final int METHOD_QUERY_GID_ENTRY = 6;

    // INVOKE_WRITE
    public static final int ATTR_CORE_IN = 0;
    public static final int ATTR_CORE_OUT = 1;
    public static final int ATTR_WRITE_CMD = 2;
    // INFO_HANDLES
    public static final int ATTR_INFO_OBJECT_ID = 0;
    public static final int ATTR_INFO_TOTAL_HANDLES = 1;
    public static final int ATTR_INFO_HANDLES_LIST = 2;
    // QUERY_PORT
    public static final int ATTR_QUERY_PORT_PORT_NUM = 0;
    public static final int ATTR_QUERY_PORT_RESP = 1;
    // GET_CONTEXT and QUERY_CONTEXT
    public static final int ATTR_CONTEXT_NUM_COMP_VECTORS = 0;
    public static final int ATTR_CONTEXT_CORE_SUPPORT = 1;
    // QUERY_GID_TABLE
    public static final int ATTR_GID_TABLE_ENTRY_SIZE = 0;
    public static final int ATTR_GID_TABLE_FLAGS = 1;
    public static final int ATTR_GID_TABLE_RESP_ENTRIES = 2;
    public static final int ATTR_GID_TABLE_RESP_NUM_ENTRIES = 3;
    // QUERY_GID_ENTRY
    public static final int ATTR_GID_ENTRY_PORT = 0;
    public static final int ATTR_GID_ENTRY_GID_INDEX = 1;
    public static final int ATTR_GID_ENTRY_FLAGS = 2;
    public static final int ATTR_GID_ENTRY_RESP_ENTRY = 3;

    // ASYNC_EVENT
    public static final int METHOD_ASYNC_EVENT_ALLOC = 0;
    public static final int ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE = 0;

    // the destroy methods of PD, AH, MW, XRCD, RWQ_IND_TBL, FLOW (method 0, handle attribute 0)
    public static final int METHOD_DESTROY = 0;
    public static final int ATTR_DESTROY_HANDLE = 0;

    // CQ, QP, SRQ, WQ: CREATE 0, DESTROY 1; the destroy's handle 0 and response 1
    public static final int METHOD_CREATE = 0;
    public static final int METHOD_OBJECT_DESTROY = 1;
    public static final int ATTR_DESTROY_RESP = 1;

    // CQ_CREATE
    public static final int ATTR_CREATE_CQ_HANDLE = 0;
    public static final int ATTR_CREATE_CQ_CQE = 1;
    public static final int ATTR_CREATE_CQ_USER_HANDLE = 2;
    public static final int ATTR_CREATE_CQ_COMP_CHANNEL = 3;
    public static final int ATTR_CREATE_CQ_COMP_VECTOR = 4;
    public static final int ATTR_CREATE_CQ_FLAGS = 5;
    public static final int ATTR_CREATE_CQ_RESP_CQE = 6;
    public static final int ATTR_CREATE_CQ_EVENT_FD = 7;

    // QP_CREATE (enum uverbs_attrs_create_qp_cmd_attr_ids)
    public static final int ATTR_CREATE_QP_HANDLE = 0;
    public static final int ATTR_CREATE_QP_XRCD_HANDLE = 1;
    public static final int ATTR_CREATE_QP_PD_HANDLE = 2;
    public static final int ATTR_CREATE_QP_SRQ_HANDLE = 3;
    public static final int ATTR_CREATE_QP_SEND_CQ_HANDLE = 4;
    public static final int ATTR_CREATE_QP_RECV_CQ_HANDLE = 5;
    public static final int ATTR_CREATE_QP_IND_TABLE_HANDLE = 6;
    public static final int ATTR_CREATE_QP_USER_HANDLE = 7;
    public static final int ATTR_CREATE_QP_CAP = 8;
    public static final int ATTR_CREATE_QP_TYPE = 9;
    public static final int ATTR_CREATE_QP_FLAGS = 10;
    public static final int ATTR_CREATE_QP_SOURCE_QPN = 11;
    public static final int ATTR_CREATE_QP_EVENT_FD = 12;
    public static final int ATTR_CREATE_QP_RESP_CAP = 13;
    public static final int ATTR_CREATE_QP_RESP_QP_NUM = 14;

    // SRQ_CREATE (enum uverbs_attrs_create_srq_cmd_attr_ids)
    public static final int ATTR_CREATE_SRQ_HANDLE = 0;
    public static final int ATTR_CREATE_SRQ_PD_HANDLE = 1;
    public static final int ATTR_CREATE_SRQ_XRCD_HANDLE = 2;
    public static final int ATTR_CREATE_SRQ_CQ_HANDLE = 3;
    public static final int ATTR_CREATE_SRQ_USER_HANDLE = 4;
    public static final int ATTR_CREATE_SRQ_MAX_WR = 5;
    public static final int ATTR_CREATE_SRQ_MAX_SGE = 6;
    public static final int ATTR_CREATE_SRQ_LIMIT = 7;
    public static final int ATTR_CREATE_SRQ_MAX_NUM_TAGS = 8;
    public static final int ATTR_CREATE_SRQ_TYPE = 9;
    public static final int ATTR_CREATE_SRQ_EVENT_FD = 10;
    public static final int ATTR_CREATE_SRQ_RESP_MAX_WR = 11;
    public static final int ATTR_CREATE_SRQ_RESP_MAX_SGE = 12;
    public static final int ATTR_CREATE_SRQ_RESP_SRQ_NUM = 13;

    // MR: enum uverbs_methods_mr
    public static final int METHOD_DM_MR_REG = 0;
    public static final int METHOD_MR_DESTROY = 1;
    public static final int METHOD_ADVISE_MR = 2;
    public static final int METHOD_QUERY_MR = 3;
    public static final int METHOD_REG_DMABUF_MR = 4;
    public static final int ATTR_ADVISE_MR_PD_HANDLE = 0;
    public static final int ATTR_ADVISE_MR_ADVICE = 1;
    public static final int ATTR_ADVISE_MR_FLAGS = 2;
    public static final int ATTR_ADVISE_MR_SGE_LIST = 3;
    public static final int ATTR_REG_DMABUF_MR_HANDLE = 0;
    public static final int ATTR_REG_DMABUF_MR_PD_HANDLE = 1;
    public static final int ATTR_REG_DMABUF_MR_OFFSET = 2;
    public static final int ATTR_REG_DMABUF_MR_LENGTH = 3;
    public static final int ATTR_REG_DMABUF_MR_IOVA = 4;
    public static final int ATTR_REG_DMABUF_MR_FD = 5;
    public static final int ATTR_REG_DMABUF_MR_ACCESS_FLAGS = 6;
    public static final int ATTR_REG_DMABUF_MR_RESP_LKEY = 7;
    public static final int ATTR_REG_DMABUF_MR_RESP_RKEY = 8;
    public static final int ATTR_QUERY_MR_HANDLE = 0;
    public static final int ATTR_QUERY_MR_RESP_LKEY = 1;
    public static final int ATTR_QUERY_MR_RESP_RKEY = 2;
    public static final int ATTR_QUERY_MR_RESP_LENGTH = 3;
    public static final int ATTR_QUERY_MR_RESP_IOVA = 4;
}
