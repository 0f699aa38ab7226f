package io.ibemu.emulator.mad;

/** NodeInfo (IBA 14.2.5.3, ib_types.h ib_node_info_t): 40 bytes. */
public record NodeInfo(int baseVersion, int classVersion, int nodeType, int numberOfPorts, long systemImageGuid,
                       long nodeGuid, long portGuid, int partitionCap, int deviceId, int revision,
                       int localPortNumber, int vendorId) {
    public static final Layout LAYOUT = Layout.of("NodeInfo", 40,
            Field.of("baseVersion", "BaseVers", 0, 8),
            Field.of("classVersion", "ClassVers", 8, 8),
            Field.of("nodeType", "NodeType", 16, 8),
            Field.of("numberOfPorts", "NumPorts", 24, 8),
            Field.of("systemImageGuid", "SystemGuid", 32, 64),
            Field.of("nodeGuid", "Guid", 96, 64),
            Field.of("portGuid", "PortGuid", 160, 64),
            Field.of("partitionCap", "PartCap", 224, 16),
            Field.of("deviceId", "DevId", 240, 16),
            Field.of("revision", "Revision", 256, 32),
            Field.of("localPortNumber", "LocalPort", 288, 8),
            Field.of("vendorId", "VendorId", 296, 24));
    public static final RecordCodec<NodeInfo> CODEC = RecordCodec.of(NodeInfo.class, LAYOUT);

    public static NodeInfo decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
