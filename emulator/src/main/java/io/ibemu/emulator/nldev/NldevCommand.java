package io.ibemu.emulator.nldev;

/**
 * enum rdma_nldev_command with nldev_cb_table's row for each: whether it has a doit and a dump,
 * and RDMA_NL_ADMIN_PERM. {@code emulated} false: the kernel has the command but this device
 * model does not offer what it works on (counters, links, namespaces): EOPNOTSUPP.
 */
enum NldevCommand {
    GET(1, true, true, false, true),
    SET(2, true, false, true, true),
    NEWLINK(3, true, false, true, false),
    DELLINK(4, true, false, true, false),
    PORT_GET(5, true, true, false, true),
    SYS_GET(6, true, false, false, true),
    SYS_SET(7, true, false, true, false),
    RES_GET(9, true, true, false, true),
    RES_QP_GET(10, true, true, false, true),
    RES_CM_ID_GET(11, true, true, false, true),
    RES_CQ_GET(12, true, true, false, true),
    RES_MR_GET(13, true, true, false, true),
    RES_PD_GET(14, true, true, false, true),
    GET_CHARDEV(15, true, false, false, true),
    STAT_SET(16, true, false, true, false),
    STAT_GET(17, true, true, false, false),
    STAT_DEL(18, true, false, true, false),
    RES_QP_GET_RAW(19, true, true, true, false),
    RES_CQ_GET_RAW(20, true, true, true, false),
    RES_MR_GET_RAW(21, true, true, true, false),
    RES_CTX_GET(22, true, true, false, true),
    RES_SRQ_GET(23, true, true, false, false),
    STAT_GET_STATUS(24, true, true, false, false),
    RES_SRQ_GET_RAW(25, true, true, true, false),
    NEWDEV(26, true, false, true, false),
    DELDEV(27, true, false, true, false),
    MONITOR(28, false, true, true, false);

    /** RDMA_NL_NLDEV: the client number in the top bits of nlmsg_type (RDMA_NL_GET_TYPE). */
    static final int CLIENT = 5;

    final int op;
    final boolean doit;
    final boolean dump;
    final boolean admin;
    final boolean emulated;

    NldevCommand(int op, boolean doit, boolean dump, boolean admin, boolean emulated) {
        this.op = op;
        this.doit = doit;
        this.dump = dump;
        this.admin = admin;
        this.emulated = emulated;
    }

    /** nlmsg_type of this command's messages. */
    int type() {
        return (CLIENT << 10) + op;
    }

    static NldevCommand of(int op) {
        for (NldevCommand c : values()) {
            if (c.op == op) {
                return c;
            }
        }
        return null;
    }
}
