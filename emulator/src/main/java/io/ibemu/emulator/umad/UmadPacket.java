package io.ibemu.emulator.umad;

/**
 * struct ib_umad_packet: what waits in a file's receive queue — a received MAD (or whole RMPP
 * message) with the header the reader will get, or a send that timed out (its own header with
 * status ETIMEDOUT and the 24-byte MAD header).
 */
record UmadPacket(UmadHeader header, byte[] data, boolean received) {
}
