package io.ibemu.emulator.mad;

/**
 * MCMemberRecord (IBA 15.2.5.17, ib_types.h ib_member_rec_t): a port's membership of a multicast
 * group, what SubnAdmSet joins and SubnAdmDelete leaves. GIDs as prefix and interface halves.
 */
public record McMemberRecord(long mgidPrefix, long mgidInterface, long portGidPrefix, long portGuid, int qkey,
        int mlid, int mtuSelector, int mtu, int trafficClass, int pkey, int rateSelector, int rate,
        int packetLifeSelector, int packetLife, int sl, int flowLabel, int hopLimit, int scope, int joinState,
        boolean proxyJoin) {
    public static final int ATTRIBUTE_ID = 0x0038;
    /** Component mask bits (IBA 15.2.5.17, IB_MCR_COMPMASK_*). */
    public static final long MGID = 1L << 0;
    public static final long PORT_GID = 1L << 1;
    public static final long QKEY = 1L << 2;
    public static final long PKEY = 1L << 7;
    public static final long JOIN_STATE = 1L << 16;
    /** JoinState: full member. */
    public static final int FULL_MEMBER = 1;

    public static final Layout LAYOUT = Layout.of("MCMemberRecord", 52,
            Field.of("mgidPrefix", "MGID", 0, 64),
            Field.of("mgidInterface", "MGIDInterface", 64, 64),
            Field.of("portGidPrefix", "PortGID", 128, 64),
            Field.of("portGuid", "PortGIDInterface", 192, 64),
            Field.of("qkey", "Q_Key", 256, 32),
            Field.of("mlid", "MLID", 288, 16),
            Field.of("mtuSelector", "MTUSelector", 304, 2),
            Field.of("mtu", "MTU", 306, 6),
            Field.of("trafficClass", "TClass", 312, 8),
            Field.of("pkey", "P_Key", 320, 16),
            Field.of("rateSelector", "RateSelector", 336, 2),
            Field.of("rate", "Rate", 338, 6),
            Field.of("packetLifeSelector", "PacketLifeTimeSelector", 344, 2),
            Field.of("packetLife", "PacketLifeTime", 346, 6),
            Field.of("sl", "SL", 352, 4),
            Field.of("flowLabel", "FlowLabel", 356, 20),
            Field.of("hopLimit", "HopLimit", 376, 8),
            Field.of("scope", "Scope", 384, 4),
            Field.of("joinState", "JoinState", 388, 4),
            Field.of("proxyJoin", "ProxyJoin", 392, 1));
    public static final RecordCodec<McMemberRecord> CODEC = RecordCodec.of(McMemberRecord.class, LAYOUT);

    /** A join request's record: the group, the joining port, the P_Key and the join state. */
    public static McMemberRecord join(long mgidPrefix, long mgidInterface, long portGidPrefix, long portGuid,
            int pkey, int joinState) {
        return new McMemberRecord(mgidPrefix, mgidInterface, portGidPrefix, portGuid, 0, 0, 0, 0, 0, pkey, 0, 0, 0,
                0, 0, 0, 0, 0, joinState, false);
    }

    public static McMemberRecord decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
