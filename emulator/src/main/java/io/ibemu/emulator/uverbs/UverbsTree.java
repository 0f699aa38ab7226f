package io.ibemu.emulator.uverbs;

import io.ibemu.emulator.uverbs.ioctl.Access;
import io.ibemu.emulator.uverbs.ioctl.AttrSpec;
import io.ibemu.emulator.uverbs.ioctl.Kernel;
import io.ibemu.emulator.uverbs.ioctl.MethodSpec;
import io.ibemu.emulator.uverbs.ioctl.ObjectSpec;
import io.ibemu.emulator.uverbs.ioctl.Uapi;

import java.util.List;

import static io.ibemu.emulator.uverbs.ioctl.AttrSpec.constIn;
import static io.ibemu.emulator.uverbs.ioctl.AttrSpec.fd;
import static io.ibemu.emulator.uverbs.ioctl.AttrSpec.flagsIn;
import static io.ibemu.emulator.uverbs.ioctl.AttrSpec.idr;
import static io.ibemu.emulator.uverbs.ioctl.AttrSpec.in;
import static io.ibemu.emulator.uverbs.ioctl.AttrSpec.inAtLeast;
import static io.ibemu.emulator.uverbs.ioctl.AttrSpec.inStruct;
import static io.ibemu.emulator.uverbs.ioctl.AttrSpec.out;
import static io.ibemu.emulator.uverbs.ioctl.AttrSpec.outAtLeast;
import static io.ibemu.emulator.uverbs.ioctl.AttrSpec.outStruct;
import static io.ibemu.emulator.uverbs.ioctl.AttrSpec.uhwIn;
import static io.ibemu.emulator.uverbs.ioctl.AttrSpec.uhwOut;
import static io.ibemu.emulator.uverbs.ioctl.MethodSpec.method;
import static io.ibemu.emulator.uverbs.ioctl.MethodSpec.nothing;
import static io.ibemu.emulator.uverbs.ioctl.ObjectSpec.object;
import static io.ibemu.emulator.uverbs.ioctl.UapiIds.*;

/**
 * The ioctl tree of a uverbs device, declared once as the kernel's uverbs_std_types*.c declare
 * it, with what a software HCA's driver (rdmavt for qib, rxe) lacks left out as uverbs_uapi.c
 * leaves it out (UAPI_DEF_OBJ_NEEDS_FN): no WQ, RWQ_IND_TBL, FLOW, FLOW_ACTION, DM or COUNTERS
 * object, and of MR no DM_MR_REG (ADVISE_MR and REG_DMABUF_MR stay, and answer EOPNOTSUPP). The
 * write() commands are the other half of the same uapi ({@link Commands}); INVOKE_WRITE reaches
 * them from here. Entries newer than 5.4 say so ({@code since}): a device presenting 5.4
 * ({@link KernelAbi}) lacks them.
 */
final class UverbsTree {

    private UverbsTree() {
    }

    /** A plain DECLARE_UVERBS_NAMED_METHOD_DESTROY: the handle, and no work past the destroy. */
    private static MethodSpec<UverbsFile> destroy(int methodId, String name, int objectId) {
        return MethodSpec.<UverbsFile>method(methodId, name, nothing(),
                idr(ATTR_DESTROY_HANDLE, "HANDLE", objectId, Access.DESTROY).required()).since(Kernel.V5_4);
    }

    /** A destroy with a response counting events (CQ, QP, SRQ). */
    private static MethodSpec<UverbsFile> destroy(String name, int objectId, int respSize,
                                                  MethodSpec.Handler<UverbsFile> handler, Kernel since) {
        return method(METHOD_OBJECT_DESTROY, name, handler,
                idr(ATTR_DESTROY_HANDLE, "HANDLE", objectId, Access.DESTROY).required(),
                out(ATTR_DESTROY_RESP, "RESP", respSize).required()).since(since);
    }

    static final Uapi<UverbsFile> TREE = new Uapi<>(List.of(
            object(OBJECT_DEVICE, "DEVICE",
                    method(METHOD_GET_CONTEXT, "GET_CONTEXT", DeviceMethods::getContext,
                            out(ATTR_CONTEXT_NUM_COMP_VECTORS, "NUM_COMP_VECTORS", 4),
                            out(ATTR_CONTEXT_CORE_SUPPORT, "CORE_SUPPORT", 8),
                            uhwIn(), uhwOut()).since(Kernel.V6_1), // 5.7, with ASYNC_EVENT
                    method(METHOD_INVOKE_WRITE, "INVOKE_WRITE", DeviceMethods::invokeWrite,
                            constIn(ATTR_WRITE_CMD, "WRITE_CMD").required(),
                            inAtLeast(ATTR_CORE_IN, "CORE_IN", 4),
                            outAtLeast(ATTR_CORE_OUT, "CORE_OUT", 0),
                            uhwIn(), uhwOut()).since(Kernel.V5_4), // 5.0
                    method(METHOD_INFO_HANDLES, "INFO_HANDLES", DeviceMethods::infoHandles,
                            constIn(ATTR_INFO_OBJECT_ID, "OBJECT_ID").required(),
                            out(ATTR_INFO_TOTAL_HANDLES, "TOTAL_HANDLES", 4),
                            outAtLeast(ATTR_INFO_HANDLES_LIST, "HANDLES_LIST", 4)).since(Kernel.V5_4), // 5.0
                    method(METHOD_QUERY_PORT, "QUERY_PORT", DeviceMethods::queryPort,
                            constIn(ATTR_QUERY_PORT_PORT_NUM, "PORT_NUM").required(),
                            outStruct(ATTR_QUERY_PORT_RESP, "RESP", DeviceMethods.PORT_RESP_EX.size(),
                                    DeviceMethods.PORT_RESP_EX.size()).required()).since(Kernel.V5_4),
                    method(METHOD_QUERY_CONTEXT, "QUERY_CONTEXT", DeviceMethods::queryContext,
                            out(ATTR_CONTEXT_NUM_COMP_VECTORS, "NUM_COMP_VECTORS", 4),
                            out(ATTR_CONTEXT_CORE_SUPPORT, "CORE_SUPPORT", 8)).since(Kernel.V6_1), // 5.7
                    method(METHOD_QUERY_GID_TABLE, "QUERY_GID_TABLE", DeviceMethods::queryGidTable,
                            constIn(ATTR_GID_TABLE_ENTRY_SIZE, "ENTRY_SIZE").required(),
                            flagsIn(ATTR_GID_TABLE_FLAGS, "FLAGS"),
                            outAtLeast(ATTR_GID_TABLE_RESP_ENTRIES, "RESP_ENTRIES", 0).required(),
                            out(ATTR_GID_TABLE_RESP_NUM_ENTRIES, "RESP_NUM_ENTRIES", 8).required())
                            .since(Kernel.V6_1), // 5.10
                    method(METHOD_QUERY_GID_ENTRY, "QUERY_GID_ENTRY", DeviceMethods::queryGidEntry,
                            constIn(ATTR_GID_ENTRY_PORT, "PORT").required(),
                            constIn(ATTR_GID_ENTRY_GID_INDEX, "GID_INDEX").required(),
                            flagsIn(ATTR_GID_ENTRY_FLAGS, "FLAGS").required(),
                            outStruct(ATTR_GID_ENTRY_RESP_ENTRY, "RESP_ENTRY", DeviceMethods.GID_ENTRY.size(),
                                    DeviceMethods.GID_ENTRY.size()).required()).since(Kernel.V6_1)), // 5.10
            object(OBJECT_PD, "PD", destroy(METHOD_DESTROY, "PD_DESTROY", OBJECT_PD)),
            object(OBJECT_COMP_CHANNEL, "COMP_CHANNEL"),
            object(OBJECT_CQ, "CQ",
                    method(METHOD_CREATE, "CQ_CREATE", ObjectMethods::createCq,
                            idr(ATTR_CREATE_CQ_HANDLE, "HANDLE", OBJECT_CQ, Access.NEW).required(),
                            in(ATTR_CREATE_CQ_CQE, "CQE", 4).required(),
                            in(ATTR_CREATE_CQ_USER_HANDLE, "USER_HANDLE", 8).required(),
                            fd(ATTR_CREATE_CQ_COMP_CHANNEL, "COMP_CHANNEL", OBJECT_COMP_CHANNEL, Access.READ),
                            in(ATTR_CREATE_CQ_COMP_VECTOR, "COMP_VECTOR", 4).required(),
                            flagsIn(ATTR_CREATE_CQ_FLAGS, "FLAGS"),
                            out(ATTR_CREATE_CQ_RESP_CQE, "RESP_CQE", 4).required(),
                            fd(ATTR_CREATE_CQ_EVENT_FD, "EVENT_FD", OBJECT_ASYNC_EVENT, Access.READ)
                                    .since(Kernel.V6_1), // 5.7
                            uhwIn(), uhwOut()).since(Kernel.V6_1), // 5.9: before, only with EXP_LEGACY_VERBS_NEW_UAPI
                    destroy("CQ_DESTROY", OBJECT_CQ, Abi.DESTROY_CQ_RESP.size(), ObjectMethods::cqDestroyed,
                            Kernel.V6_1)), // 5.9, as CQ_CREATE
            object(OBJECT_QP, "QP",
                    method(METHOD_CREATE, "QP_CREATE", QueueMethods::createQp,
                            idr(ATTR_CREATE_QP_HANDLE, "HANDLE", OBJECT_QP, Access.NEW).required(),
                            idr(ATTR_CREATE_QP_XRCD_HANDLE, "XRCD_HANDLE", OBJECT_XRCD, Access.READ),
                            idr(ATTR_CREATE_QP_PD_HANDLE, "PD_HANDLE", OBJECT_PD, Access.READ),
                            idr(ATTR_CREATE_QP_SRQ_HANDLE, "SRQ_HANDLE", OBJECT_SRQ, Access.READ),
                            idr(ATTR_CREATE_QP_SEND_CQ_HANDLE, "SEND_CQ_HANDLE", OBJECT_CQ, Access.READ),
                            idr(ATTR_CREATE_QP_RECV_CQ_HANDLE, "RECV_CQ_HANDLE", OBJECT_CQ, Access.READ),
                            // optional, so it stays though the driver has no RWQ_IND_TBL (uapi_finalize_disable)
                            idr(ATTR_CREATE_QP_IND_TABLE_HANDLE, "IND_TABLE_HANDLE", OBJECT_RWQ_IND_TBL, Access.READ),
                            in(ATTR_CREATE_QP_USER_HANDLE, "USER_HANDLE", 8).required(),
                            inStruct(ATTR_CREATE_QP_CAP, "CAP", Abi.QP_CAP.size(), Abi.QP_CAP.size()).required(),
                            constIn(ATTR_CREATE_QP_TYPE, "TYPE").required(),
                            flagsIn(ATTR_CREATE_QP_FLAGS, "FLAGS"),
                            in(ATTR_CREATE_QP_SOURCE_QPN, "SOURCE_QPN", 4),
                            fd(ATTR_CREATE_QP_EVENT_FD, "EVENT_FD", OBJECT_ASYNC_EVENT, Access.READ),
                            outStruct(ATTR_CREATE_QP_RESP_CAP, "RESP_CAP", Abi.QP_CAP.size(), Abi.QP_CAP.size())
                                    .required(),
                            out(ATTR_CREATE_QP_RESP_QP_NUM, "RESP_QP_NUM", 4).required(),
                            uhwIn(), uhwOut()).since(Kernel.V6_1), // 5.10
                    destroy("QP_DESTROY", OBJECT_QP, Abi.DESTROY_QP_RESP.size(), ObjectMethods::eventsDestroyed,
                            Kernel.V5_4)),
            object(OBJECT_SRQ, "SRQ",
                    method(METHOD_CREATE, "SRQ_CREATE", QueueMethods::createSrq,
                            idr(ATTR_CREATE_SRQ_HANDLE, "HANDLE", OBJECT_SRQ, Access.NEW).required(),
                            idr(ATTR_CREATE_SRQ_PD_HANDLE, "PD_HANDLE", OBJECT_PD, Access.READ).required(),
                            constIn(ATTR_CREATE_SRQ_TYPE, "TYPE").required(),
                            in(ATTR_CREATE_SRQ_USER_HANDLE, "USER_HANDLE", 8).required(),
                            in(ATTR_CREATE_SRQ_MAX_WR, "MAX_WR", 4).required(),
                            in(ATTR_CREATE_SRQ_MAX_SGE, "MAX_SGE", 4).required(),
                            in(ATTR_CREATE_SRQ_LIMIT, "LIMIT", 4).required(),
                            idr(ATTR_CREATE_SRQ_XRCD_HANDLE, "XRCD_HANDLE", OBJECT_XRCD, Access.READ),
                            idr(ATTR_CREATE_SRQ_CQ_HANDLE, "CQ_HANDLE", OBJECT_CQ, Access.READ),
                            in(ATTR_CREATE_SRQ_MAX_NUM_TAGS, "MAX_NUM_TAGS", 4),
                            fd(ATTR_CREATE_SRQ_EVENT_FD, "EVENT_FD", OBJECT_ASYNC_EVENT, Access.READ),
                            out(ATTR_CREATE_SRQ_RESP_MAX_WR, "RESP_MAX_WR", 4).required(),
                            out(ATTR_CREATE_SRQ_RESP_MAX_SGE, "RESP_MAX_SGE", 4).required(),
                            out(ATTR_CREATE_SRQ_RESP_SRQ_NUM, "RESP_SRQ_NUM", 4),
                            uhwIn(), uhwOut()).since(Kernel.V6_1), // 5.10
                    destroy("SRQ_DESTROY", OBJECT_SRQ, Abi.DESTROY_SRQ_RESP.size(), ObjectMethods::eventsDestroyed,
                            Kernel.V5_4)),
            object(OBJECT_AH, "AH", destroy(METHOD_DESTROY, "AH_DESTROY", OBJECT_AH)),
            object(OBJECT_MR, "MR",
                    destroy(METHOD_MR_DESTROY, "MR_DESTROY", OBJECT_MR),
                    method(METHOD_ADVISE_MR, "ADVISE_MR", ObjectMethods::adviseMr,
                            idr(ATTR_ADVISE_MR_PD_HANDLE, "PD_HANDLE", OBJECT_PD, Access.READ).required(),
                            constIn(ATTR_ADVISE_MR_ADVICE, "ADVICE").required(),
                            flagsIn(ATTR_ADVISE_MR_FLAGS, "FLAGS").required(),
                            inAtLeast(ATTR_ADVISE_MR_SGE_LIST, "SGE_LIST", Abi.SGE.size()).required().allocAndCopy())
                            .since(Kernel.V5_4), // 5.1
                    method(METHOD_REG_DMABUF_MR, "REG_DMABUF_MR", ObjectMethods::regDmabufMr,
                            idr(ATTR_REG_DMABUF_MR_HANDLE, "HANDLE", OBJECT_MR, Access.NEW).required(),
                            idr(ATTR_REG_DMABUF_MR_PD_HANDLE, "PD_HANDLE", OBJECT_PD, Access.READ).required(),
                            in(ATTR_REG_DMABUF_MR_OFFSET, "OFFSET", 8).required(),
                            in(ATTR_REG_DMABUF_MR_LENGTH, "LENGTH", 8).required(),
                            in(ATTR_REG_DMABUF_MR_IOVA, "IOVA", 8).required(),
                            in(ATTR_REG_DMABUF_MR_FD, "FD", 4).required(), // a u32 until UVERBS_ATTR_RAW_FD (6.2)
                            flagsIn(ATTR_REG_DMABUF_MR_ACCESS_FLAGS, "ACCESS_FLAGS"),
                            out(ATTR_REG_DMABUF_MR_RESP_LKEY, "RESP_LKEY", 4).required(),
                            out(ATTR_REG_DMABUF_MR_RESP_RKEY, "RESP_RKEY", 4).required()).since(Kernel.V6_1), // 5.12
                    method(METHOD_QUERY_MR, "QUERY_MR", ObjectMethods::queryMr,
                            idr(ATTR_QUERY_MR_HANDLE, "HANDLE", OBJECT_MR, Access.READ).required(),
                            out(ATTR_QUERY_MR_RESP_LKEY, "RESP_LKEY", 4).required(),
                            out(ATTR_QUERY_MR_RESP_RKEY, "RESP_RKEY", 4).required(),
                            out(ATTR_QUERY_MR_RESP_LENGTH, "RESP_LENGTH", 8).required(),
                            out(ATTR_QUERY_MR_RESP_IOVA, "RESP_IOVA", 8)).since(Kernel.V6_1)), // 5.9
            object(OBJECT_MW, "MW", destroy(METHOD_DESTROY, "MW_DESTROY", OBJECT_MW)),
            object(OBJECT_XRCD, "XRCD", destroy(METHOD_DESTROY, "XRCD_DESTROY", OBJECT_XRCD)),
            object(OBJECT_ASYNC_EVENT, "ASYNC_EVENT",
                    method(METHOD_ASYNC_EVENT_ALLOC, "ASYNC_EVENT_ALLOC", DeviceMethods::allocAsyncEvents,
                            fd(ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, "FD_HANDLE", OBJECT_ASYNC_EVENT, Access.NEW)
                                    .required())).since(Kernel.V6_1))); // 5.7
}
