package io.ibemu.emulator.uverbs;

import io.ibemu.kernel.CStruct;
import io.ibemu.kernel.Errno;

import static io.ibemu.emulator.uverbs.WriteCommand.ex;
import static io.ibemu.emulator.uverbs.WriteCommand.in;
import static io.ibemu.emulator.uverbs.WriteCommand.io;

/**
 * The write() command table: what uverbs_cmd.c declares with DECLARE_UVERBS_WRITE(_EX), one
 * entry per command with its layouts and handler; udata as there (UAPI_DEF_WRITE_UDATA_*:
 * MODIFY_QP and the multicast pair are plain UAPI_DEF_WRITE_I, so bytes past their struct are
 * checked by uverbs_request). Numbers are enum ib_uverbs_write_cmds and
 * ib_uverbs_ex_write_cmds. A number inside the table's range that the device does not offer is
 * answered by the kernel's notsupp method (EOPNOTSUPP, after the header checks); one past the end,
 * or with unknown flag bits, fails at once (uapi_get_method).
 */
final class Commands {
    static final int GET_CONTEXT = 0;
    static final long FLAG_EXTENDED = 0x80000000L;
    private static final long COMMAND_MASK = 0xff;

    private static final CStruct NONE = CStruct.named("notsupp").build();
    /** ib_uverbs_notsupp: a non-extended method with no request, whatever the header said. */
    static final WriteCommand NOT_SUPPORTED = in(-1, "notsupp", NONE, false, c -> {
        throw Errno.of(Errno.EOPNOTSUPP);
    });

    private static final WriteCommand[] WRITE = {
        io(0, "GET_CONTEXT", Abi.RESPONSE_ONLY, Abi.GET_CONTEXT_RESP, true, ContextCommands::getContext),
        io(1, "QUERY_DEVICE", Abi.RESPONSE_ONLY, Abi.QUERY_DEVICE_RESP, false, ContextCommands::queryDevice)
                .contextFirst(),
        io(2, "QUERY_PORT", Abi.QUERY_PORT, Abi.QUERY_PORT_RESP, false, ContextCommands::queryPort).contextFirst(),
        io(3, "ALLOC_PD", Abi.RESPONSE_ONLY, Abi.ALLOC_PD_RESP, true, PdCommands::allocPd).allocates(),
        in(4, "DEALLOC_PD", Abi.DEALLOC_PD, false, PdCommands::deallocPd),
        io(5, "CREATE_AH", Abi.CREATE_AH, Abi.CREATE_AH_RESP, true, PdCommands::createAh).allocates(),
        null, // MODIFY_AH
        null, // QUERY_AH
        in(8, "DESTROY_AH", Abi.DESTROY_AH, false, PdCommands::destroyAh),
        io(9, "REG_MR", Abi.REG_MR, Abi.REG_MR_RESP, true, MrCommands::regMr).allocates(),
        null, // REG_SMR
        io(11, "REREG_MR", Abi.REREG_MR, Abi.REREG_MR_RESP, true, MrCommands::reregMr),
        null, // QUERY_MR
        in(13, "DEREG_MR", Abi.DEREG_MR, false, MrCommands::deregMr),
        io(14, "ALLOC_MW", Abi.ALLOC_MW, Abi.ALLOC_MW_RESP, true, MrCommands::allocMw).allocates(),
        null, // BIND_MW: binds are posted as work requests
        in(16, "DEALLOC_MW", Abi.DEALLOC_MW, false, MrCommands::deallocMw),
        io(17, "CREATE_COMP_CHANNEL", Abi.RESPONSE_ONLY, Abi.CREATE_COMP_CHANNEL_RESP, false,
                ContextCommands::createCompChannel).allocates(),
        io(18, "CREATE_CQ", Abi.CREATE_CQ, Abi.CREATE_CQ_RESP, true, CqCommands::createCq).allocates(),
        io(19, "RESIZE_CQ", Abi.RESIZE_CQ, Abi.RESIZE_CQ_RESP, true, CqCommands::resizeCq),
        io(20, "DESTROY_CQ", Abi.DESTROY_CQ, Abi.DESTROY_CQ_RESP, false, CqCommands::destroyCq),
        io(21, "POLL_CQ", Abi.POLL_CQ, Abi.POLL_CQ_RESP, false, CqCommands::pollCq),
        null, // PEEK_CQ
        in(23, "REQ_NOTIFY_CQ", Abi.REQ_NOTIFY_CQ, false, CqCommands::reqNotifyCq),
        io(24, "CREATE_QP", Abi.CREATE_QP, Abi.CREATE_QP_RESP, true, QpCommands::createQp).allocates(),
        io(25, "QUERY_QP", Abi.QUERY_QP, Abi.QUERY_QP_RESP, false, QpCommands::queryQp),
        in(26, "MODIFY_QP", Abi.MODIFY_QP, false, QpCommands::modifyQp),
        io(27, "DESTROY_QP", Abi.DESTROY_QP, Abi.DESTROY_QP_RESP, false, QpCommands::destroyQp),
        io(28, "POST_SEND", Abi.POST_SEND, Abi.POST_RESP, false, PostCommands::postSend).readInPieces(),
        io(29, "POST_RECV", Abi.POST_RECV, Abi.POST_RESP, false, PostCommands::postRecv).readInPieces(),
        in(30, "ATTACH_MCAST", Abi.MCAST, false, QpCommands::attachMcast),
        in(31, "DETACH_MCAST", Abi.MCAST, false, QpCommands::detachMcast),
        io(32, "CREATE_SRQ", Abi.CREATE_SRQ, Abi.CREATE_SRQ_RESP, true, SrqCommands::createSrq).allocates(),
        in(33, "MODIFY_SRQ", Abi.MODIFY_SRQ, true, SrqCommands::modifySrq),
        io(34, "QUERY_SRQ", Abi.QUERY_SRQ, Abi.QUERY_SRQ_RESP, false, SrqCommands::querySrq),
        io(35, "DESTROY_SRQ", Abi.DESTROY_SRQ, Abi.DESTROY_SRQ_RESP, false, SrqCommands::destroySrq),
        io(36, "POST_SRQ_RECV", Abi.POST_SRQ_RECV, Abi.POST_RESP, false, PostCommands::postSrqRecv).readInPieces(),
        io(37, "OPEN_XRCD", Abi.OPEN_XRCD, Abi.OPEN_XRCD_RESP, true, PdCommands::openXrcd).allocates(),
        in(38, "CLOSE_XRCD", Abi.CLOSE_XRCD, false, PdCommands::closeXrcd),
        io(39, "CREATE_XSRQ", Abi.CREATE_XSRQ, Abi.CREATE_SRQ_RESP, true, SrqCommands::createXsrq).allocates(),
        io(40, "OPEN_QP", Abi.OPEN_QP, Abi.CREATE_QP_RESP, true, QpCommands::openQp).allocates(),
    };

    /** The extended table: query_device, create_cq, create_qp and modify_qp (no flows, WQs, CQ moderation). */
    private static final WriteCommand[] WRITE_EX = new WriteCommand[27];

    static {
        WRITE_EX[1] = ex(1, "EX_QUERY_DEVICE", Abi.EX_QUERY_DEVICE, "reserved", Abi.EX_QUERY_DEVICE_RESP,
                "response_length", ContextCommands::exQueryDevice).contextFirst();
        WRITE_EX[18] = ex(18, "EX_CREATE_CQ", Abi.EX_CREATE_CQ, "reserved", Abi.EX_CREATE_CQ_RESP,
                "response_length", CqCommands::exCreateCq).allocates();
        WRITE_EX[24] = ex(24, "EX_CREATE_QP", Abi.EX_CREATE_QP, "comp_mask", Abi.EX_CREATE_QP_RESP,
                "response_length", QpCommands::exCreateQp).allocates();
        WRITE_EX[26] = ex(26, "EX_MODIFY_QP", Abi.EX_MODIFY_QP, "base", Abi.EX_MODIFY_QP_RESP,
                "response_length", QpCommands::exModifyQp);
        for (int i = 0; i < WRITE.length; i++) {
            if (WRITE[i] != null && WRITE[i].number() != i) {
                throw new IllegalStateException("command table out of order at " + i);
            }
        }
    }

    /** Every command's name, an extended one as its plain verb (EX_CREATE_QP is CREATE_QP): what fault rules name. */
    static java.util.Set<String> verbs() {
        java.util.Set<String> names = new java.util.TreeSet<>();
        for (WriteCommand[] table : new WriteCommand[][] {WRITE, WRITE_EX}) {
            for (WriteCommand c : table) {
                if (c != null) {
                    names.add(c.name().startsWith("EX_") ? c.name().substring(3) : c.name());
                }
            }
        }
        return names;
    }

    /** uapi_get_method: the command for a header's command word. */
    static WriteCommand lookup(long command) throws Errno {
        if ((command & ~(FLAG_EXTENDED | COMMAND_MASK)) != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        int index = (int) (command & COMMAND_MASK);
        WriteCommand[] table = (command & FLAG_EXTENDED) != 0 ? WRITE_EX : WRITE;
        if (index >= table.length) {
            throw Errno.of(Errno.EOPNOTSUPP);
        }
        WriteCommand c = table[index];
        return c == null ? NOT_SUPPORTED : c;
    }
}
