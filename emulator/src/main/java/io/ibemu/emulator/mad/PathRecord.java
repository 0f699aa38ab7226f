package io.ibemu.emulator.mad;

/**
 * PathRecord (IBA 15.2.5.16, ib_types.h ib_path_rec_t): what the SA answers for a source and
 * destination GID — the DLID, SL, MTU and rate a sender's address vector takes.
 */
public record PathRecord(long serviceId, long dgidPrefix, long dgidInterface, long sgidPrefix, long sgidInterface,
        int dlid, int slid, boolean rawTraffic, int flowLabel, int hopLimit, int trafficClass, boolean reversible,
        int numbPath, int pkey, int qosClass, int sl, int mtuSelector, int mtu, int rateSelector, int rate,
        int packetLifeSelector, int packetLife, int preference) {
    public static final int ATTRIBUTE_ID = 0x0035;
    /** Component mask bits (IBA 15.2.5.16, IB_PR_COMPMASK_*). */
    public static final long DGID = 1L << 2;
    public static final long SGID = 1L << 3;
    public static final long REVERSIBLE = 1L << 11;
    public static final long NUMB_PATH = 1L << 12;
    public static final long PKEY = 1L << 13;

    public static final Layout LAYOUT = Layout.of("PathRecord", 64,
            Field.of("serviceId", "ServiceID", 0, 64),
            Field.of("dgidPrefix", "DGID", 64, 64),
            Field.of("dgidInterface", "DGIDInterface", 128, 64),
            Field.of("sgidPrefix", "SGID", 192, 64),
            Field.of("sgidInterface", "SGIDInterface", 256, 64),
            Field.of("dlid", "DLID", 320, 16),
            Field.of("slid", "SLID", 336, 16),
            Field.of("rawTraffic", "RawTraffic", 352, 1),
            Field.of("flowLabel", "FlowLabel", 356, 20),
            Field.of("hopLimit", "HopLimit", 376, 8),
            Field.of("trafficClass", "TClass", 384, 8),
            Field.of("reversible", "Reversible", 392, 1),
            Field.of("numbPath", "NumbPath", 393, 7),
            Field.of("pkey", "P_Key", 400, 16),
            Field.of("qosClass", "QoSClass", 416, 12),
            Field.of("sl", "SL", 428, 4),
            Field.of("mtuSelector", "MTUSelector", 432, 2),
            Field.of("mtu", "MTU", 434, 6),
            Field.of("rateSelector", "RateSelector", 440, 2),
            Field.of("rate", "Rate", 442, 6),
            Field.of("packetLifeSelector", "PacketLifeTimeSelector", 448, 2),
            Field.of("packetLife", "PacketLifeTime", 450, 6),
            Field.of("preference", "Preference", 456, 8));
    public static final RecordCodec<PathRecord> CODEC = RecordCodec.of(PathRecord.class, LAYOUT);

    /** A query for one reversible path from {@code sgid} to {@code dgid} in partition {@code pkey}. */
    public static PathRecord query(long sgidPrefix, long sgidInterface, long dgidPrefix, long dgidInterface,
            int pkey) {
        return new PathRecord(0, dgidPrefix, dgidInterface, sgidPrefix, sgidInterface, 0, 0, false, 0, 0, 0, true,
                1, pkey, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    public static PathRecord decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
