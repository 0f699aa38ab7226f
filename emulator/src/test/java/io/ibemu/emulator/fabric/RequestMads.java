package io.ibemu.emulator.fabric;

import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.Smp;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/** Request MADs as bytes, the way a umad client writes them. */
final class RequestMads {
    static final long TID = 0x1234_5678_9ABCL;

    private RequestMads() {
    }

    /** A directed-route SMP from the local port (hop count 0, permissive DR LIDs), or LID-routed. */
    static byte[] smp(boolean directed, int method, int attributeId, int attributeModifier) {
        byte[] mad = new byte[Mad.SIZE];
        List<Integer> path = Collections.nCopies(Smp.PATH_HOPS, 0);
        new Smp(1, directed ? MgmtClass.SUBN_DIRECTED_ROUTE : MgmtClass.SUBN_LID_ROUTED, 1, method, false, 0, 0, 0,
                TID, attributeId, attributeModifier, 0, directed ? 0xFFFF : 0, directed ? 0xFFFF : 0, path, path)
                .encode(mad);
        return mad;
    }

    static byte[] dr(int method, int attributeId, int attributeModifier) {
        return smp(true, method, attributeId, attributeModifier);
    }

    static byte[] perf(int method, int attributeId, int attributeModifier) {
        byte[] mad = new byte[Mad.SIZE];
        mad[0] = 1;
        mad[1] = (byte) MgmtClass.PERF;
        mad[2] = 1;
        mad[3] = (byte) method;
        mad[15] = 7;
        mad[16] = (byte) (attributeId >> 8);
        mad[17] = (byte) attributeId;
        mad[20] = (byte) (attributeModifier >>> 24);
        mad[23] = (byte) attributeModifier;
        return mad;
    }

    static Optional<byte[]> process(Node node, int port, byte[] mad) {
        synchronized (node.fabric().lock()) {
            return node.process(port, mad);
        }
    }

    /** The response, which must be there and be a full MAD. */
    static byte[] answer(Node node, int port, byte[] mad) {
        byte[] r = process(node, port, mad).orElseThrow(() -> new AssertionError("no response"));
        if (r.length != Mad.SIZE) {
            throw new AssertionError("response of " + r.length + " bytes");
        }
        return r;
    }
}
