package io.ibemu.emulator.mad;

/**
 * REQ, the request for communication (IBA vol 1 table 106, cm_req_msg in ibta_vol1_c12.h).
 * Offsets from the end of the MAD header; GIDs as prefix and interface halves.
 */
public record CmReq(int localCommId, long serviceId, long localCaGuid, int localQkey, int localQpn,
        int responderResources, int localEecn, int initiatorDepth, int remoteEecn, int remoteCmResponseTimeout,
        int transportServiceType, boolean flowControl, int startingPsn, int localCmResponseTimeout, int retryCount,
        int pkey, int pathMtu, boolean rdcExists, int rnrRetryCount, int maxCmRetries, boolean srq,
        int extendedTransportType, int primaryLocalLid, int primaryRemoteLid, long primaryLocalGidPrefix,
        long primaryLocalGidInterface, long primaryRemoteGidPrefix, long primaryRemoteGidInterface,
        int primaryFlowLabel, int primaryPacketRate, int primaryTrafficClass, int primaryHopLimit, int primarySl,
        boolean primarySubnetLocal, int primaryLocalAckTimeout, int alternateLocalLid, int alternateRemoteLid,
        long alternateLocalGidPrefix, long alternateLocalGidInterface, long alternateRemoteGidPrefix,
        long alternateRemoteGidInterface, int alternateFlowLabel, int alternatePacketRate,
        int alternateTrafficClass, int alternateHopLimit, int alternateSl, boolean alternateSubnetLocal,
        int alternateLocalAckTimeout, boolean sapSupported, byte[] privateData) {
    public static final int PRIVATE_DATA_SIZE = 92;
    /** Transport Service Type (table 106): RC, UC; 3 = see Extended Transport Type (XRC). */
    public static final int TRANSPORT_RC = 0;
    public static final int TRANSPORT_UC = 1;
    public static final int TRANSPORT_EXTENDED = 3;
    public static final int EXTENDED_TRANSPORT_XRC = 1;

    public static final Layout LAYOUT = Layout.of("CmReq", 232,
            Field.of("localCommId", "LocalCommID", 0, 32),
            Field.of("serviceId", "ServiceID", 64, 64),
            Field.of("localCaGuid", "LocalCAGUID", 128, 64),
            Field.of("localQkey", "LocalQKey", 224, 32),
            Field.of("localQpn", "LocalQPN", 256, 24),
            Field.of("responderResources", "ResponderResources", 280, 8),
            Field.of("localEecn", "LocalEECN", 288, 24),
            Field.of("initiatorDepth", "InitiatorDepth", 312, 8),
            Field.of("remoteEecn", "RemoteEECN", 320, 24),
            Field.of("remoteCmResponseTimeout", "RemoteCMResponseTimeout", 344, 5),
            Field.of("transportServiceType", "TransportServiceType", 349, 2),
            Field.of("flowControl", "EndToEndFlowControl", 351, 1),
            Field.of("startingPsn", "StartingPSN", 352, 24),
            Field.of("localCmResponseTimeout", "LocalCMResponseTimeout", 376, 5),
            Field.of("retryCount", "RetryCount", 381, 3),
            Field.of("pkey", "PartitionKey", 384, 16),
            Field.of("pathMtu", "PathPacketPayloadMTU", 400, 4),
            Field.of("rdcExists", "RDCExists", 404, 1),
            Field.of("rnrRetryCount", "RNRRetryCount", 405, 3),
            Field.of("maxCmRetries", "MaxCMRetries", 408, 4),
            Field.of("srq", "SRQ", 412, 1),
            Field.of("extendedTransportType", "ExtendedTransportType", 413, 3),
            Field.of("primaryLocalLid", "PrimaryLocalPortLID", 416, 16),
            Field.of("primaryRemoteLid", "PrimaryRemotePortLID", 432, 16),
            Field.of("primaryLocalGidPrefix", "PrimaryLocalPortGID", 448, 64),
            Field.of("primaryLocalGidInterface", "PrimaryLocalPortGIDInterface", 512, 64),
            Field.of("primaryRemoteGidPrefix", "PrimaryRemotePortGID", 576, 64),
            Field.of("primaryRemoteGidInterface", "PrimaryRemotePortGIDInterface", 640, 64),
            Field.of("primaryFlowLabel", "PrimaryFlowLabel", 704, 20),
            Field.of("primaryPacketRate", "PrimaryPacketRate", 730, 6),
            Field.of("primaryTrafficClass", "PrimaryTrafficClass", 736, 8),
            Field.of("primaryHopLimit", "PrimaryHopLimit", 744, 8),
            Field.of("primarySl", "PrimarySL", 752, 4),
            Field.of("primarySubnetLocal", "PrimarySubnetLocal", 756, 1),
            Field.of("primaryLocalAckTimeout", "PrimaryLocalACKTimeout", 760, 5),
            Field.of("alternateLocalLid", "AlternateLocalPortLID", 768, 16),
            Field.of("alternateRemoteLid", "AlternateRemotePortLID", 784, 16),
            Field.of("alternateLocalGidPrefix", "AlternateLocalPortGID", 800, 64),
            Field.of("alternateLocalGidInterface", "AlternateLocalPortGIDInterface", 864, 64),
            Field.of("alternateRemoteGidPrefix", "AlternateRemotePortGID", 928, 64),
            Field.of("alternateRemoteGidInterface", "AlternateRemotePortGIDInterface", 992, 64),
            Field.of("alternateFlowLabel", "AlternateFlowLabel", 1056, 20),
            Field.of("alternatePacketRate", "AlternatePacketRate", 1082, 6),
            Field.of("alternateTrafficClass", "AlternateTrafficClass", 1088, 8),
            Field.of("alternateHopLimit", "AlternateHopLimit", 1096, 8),
            Field.of("alternateSl", "AlternateSL", 1104, 4),
            Field.of("alternateSubnetLocal", "AlternateSubnetLocal", 1108, 1),
            Field.of("alternateLocalAckTimeout", "AlternateLocalACKTimeout", 1112, 5),
            Field.of("sapSupported", "SAPSupported", 1117, 1),
            Field.text("privateData", "PrivateData", 1120, PRIVATE_DATA_SIZE * 8));
    public static final RecordCodec<CmReq> CODEC = RecordCodec.of(CmReq.class, LAYOUT);

    public CmReq {
        privateData = privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    public static CmReq decode(byte[] mad) {
        return CODEC.decode(mad, CmAttribute.DATA_OFFSET);
    }

    public void encode(byte[] mad) {
        CODEC.encode(this, mad, CmAttribute.DATA_OFFSET);
    }
}
