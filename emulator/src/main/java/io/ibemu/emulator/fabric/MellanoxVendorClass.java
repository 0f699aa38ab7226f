package io.ibemu.emulator.fabric;

import static java.util.Map.entry;

import io.ibemu.emulator.mad.ClassPortInfo;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadStatus;
import io.ibemu.emulator.mad.MellanoxAttribute;
import io.ibemu.emulator.mad.MellanoxGeneralInfo;
import io.ibemu.emulator.mad.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

/**
 * The Mellanox vendor-specific class 0x0A as a node with Mellanox firmware answers it, for what
 * vendstat -N reads: ClassPortInfo (a class's required attribute) and GeneralInfo, filled from the
 * node's identity. Other attributes of the class (config space access, counter groups) answer
 * 0x0c; nodes of other vendors leave the class to the MAD layer, which answers 0x0c too.
 */
final class MellanoxVendorClass {
    private static final int DATA = MellanoxAttribute.DATA_OFFSET;
    private static final int RESP_TIME_VALUE = 18;

    /** Firmware major version by device id: the product line's firmware family (fw-ConnectX6 is 20.x, ...). */
    private static final Map<Integer, Integer> FIRMWARE_MAJOR = Map.ofEntries(
            entry(0x1003, 2), entry(0x1007, 2), // ConnectX-3, ConnectX-3 Pro
            entry(0x1011, 10), // Connect-IB
            entry(0x1013, 12), entry(0x1015, 14), // ConnectX-4, ConnectX-4 Lx
            entry(0x1017, 16), entry(0x1019, 16), // ConnectX-5, ConnectX-5 Ex
            entry(0x101b, 20), entry(0x101d, 22), entry(0x1021, 28), // ConnectX-6, -6 Dx, -7
            entry(0xc738, 9), entry(0xcb20, 11), entry(0xcf08, 15), // SwitchX, Switch-IB, Switch-IB 2
            entry(0xd2f0, 27), entry(0xd2f2, 31)); // Quantum, Quantum-2

    /** Handles a Get of one attribute into the response; returns a MAD status. */
    @FunctionalInterface
    interface Get {
        int get(Node node, int attributeModifier, byte[] response);
    }

    static final Map<Integer, Get> ATTRIBUTES = Map.of(
            MellanoxAttribute.CLASS_PORT_INFO, MellanoxVendorClass::classPortInfo,
            MellanoxAttribute.GENERAL_INFO, MellanoxVendorClass::generalInfo);

    private MellanoxVendorClass() {
    }

    static Optional<byte[]> process(Node node, int inPort, byte[] request) {
        if (!MellanoxAttribute.isMellanoxFirmware(node.vendorId())) {
            return Optional.empty();
        }
        int method = Mad.method(request);
        byte[] response = Arrays.copyOf(request, Mad.SIZE);
        if (method != Method.GET && method != Method.SET) {
            if (Method.isResponse(method) || method == Method.TRAP) {
                return Optional.empty();
            }
            return Optional.of(reply(response, MadStatus.UNSUPPORTED_METHOD));
        }
        if (Mad.classVersion(request) != MellanoxAttribute.CLASS_VERSION) {
            return Optional.of(reply(response, MadStatus.BAD_VERSION));
        }
        Get a = ATTRIBUTES.get(Mad.attributeId(request));
        if (a == null || method == Method.SET) {
            return Optional.of(reply(response, MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE));
        }
        Arrays.fill(response, DATA, Mad.SIZE, (byte) 0);
        return Optional.of(reply(response, a.get(node, Mad.attributeModifier(request), response)));
    }

    private static byte[] reply(byte[] response, int status) {
        if (status != MadStatus.SUCCESS) {
            Arrays.fill(response, DATA, Mad.SIZE, (byte) 0);
        }
        Mad.setMethod(response, Method.GET_RESP);
        Mad.setStatus(response, status);
        return response;
    }

    private static int classPortInfo(Node node, int attributeModifier, byte[] response) {
        if (attributeModifier != 0) {
            return MadStatus.INVALID_FIELD;
        }
        new ClassPortInfo(Mad.BASE_VERSION, MellanoxAttribute.CLASS_VERSION, 0, 0, RESP_TIME_VALUE,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0).encode(response, DATA);
        return MadStatus.SUCCESS;
    }

    /**
     * GeneralInfo from the node's identity: its device id and revision, the firmware family of the
     * device id (minor versions, build and PSID are not in a topology: zero and empty), and the
     * seconds since the fabric brought the node up.
     */
    private static int generalInfo(Node node, int attributeModifier, byte[] response) {
        if (attributeModifier != 0) {
            return MadStatus.INVALID_FIELD;
        }
        int major = FIRMWARE_MAJOR.getOrDefault(node.deviceId(), 0);
        int uptime = (int) ((System.nanoTime() - node.upSinceNanos()) / 1_000_000_000L);
        new MellanoxGeneralInfo(node.revision() & 0xFFFF, node.deviceId(), uptime, major & 0xFF, 0, 0, 0, 0, 0, 0, 0,
                "", 0, major, 0, 0, 0, 0, 0).encode(response, DATA);
        return MadStatus.SUCCESS;
    }
}
