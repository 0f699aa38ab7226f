package io.ibemu.emulator.agent;

/**
 * A MAD (or a reassembled RMPP message) as an agent receives it: ib_mad_recv_wc. The message is
 * the first 256-byte segment followed by the payload of every later segment, so its length is
 * the kernel's {@code mad_len}.
 */
public record ReceivedMad(byte[] message, int slid, int sl, int pathBits, int srcQp, int pkeyIndex) {
}
