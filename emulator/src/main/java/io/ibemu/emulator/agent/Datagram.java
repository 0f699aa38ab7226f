package io.ibemu.emulator.agent;

import io.ibemu.emulator.fabric.BthOpcode;
import io.ibemu.emulator.fabric.LinkPacket;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.mad.Mad;
import java.nio.ByteBuffer;

/** One MAD on the wire: a UD packet's addressing (LRH, BTH, DETH) and its 256-byte payload. */
public record Datagram(Port source, int slid, int dlid, int sl, int pathBits, int srcQp, int destQp,
                       int qkey, int pkey, byte[] mad) {

    /**
     * The packet as it crosses a cable now (the MAD copied: a directed route's hop pointer moves
     * on): UD SEND only, SMPs on VL15 (IBA 7.6.5), a P_Key of 0 on QP0 sent as the default one.
     */
    LinkPacket onTheWire() {
        boolean smp = Mad.isSmp(mad);
        return LinkPacket.builder(BthOpcode.UD_SEND_ONLY)
                .lrh(smp ? LinkPacket.VL15 : 0, sl, slid, dlid)
                .bth(pkey == 0 ? 0xFFFF : pkey, destQp, 0, false, false)
                .deth(qkey, srcQp)
                .payload(ByteBuffer.wrap(mad.clone()))
                .build();
    }
}
