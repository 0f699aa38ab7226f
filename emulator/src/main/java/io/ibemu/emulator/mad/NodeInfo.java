package io.ibemu.emulator.mad;

import java.util.Arrays;

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

    /**
     * Plain code for what every sweep reads and writes: the fields are still the ones
     * {@link #LAYOUT} declares, looked up once; {@code AttributeCodecTest} checks this against
     * {@link #CODEC}, the reflective codec, which stays for dumps and the other attributes.
     */
    private static final class F {
        static final Field BASE_VERSION = LAYOUT.field("baseVersion");
        static final Field CLASS_VERSION = LAYOUT.field("classVersion");
        static final Field NODE_TYPE = LAYOUT.field("nodeType");
        static final Field NUMBER_OF_PORTS = LAYOUT.field("numberOfPorts");
        static final Field SYSTEM_IMAGE_GUID = LAYOUT.field("systemImageGuid");
        static final Field NODE_GUID = LAYOUT.field("nodeGuid");
        static final Field PORT_GUID = LAYOUT.field("portGuid");
        static final Field PARTITION_CAP = LAYOUT.field("partitionCap");
        static final Field DEVICE_ID = LAYOUT.field("deviceId");
        static final Field REVISION = LAYOUT.field("revision");
        static final Field LOCAL_PORT_NUMBER = LAYOUT.field("localPortNumber");
        static final Field VENDOR_ID = LAYOUT.field("vendorId");
    }

    public static NodeInfo decode(byte[] b, int offset) {
        return new NodeInfo(
                (int) F.BASE_VERSION.get(b, offset),
                (int) F.CLASS_VERSION.get(b, offset),
                (int) F.NODE_TYPE.get(b, offset),
                (int) F.NUMBER_OF_PORTS.get(b, offset),
                F.SYSTEM_IMAGE_GUID.get(b, offset),
                F.NODE_GUID.get(b, offset),
                F.PORT_GUID.get(b, offset),
                (int) F.PARTITION_CAP.get(b, offset),
                (int) F.DEVICE_ID.get(b, offset),
                (int) F.REVISION.get(b, offset),
                (int) F.LOCAL_PORT_NUMBER.get(b, offset),
                (int) F.VENDOR_ID.get(b, offset));
    }

    /** Writes this at {@code offset}, reserved bits zero. */
    public void encode(byte[] b, int offset) {
        Arrays.fill(b, offset, offset + LAYOUT.sizeBytes(), (byte) 0);
        F.BASE_VERSION.set(b, offset, baseVersion & 0xFFFFFFFFL);
        F.CLASS_VERSION.set(b, offset, classVersion & 0xFFFFFFFFL);
        F.NODE_TYPE.set(b, offset, nodeType & 0xFFFFFFFFL);
        F.NUMBER_OF_PORTS.set(b, offset, numberOfPorts & 0xFFFFFFFFL);
        F.SYSTEM_IMAGE_GUID.set(b, offset, systemImageGuid);
        F.NODE_GUID.set(b, offset, nodeGuid);
        F.PORT_GUID.set(b, offset, portGuid);
        F.PARTITION_CAP.set(b, offset, partitionCap & 0xFFFFFFFFL);
        F.DEVICE_ID.set(b, offset, deviceId & 0xFFFFFFFFL);
        F.REVISION.set(b, offset, revision & 0xFFFFFFFFL);
        F.LOCAL_PORT_NUMBER.set(b, offset, localPortNumber & 0xFFFFFFFFL);
        F.VENDOR_ID.set(b, offset, vendorId & 0xFFFFFFFFL);
    }
}
