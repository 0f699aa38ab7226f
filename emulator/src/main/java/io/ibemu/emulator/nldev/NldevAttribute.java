package io.ibemu.emulator.nldev;

import io.ibemu.devfs.netlink.AttributePolicy;
import io.ibemu.devfs.netlink.AttributePolicy.Kind;

/**
 * The RDMA_NLDEV_ATTR_* numbers of include/uapi/rdma/rdma_netlink.h this emulation reads or
 * writes, each with nldev.c's nldev_policy row (type and length limit): the table is declared
 * once here, both for parsing requests and for building answers.
 */
public enum NldevAttribute {
    DEV_INDEX(1, Kind.U32, 0),
    DEV_NAME(2, Kind.NUL_STRING, Nldev.IB_DEVICE_NAME_MAX - 1),
    PORT_INDEX(3, Kind.U32, 0),
    CAP_FLAGS(4, Kind.U64, 0),
    FW_VERSION(5, Kind.NUL_STRING, 64 - 1),
    NODE_GUID(6, Kind.U64, 0),
    SYS_IMAGE_GUID(7, Kind.U64, 0),
    SUBNET_PREFIX(8, Kind.U64, 0),
    LID(9, Kind.U32, 0),
    SM_LID(10, Kind.U32, 0),
    LMC(11, Kind.U8, 0),
    PORT_STATE(12, Kind.U8, 0),
    PORT_PHYS_STATE(13, Kind.U8, 0),
    DEV_NODE_TYPE(14, Kind.U8, 0),
    RES_SUMMARY(15, Kind.NESTED, 0),
    RES_SUMMARY_ENTRY(16, Kind.NESTED, 0),
    RES_SUMMARY_ENTRY_NAME(17, Kind.NUL_STRING, 16),
    RES_SUMMARY_ENTRY_CURR(18, Kind.U64, 0),
    RES_QP(19, Kind.NESTED, 0),
    RES_QP_ENTRY(20, Kind.NESTED, 0),
    RES_LQPN(21, Kind.U32, 0),
    RES_RQPN(22, Kind.U32, 0),
    RES_RQ_PSN(23, Kind.U32, 0),
    RES_SQ_PSN(24, Kind.U32, 0),
    RES_PATH_MIG_STATE(25, Kind.U8, 0),
    RES_TYPE(26, Kind.U8, 0),
    RES_STATE(27, Kind.U8, 0),
    RES_PID(28, Kind.U32, 0),
    RES_KERN_NAME(29, Kind.NUL_STRING, 16),
    RES_CM_ID(30, Kind.NESTED, 0),
    RES_CM_ID_ENTRY(31, Kind.NESTED, 0),
    RES_PS(32, Kind.U32, 0),
    RES_SRC_ADDR(33, Kind.UNSPEC, 128),
    RES_DST_ADDR(34, Kind.UNSPEC, 128),
    RES_CQ(35, Kind.NESTED, 0),
    RES_CQ_ENTRY(36, Kind.NESTED, 0),
    RES_CQE(37, Kind.U32, 0),
    RES_USECNT(38, Kind.U64, 0),
    RES_POLL_CTX(39, Kind.U8, 0),
    RES_MR(40, Kind.NESTED, 0),
    RES_MR_ENTRY(41, Kind.NESTED, 0),
    RES_RKEY(42, Kind.U32, 0),
    RES_LKEY(43, Kind.U32, 0),
    RES_IOVA(44, Kind.U64, 0),
    RES_MRLEN(45, Kind.U64, 0),
    RES_PD(46, Kind.NESTED, 0),
    RES_PD_ENTRY(47, Kind.NESTED, 0),
    RES_LOCAL_DMA_LKEY(48, Kind.U32, 0),
    RES_UNSAFE_GLOBAL_RKEY(49, Kind.U32, 0),
    NDEV_INDEX(50, Kind.U32, 0),
    NDEV_NAME(51, Kind.NUL_STRING, 16),
    DRIVER(52, Kind.NESTED, 0),
    DRIVER_ENTRY(53, Kind.NESTED, 0),
    DRIVER_STRING(54, Kind.NUL_STRING, 16),
    DRIVER_PRINT_TYPE(55, Kind.U8, 0),
    DRIVER_S32(56, Kind.S32, 0),
    DRIVER_U32(57, Kind.U32, 0),
    DRIVER_S64(58, Kind.S64, 0),
    DRIVER_U64(59, Kind.U64, 0),
    RES_PDN(60, Kind.U32, 0),
    RES_CQN(61, Kind.U32, 0),
    RES_MRN(62, Kind.U32, 0),
    RES_CM_IDN(63, Kind.U32, 0),
    RES_CTXN(64, Kind.U32, 0),
    LINK_TYPE(65, Kind.NUL_STRING, 16),
    SYS_NETNS_MODE(66, Kind.U8, 0),
    DEV_PROTOCOL(67, Kind.NUL_STRING, 16),
    NET_NS_FD(68, Kind.U32, 0),
    CHARDEV_TYPE(69, Kind.NUL_STRING, 32 - 1),
    CHARDEV_NAME(70, Kind.NUL_STRING, 64 - 1),
    CHARDEV_ABI(71, Kind.U64, 0),
    CHARDEV(72, Kind.U64, 0),
    UVERBS_DRIVER_ID(73, Kind.U32, 0),
    STAT_MODE(74, Kind.U32, 0),
    STAT_RES(75, Kind.U32, 0),
    STAT_AUTO_MODE_MASK(76, Kind.U32, 0),
    STAT_COUNTER(77, Kind.NESTED, 0),
    STAT_COUNTER_ENTRY(78, Kind.NESTED, 0),
    STAT_COUNTER_ID(79, Kind.U32, 0),
    STAT_HWCOUNTERS(80, Kind.NESTED, 0),
    STAT_HWCOUNTER_ENTRY(81, Kind.NESTED, 0),
    STAT_HWCOUNTER_ENTRY_NAME(82, Kind.NUL_STRING, 0),
    STAT_HWCOUNTER_ENTRY_VALUE(83, Kind.U64, 0),
    DEV_DIM(84, Kind.U8, 0),
    RES_RAW(85, Kind.BINARY, 0),
    RES_CTX(86, Kind.NESTED, 0),
    RES_CTX_ENTRY(87, Kind.NESTED, 0),
    RES_SRQ(88, Kind.NESTED, 0),
    RES_SRQ_ENTRY(89, Kind.NESTED, 0),
    RES_SRQN(90, Kind.U32, 0),
    MIN_RANGE(91, Kind.U32, 0),
    MAX_RANGE(92, Kind.U32, 0),
    SYS_COPY_ON_FORK(93, Kind.U8, 0),
    STAT_HWCOUNTER_INDEX(94, Kind.U32, 0),
    STAT_HWCOUNTER_DYNAMIC(95, Kind.U8, 0),
    SYS_PRIVILEGED_QKEY_MODE(96, Kind.U8, 0),
    DRIVER_DETAILS(97, Kind.U8, 0),
    RES_SUBTYPE(98, Kind.NUL_STRING, 16),
    DEV_TYPE(99, Kind.U8, 0),
    PARENT_NAME(100, Kind.NUL_STRING, 0),
    NAME_ASSIGN_TYPE(101, Kind.U8, 0),
    EVENT_TYPE(102, Kind.U8, 0),
    SYS_MONITOR_MODE(103, Kind.U8, 0);

    /** RDMA_NLDEV_ATTR_MAX - 1 of the kernel mirrored: attributes above it are ignored by the parse. */
    public static final int MAX = SYS_MONITOR_MODE.number;

    /** nldev_policy, indexed by attribute number. */
    static final AttributePolicy[] POLICY = new AttributePolicy[MAX + 1];

    static {
        for (NldevAttribute a : values()) {
            POLICY[a.number] = new AttributePolicy(a.number, a.kind, a.maxLength);
        }
    }

    public final int number;
    final Kind kind;
    final int maxLength;

    NldevAttribute(int number, Kind kind, int maxLength) {
        this.number = number;
        this.kind = kind;
        this.maxLength = maxLength;
    }
}
