package io.ibemu.emulator.agent;

import io.ibemu.emulator.fabric.Port;

/** One MAD on the wire: a UD packet's addressing (LRH, BTH, DETH) and its 256-byte payload. */
public record Datagram(Port source, int slid, int dlid, int sl, int pathBits, int srcQp, int destQp,
                       int qkey, int pkey, byte[] mad) {
}
